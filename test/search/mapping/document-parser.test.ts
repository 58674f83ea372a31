import { describe, expect, it } from 'vitest';
import { FieldValues, parseDocument } from '../../../src/search/mapping/document-parser.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';

const entries = <T>(f: FieldValues<T>): [string, readonly T[]][] => Array.from({ length: f.size }, (_, i) => [f.pathAt(i), f.valuesAt(i)]);

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

  it('parses into a reused ParsedDoc exactly as into a new one, whatever the document before held', () => {
    const mappings = Mappings.parse({ properties: { a: { type: 'text' }, b: { type: 'keyword' }, n: { type: 'long' } } });
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    const docs: Record<string, unknown>[] = [{ a: 'x y', b: 'k', n: 1 }, { n: 2 }, many, { b: ['p', 'q'] }, {}, { a: 'z', 'f3': 9 }];
    const reused = parseDocument({}, mappings, 'x').doc;
    let current = mappings;
    for (const [i, d] of docs.entries()) {
      const fresh = parseDocument(d, current, `d${i}`);
      const into = parseDocument(d, current, `d${i}`, false, reused);
      expect(into.doc).toBe(reused);
      for (const kind of ['text', 'keyword', 'numeric'] as const) {
        expect(entries(into.doc[kind] as FieldValues<unknown>)).toEqual(entries(fresh.doc[kind] as FieldValues<unknown>));
        // A path of an earlier document is not found in this one.
        if (!('a' in d)) expect(into.doc.text.get('a')).toBeUndefined();
      }
      current = fresh.mappings;
    }
  });
});
