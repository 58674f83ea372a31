import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FREQ_MASK, PostingStore } from '../../../src/search/index/posting-store.js';

describe('posting store', () => {
  it('keeps every appended posting in order, through direct appends and pending flushes, with the score bounds', () => {
    // Each step: a document with some terms (a frequency each), appended either directly or through
    // the pending counters the text indexer uses.
    const step = fc.record({ terms: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { maxLength: 6 }), freq: fc.integer({ min: 1, max: 40 }), norm: fc.integer({ min: 0, max: 255 }), pending: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const store = new PostingStore();
        for (let t = 0; t < 6; t++) store.newTerm();
        const model = Array.from({ length: 6 }, () => [] as [number, number][]);
        const bound = Array.from({ length: 6 }, () => ({ freq: 0, norm: 255 }));
        steps.forEach((s, ord) => {
          if (s.pending) {
            for (const t of s.terms) for (let k = 0; k < s.freq; k++) store.bumpPending(t);
            store.flushPending(Int32Array.from(s.terms), s.terms.length, ord, s.norm);
            for (const t of s.terms) {
              const b = bound[t] as { freq: number; norm: number };
              b.freq = Math.max(b.freq, s.freq);
              b.norm = Math.min(b.norm, s.norm);
            }
          } else {
            for (const t of s.terms) store.add(t, ord, s.freq);
          }
          for (const t of s.terms) model[t]?.push([ord, s.freq]);
        });
        for (let t = 0; t < 6; t++) {
          const list = store.postings(t);
          expect([...list].map((p) => [p >>> 4, store.freqOf(t, p)])).toEqual(model[t]);
          expect(store.count(t)).toBe(model[t]?.length);
          expect(store.docFreq(t)).toBe(model[t]?.length);
          expect(store.maxFreq(t)).toBe(bound[t]?.freq);
          expect(store.minNorm(t)).toBe(bound[t]?.norm);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('chains blocks up to the largest size for a long list', () => {
    const store = new PostingStore();
    const t = store.newTerm();
    store.newTerm();
    const n = 20_000;
    for (let ord = 0; ord < n; ord++) {
      store.add(t, ord, 1 + (ord % (FREQ_MASK + 3)));
      if (ord % 3 === 0) store.add(1, ord, 2);
    }
    const list = store.postings(t);
    expect(list.length).toBe(n);
    for (let ord = 0; ord < n; ord++) {
      expect(list[ord]! >>> 4).toBe(ord);
      expect(store.freqOf(t, list[ord]!)).toBe(1 + (ord % (FREQ_MASK + 3)));
    }
    expect(store.postings(1).length).toBe(Math.ceil(n / 3));
  });
});
