import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchError } from '../../../src/search/errors.js';
import { parseMultiGet } from '../../../src/search/requests/multi-get.js';
import { startSearch, type SearchHarness } from '../harness.js';

/** `_mget` as ES 8 answers it (issue 3): shapes of found, missing and failed items, and its validation. */

const json = { 'content-type': 'application/json' };

describe('parseMultiGet', () => {
  it('reads docs and ids, with the URL index as default', () => {
    const items = parseMultiGet({ docs: [{ _index: 'a', _id: 1 }, { _id: 'x', _source: false }], ids: ['y'] }, 'd');
    expect(items.map((i) => [i.index, i.id])).toEqual([
      ['a', '1'],
      ['d', 'x'],
      ['d', 'y'],
    ]);
    expect(items[1]?.source).toEqual({ fetch: false, includes: [], excludes: [] });
  });

  it('throws only SearchErrors, whatever the body (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.string(), { nil: undefined }), (body, index) => {
        try {
          parseMultiGet(body, index);
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
        }
      }),
    );
  });
});

describe('_mget over HTTP', () => {
  let h: SearchHarness;
  const req = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await h.app.inject({ method, url, headers: json, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }) });
    return { status: res.statusCode, body: res.body, json: res.body === '' ? undefined : (JSON.parse(res.body) as Record<string, unknown>) };
  };

  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/1', headers: json, payload: '{"foo":"bar","nested":{"a":1,"b":2}}' });
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/2', headers: json, payload: '{"foo":"baz"}' });
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/2', headers: json, payload: '{"foo":"baz2"}' });
  });
  afterAll(async () => h.close());

  it('answers found, not found and a missing index in ES 8 shapes, in request order', async () => {
    const r = await req('POST', '/_mget', { docs: [{ _index: 'test_1', _id: '1' }, { _index: 'test_1', _id: 'nope' }, { _index: 'test_2', _id: '1' }] });
    expect(r.status).toBe(200);
    expect(r.body).toBe(
      '{"docs":[' +
        '{"_index":"test_1","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":{"foo":"bar","nested":{"a":1,"b":2}}},' +
        '{"_index":"test_1","_id":"nope","found":false},' +
        '{"_index":"test_2","_id":"1","error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [test_2]","resource.type":"index_or_alias","resource.id":"test_2","index_uuid":"_na_","index":"test_2"}],' +
        '"type":"index_not_found_exception","reason":"no such index [test_2]","resource.type":"index_or_alias","resource.id":"test_2","index_uuid":"_na_","index":"test_2"}}' +
        ']}',
    );
  });

  it('serves GET and POST, on /_mget and /<index>/_mget, with docs or ids', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const byIds = await req(method, '/test_1/_mget', { ids: ['2', '3'] });
      expect(byIds.json).toEqual({
        docs: [
          { _index: 'test_1', _id: '2', _version: 2, _seq_no: 2, _primary_term: 1, found: true, _source: { foo: 'baz2' } },
          { _index: 'test_1', _id: '3', found: false },
        ],
      });
      const docs = await req(method, '/test_1/_mget', { docs: [{ _id: '1', _source: 'foo' }, { _index: 'test_1', _id: 2 }] });
      expect((docs.json?.docs as { _source: unknown }[]).map((d) => d._source)).toEqual([{ foo: 'bar' }, { foo: 'baz2' }]);
    }
  });

  it('filters _source from the URL and per document (the document wins)', async () => {
    const url = await req('POST', '/test_1/_mget?_source_includes=nested&_source_excludes=nested.b', { ids: ['1'] });
    expect((url.json?.docs as { _source: unknown }[])[0]?._source).toEqual({ nested: { a: 1 } });
    const off = await req('POST', '/test_1/_mget?_source=false', { docs: [{ _id: '1' }, { _id: '2', _source: true }, { _id: '1', _source: { includes: ['nested.*'], excludes: 'nested.a' } }] });
    const docs = off.json?.docs as Record<string, unknown>[];
    expect(docs[0]).not.toHaveProperty('_source');
    expect(docs[0]?.found).toBe(true);
    expect(docs[1]?._source).toEqual({ foo: 'baz2' });
    expect(docs[2]?._source).toEqual({ nested: { b: 2 } });
    const list = await req('POST', '/_mget?_source=foo', { docs: [{ _index: 'test_1', _id: '1', _source: ['nested.b', 'foo'] }, { _index: 'test_1', _id: '1' }] });
    expect((list.json?.docs as { _source: unknown }[]).map((d) => d._source)).toEqual([{ foo: 'bar', nested: { b: 2 } }, { foo: 'bar' }]);
  });

  it('leaves the source out when only stored fields are asked for', async () => {
    const r = await req('POST', '/test_1/_mget?stored_fields=foo', { ids: ['1'] });
    expect(r.json).toEqual({ docs: [{ _index: 'test_1', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, found: true }] });
    const withSource = await req('POST', '/test_1/_mget', { docs: [{ _id: '1', stored_fields: ['_source'] }] });
    expect((withSource.json?.docs as { _source: unknown }[])[0]?._source).toEqual({ foo: 'bar', nested: { a: 1, b: 2 } });
  });

  it('accepts realtime and refresh, and refuses a value that is no boolean', async () => {
    expect((await req('POST', '/test_1/_mget?realtime=false&refresh', { ids: ['1'] })).status).toBe(200);
    const bad = await req('POST', '/test_1/_mget?refresh=yes', { ids: ['1'] });
    expect(bad.status).toBe(400);
    expect(bad.json?.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Failed to parse value [yes] as only [true] or [false] are allowed.' });
  });

  it('fails an item whose version does not match', async () => {
    const r = await req('POST', '/test_1/_mget', { docs: [{ _id: '2', version: 1 }, { _id: '2', version: 2 }] });
    const docs = r.json?.docs as Record<string, unknown>[];
    expect(docs[0]).toMatchObject({ _index: 'test_1', _id: '2', error: { type: 'version_conflict_engine_exception', reason: '[2]: version conflict, current version [2] is different than the one provided [1]' } });
    expect(docs[1]?.found).toBe(true);
  });

  it.each([
    [{ docs: [{ _index: 'test_1' }] }, '/_mget', 'Validation Failed: 1: id is missing for doc 0;'],
    [{ docs: [{ _id: '1' }] }, '/_mget', 'Validation Failed: 1: index is missing for doc 0;'],
    [{ docs: [] }, '/_mget', 'Validation Failed: 1: no documents to get;'],
    [{}, '/_mget', 'Validation Failed: 1: no documents to get;'],
    [{ ids: ['1', '2'] }, '/_mget', 'Validation Failed: 1: index is missing for doc 0;2: index is missing for doc 1;'],
    [{ docs: [{}] }, '/_mget', 'Validation Failed: 1: index is missing for doc 0;2: id is missing for doc 0;'],
  ])('refuses %j on %s as ES does', async (body, url, reason) => {
    const r = await req('POST', url, body);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: { root_cause: [{ type: 'action_request_validation_exception', reason }], type: 'action_request_validation_exception', reason }, status: 400 });
  });

  it('refuses malformed bodies with ES parse errors', async () => {
    const cases: [unknown, string, string][] = [
      [undefined, 'parse_exception', 'request body or source parameter is required'],
      [{ docs: [{ _index: 'test_1', _id: '1', bogus: 1 }] }, 'parse_exception', 'failed to parse multi get request. unknown field [bogus]'],
      [{ docs: ['1'] }, 'illegal_argument_exception', 'docs array element should include an object'],
      [{ ids: [{}] }, 'illegal_argument_exception', 'ids array element should only contain ids'],
      [{ docs: {} }, 'parsing_exception', 'unexpected token [START_OBJECT], expected [FIELD_NAME] or [START_ARRAY]'],
      [{ other: [] }, 'parsing_exception', 'unknown key [other] for a START_ARRAY, expected [docs] or [ids]'],
      [{ docs: [{ _index: 'test_1', _id: '1', _source: 5 }] }, 'parse_exception', 'illegal type for _source: [VALUE_NUMBER]'],
    ];
    for (const [body, type, reason] of cases) {
      const r = await req('POST', '/_mget', body);
      expect(r.status, reason).toBe(400);
      expect(r.json?.error, reason).toMatchObject({ type, reason });
    }
    const params = await req('POST', '/_mget?bogus=1', { ids: ['1'] });
    expect((params.json?.error as { reason: string }).reason).toBe('request [/_mget] contains unrecognized parameter: [bogus]');
  });

  it('pretty-prints and filters like any answer', async () => {
    const r = await req('POST', '/test_1/_mget?filter_path=docs._source.foo,docs.found', { ids: ['1', 'nope'] });
    expect(r.body).toBe('{"docs":[{"found":true,"_source":{"foo":"bar"}},{"found":false}]}');
    const pretty = await req('POST', '/test_1/_mget?pretty', { ids: ['nope'] });
    expect(pretty.body).toBe('{\n  "docs" : [\n    {\n      "_index" : "test_1",\n      "_id" : "nope",\n      "found" : false\n    }\n  ]\n}\n');
  });
});
