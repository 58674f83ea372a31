import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, renderJson } from '../../../src/search/http/json-render.js';
import { applyResponseFilter, NOTHING, parseFilterPath } from '../../../src/search/http/response-filter.js';

/** The filtered compact text of `body` under `filterPath`. */
function filtered(body: unknown, filterPath: string): string {
  const f = parseFilterPath(filterPath);
  if (f === undefined) throw new Error(`no filter in ${filterPath}`);
  const out = applyResponseFilter(body, f);
  return out === NOTHING ? '<nothing>' : renderJson(out, false, true);
}

// The documents of ES's search/70_response_filtering.yml, as a search response carrying stored source.
const SEARCH = {
  took: 3,
  timed_out: false,
  _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
  hits: {
    total: { value: 2, relation: 'eq' },
    max_score: 1,
    hits: [
      { _index: 'i', _id: '1', _score: 1, _source: new RawJson('{"name":"First","properties":{"size":123,"meta":{"foo":"bar"}}}') },
      { _index: 'i', _id: '2', _score: 1, _source: new RawJson('{"name":"Second","properties":{"size":465,"meta":{"foo":"bar","baz":"qux"}}}') },
    ],
  },
};

describe('parseFilterPath', () => {
  it('asks for no filtering when the value holds no path', () => {
    for (const v of ['', ',', ' , ,', '  ']) expect(parseFilterPath(v)).toBeUndefined();
  });

  it('splits inclusions from `-` exclusions', () => {
    const f = parseFilterPath('a.b, -c ,d');
    expect(f?.includes).toBeDefined();
    expect(f?.excludes).toBeDefined();
    expect(parseFilterPath('-x')?.includes).toBeUndefined();
    expect(parseFilterPath('x')?.excludes).toBeUndefined();
  });

  it('never throws, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (text, value) => {
        const f = parseFilterPath(text);
        if (f !== undefined) applyResponseFilter({ v: value }, f);
      }),
    );
  });
});

