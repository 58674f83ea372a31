import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byScore, selectWindow, selectWindowByScore } from '../../../src/search/query/top-k.js';

describe('selectWindow', () => {
  it('returns exactly the window of the fully sorted order, for heap and quickselect paths', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3000 }),
        fc.nat(3000),
        fc.integer({ min: 1, max: 700 }),
        (raw, from, size) => {
          const n = raw.length;
          const docs = Int32Array.from(raw, (_, i) => i);
          const scores = Float32Array.from(raw, (s) => s / 3);
          const before = byScore(docs, scores);
          const full = Array.from(docs.keys()).sort((a, b) => (before(a, b) ? -1 : 1));
          expect(Array.from(selectWindow(n, from, size, before))).toEqual(full.slice(from, from + size));
          expect(Array.from(selectWindow(n, from, size, before, (k) => new Int32Array(k + 3).fill(-7)))).toEqual(full.slice(from, from + size));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('selectWindowByScore equals selectWindow on relevance order, with ties, spread, zero and negative scores', () => {
    const score = fc.oneof(
      fc.integer({ min: 0, max: 5 }).map((x) => x / 3),
      fc.float({ min: 0, max: 40, noNaN: true }),
      fc.float({ min: Math.fround(1.5), max: Math.fround(1.51), noNaN: true }),
      fc.constantFrom(0, -0, -1.5, Infinity),
    );
    fc.assert(
      fc.property(
        fc.array(score, { maxLength: 4000 }),
        fc.nat(4000),
        fc.integer({ min: 1, max: 700 }),
        fc.boolean(),
        (raw, from, size, gaps) => {
          const n = raw.length;
          // Ordinals ascending, not always equal to the indices.
          const docs = Int32Array.from(raw, (_, i) => (gaps ? i * 3 + 1 : i));
          const scores = Float32Array.from(raw);
          const before = byScore(docs, scores);
          const expected = Array.from(selectWindow(n, from, size, before));
          expect(Array.from(selectWindowByScore(docs, scores, n, from, size))).toEqual(expected);
          expect(Array.from(selectWindowByScore(docs, scores, n, from, size, (k) => new Int32Array(k + 3).fill(-7)))).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('selectWindowByScore takes the bucket path on a deep page of a large list', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom(600, 9990, 20_000, 29_995), (seed, from) => {
        let x = seed;
        const rand = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
        const n = 30_000;
        const docs = Int32Array.from({ length: n }, (_, i) => i * 2);
        // BM25-like scores: a few hundred distinct values with many ties, and a spread tail.
        const scores = Float32Array.from({ length: n }, () => (rand() < 0.7 ? Math.round(rand() * 300) / 40 : rand() * 12));
        const before = byScore(docs, scores);
        const expected = Array.from(selectWindow(n, from, 10, before));
        expect(Array.from(selectWindowByScore(docs, scores, n, from, 10))).toEqual(expected);
        // With the extremes' positions given by the caller (as deepWindow does): the same window.
        let min = 0;
        let max = 0;
        for (let i = 0; i < n; i++) {
          if ((scores[i] as number) < (scores[min] as number)) min = i;
          if ((scores[i] as number) > (scores[max] as number)) max = i;
        }
        expect(Array.from(selectWindowByScore(docs, scores, n, from, 10, undefined, { min, max }))).toEqual(expected);
      }),
      { numRuns: 12 },
    );
  });
});
