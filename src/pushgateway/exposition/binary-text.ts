import { isUtf8 } from 'node:buffer';

/**
 * Binary strings (one char per byte, 0-255) are how the push gateway holds bytes that are not yet
 * known to be UTF-8: a text body that is not valid UTF-8 is parsed in byte mode, and a grouping
 * key's base64 label values decode to bytes. Go keeps such bytes as they are and refuses them later
 * where text is required; these functions decode them to JavaScript text for those checks.
 */

/**
 * The UTF-8 text a binary string's bytes encode, or undefined when they are not valid UTF-8. An
 * all-ASCII string is its own text and is returned as it is, without a copy (the common case).
 */
export function utf8OfBinary(bin: string): string | undefined {
  for (let i = 0; i < bin.length; i++) {
    if (bin.charCodeAt(i) >= 0x80) {
      const bytes = binaryBytes(bin);
      return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
    }
  }
  return bin;
}

/** The bytes of a binary string (for Go's `%q` of them in an error message). */
export function binaryBytes(bin: string): Buffer {
  return Buffer.from(bin, 'latin1');
}
