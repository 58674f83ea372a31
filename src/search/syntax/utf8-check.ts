import { isUtf8 } from 'node:buffer';

/** Where a byte range stops being UTF-8, and Jackson's words for it. */
export interface Utf8Problem {
  /** Offset of the offending byte in the buffer. */
  readonly offset: number;
  /** Jackson's message: `Invalid UTF-8 start byte 0xff`, `Invalid UTF-8 middle byte 0x28`. */
  readonly message: string;
  /** Line (1-based) and column as Jackson reports them for a byte source (the column one past the byte). */
  readonly line: number;
  readonly col: number;
}

const hex = (b: number) => `0x${b.toString(16).padStart(2, '0')}`;

/** The length of the sequence a lead byte starts, and the range its second byte must be in (no overlongs, surrogates or code points past U+10FFFF). */
function sequence(lead: number): [number, number, number] | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  return undefined;
}

/** The first byte of `buf[start, end)` that is not well-formed UTF-8, found by the byte loop. */
function firstBadByte(buf: Uint8Array, start: number, end: number): { offset: number; message: string } {
  let i = start;
  while (i < end) {
    const b = buf[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    const seq = sequence(b);
    if (seq === undefined) return { offset: i, message: `Invalid UTF-8 start byte ${hex(b)}` };
    const [len, lo, hi] = seq;
    for (let k = 1; k < len; k++) {
      if (i + k >= end) return { offset: i + k, message: 'Unexpected end-of-input in a UTF-8 sequence' };
      const c = buf[i + k] as number;
      const ok = k === 1 ? c >= lo && c <= hi : (c & 0xc0) === 0x80;
      if (!ok) return { offset: i + k, message: `Invalid UTF-8 middle byte ${hex(c)}` };
    }
    i += len;
  }
  return { offset: end, message: 'Invalid UTF-8' };
}

/**
 * Undefined when `buf[start, end)` is well-formed UTF-8 (checked at native speed), else where and
 * why it is not, as Elasticsearch's JSON parser (Jackson) says it, with its line and column.
 * Unlike Jackson, UTF-8-encoded surrogates (CESU-8) and overlong forms are refused too: they have
 * no faithful JavaScript string, and storing them as U+FFFD would change the document.
 */
export function utf8Problem(buf: Uint8Array, start = 0, end = buf.length): Utf8Problem | undefined {
  if (isUtf8(buf.subarray(start, end))) return undefined;
  const { offset, message } = firstBadByte(buf, start, end);
  let line = 1;
  let lineStart = start;
  for (let i = start; i < offset; i++) {
    if (buf[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, message, line, col: offset - lineStart + 2 };
}
