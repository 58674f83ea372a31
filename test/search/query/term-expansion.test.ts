import { describe, expect, it } from 'vitest';
import { exactTermAt, prefixTerms, type TermField } from '../../../src/search/query/term-expansion.js';

/** A field whose sorted view holds `terms` (id = place) with these document frequencies (0: no live documents). */
function field(terms: [string, number][]): TermField {
  const docFreqs = terms.map(([, df]) => df);
  return {
    def: { kind: 'text' },
    view: { texts: terms.map(([t]) => t), ids: Int32Array.from(terms.keys()) },
    postings: { termCount: terms.length, docFreq: (id: number) => docFreqs[id] as number },
    docCount: 10,
    avgdl: 1,
    norms: undefined,
  } as unknown as TermField;
}

describe('prefixTerms and exactTermAt (the multi-term queries’ walk of the sorted terms)', () => {
  const f = field([['gn', 1], ['gna', 0], ['gnat', 2], ['gnome', 3], ['gnu', 4], ['go', 5], ['lib', 0], ['libc', 1]]);

  it('lists the live terms with the prefix in term order, stopping at `max` live ones', () => {
    expect(prefixTerms(f, 'gn', false)).toEqual([0, 2, 3, 4]);
    // The dead `gna` is skipped, not counted.
    expect(prefixTerms(f, 'gn', false, 2)).toEqual([0, 2]);
    expect(prefixTerms(f, 'gn', false, 3)).toEqual([0, 2, 3]);
    expect(prefixTerms(f, 'gn', false, 10)).toEqual([0, 2, 3, 4]);
    expect(prefixTerms(f, 'GN', true, 1)).toEqual([0]);
    expect(prefixTerms(f, 'x', false, 5)).toEqual([]);
  });

  it('finds exactly the term, only when it has live documents', () => {
    expect(exactTermAt(f, 'gnat')).toBe(2);
    expect(exactTermAt(f, 'gn')).toBe(0);
    // Dead, absent, only a prefix of terms, past the last term.
    expect(exactTermAt(f, 'gna')).toBe(-1);
    expect(exactTermAt(f, 'lib')).toBe(-1);
    expect(exactTermAt(f, 'gno')).toBe(-1);
    expect(exactTermAt(f, 'zzz')).toBe(-1);
    expect(exactTermAt(f, 'libc')).toBe(7);
  });
});
