import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll, esCalls } from '../harness.js';
import { isoInstant } from '../../../src/search/syntax/date-format.js';

/** _mget over HTTP (routes/multi-routes.ts): items, parameters, and stored fields including dates. */

/** `_mget` as ES 8 answers it: shapes of found, missing and failed items, and its validation. */

const json = { 'content-type': 'application/json' };

describe('_mget over HTTP', () => {
  const h = searchForAll();
  const req = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await h.app.inject({ method, url, headers: json, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }) });
    return { status: res.statusCode, body: res.body, json: res.body === '' ? undefined : (JSON.parse(res.body) as Record<string, unknown>) };
  };

  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/1', headers: json, payload: '{"foo":"bar","nested":{"a":1,"b":2}}' });
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/2', headers: json, payload: '{"foo":"baz"}' });
    await h.app.inject({ method: 'PUT', url: '/test_1/_doc/2', headers: json, payload: '{"foo":"baz2"}' });
  });

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

// `_mget` parameters: `version_type` is read as VersionType.fromString reads it
// (an unknown one fails the request; every type checks a read by equality; version -3 is
// MATCH_ANY), `routing` changes nothing on one shard, and `stored_fields` answers `fields` with the
// values of the fields the mapping stores (and leaves it out for any other).

describe('_mget', () => {
  const h = searchForAll();
  const { call } = esCalls(h);
  beforeAll(async () => {
    const mappings = {
      properties: {
        title: { type: 'text', store: true, fields: { raw: { type: 'keyword', store: true }, plain: { type: 'keyword' } } },
        n: { type: 'integer', store: true },
        flag: { type: 'boolean', store: true },
        when: { type: 'date', store: true },
        tag: { type: 'keyword', ignore_above: 3, store: true },
        user: { properties: { name: { type: 'keyword', store: true } } },
        body: { type: 'text' },
      },
    };
    expect((await call('PUT', '/m', { mappings })).status).toBe(200);
    await call('PUT', '/m/_doc/1', { title: 'Hello', n: '7', flag: 'true', when: '2015-01-01', tag: ['ab', 'long'], user: { name: 'kim' }, body: 'x' });
    await call('PUT', '/m/_doc/1', { title: 'Hello', n: '7', flag: 'true', when: '2015-01-01', tag: ['ab', 'long'], user: { name: 'kim' }, body: 'x' });
  });

  it('refuses an unknown version_type, and checks every known one by equality', async () => {
    const bad = await call('POST', '/_mget', { docs: [{ _index: 'm', _id: '1', version: 2, version_type: 'force' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'No version type match [force]' });
    for (const vt of ['internal', 'external', 'external_gt', 'external_gte']) {
      const res = await call('POST', '/_mget', { docs: [{ _index: 'm', _id: '1', version: 2, version_type: vt }, { _index: 'm', _id: '1', version: 3, version_type: vt }] });
      expect(res.status).toBe(200);
      expect(res.body.docs[0]).toMatchObject({ found: true, _version: 2 });
      expect(res.body.docs[1].error).toMatchObject({
        type: 'version_conflict_engine_exception',
        reason: '[1]: version conflict, current version [2] is different than the one provided [3]',
      });
    }
  });

  it('takes version -3 (MATCH_ANY) as no check', async () => {
    const res = await call('POST', '/_mget', { docs: [{ _index: 'm', _id: '1', version: -3 }] });
    expect(res.body.docs[0]).toMatchObject({ found: true, _version: 2 });
  });

  it('accepts routing, per document and in the URL, with no effect on one shard', async () => {
    const plain = await call('POST', '/m/_mget', { ids: ['1', '2'] });
    const routed = await call('POST', '/m/_mget?routing=zz', { docs: [{ _id: '1', routing: 'other' }, { _id: '2', routing: 'x' }] });
    expect(routed.body).toEqual(plain.body);
  });

  it('answers stored_fields with `fields` for stored fields only, after _source', async () => {
    const res = await call('POST', '/m/_mget', { docs: [{ _id: '1', stored_fields: ['title', 'title.raw', 'title.plain', 'n', 'flag', 'when', 'tag', 'user.name', 'body', 'nope'] }] });
    const doc = res.body.docs[0];
    expect(doc._source).toBeUndefined();
    expect(doc.fields).toEqual({
      title: ['Hello'],
      'title.raw': ['Hello'],
      n: [7],
      flag: [true],
      when: ['2015-01-01T00:00:00.000Z'],
      tag: ['ab'],
      'user.name': ['kim'],
    });
    const withSource = await call('POST', '/m/_mget?stored_fields=n,_source', { ids: ['1'] });
    expect(Object.keys(withSource.body.docs[0])).toEqual(['_index', '_id', '_version', '_seq_no', '_primary_term', 'found', '_source', 'fields']);
    expect(withSource.body.docs[0].fields).toEqual({ n: [7] });
  });

  it('leaves `fields` out when no asked field is stored', async () => {
    const res = await call('POST', '/m/_mget', { docs: [{ _id: '1', stored_fields: ['body', 'title.plain'] }] });
    expect(res.body.docs[0]).toEqual({ _index: 'm', _id: '1', _version: 2, _seq_no: 1, _primary_term: 1, found: true });
  });
});

describe('_mget stored date fields', () => {
  // `_mget`'s `fields` for stored date fields. A date field takes epoch millis
  // past what Date#toISOString can print (±8.64e15): `stored_fields` on such a document answered a
  // 500. ES prints stored dates with strict_date_optional_time (year 4 to 9 digits, signed past 9999).

  describe('_mget stored_fields', () => {
    const h = searchForAll();
    const { call } = esCalls(h);
    beforeAll(async () => {
      const mappings = { properties: { d: { type: 'date', store: true }, k: { type: 'keyword', store: 'true' } } };
      expect((await call('PUT', '/sd', { mappings })).status).toBe(200);
      expect((await call('PUT', '/sd/_doc/1', { d: 9000000000000000, k: 'x' })).status).toBe(201);
      expect((await call('PUT', '/sd/_doc/2', { d: -9000000000000000 })).status).toBe(201);
    });

    it('answers a stored date past Date’s range instead of failing with a 500', async () => {
      const res = await call('POST', '/sd/_mget?stored_fields=d', { ids: ['1', '2'] });
      expect(res.status).toBe(200);
      expect(res.body.docs[0].fields).toEqual({ d: ['+287168-08-24T16:00:00.000Z'] });
      expect(res.body.docs[1].fields).toEqual({ d: ['-283229-05-10T08:00:00.000Z'] });
    });

    it('reads the mapping’s store as a boolean, "true" included', async () => {
      const res = await call('POST', '/sd/_mget', { docs: [{ _id: '1', stored_fields: ['k'] }] });
      expect(res.body.docs[0].fields).toEqual({ k: ['x'] });
    });

    it('prints years as java.time does with EXCEEDS_PAD (4 digits, sign past 9999 and below 0)', () => {
      expect(isoInstant(Date.UTC(2015, 0, 1, 0, 0, 0, 1))).toBe('2015-01-01T00:00:00.001Z');
      expect(isoInstant(253402300800000)).toBe('+10000-01-01T00:00:00.000Z');
      expect(isoInstant(-62198755200000)).toBe('-0001-01-01T00:00:00.000Z');
      expect(isoInstant(-62167219200000)).toBe('0000-01-01T00:00:00.000Z');
      for (let ms = -8.6e15; ms < 8.6e15; ms += 7.3e13 + 12345) {
        const y = new Date(ms).getUTCFullYear();
        if (y >= 0 && y <= 9999) expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
      }
    });
  });
});

describe('_mget stored dates with a format', () => {
  // ES shows a stored date field's value with the field's own format
  // (DateFieldType.valueForDisplay: the mapping format's printer), not always as ISO 8601
  // (strict_date_optional_time).

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  describe('_mget stored date with a format', () => {
    const h = searchForAll();
    const call = async (method: 'POST' | 'PUT', url: string, body: unknown): Promise<{ status: number; body: Body }> => {
      const res = await h.app.inject({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: res.statusCode, body: res.json() as Body };
    };
    beforeAll(async () => {
      const mappings = { properties: { e: { type: 'date', store: true, format: 'epoch_millis' }, y: { type: 'date', store: true, format: 'yyyy-MM-dd' } } };
      expect((await call('PUT', '/sf', { mappings })).status).toBe(200);
      expect((await call('PUT', '/sf/_doc/1', { e: 1420070400001, y: '2015-01-02' })).status).toBe(201);
    });

    it('prints each stored date with its field’s format', async () => {
      const res = await call('POST', '/sf/_mget?stored_fields=e,y', { ids: ['1'] });
      expect(res.body.docs[0].fields).toEqual({ e: ['1420070400001'], y: ['2015-01-02'] });
    });

    it('shows ISO 8601 for a date its pattern cannot print (a year past 999,999: ES would use the pattern)', async () => {
      const mappings = { properties: { f: { type: 'date', store: true, format: 'yyyy-MM-dd||epoch_millis' } } };
      expect((await call('PUT', '/sf2', { mappings })).status).toBe(200);
      expect((await call('PUT', '/sf2/_doc/1', { f: 1e17 })).status).toBe(201);
      const res = await call('POST', '/sf2/_mget?stored_fields=f', { ids: ['1'] });
      expect(res.body.docs[0].fields.f[0]).toMatch(/^\+3170\d{3}-\d{2}-\d{2}T/);
    });
  });
});
