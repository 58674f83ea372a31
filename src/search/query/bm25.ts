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
 * Other values take the digits one at a time.
 */
export function float32ForJson(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const fx = f(x);
  if (fx < 0 || fx >= 2 ** 21 || isPowerOfTwo(fx)) return shortestByScan(fx);
  // Scores mostly need 8 or 9 digits: 8 first, then 9 or 7, then a bisection below 7.
  const eight = Number(fx.toPrecision(8));
  if (f(eight) !== fx) {
    const nine = Number(fx.toPrecision(9));
    return f(nine) === fx ? nine : fx;
  }
  const seven = Number(fx.toPrecision(7));
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

function shortestByScan(fx: number): number {
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(fx.toPrecision(p));
    if (f(candidate) === fx) return candidate;
  }
  return fx;
}

/** Whether positive x is 2^k (Math.log2 may be off by one ulp, so the neighbours are tried). */
function isPowerOfTwo(x: number): boolean {
  const e = Math.floor(Math.log2(x));
  return x === 2 ** e || x === 2 ** (e + 1) || x === 2 ** (e - 1);
}
