import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/search/analyzer.js';
import { ownString, TextField } from '../../src/search/inverted-index.js';

describe('inverted index terms', () => {
  it('ownString returns an equal string (any length, any UTF-16)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (s) => {
        expect(ownString(s.slice(1))).toBe(s.slice(1));
      }),
    );
  });

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
});
