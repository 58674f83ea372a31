import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersectSum, unionSum, type Hits } from '../../../src/search/query/hit-lists.js';
import { ScratchArena } from '../../../src/search/query/scratch-arena.js';

const hitsArb = fc.uniqueArray(fc.nat(200), { maxLength: 60 }).map((ords): Hits => {
  const sorted = [...ords].sort((a, b) => a - b);
  return { docs: Int32Array.from(sorted), scores: Float32Array.from(sorted, (o) => Math.fround(1 / (o + 1.5))), length: sorted.length };
});

function naive(lists: Hits[], minMatch: number, all: boolean): Map<number, number> {
  const sums = new Map<number, { s: number; n: number }>();
  for (const l of lists) for (let i = 0; i < l.length; i++) {
    const e = sums.get(l.docs[i] as number) ?? { s: 0, n: 0 };
    e.s += l.scores[i] as number;
    e.n++;
    sums.set(l.docs[i] as number, e);
  }
  const out = new Map<number, number>();
  for (const [d, e] of [...sums].sort((a, b) => a[0] - b[0])) if (all ? e.n === lists.length : e.n >= minMatch) out.set(d, Math.fround(e.s));
  return out;
}

function asMap(h: Hits): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < h.length; i++) m.set(h.docs[i] as number, h.scores[i] as number);
  return m;
}

describe('hit lists', () => {
  it('unions and intersections match a naive model (ascending ordinals, float32 sums)', () => {
    fc.assert(
      fc.property(fc.array(hitsArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), (lists, minMatch) => {
        const arena = new ScratchArena();
        const u = unionSum(lists, minMatch, arena);
        expect([...asMap(u)]).toEqual([...naive(lists, minMatch, false)]);
        const x = intersectSum(lists, arena);
        expect([...asMap(x)]).toEqual([...naive(lists, 0, true)]);
        for (let i = 1; i < u.length; i++) expect(u.docs[i] as number).toBeGreaterThan(u.docs[i - 1] as number);
      }),
      { numRuns: 300 },
    );
  });

  it('sums many lists by document slot exactly as the merge would (list order, double, one rounding), sparse or dense', () => {
    const scoredArb = (maxOrd: number) =>
      fc.uniqueArray(fc.tuple(fc.nat(maxOrd), fc.float({ min: 0, max: 1000, noNaN: true })), { maxLength: 40, selector: (t) => t[0] }).map((pairs): Hits => {
        const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
        return { docs: Int32Array.from(sorted, (p) => p[0]), scores: Float32Array.from(sorted, (p) => p[1]), length: sorted.length };
      });
    fc.assert(
      fc.property(fc.oneof(fc.array(scoredArb(300), { minLength: 6, maxLength: 30 }), fc.array(scoredArb(200_000), { minLength: 6, maxLength: 30 })), (lists) => {
        const arena = new ScratchArena();
        const u = unionSum(lists, 1, arena);
        expect([...asMap(u)]).toEqual([...naive(lists, 1, false)]);
        for (let i = 1; i < u.length; i++) expect(u.docs[i] as number).toBeGreaterThan(u.docs[i - 1] as number);
      }),
      { numRuns: 200 },
    );
  });
});
