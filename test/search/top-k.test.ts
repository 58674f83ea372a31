import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byScore, selectWindow } from '../../src/search/top-k.js';

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
});
