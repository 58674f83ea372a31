/**
 * Slices of a scroll or point in time (`"slice": {"id": 0, "max": 2}`), split as ES's
 * TermsSliceQuery splits them on `_id`: a document is in slice `floorMod(murmur3_x86_32(uid, 7919),
 * max)`, where uid is the id's bytes as Lucene indexes `_id` (Uid.encodeId: digits packed two to a
 * byte, URL-safe base64 decoded, anything else UTF-8, each with its marker byte). With one shard
 * per index, a shard's slice is the request's own (ES splits `max` across shards first). Every
 * document is in exactly one slice, so the slices are disjoint and their union is the whole.
 */

/** TermsSliceQuery's seed. */
const SEED = 7919;

const NUMERIC = 0xfe;
const BASE64_ESCAPE = 0xfd;
const UTF8 = 0xff;

const BASE64_URL = /^[A-Za-z0-9_-]*$/;
const BASE64_VALUE = (c: string): number => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(c);

function isUrlBase64WithoutPadding(id: string): boolean {
  const n = id.length;
  // 1 symbol encodes no whole byte; 2 (3) symbols must leave their last 4 (2) bits zero, so that
  // decoding and encoding again gives the same id.
  if ((n & 3) === 1) return false;
  if (!BASE64_URL.test(id)) return false;
  if ((n & 3) === 2 && (BASE64_VALUE(id[n - 1] as string) & 0x0f) !== 0) return false;
  if ((n & 3) === 3 && (BASE64_VALUE(id[n - 1] as string) & 0x03) !== 0) return false;
  return true;
}

/** The bytes of `_id` as Lucene indexes it (ES's Uid.encodeId). */
export function encodeId(id: string): Uint8Array {
  if (/^[0-9]+$/.test(id)) {
    const out = new Uint8Array(1 + ((id.length + 1) >> 1));
    out[0] = NUMERIC;
    for (let i = 0; i < id.length; i += 2) {
      const hi = id.charCodeAt(i) - 48;
      const lo = i + 1 === id.length ? 0x0f : id.charCodeAt(i + 1) - 48;
      out[1 + (i >> 1)] = (hi << 4) | lo;
    }
    return out;
  }
  if (id !== '' && isUrlBase64WithoutPadding(id)) {
    const bytes = Buffer.from(id, 'base64url');
    if ((bytes[0] as number) < BASE64_ESCAPE) return bytes;
    const out = new Uint8Array(bytes.length + 1);
    out[0] = BASE64_ESCAPE;
    out.set(bytes, 1);
    return out;
  }
  const utf8 = Buffer.from(id, 'utf8');
  const out = new Uint8Array(utf8.length + 1);
  out[0] = UTF8;
  out.set(utf8, 1);
  return out;
}

/** Lucene's StringHelper.murmurhash3_x86_32 (MurmurHash3, 32-bit, x86 variant). */
export function murmur3x86_32(data: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h1 = seed | 0;
  const blocks = data.length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k1 = (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  let k1 = 0;
  const tail = data.length & 3;
  if (tail === 3) k1 = ((data[blocks + 2] as number) & 0xff) << 16;
  if (tail >= 2) k1 |= ((data[blocks + 1] as number) & 0xff) << 8;
  if (tail >= 1) {
    k1 |= (data[blocks] as number) & 0xff;
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
  }
  h1 ^= data.length;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 | 0;
}

/** The slice (0 ≤ slice < max) the document with this `_id` belongs to. */
export function sliceOf(id: string, max: number): number {
  const h = murmur3x86_32(encodeId(id), SEED);
  return ((h % max) + max) % max;
}
