import { describe, expect, it } from 'vitest';
import { avgFieldLength, bm25, byte4ToInt, float32ForJson, idf, intToByte4, normInverseCache, termWeight } from '../../src/search/bm25.js';

describe('Lucene BM25', () => {
  it('matches the reference vectors (one doc {"foo":"bar"}: 0.13076457; N=2, n=1: 0.31506687)', () => {
    const cache = normInverseCache(avgFieldLength(1, 1));
    expect(float32ForJson(idf(1, 1))).toBe(0.2876821);
    expect(float32ForJson(bm25(termWeight(1, idf(1, 1)), 1, cache[intToByte4(1)] as number))).toBe(0.13076457);
    const cache2 = normInverseCache(avgFieldLength(2, 2));
    expect(float32ForJson(bm25(termWeight(1, idf(1, 2)), 1, cache2[1] as number))).toBe(0.31506687);
  });

  it('encodes field lengths like SmallFloat.intToByte4 (exact below 40, 4 significant bits above)', () => {
    for (let i = 0; i < 40; i++) expect(byte4ToInt(intToByte4(i))).toBe(i);
    expect(intToByte4(41)).toBe(40);
    expect(byte4ToInt(intToByte4(100))).toBe(96);
    expect(byte4ToInt(intToByte4(1000))).toBe(984);
    let prev = -1;
    for (let b = 0; b < 256; b++) {
      const v = byte4ToInt(b);
      expect(v).toBeGreaterThan(prev);
      prev = v;
    }
  });

  it('prints float32 values with the shortest round-trip text, like Float.toString', () => {
    expect(float32ForJson(Math.fround(0.1))).toBe(0.1);
    expect(float32ForJson(1)).toBe(1);
    expect(float32ForJson(0)).toBe(0);
  });
});
