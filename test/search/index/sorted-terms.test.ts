import { describe, expect, it } from 'vitest';
import { compareTerms, prefixRange, sortedTerms } from '../../../src/search/index/sorted-terms.js';

describe('the sorted view of a dictionary', () => {
  it('sorts in UTF-8 byte order and merges terms added later', () => {
    const terms = ['pear', 'apple', '\uffff', '\u{1f600}'];
    const dict = { get size() { return terms.length; }, text: (i: number) => terms[i] as string };
    expect(sortedTerms(dict).texts).toEqual(['apple', 'pear', '\uffff', '\u{1f600}']);
    terms.push('banana', 'app');
    const v = sortedTerms(dict);
    expect(v.texts).toEqual(['app', 'apple', 'banana', 'pear', '\uffff', '\u{1f600}']);
    expect([...v.ids]).toEqual([5, 1, 4, 0, 2, 3]);
    expect(prefixRange(v, 'app')).toEqual([0, 2]);
    expect(prefixRange(v, 'zz')).toEqual([4, 4]);
    expect(compareTerms('\uffff', '\u{1f600}')).toBeLessThan(0);
  });
});
