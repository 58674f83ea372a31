import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, renderJson } from '../../../src/search/http/json-render.js';

/** Replaces every RawJson leaf by the value its text encodes: what the rendered text must equal. */
function resolved(value: unknown): unknown {
  if (value instanceof RawJson) return JSON.parse(value.text) as unknown;
  if (Array.isArray(value)) return value.map(resolved);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolved(v)]));
  return value;
}

// JSON values where some leaves are stored JSON texts (as `_source` is), with odd keys and strings.
const withRaw = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.jsonValue({ maxDepth: 2 }).map((v) => new RawJson(JSON.stringify(v))),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('renderJson', () => {
  it('is JSON.stringify when nothing is raw, whatever hasRaw says', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(renderJson(v, false, true)).toBe(JSON.stringify(v));
        expect(renderJson(v, false, false)).toBe(JSON.stringify(v));
      }),
    );
  });

  it('splices RawJson text verbatim: the same bytes as JSON.stringify of the resolved tree', () => {
    fc.assert(
      fc.property(withRaw, (v) => {
        expect(renderJson(v, false, true)).toBe(JSON.stringify(resolved(v)));
      }),
    );
  });

  it('keeps stored source text as sent (spacing, key order, number spelling)', () => {
    const source = '{"b": 1.50, "a" : [ 1e3 ]}';
    const body = { hits: { total: { value: 1, relation: 'eq' }, hits: [{ _index: 'i', _id: '1', _score: 1.5, _source: new RawJson(source) }] } };
    expect(renderJson(body, false, true)).toBe(`{"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_index":"i","_id":"1","_score":1.5,"_source":${source}}]}}`);
  });

  it('omits undefined members, writes null for undefined array items and non-finite numbers, as JSON.stringify does', () => {
    const v = { a: undefined, b: [undefined, NaN, Infinity, () => 1], c: new Date(0), d: { toJSON: () => 'x' }, e: new RawJson('7') };
    expect(renderJson(v, false, true)).toBe('{"b":[null,null,null,null],"c":"1970-01-01T00:00:00.000Z","d":"x","e":7}');
  });

  it('answers a top-level RawJson with its text', () => {
    expect(renderJson(new RawJson('{"errors":false}'), false)).toBe('{"errors":false}');
    expect(renderJson(new RawJson('{"errors":false}'), false, true)).toBe('{"errors":false}');
  });

  it('pretty-prints RawJson like any other value', () => {
    expect(renderJson({ _source: new RawJson('{"a":[]}') }, true, true)).toBe('{\n  "_source" : {\n    "a" : [ ]\n  }\n}\n');
  });
});
