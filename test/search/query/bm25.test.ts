import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { avgFieldLength, bm25, float32ForJson, idf, normInverseCache, termWeight } from '../../../src/search/query/bm25.js';
import { byte4ToInt, intToByte4 } from '../../../src/search/index/norms.js';

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

describe('float32ForJson', () => {
  // The digits one at a time, as Java's Float.toString finds the shortest: the reference.
  const reference = (x: number): number => {
    const fx = Math.fround(x);
    for (let p = 1; p <= 9; p++) {
      const c = Number(fx.toPrecision(p));
      if (Math.fround(c) === fx) return c;
    }
    return fx;
  };
  const fromBits = (bits: number): number => new Float32Array(new Uint32Array([bits]).buffer)[0] as number;

  it('gives the shortest read-back decimal for any float32 (bit patterns of every exponent)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0x7f7fffff }), fc.boolean(), (bits, negative) => {
        const x = fromBits(bits) * (negative ? -1 : 1);
        expect(Object.is(float32ForJson(x), reference(x))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('agrees on scores, powers of two and their neighbours, integers and decimal edges', () => {
    const values: number[] = [];
    for (let e = -30; e <= 30; e++) for (const d of [-2, -1, 0, 1, 2]) values.push(fromBits(((e + 127) << 23) + d));
    for (let i = 1; i < 5000; i++) values.push(i, i / 10, i / 1000, Math.fround(Math.log(1 + i)), 2 ** 21 - i, 2 ** 21 + i);
    for (const x of values) expect(float32ForJson(x)).toBe(reference(x));
  });

  // float32ForJson rounds x * 10^k to an integer itself and asks toPrecision only near a half:
  // runs of consecutive floats cross many roundings, the edges of the powers of ten and ties.
  it('agrees on runs of consecutive floats around scores, powers of ten and subnormal powers of two', () => {
    const bitsOf = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0] as number;
    for (const base of [0.001, 0.01, 0.1, 0.5, 1, 2.5, 3.1415927, 9.999999, 10, 99.99999, 100, 1e4, 1e6, 2 ** 21 - 1]) {
      const b = bitsOf(base);
      for (let d = -3000; d <= 3000; d++) {
        const x = fromBits(b + d);
        expect({ base, d, out: float32ForJson(x) }).toEqual({ base, d, out: reference(x) });
      }
    }
    for (let bit = 0; bit < 23; bit++) for (const d of [-1, 0, 1]) {
      const x = fromBits((1 << bit) + d);
      if (x > 0) expect(float32ForJson(x)).toBe(reference(x));
    }
  });
});
