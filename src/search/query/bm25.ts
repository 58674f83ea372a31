/**
 * BM25 exactly as Lucene ≥ 8 computes it (BM25Similarity, k1 = 1.2, b = 0.75, no (k1 + 1) factor),
 * in float32 arithmetic so that scores agree with Elasticsearch to the last bit on a one-shard
 * index. Every intermediate value is rounded with Math.fround where Java would hold a `float`.
 *
 * Field lengths come from the index's norms (index/norms.ts): one byte per document, as Lucene
 * stores them, so long fields get an approximate length like in Lucene.
 */

import { LENGTH_TABLE } from '../index/norms.js';

const f = Math.fround;

/** BM25 parameters (Elasticsearch's defaults). */
export const K1 = f(1.2);
export const B = f(0.75);

/** Lucene's BM25 idf: ln(1 + (N - n + 0.5) / (n + 0.5)), computed in double, returned as float. */
export function idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** Average field length as Lucene computes it: (float) (sumTotalTermFreq / (double) docCount). */
export function avgFieldLength(sumTotalTermFreq: number, docCount: number): number {
  return docCount === 0 ? 1 : f(sumTotalTermFreq / docCount);
}

/**
 * The per-query cache of 1 / (k1 * ((1 - b) + b * dl / avgdl)) for every norm byte, as in
 * BM25Similarity.scorer.
 */
export function normInverseCache(avgdl: number): Float32Array {
  const cache = new Float32Array(256);
  const oneMinusB = f(1 - B);
  for (let i = 0; i < 256; i++) {
    const dl = LENGTH_TABLE[i] as number;
    cache[i] = f(1 / f(K1 * f(oneMinusB + f(f(B * dl) / avgdl))));
  }
  return cache;
}

/** weight = boost * idf, as a float. */
export function termWeight(boost: number, idfValue: number): number {
  return f(f(boost) * idfValue);
}

/** BM25Scorer.score: weight - weight / (1 + freq * normInverse), all float. */
export function bm25(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(freq * normInverse))));
}

/**
 * Shortest decimal that reads back as the same float32, like Java's Float.toString, returned as a
 * JS number so JSON.stringify prints it that way (0.13076457, not 0.13076457381248474).
 *
 * Each try is a toPrecision, the costly part: trying 1, 2, … 9 digits in turn took 7 to 9 of them
 * for a typical score (about 2.4 µs, a 10-hit page spent as much on its 11 scores as on rendering
 * the rest). So the digit count is searched (8, then 9 or 7, then bisected) where reading back is
 * monotone in it: x rounded to p digits is also a (p+1)-digit decimal, so the nearest (p+1)-digit
 * decimal is at least as close to x, and it reads back whenever the p-digit one does as long as
 * x's rounding interval is symmetric (x not a power of two) and no decimal of at most 9 digits
 * lies exactly on its edge (for 0 < x < 2^21 the midpoints between floats need 10 digits or more).
 * Other values take the digits one at a time. The 7-, 8- and 9-digit roundings of scores are
 * computed in double arithmetic (`rounded`), not read back from toPrecision's text: a third of the
 * function's time (test/search/query/bm25.test.ts compares it with the digit-by-digit reference).
 */
export function float32ForJson(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const fx = f(x);
  if (fx < 0 || fx >= 2 ** 21 || isPowerOfTwo(fx)) return shortestByScan(fx);
  // Scores mostly need 8 or 9 digits: 8 first, then 9 or 7, then a bisection below 7.
  const e = decimalExponent(fx);
  const eight = rounded(fx, 8, e);
  if (f(eight) !== fx) {
    const nine = rounded(fx, 9, e);
    return f(nine) === fx ? nine : fx;
  }
  const seven = rounded(fx, 7, e);
  if (f(seven) !== fx) return eight;
  let lo = 1;
  let hi = 7;
  let found = seven;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const candidate = Number(fx.toPrecision(mid));
    if (f(candidate) === fx) {
      hi = mid;
      found = candidate;
    } else lo = mid + 1;
  }
  return found;
}

/** floor(log10(x)) for positive finite x, checked against the powers of ten (Math.log10 may be off by one near them). */
function decimalExponent(x: number): number {
  // Scores lie within a few powers of ten of 1: a walk along the table from 10^0.
  if (x >= 1e-20 && x < 1e22) {
    let e = 0;
    while ((POWERS_OF_TEN[e + 23] as number) <= x) e++;
    while ((POWERS_OF_TEN[e + 22] as number) > x) e--;
    return e;
  }
  let e = Math.floor(Math.log10(x));
  if (10 ** e > x) e--;
  else if (10 ** (e + 1) <= x) e++;
  return e;
}

const POWERS_OF_TEN = Float64Array.from({ length: 45 }, (_, i) => 10 ** (i - 22));

/**
 * Number(x.toPrecision(p)) for positive x with decimal exponent `e`, without the text: the p-digit
 * integer n nearest to x * 10^k (k = p - 1 - e; ties away from zero, as toPrecision rounds), then
 * n / 10^k, which is the double that reading the decimal back gives (both exact operands, one
 * correctly rounded division, as the parse is correctly rounded). x * 10^k is a double product,
 * within 2^-53 of the exact one relative: where its fraction is within 1e-6 of a half (the product
 * is below 10^9, so its error is below 1.2e-7), or 10^k is not exact (k outside 0..22), the
 * digits are asked of toPrecision. About a tenth of the cost of toPrecision and Number.
 */
function rounded(x: number, p: number, e: number): number {
  const k = p - 1 - e;
  if (k < 0 || k > 22) return Number(x.toPrecision(p));
  const scale = POWERS_OF_TEN[k + 22] as number;
  const product = x * scale;
  const floor = Math.floor(product);
  const frac = product - floor;
  if (Math.abs(frac - 0.5) < 1e-6) return Number(x.toPrecision(p));
  return (frac > 0.5 ? floor + 1 : floor) / scale;
}

function shortestByScan(fx: number): number {
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(fx.toPrecision(p));
    if (f(candidate) === fx) return candidate;
  }
  return fx;
}

/** Whether positive float32 x is 2^k: no fraction bits (normal), or a single one (subnormal). */
function isPowerOfTwo(x: number): boolean {
  FLOAT_BITS[0] = x;
  const bits = FLOAT_BITS_U32[0] as number;
  const fraction = bits & 0x7fffff;
  return (bits & 0x7f800000) !== 0 ? fraction === 0 : (fraction & (fraction - 1)) === 0;
}

const FLOAT_BITS = new Float32Array(1);
const FLOAT_BITS_U32 = new Uint32Array(FLOAT_BITS.buffer);
