import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/search/analyzer.js';
import { TextField } from '../../src/search/inverted-index.js';

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
});
