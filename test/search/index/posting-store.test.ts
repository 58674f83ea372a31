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

  // A frozen copy (the refresh's and a point in time's view) shares the live term records and reads
  // the ones written since it was taken from the writes' undo logs: checked against a model copied
  // when each view was taken, through appends (direct, pending, grouped), deletes, new terms and
  // several views open at once, some released in between, and old views that take their own copy
  // once the logs they read grow (PostingStore.bound).
  it('keeps every frozen copy as the store was when it was taken, whatever the writes after', () => {
    const op = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('add' as const), terms: fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 5 }), freq: fc.integer({ min: 1, max: 20 }), way: fc.integer({ min: 0, max: 2 }) }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constant('del' as const), term: fc.integer({ min: 0, max: 40 }) }), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('view' as const) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('release' as const) }), weight: 1 },
    );
    type Snap = { count: number; docFreq: number; maxFreq: number; minNorm: number; postings: number[] }[];
    const read = (store: PostingStore, terms: number): Snap =>
      Array.from({ length: terms }, (_, t) => ({ count: store.count(t), docFreq: store.docFreq(t), maxFreq: store.maxFreq(t), minNorm: store.minNorm(t), postings: [...store.postings(t)].map((p) => p * 100 + store.freqOf(t, p)) }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const store = new PostingStore();
        for (let t = 0; t < 10; t++) store.newTerm();
        const views: { view: PostingStore; terms: number; then: Snap }[] = [];
        let ord = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            for (const t of o.terms) while (store.termCount <= t) store.newTerm();
            const terms = Int32Array.from(o.terms);
            if (o.way === 0) for (const t of o.terms) store.add(t, ord, o.freq);
            else if (o.way === 1) {
              for (const t of o.terms) for (let k = 0; k < o.freq; k++) store.bumpPending(t);
              store.flushPending(terms, terms.length, ord, ord % 256);
            } else {
              const many = Int32Array.from(o.terms.flatMap((t) => Array<number>(o.freq).fill(t)));
              store.appendGrouped(many, new Int32Array(many.length).fill(ord), many.length, new Uint8Array(ord + 1).fill(ord % 256));
            }
            ord++;
          } else if (o.kind === 'del') {
            if (o.term < store.termCount && store.docFreq(o.term) > 0) store.decDocFreq(o.term);
          } else if (o.kind === 'view') {
            views.push({ view: store.frozenCopy(), terms: store.termCount, then: read(store, store.termCount) });
          } else if (views.length > 0) {
            views.shift()?.view.releaseFrozen();
            if (views.length === 0) store.viewsReleased();
          }
          for (const v of views) expect(read(v.view, v.terms)).toEqual(v.then);
        }
        // A term given out after a view reads as an empty list in it (a dictionary walk may reach it).
        for (const v of views) if (v.terms < store.termCount) expect([v.view.count(v.terms) || 0, v.view.docFreq(v.terms) || 0, v.view.postings(v.terms).length]).toEqual([0, 0, 0]);
      }),
      { numRuns: 300 },
    );
  });
});