describe('applyResponseFilter', () => {
  it('keeps a top-level field alone', () => {
    expect(filtered(SEARCH, 'took')).toBe('{"took":3}');
  });

  it('`*` takes every field of a level', () => {
    expect(filtered(SEARCH, '_shards.*')).toBe('{"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}');
    expect(JSON.parse(filtered(SEARCH, '*'))).toEqual(JSON.parse(renderJson(SEARCH, false, true)));
    expect(filtered({ index_a: 1, index_b: 2, other: 3 }, 'index_*')).toBe('{"index_a":1,"index_b":2}');
  });

  it('`**` stands for one or more levels', () => {
    expect(filtered(SEARCH, 'hits.**._i*,**.total')).toBe(
      '{"_shards":{"total":1},"hits":{"total":{"value":2,"relation":"eq"},"hits":[{"_index":"i","_id":"1"},{"_index":"i","_id":"2"}]}}',
    );
    // At least one level: a top-level `total` is not reached by `**.total`.
    expect(filtered({ total: 1, a: { total: 2 } }, '**.total')).toBe('{"a":{"total":2}}');
    expect(filtered({ a: { b: { c: { d: 1, e: 2 } } } }, 'a.**.d')).toBe('{"a":{"b":{"c":{"d":1}}}}');
  });

  it('reaches into stored _source through arrays of hits', () => {
    expect(filtered(SEARCH, 'hits.hits._source.name')).toBe('{"hits":{"hits":[{"_source":{"name":"First"}},{"_source":{"name":"Second"}}]}}');
    expect(filtered(SEARCH, 'hits.hits._id')).toBe('{"hits":{"hits":[{"_id":"1"},{"_id":"2"}]}}');
  });

  it('keeps a whole stored _source verbatim when a path ends at it', () => {
    const f = parseFilterPath('hits.hits._source');
    if (f === undefined) throw new Error('no filter');
    const out = applyResponseFilter(SEARCH, f) as { hits: { hits: { _source: unknown }[] } };
    expect(out.hits.hits[0]?._source).toBe(SEARCH.hits.hits[0]?._source);
  });

  it('combines inclusions and exclusions as ES 70_response_filtering.yml does', () => {
    expect(filtered(SEARCH, '-**._source.properties,**._source')).toBe('{"hits":{"hits":[{"_source":{"name":"First"}},{"_source":{"name":"Second"}}]}}');
    expect(filtered(SEARCH, '**.properties,-hits.hits._source.properties.meta')).toBe(
      '{"hits":{"hits":[{"_source":{"properties":{"size":123}}},{"_source":{"properties":{"size":465}}}]}}',
    );
    // meta of the first hit held only foo: emptied, it is left out; the second keeps baz.
    expect(filtered(SEARCH, '**._source,-**.meta.foo')).toBe(
      '{"hits":{"hits":[{"_source":{"name":"First","properties":{"size":123}}},{"_source":{"name":"Second","properties":{"size":465,"meta":{"baz":"qux"}}}}]}}',
    );
  });

  it('answers {} when nothing matches, and when everything is excluded', () => {
    expect(filtered(SEARCH, 'nothing.here')).toBe('{}');
    expect(filtered({ count: 3, _shards: { total: 1 } }, '-*')).toBe('{}');
  });

  it('excludes a field with everything under it and keeps the rest as is', () => {
    expect(filtered(SEARCH, '-hits.hits._source,-took,-_shards')).toBe(
      '{"timed_out":false,"hits":{"total":{"value":2,"relation":"eq"},"max_score":1,"hits":[{"_index":"i","_id":"1","_score":1},{"_index":"i","_id":"2","_score":1}]}}',
    );
    // Unmatched empty containers stay; an exclusion that only passes through a scalar keeps it.
    expect(filtered({ a: {}, b: [], c: 1 }, '-c.d')).toBe('{"a":{},"b":[],"c":1}');
  });

  it('leaves out objects and arrays that a path passes through but nothing in them matches', () => {
    expect(filtered({ hits: { total: 0, hits: [] } }, 'hits.hits._id')).toBe('{}');
    expect(filtered({ a: [{ x: 1 }, { y: 2 }] }, 'a.y')).toBe('{"a":[{"y":2}]}');
    // Scalars where a path goes on are dropped by inclusions.
    expect(filtered({ a: [1, { b: 2 }] }, 'a.b')).toBe('{"a":[{"b":2}]}');
  });

  it('a shorter path takes the whole subtree, in whichever order the paths come', () => {
    const body = { a: { b: 1, c: 2 } };
    expect(filtered(body, 'a.b,a')).toBe('{"a":{"b":1,"c":2}}');
    expect(filtered(body, 'a,a.b')).toBe('{"a":{"b":1,"c":2}}');
  });

  it('matches field names holding dots only through `\\.`', () => {
    const row = { 'docs.count': '3', docs: { count: 4 } };
    expect(filtered(row, 'docs.count')).toBe('{"docs":{"count":4}}');
    expect(filtered(row, 'docs\\.count')).toBe('{"docs.count":"3"}');
  });

  it('filters each object of a root array; an array left empty gives no body', () => {
    const rows = [
      { index: 'a', health: 'green' },
      { index: 'b', health: 'yellow' },
    ];
    expect(filtered(rows, 'index')).toBe('[{"index":"a"},{"index":"b"}]');
    expect(filtered(rows, 'nope')).toBe('<nothing>');
  });

  it('sees values as JSON does (undefined left out, toJSON applied)', () => {
    const body = { a: undefined, b: { toJSON: () => ({ c: 1, d: 2 }) }, e: 1 };
    expect(filtered(body, 'b.c,a')).toBe('{"b":{"c":1}}');
  });

  it('an inclusion then keeps exactly what a tree walk of the paths keeps (property)', () => {
    // For plain trees without wildcards: a top-level inclusion keeps exactly the named key.
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !/[.*,\\-]/.test(k) && k.trim() === k), fc.jsonValue()), (obj) => {
        for (const k of Object.keys(obj)) {
          expect(JSON.parse(filtered(obj, k))).toEqual(JSON.parse(JSON.stringify({ [k]: obj[k] })));
        }
      }),
    );
  });
});
