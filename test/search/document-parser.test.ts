import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clearParsedDoc, emptyParsedDoc, FieldValues, parseDocument, type ParsedDoc } from '../../src/search/document-parser.js';
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

  it('fills a reused ParsedDoc exactly as a new one, whatever the document before it left (also after a failed parse)', () => {
    const all = (d: ParsedDoc) => [entries(d.text), entries(d.keyword), entries(d.numeric), d.text.size, d.keyword.size, d.numeric.size];
    const strict = Mappings.parse({ dynamic: 'strict', properties: { n: { type: 'long' }, t: { type: 'text' } } });
    const docs: [Record<string, unknown>, Mappings][] = [
      [Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, `v${i}`])), Mappings.empty()],
      [{ a: 'x', n: 3 }, Mappings.empty()],
      [{ n: 'not a number', t: 'y' }, strict],
      [{ t: 'z' }, strict],
      [{}, Mappings.empty()],
      [{ b: ['p', 'q'], 'b.c': 1, m: [1, 2] }, Mappings.empty()],
    ];
    const reused = emptyParsedDoc();
    for (const [source, mappings] of docs) {
      let fresh: unknown;
      try {
        fresh = all(parseDocument(source, mappings, 'x').doc);
      } catch (e) {
        expect(() => parseDocument(source, mappings, 'x', reused)).toThrow((e as Error).message);
        continue;
      }
      const { doc } = parseDocument(source, mappings, 'x', reused);
      expect(doc).toBe(reused);
      expect(all(doc)).toEqual(fresh);
    }
  });

  it('fills a reused ParsedDoc as a new one for any run of documents (many fields, arrays, objects, refused ones), and a cleared one holds no values', () => {
    const all = (d: ParsedDoc) => [entries(d.text), entries(d.keyword), entries(d.numeric), d.text.size, d.keyword.size, d.numeric.size];
    const key = fc.constantFrom('a', 'b', 'c.d', 'n', 'd', 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'é', '');
    const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant('12'), fc.boolean(), fc.constant(null), fc.constant('2024-01-02'));
    const value = fc.letrec<{ v: unknown }>((tie) => ({ v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })) })).v;
    const source = fc.dictionary(key, value, { maxKeys: 24 });
    const mappings = Mappings.parse({ properties: { n: { type: 'long' }, d: { type: 'date' }, b: { type: 'boolean' } } });
    fc.assert(
      fc.property(fc.array(source, { maxLength: 6 }), (docs) => {
        const reused = emptyParsedDoc();
        for (const doc of docs) {
          let fresh: unknown;
          try {
            fresh = all(parseDocument(doc, mappings, 'x').doc);
          } catch (e) {
            expect(() => parseDocument(doc, mappings, 'x', reused)).toThrow((e as Error).message);
            continue;
          }
          expect(all(parseDocument(doc, mappings, 'x', reused).doc)).toEqual(fresh);
        }
        clearParsedDoc(reused);
        for (const f of [reused.text, reused.keyword, reused.numeric]) {
          expect(f.size).toBe(0);
          expect(f.values.every((v) => v.length === 0)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
