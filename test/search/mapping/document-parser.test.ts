import { describe, expect, it } from 'vitest';
import { FieldValues, parseDocument } from '../../../src/search/mapping/document-parser.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { searchForAll } from '../harness.js';

/**
 * The document parser (mapping/document-parser.ts): field values, and how deep a document may nest
 * (index.mapping.depth.limit).
 */

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

// ES refuses objects nested deeper than index.mapping.depth.limit (20) with a 400; a bulk item that
// does so fails alone. A document nested thousands deep must not exhaust the stack of the parser
// (an internal error, and the whole bulk lost with it).
describe('deeply nested document', () => {
  const h = searchForAll();

  const deep = (depth: number): string => `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;

  it('is refused with a 400, alone in a bulk', async () => {
    const one = await h.app.inject({ method: 'PUT', url: '/d/_doc/1', payload: deep(5000), headers: { 'content-type': 'application/json' } });
    expect(one.statusCode).toBe(400);
    const bulk = `{"index":{"_id":"2"}}\n${deep(5000)}\n{"index":{"_id":"3"}}\n{"a":"ok"}\n`;
    const res = await h.app.inject({ method: 'POST', url: '/d/_bulk', payload: bulk, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { errors: boolean; items: { index: { status: number } }[] };
    expect(body.errors).toBe(true);
    expect(body.items.map((i) => i.index.status)).toEqual([400, 201]);
  });
});

// MappingLookup.checkObjectDepthLimit: an object's depth is the dots of its path plus 2 (the root
// is 1), over index.mapping.depth.limit (20) refused, so 19 nested objects are the most a document
// may hold, and the parts of a dotted key count as objects too.
describe('index.mapping.depth.limit', () => {
  const h = searchForAll();

  /** `objects` nested objects a1…aN around `{"x":1}`. */
  const nested = (objects: number): string =>
    Array.from({ length: objects }, (_, i) => `{"a${i + 1}":`).join('') + '{"x":1}' + '}'.repeat(objects);
  const pathOf = (objects: number): string => Array.from({ length: objects }, (_, i) => `a${i + 1}`).join('.');
  const put = (url: string, payload: string) => h.app.inject({ method: 'PUT', url, payload, headers: { 'content-type': 'application/json' } });

  it('does not count objects that dynamic: false leaves unmapped (ES skips them unread)', async () => {
    const created = await put('/f', '{"mappings":{"dynamic":false,"properties":{"a1":{"properties":{"t":{"type":"keyword"}}}}}}');
    expect(created.statusCode).toBe(200);
    const deepDoc = nested(25).replace('{"a1":{', '{"a1":{"t":"kept",');
    expect((await put('/f/_doc/1?refresh=true', deepDoc)).statusCode).toBe(201);
    const found = await h.app.inject({ method: 'GET', url: '/f/_search?q=a1.t:kept' });
    expect(found.json().hits.total.value).toBe(1);
    // Under a dynamic index the same document is refused at its 20th object.
    expect((await put('/l/_doc/f', deepDoc)).statusCode).toBe(400);
  });

  it('under dynamic: strict refuses the first unmapped object itself, before the depth limit', async () => {
    const created = await put('/st', '{"mappings":{"dynamic":"strict","properties":{"a1":{"properties":{"t":{"type":"keyword"}}},"e":{"properties":{}}}}}');
    expect(created.statusCode).toBe(200);
    const strict = (field: string, within: string) => ({
      type: 'strict_dynamic_mapping_exception',
      reason: expect.stringMatching(new RegExp(`^\\[\\d+:\\d+\\] mapping set to strict, dynamic introduction of \\[${field}\\] within \\[${within}\\] is not allowed$`)) as unknown,
    });
    // ES checks strictness as it meets an object it has no mapper for (DocumentParser.ensureNotStrict).
    expect((await put('/st/_doc/1', '{"b":{"c":1}}')).json().error).toMatchObject(strict('b', '_doc'));
    expect((await put('/st/_doc/2', nested(25))).json().error).toMatchObject(strict('a2', 'a1'));
    // An object the mappings hold, fields or none, is no introduction.
    expect((await put('/st/_doc/3', '{"a1":{"t":"x"},"e":{}}')).statusCode).toBe(201);
  });

  it('accepts 19 nested objects and refuses the 20th, in _doc and in _bulk', async () => {
    expect((await put('/l/_doc/1', nested(19))).statusCode).toBe(201);
    const res = await put('/l/_doc/2', nested(20));
    expect(res.statusCode).toBe(400);
    const reason = `Limit of mapping depth [20] has been exceeded due to object field [${pathOf(20)}]`;
    const error = res.json().error as { type: string; reason: string; caused_by: unknown };
    expect(error.type).toBe('document_parsing_exception');
    expect(error.reason).toMatch(new RegExp(`^\\[\\d+:\\d+\\] failed to parse: ${reason.replace(/[[\]]/g, '\\$&')}$`));
    expect(error.caused_by).toEqual({ type: 'illegal_argument_exception', reason });

    const bulk = `{"index":{"_id":"3"}}\n${nested(20)}\n{"index":{"_id":"4"}}\n${nested(19)}\n`;
    const b = await h.app.inject({ method: 'POST', url: '/l/_bulk', payload: bulk, headers: { 'content-type': 'application/x-ndjson' } });
    const items = (b.json() as { items: { index: { status: number; error?: { caused_by: unknown } } }[] }).items;
    expect(items.map((i) => i.index.status)).toEqual([400, 201]);
    expect(items[0]?.index.error?.caused_by).toEqual({ type: 'illegal_argument_exception', reason });
  });

  it('counts the parts of a dotted key', async () => {
    // a1 … a18 nested, then one key naming a19.a20: its object a1…a20 is the 20th.
    const inner = Array.from({ length: 18 }, (_, i) => `{"a${i + 1}":`).join('') + '{"a19.a20":{"x":1}}' + '}'.repeat(18);
    const res = await put('/l/_doc/5', inner);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.caused_by.reason).toBe(`Limit of mapping depth [20] has been exceeded due to object field [${pathOf(20)}]`);
  });
});
