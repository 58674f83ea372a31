import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedTerms } from '../../../src/search/index/sorted-terms.js';
import { fuzzyBoost, fuzzyTerms, topTerms } from '../../../src/search/query/fuzzy-terms.js';

const view = (terms: string[]) => sortedTerms({ size: terms.length, text: (i) => terms[i] as string });

/** The restricted Damerau-Levenshtein distance, straight from its definition. */
function osa(a: string | readonly string[], b: string | readonly string[], transpositions: boolean): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      row[j] = Math.min((d[i - 1] as number[])[j]! + 1, row[j - 1]! + 1, (d[i - 1] as number[])[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, (d[i - 2] as number[])[j - 2]! + 1);
    }
  }
  return (d[a.length] as number[])[b.length]!;
}

describe('fuzzy term expansion', () => {
  const words = ['python', 'pyton', 'pythons', 'typhon', 'jython', 'piton', 'pthyon', 'pyhton', 'py', 'cython', 'perl'];

  it('finds the terms within the edits, counting a transposition as one when asked', () => {
    const v = view(words);
    const found = (q: string, maxEdits: number, transpositions = true, prefixLength = 0) =>
      fuzzyTerms(v, q, { maxEdits, prefixLength, transpositions }).map((f) => `${v.texts[f.at]}:${f.edits}`);
    expect(found('pyton', 1)).toEqual(['piton:1', 'pyhton:1', 'python:1', 'pyton:0']);
    expect(found('python', 1)).toEqual(['cython:1', 'jython:1', 'pyhton:1', 'python:0', 'pythons:1', 'pyton:1']);
    expect(found('python', 1, false)).not.toContain('pyhton:1');
    expect(found('python', 1, true)).toContain('pyhton:1');
    expect(found('python', 1, true, 1)).not.toContain('jython:1');
  });

  it('equals the distance by definition on random terms', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[abc]{0,6}$/), { maxLength: 40 }), fc.stringMatching(/^[abc]{1,5}$/), fc.integer({ min: 0, max: 2 }), fc.boolean(), fc.integer({ min: 0, max: 2 }), (terms, q, k, tr, pl) => {
        const v = view(terms);
        const got = fuzzyTerms(v, q, { maxEdits: k, prefixLength: pl, transpositions: tr }).map((f) => `${v.texts[f.at]}:${f.edits}`);
        const want = [...v.texts]
          .filter((t) => t.startsWith(q.slice(0, pl)) && osa(t.slice(Math.min(pl, q.length)), q.slice(pl), tr) <= (q.length <= pl ? 0 : k))
          .map((t) => `${t}:${osa(t.slice(Math.min(pl, q.length)), q.slice(pl), tr)}`);
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('counts in code points, also above U+FFFF, and past the 30 code points of the bit-parallel walk', () => {
    const dist = (a: string, b: string, tr: boolean) => osa([...a], [...b], tr);
    const alphabet = fc.constantFrom('a', 'b', 'é', '\u{1d4b3}', '\uffee');
    const word = (min: number, max: number) => fc.array(alphabet, { minLength: min, maxLength: max }).map((a) => a.join(''));
    const long = 'abcdefghijklmnopqrstuvwxyzabcdef';
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(word(0, 6), word(0, 3).map((w) => long + w)), { maxLength: 40 }), fc.oneof(word(1, 5), word(0, 2).map((w) => long + w)), fc.integer({ min: 0, max: 2 }), fc.boolean(), (terms, q, k, tr) => {
        const v = view(terms);
        const got = fuzzyTerms(v, q, { maxEdits: k, prefixLength: 0, transpositions: tr }).map((f) => `${v.texts[f.at]}:${f.edits}`);
        const want = [...v.texts].filter((t) => dist(t, q, tr) <= k).map((t) => `${t}:${dist(t, q, tr)}`);
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the best terms by Lucene's boost, the lower term first on ties", () => {
    expect(fuzzyBoost(0, 5, 5)).toBe(1);
    expect(fuzzyBoost(1, 6, 5)).toBe(Math.fround(0.8));
    const v = view(['aab', 'aac', 'aad', 'aaa']);
    const found = fuzzyTerms(v, 'aaa', { maxEdits: 1, prefixLength: 0, transpositions: true });
    expect(topTerms(v, found, 3, 2).map((t) => v.texts[t.at])).toEqual(['aaa', 'aab']);
  });
});
