import { describe, expect, it } from 'vitest';
import { blendDocFreqs } from '../../../src/search/query/cross-fields.js';

describe('blendDocFreqs (Lucene BlendedTermQuery document frequencies)', () => {
  it('gives each field holding the term the largest frequency, one more per step down', () => {
    // df 5, 2, 9: sorted 9 (field 2), 5 (field 0), 2 (field 1) → 9, 10, 11.
    expect(blendDocFreqs([5, 2, 9], [1000, 1000, 1000], [100, 100, 100], 100)).toEqual([10, 11, 9]);
  });

  it('keeps equal frequencies equal and leaves fields without the term at 0', () => {
    expect(blendDocFreqs([4, 0, 4], [50, 50, 50], [100, 100, 100], 100)).toEqual([4, 0, 4]);
  });

  it('caps by maxDoc, the smallest sum of term frequencies, and the field’s document count', () => {
    expect(blendDocFreqs([10, 9], [1000, 1000], [100, 100], 10)).toEqual([10, 10]);
    expect(blendDocFreqs([10, 3], [1000, 6], [100, 100], 100)).toEqual([6, 6]);
    expect(blendDocFreqs([10, 3], [1000, 1000], [100, 5], 100)).toEqual([10, 5]);
  });

  it('changes nothing for one field or a term no field holds', () => {
    expect(blendDocFreqs([7], [10], [10], 10)).toEqual([7]);
    expect(blendDocFreqs([0, 0], [10, 10], [10, 10], 10)).toEqual([0, 0]);
  });
});
