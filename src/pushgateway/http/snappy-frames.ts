/**
 * Push bodies sent with `Content-Encoding: snappy`: the snappy framing format (a stream
 * identifier chunk, then compressed or uncompressed data chunks of at most 64 KiB, each with a
 * masked CRC-32C of its data), which Pushgateway (1.6 and later) reads with golang/snappy's
 * Reader. The blocks are decoded by snappyjs; the framing and its checks are read here as that
 * Reader reads them, so that a damaged body gets the same verdict: everything wrong is
 * `snappy: corrupt input`, except a chunk longer than the Reader's buffer or a reserved
 * unskippable chunk type, which are `snappy: unsupported input`.
 *
 * Pushgateway decodes while its parser reads, so a damaged chunk is only noticed when the parser
 * asks for its bytes: the decoder returns the data of the chunks before the damage with the error,
 * and the push route decides which comes first (routes/push.ts).
 */
import snappy from 'snappyjs';
import { GatewayError, bodyTooLarge } from '../errors.js';

const MAX_BLOCK = 65_536;
/** golang/snappy's Reader buffer: the largest encoded block (32 + n + n/6) plus the checksum. */
const MAX_CHUNK = 32 + MAX_BLOCK + Math.floor(MAX_BLOCK / 6) + 4;
const MAGIC = Buffer.from('sNaPpY', 'latin1');

export function snappyCorrupt(): GatewayError {
  return new GatewayError('bad_snappy', 400, 'snappy: corrupt input');
}

function snappyUnsupported(): GatewayError {
  return new GatewayError('bad_snappy', 400, 'snappy: unsupported input');
}

let crcTable: Uint32Array | undefined;

/** CRC-32C (Castagnoli), as the framing format checksums data. */
export function crc32c(data: Uint8Array): number {
  const table = (crcTable ??= (() => {
    const t = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      t[i] = c >>> 0;
    }
    return t;
  })());
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = (table[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The framing format's masked checksum of `data`. */
export function maskedCrc(data: Uint8Array): number {
  const c = crc32c(data);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** The decoded bytes before the first damaged chunk, and the error that chunk gives (if any). */
export interface SnappyBody {
  readonly data: Buffer;
  readonly error: GatewayError | undefined;
}

function decodeBlock(block: Uint8Array): Uint8Array | undefined {
  try {
    const out = snappy.uncompress(block, MAX_BLOCK);
    return out;
  } catch {
    return undefined;
  }
}

/**
 * Decodes a framed snappy body. A body that ends cleanly at a chunk boundary (also an empty one)
 * has no error.
 *
 * @throws GatewayError 413 when the decoded bytes pass `limit`.
 */
export function decodeSnappyFrames(framed: Uint8Array, limit: number): SnappyBody {
  const parts: Uint8Array[] = [];
  let size = 0;
  let pos = 0;
  let sawHeader = false;
  const result = (error: GatewayError | undefined): SnappyBody => ({ data: Buffer.concat(parts, size), error });
  while (pos < framed.length) {
    if (framed.length - pos < 4) return result(snappyCorrupt());
    const type = framed[pos] as number;
    const length = (framed[pos + 1] as number) | ((framed[pos + 2] as number) << 8) | ((framed[pos + 3] as number) << 16);
    pos += 4;
    if (!sawHeader && type !== 0xff) return result(snappyCorrupt());
    sawHeader = true;
    if (length > MAX_CHUNK) return result(snappyUnsupported());
    if ((type === 0x00 || type === 0x01) && length < 4) return result(snappyCorrupt());
    if (type === 0xff && length !== MAGIC.length) return result(snappyCorrupt());
    if (type >= 0x02 && type <= 0x7f) return result(snappyUnsupported());
    // A chunk cut short: the Reader's ReadFull fails, which it reports as corrupt input.
    if (framed.length - pos < length) return result(snappyCorrupt());
    const chunk = framed.subarray(pos, pos + length);
    pos += length;
    if (type === 0xff) {
      if (!MAGIC.equals(chunk)) return result(snappyCorrupt());
      continue;
    }
    if (type >= 0x80) continue; // skippable (0xfe is padding)
    const checksum = ((chunk[0] as number) | ((chunk[1] as number) << 8) | ((chunk[2] as number) << 16) | ((chunk[3] as number) << 24)) >>> 0;
    const data = type === 0x00 ? decodeBlock(chunk.subarray(4)) : chunk.subarray(4);
    if (data === undefined || data.length > MAX_BLOCK || maskedCrc(data) !== checksum) return result(snappyCorrupt());
    size += data.length;
    if (size > limit) throw bodyTooLarge(limit);
    parts.push(data);
  }
  return result(undefined);
}
