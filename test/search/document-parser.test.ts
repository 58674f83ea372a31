import { describe, expect, it } from 'vitest';
import { FieldValues, parseDocument } from '../../src/search/document-parser.js';
import { Mappings } from '../../src/search/mapping.js';

const entries = <T>(f: FieldValues<T>): [string, readonly T[]][] => f.paths.map((p, i) => [p, f.values[i] as readonly T[]]);

describe('document parser', () => {
  it('collects every leaf of a path, also when objects in an array and dotted keys repeat it', () => {
    const { doc } = parseDocument({ a: [{ b: 'one two' }, { b: 'three' }], 'a.b': 'four', n: [1, [2, 3]], t: true }, Mappings.empty(), 'x');
    expect(entries(doc.text)).toEqual([['a.b', ['one two', 'three', 'four']]]);
    expect(entries(doc.keyword)).toEqual([
      ['a.b.keyword', ['one two', 'three', 'four']],
      ['t', ['true']],
    ]);
    expect(entries(doc.numeric)).toEqual([
      ['n', [1, 2, 3]],
      ['t', [1]],
    ]);
  });

  it('leaves values longer than ignore_above out of the keyword sub-field only', () => {
    const long = 'x'.repeat(300);
    const { doc } = parseDocument({ s: [long, 'short'], u: long }, Mappings.empty(), 'x');
    expect(doc.text.get('s')).toEqual([long, 'short']);
    expect(doc.keyword.get('s.keyword')).toEqual(['short']);
    expect(doc.keyword.get('u.keyword')).toEqual([]);
  });

  it('finds and merges paths the same way with few or many fields', () => {
    for (const n of [3, 40]) {
      const f = new FieldValues<number>();
      for (let round = 0; round < 2; round++) for (let i = 0; i < n; i++) f.add(`p${i}`, [round * 100 + i]);
      expect(f.size).toBe(n);
      for (let i = 0; i < n; i++) expect(f.get(`p${i}`)).toEqual([i, 100 + i]);
      expect(f.get('missing')).toBeUndefined();
    }
  });
});
