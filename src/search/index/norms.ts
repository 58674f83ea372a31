/**
 * Field-length norms as Lucene stores them: one byte per document (SmallFloat's intToByte4),
 * decoded with byte4ToInt, so long fields get an approximate length like in Lucene. The index
 * writes them (text-field.ts); BM25 reads them through LENGTH_TABLE (query/bm25.ts).
 */

// SmallFloat: the first 24 byte values hold lengths exactly; above that, 4 significant bits.
const NUM_FREE_VALUES = 255 - 231; // 255 - longToInt4(Integer.MAX_VALUE)
/** SmallFloat.longToInt4 for non-negative 31-bit values. */
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i; // subnormal
  const shift = numBits - 4;
  let encoded = Math.floor(i / 2 ** shift) & 0x07; // drop the implicit bit
  encoded |= (shift + 1) << 3;
  return encoded;
}

/** SmallFloat.int4ToLong. */
function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  if (shift === -1) return bits; // subnormal
  return (bits | 0x08) * 2 ** shift;
}

/** SmallFloat.intToByte4: the one-byte norm Lucene stores for a field length (number of tokens). */
export function intToByte4(i: number): number {
  if (i < 0) throw new RangeError(`field length ${i} is negative`);
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + longToInt4(i - NUM_FREE_VALUES);
}

/** SmallFloat.byte4ToInt: the (approximate) field length a norm byte stands for. */
export function byte4ToInt(b: number): number {
  const i = b & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES);
}

/** Lengths decoded from every norm byte (Lucene's LENGTH_TABLE). */
export const LENGTH_TABLE: readonly number[] = Array.from({ length: 256 }, (_, i) => byte4ToInt(i));
