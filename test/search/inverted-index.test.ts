import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/search/index/analyzer.js';
import { KeywordField } from '../../src/search/index/keyword-field.js';
import { TextField } from '../../src/search/index/text-field.js';

describe('inverted index terms', () => {
  it('a text field holds exactly the analyzer tokens as terms, with their frequencies', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 8 }), (values) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v]));
        const expected = new Map<string, number>();
        values.forEach((v) => new Set(tokens(v)).forEach((t) => expected.set(t, (expected.get(t) ?? 0) + 1)));
        expect(new Map([...f.terms.entries()].map(([t, id]) => [t, f.postings.docFreq(id)]))).toEqual(expected);
      }),
    );
  });

  it('keeps every posting (ordinal, frequency) of mixed-case and non-ASCII text, and forgets removed documents in docFreq', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'Q', 'é', 'İ', 'Σ', ' ', '.', '日', '\u{1d400}', '1'), maxLength: 40 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), fc.array(fc.nat(29), { maxLength: 5 }), (values, removed) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v]));
        const gone = new Set(removed.filter((i) => i < values.length));
        for (const i of gone) f.remove(i, [values[i] as string]);
        const expected = new Map<string, [number, number][]>();
        values.forEach((v, ord) => {
          const freqs = new Map<string, number>();
          for (const t of tokens(v)) freqs.set(t, (freqs.get(t) ?? 0) + 1);
          for (const [t, n] of freqs) expected.set(t, [...(expected.get(t) ?? []), [ord, n]]);
        });
        expect(f.terms.size).toBe(expected.size);
        for (const [t, postings] of expected) {
          const id = f.lookup(t);
          expect(id).toBeGreaterThanOrEqual(0);
          const packed = Array.from(f.postings.postings(id));
          expect(packed.map((p) => [p >>> 4, f.postings.freqOf(id, p)])).toEqual(postings);
          expect(f.postings.docFreq(id)).toBe(postings.filter(([ord]) => !gone.has(ord)).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives a term the same id whether it came from a short value, a long ASCII value (bytes) or a non-ASCII one', () => {
    const word = fc.constantFrom('alpha', 'ALPHA', 'Beta', 'x1', 'a.b', "dog's", '3.14', 'foo_bar', 'é', '日');
    const value = fc.array(word, { maxLength: 12 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), fc.array(fc.nat(19), { maxLength: 4 }), (values, removed) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v, v.toUpperCase()]));
        const gone = new Set(removed.filter((i) => i < values.length));
        for (const i of gone) f.remove(i, [values[i] as string, (values[i] as string).toUpperCase()]);
        const expected = new Map<string, [number, number][]>();
        values.forEach((v, ord) => {
          const freqs = new Map<string, number>();
          for (const t of [...tokens(v), ...tokens(v.toUpperCase())]) freqs.set(t, (freqs.get(t) ?? 0) + 1);
          for (const [t, n] of freqs) expected.set(t, [...(expected.get(t) ?? []), [ord, n]]);
        });
        expect(new Set(f.terms.keys())).toEqual(new Set(expected.keys()));
        for (const [t, postings] of expected) {
          const id = f.lookup(t);
          expect(f.terms.text(id)).toBe(t);
          expect(Array.from(f.postings.postings(id), (p) => [p >>> 4, f.postings.freqOf(id, p)])).toEqual(postings);
          expect(f.postings.docFreq(id)).toBe(postings.filter(([ord]) => !gone.has(ord)).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('indexes a value repeated from the previous document (counted once, replayed) exactly as a value seen for the first time', () => {
    // A small pool so that documents repeat their predecessor's value, often but not always (the last
    // is too long to be remembered); `[v, '']` has the same tokens as `[v]` but is no single value,
    // so the reference field never replays.
    const value = fc.constantFrom('', '--', 'optional', 'Optional extra', 'Debian Games Team <pkg-games@lists.debian.org>', 'a a a a a a a a a a a a a a a a a b', 'héllo wörld', '日本', 'long value '.repeat(100));
    const doc = fc.oneof(value.map((v) => [v]), fc.array(value, { maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 40 }), fc.array(fc.nat(39), { maxLength: 4 }), (docs, removed) => {
        const f = new TextField();
        const ref = new TextField();
        docs.forEach((vs, ord) => {
          f.add(ord, vs);
          ref.add(ord, vs.length === 1 ? [vs[0] as string, ''] : vs);
        });
        for (const ord of new Set(removed.filter((i) => i < docs.length))) {
          f.remove(ord, docs[ord] as string[]);
          ref.remove(ord, docs[ord] as string[]);
        }
        expect([...f.terms.entries()]).toEqual([...ref.terms.entries()]);
        for (const [, id] of ref.terms.entries()) {
          expect(Array.from(f.postings.postings(id), (p) => [p, f.postings.freqOf(id, p)])).toEqual(Array.from(ref.postings.postings(id), (p) => [p, ref.postings.freqOf(id, p)]));
          expect([f.postings.docFreq(id), f.postings.maxFreq(id), f.postings.minNorm(id)]).toEqual([ref.postings.docFreq(id), ref.postings.maxFreq(id), ref.postings.minNorm(id)]);
        }
        expect(Array.from(f.norms.subarray(0, docs.length))).toEqual(Array.from(ref.norms.subarray(0, docs.length)));
        expect([f.docCount, f.sumTotalTermFreq]).toEqual([ref.docCount, ref.sumTotalTermFreq]);
      }),
      { numRuns: 300 },
    );
  });

  it('builds the same text field in batches (postings grouped by term per batch) as document by document', () => {
    // Repeated values (replayed), long ASCII values (bytes path), non-ASCII ones (string path), a
    // frequency of 15 and more (side table), documents removed while their postings are still
    // batched, and batches that start and end anywhere, as `_bulk` requests do.
    const value = fc.oneof(
      fc.constantFrom('', 'optional', 'Optional extra', 'Debian Games Team <pkg-games@lists.debian.org>', 'a a a a a a a a a a a a a a a a a b', 'héllo wörld', 'long value '.repeat(100)),
      fc.array(fc.constantFrom('alpha', 'Beta', 'x1', 'a.b', 'é', '日', 'gamma', 'delta'), { maxLength: 30 }).map((ws) => ws.join(' ')),
    );
    const doc = fc.oneof(value.map((v) => [v]), fc.array(value, { maxLength: 3 }));
    const step = fc.record({ doc, begin: fc.boolean(), end: fc.boolean(), remove: fc.option(fc.nat(59)) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const f = new TextField();
        const ref = new TextField();
        const removed = new Set<number>();
        steps.forEach(({ doc: vs, begin, end, remove }, ord) => {
          if (begin) f.beginBatch();
          f.add(ord, vs);
          ref.add(ord, vs);
          if (remove !== null && remove <= ord && !removed.has(remove)) {
            removed.add(remove);
            f.remove(remove, steps[remove]?.doc as string[]);
            ref.remove(remove, steps[remove]?.doc as string[]);
          }
          if (end) f.flushBatch();
        });
        f.flushBatch();
        expect([...f.terms.entries()]).toEqual([...ref.terms.entries()]);
        for (const [, id] of ref.terms.entries()) {
          expect(Array.from(f.postings.postings(id), (p) => [p, f.postings.freqOf(id, p)])).toEqual(Array.from(ref.postings.postings(id), (p) => [p, ref.postings.freqOf(id, p)]));
          expect([f.postings.docFreq(id), f.postings.maxFreq(id), f.postings.minNorm(id)]).toEqual([ref.postings.docFreq(id), ref.postings.maxFreq(id), ref.postings.minNorm(id)]);
        }
        expect(Array.from(f.norms.subarray(0, steps.length))).toEqual(Array.from(ref.norms.subarray(0, steps.length)));
        expect([f.docCount, f.sumTotalTermFreq]).toEqual([ref.docCount, ref.sumTotalTermFreq]);
      }),
      { numRuns: 300 },
    );
  });

  it('gives a keyword value the same id whether it repeats the previous value or not', () => {
    const value = fc.constantFrom<string>('a', 'b', 'Optional', 'optional', '');
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 3 }), { maxLength: 40 }), (docs) => {
        const f = new KeywordField();
        docs.forEach((vs, ord) => f.add(ord, vs));
        const firstSeen = [...new Set(docs.flat())];
        expect([...f.terms.entries()]).toEqual(firstSeen.map((v, id) => [v, id]));
        for (const [v, id] of f.terms.entries()) {
          const ords = docs.flatMap((vs, ord) => (vs.includes(v) ? [ord] : []));
          expect(Array.from(f.postings.postings(id), (p) => p >>> 4)).toEqual(ords);
        }
        docs.forEach((vs, ord) => expect(f.valuesOf(ord) ?? []).toEqual(vs));
      }),
      { numRuns: 300 },
    );
  });

  it('finds every keyword value it holds and no other, through table growth and after a snapshot restore', () => {
    const value = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'A', 'a ', '\u0000', 'é', 'e\u0301', '日本'));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.array(value, { maxLength: 20 }), (values, probes) => {
        const f = new KeywordField();
        values.forEach((v, ord) => f.add(ord, [v]));
        const firstSeen = [...new Set(values)];
        const restored = KeywordField.restore(f.snapshot());
        for (const field of [f, restored]) {
          expect([...field.terms.entries()]).toEqual(firstSeen.map((v, id) => [v, id]));
          expect([...field.terms.keys()]).toEqual(firstSeen);
          for (const v of [...firstSeen, ...probes]) expect(field.lookup(v)).toBe(firstSeen.indexOf(v));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('does not keep buffers sized by the longest value it has indexed (a big document must not pin memory for good)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const f = new TextField();
    f.add(0, ['a short warm-up value of some length']);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    // 2 M characters of a handful of distinct words: postings and norms stay tiny.
    f.add(1, ['alpha beta '.repeat(200_000)]);
    expect(f.postings.docFreq(f.lookup('alpha'))).toBe(1);
    gc();
    // The bytes path kept a scratch copy of 2x the value and a token batch of 24x (about 50 MB here).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8_000_000);
  });

  it('does not keep a big text value alive once indexed (the repeat check must not pin a document for good)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const f = new TextField();
    f.add(0, ['a short warm-up value of some length']);
    const held = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const before = held();
    // 10 MB of text as JSON.parse makes it (one flat heap string), 2 distinct words: the index
    // itself grows by a few bytes per document.
    ((): void => {
      const big = JSON.parse(`"${'alpha beta '.repeat(1_000_000)}"`) as string;
      f.add(1, [big]);
    })();
    expect(f.postings.docFreq(f.lookup('alpha'))).toBe(1);
    expect(held() - before).toBeLessThan(4_000_000);
  });
});
