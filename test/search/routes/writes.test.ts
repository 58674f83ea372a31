import { describe, expect, it } from 'vitest';
import { searchForEach } from '../harness.js';

/**
 * Document writes and index resolution over HTTP (routes/document-routes.ts) where ES 8's answers
 * are easy to miss.
 */

/**
 * ES 8 behaviours of writes and index resolution that Portico answered differently: deletes and
 * updates on a missing index (TransportBulkAction's auto-creation rules), unknown or mistyped
 * fields in an update body (UpdateRequest's ObjectParser), the id of a failed auto-id item, a
 * numeric `_id` in an action line (Jackson's text), `allow_no_indices=false` on `_all`, `*` and no
 * index, and a long document id in the URL (validation rather than the router's limit).
 */

const h = searchForEach();

const ndjson = (lines: readonly string[]): string => lines.join('\n') + '\n';

async function bulk(url: string, lines: readonly string[]) {
  const res = await h.app.inject({ method: 'POST', url, payload: ndjson(lines), headers: { 'content-type': 'application/x-ndjson' } });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD', url: string, body?: unknown) {
  const res = await h.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.statusCode, body: res.body === '' ? undefined : (res.json() as Record<string, unknown>) };
}

const exists = async (index: string): Promise<boolean> => (await call('HEAD', `/${index}`)).status === 200;

const items = (body: Record<string, unknown>) => body.items as Record<string, Record<string, unknown>>[];

const notFound = (index: string) => ({
  type: 'index_not_found_exception',
  reason: `no such index [${index}]`,
  'resource.type': 'index_or_alias',
  'resource.id': index,
  index_uuid: '_na_',
  index,
});

const envelope = (status: number, cause: Record<string, unknown>) => ({ error: { root_cause: [cause], ...cause }, status });

describe('_bulk delete and update on an index that does not exist', () => {
  it('a delete fails its item with index_not_found_exception and creates no index', async () => {
    const r = await bulk('/_bulk', ['{"delete":{"_index":"gone","_id":"1"}}', '{"index":{"_index":"other","_id":"1"}}', '{"f":1}']);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBe(true);
    expect(items(r.body)[0]).toEqual({ delete: { _index: 'gone', _id: '1', status: 404, error: notFound('gone') } });
    expect(items(r.body)[1]?.index?.result).toBe('created');
    expect(await exists('gone')).toBe(false);
  });

  it('a delete under external versioning auto-creates the index and answers not_found', async () => {
    const r = await bulk('/_bulk', ['{"delete":{"_index":"ext","_id":"1","version":7,"version_type":"external"}}']);
    expect(items(r.body)[0]?.delete).toMatchObject({ _index: 'ext', _id: '1', _version: 7, result: 'not_found', status: 404 });
    expect(await exists('ext')).toBe(true);
  });

  it('a delete ignores require_alias (DeleteRequest has none)', async () => {
    const r = await bulk('/_bulk?require_alias=true', ['{"delete":{"_index":"gone","_id":"1"}}']);
    expect(items(r.body)[0]).toEqual({ delete: { _index: 'gone', _id: '1', status: 404, error: notFound('gone') } });
  });

  it('a delete naming an index that starts with _ is refused as an expression', async () => {
    const r = await bulk('/_bulk', ['{"delete":{"_index":"_x","_id":"1"}}']);
    expect(items(r.body)[0]?.delete?.error).toEqual({ type: 'invalid_index_name_exception', reason: "Invalid index name [_x], must not start with '_'.", index_uuid: '_na_', index: '_x' });
  });

  it('an update auto-creates the index, then fails with document_missing_exception', async () => {
    const r = await bulk('/_bulk', ['{"update":{"_index":"fresh","_id":"1"}}', '{"doc":{"f":1}}']);
    const item = items(r.body)[0]?.update as Record<string, unknown>;
    expect(item).toMatchObject({ _index: 'fresh', _id: '1', status: 404, error: { type: 'document_missing_exception', reason: '[1]: document missing', shard: '0', index: 'fresh' } });
    expect((item.error as Record<string, unknown>).index_uuid).not.toBe('_na_');
    expect(await exists('fresh')).toBe(true);
  });

  it('an update with require_alias fails its item and creates nothing', async () => {
    const r = await bulk('/_bulk', ['{"update":{"_index":"fresh","_id":"1","require_alias":true}}', '{"doc":{"f":1}}']);
    expect(items(r.body)[0]?.update?.error).toMatchObject({
      type: 'index_not_found_exception',
      reason: 'no such index [fresh] and [require_alias] request flag is [true] and [fresh] is not an alias',
    });
    expect(await exists('fresh')).toBe(false);
  });

  it('the single-document APIs follow the same rules', async () => {
    expect(await call('DELETE', '/gone/_doc/1')).toEqual({ status: 404, body: envelope(404, notFound('gone')) });
    expect(await exists('gone')).toBe(false);
    const ext = await call('DELETE', '/ext/_doc/1?version=3&version_type=external_gte');
    expect(ext).toMatchObject({ status: 404, body: { result: 'not_found', _version: 3 } });
    expect(await exists('ext')).toBe(true);
    const upd = await call('POST', '/fresh/_update/1', { doc: { f: 1 } });
    expect(upd.status).toBe(404);
    expect((upd.body?.error as Record<string, unknown>).type).toBe('document_missing_exception');
    expect(await exists('fresh')).toBe(true);
  });
});

describe('update bodies: fields UpdateRequest does not declare or take', () => {
  const parseError = (reason: string) => envelope(400, { type: 'x_content_parse_exception', reason });

  it('_update refuses an unknown field at its key, before validation', async () => {
    await call('PUT', '/t/_doc/1', { f: 1 });
    expect(await call('POST', '/t/_update/1', '{"doc":{"f":2},"foo":1}')).toEqual({ status: 400, body: parseError('[1:16] [UpdateRequest] unknown field [foo]') });
    // Document order, not JavaScript's (integer-like keys first); a near miss is suggested.
    expect((await call('POST', '/t/_update/1', '{\n  "docs": {},\n  "1": 2\n}')).body).toEqual(parseError('[2:3] [UpdateRequest] unknown field [docs] did you mean [doc]?'));
    // Before "script or doc is missing".
    expect((await call('POST', '/t/_update/1', '{"upsert_doc":{}}')).body).toEqual(parseError('[1:2] [UpdateRequest] unknown field [upsert_doc] did you mean [upsert]?'));
    expect((await call('GET', '/t/_doc/1')).body?._source).toEqual({ f: 1 });
  });

  it('_update refuses a value of a type the field does not take, at the value', async () => {
    expect((await call('POST', '/t/_update/1', '{"doc":5}')).body).toEqual(parseError("[1:8] [UpdateRequest] doc doesn't support values of type: VALUE_NUMBER"));
    expect((await call('POST', '/t/_update/1', '{"doc":{},"upsert":null}')).body).toEqual(
      parseError("[1:20] [UpdateRequest] upsert doesn't support values of type: VALUE_NULL"),
    );
  });

  it('a body that is no object is refused where it starts', async () => {
    expect((await call('POST', '/t/_update/1', '[1]')).body).toEqual(parseError('[1:1] [UpdateRequest] Expected START_OBJECT but was: START_ARRAY'));
    expect((await call('POST', '/t/_update/1', '\n  null')).body).toEqual(parseError('[2:3] [UpdateRequest] Expected START_OBJECT but was: VALUE_NULL'));
    const r = await bulk('/t/_bulk', ['{"update":{"_id":"1"}}', '"doc"']);
    expect(r).toEqual({ status: 400, body: parseError('[1:1] [UpdateRequest] Expected START_OBJECT but was: VALUE_STRING') });
  });

  it('_bulk fails the whole request on an unknown field in an update line, applying nothing', async () => {
    const r = await bulk('/t/_bulk', ['{"index":{"_id":"1"}}', '{"f":1}', '{"update":{"_id":"1"}}', '{"doc":{"f":2}, "foo":1}']);
    expect(r).toEqual({ status: 400, body: parseError('[1:17] [UpdateRequest] unknown field [foo]') });
    expect(await exists('t')).toBe(false);
  });

  it('every declared field is still accepted, and doc_as_upsert as a string', async () => {
    const r = await bulk('/t/_bulk', [
      '{"update":{"_id":"1"}}',
      '{"doc":{"f":1},"doc_as_upsert":"true","detect_noop":true,"_source":false,"scripted_upsert":false}',
    ]);
    expect(items(r.body)[0]?.update).toMatchObject({ result: 'created', status: 201 });
  });
});

describe('_bulk: the id of a failed item without _id', () => {
  it('is the generated id when the source fails to parse', async () => {
    const r = await bulk('/t/_bulk', ['{"index":{}}', '{"f":', '{"create":{}}', '"text"']);
    for (const [i, op] of [[0, 'index'], [1, 'create']] as const) {
      const item = items(r.body)[i]?.[op] as Record<string, unknown>;
      expect(item.status).toBe(400);
      expect(item._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    }
  });

  it('is null when the item fails before an id is generated', async () => {
    const r = await bulk('/_bulk', ['{"index":{"_index":"Bad"}}', '{"f":1}', '{"index":{"_index":"t","require_alias":true}}', '{"f":1}']);
    expect(items(r.body)[0]?.index).toMatchObject({ _index: 'Bad', _id: null, status: 400, error: { type: 'invalid_index_name_exception' } });
    expect(items(r.body)[1]?.index).toMatchObject({ _index: 't', _id: null, status: 404, error: { type: 'index_not_found_exception' } });
  });
});

describe('_bulk: the index is created before any item is routed', () => {
  it('stays when the item then fails on an empty _id or a malformed source', async () => {
    const r = await bulk('/_bulk', ['{"index":{"_index":"a","_id":""}}', '{"f":1}', '{"create":{"_index":"b"}}', '{"f":']);
    expect(r.body.errors).toBe(true);
    expect(await exists('a')).toBe(true);
    expect(await exists('b')).toBe(true);
  });
});

describe('update: detect_noop', () => {
  it('false writes a new version even when nothing changes, in _bulk and _update', async () => {
    await call('PUT', '/t/_doc/1', { f: 1 });
    expect((await call('POST', '/t/_update/1', { doc: { f: 1 } })).body).toMatchObject({ result: 'noop', _version: 1 });
    expect((await call('POST', '/t/_update/1', { doc: { f: 1 }, detect_noop: false })).body).toMatchObject({ result: 'updated', _version: 2 });
    const r = await bulk('/t/_bulk', ['{"update":{"_id":"1"}}', '{"doc":{"f":1},"detect_noop":"false"}', '{"update":{"_id":"1"}}', '{"doc":{"f":1}}']);
    expect(items(r.body).map((it) => [it.update?.result, it.update?._version])).toEqual([
      ['updated', 3],
      ['noop', 3],
    ]);
  });
});

describe('update: if_seq_no and if_primary_term in the body', () => {
  it('are compare-and-set conditions over the URL\'s and the action line\'s, validated the same way', async () => {
    await call('PUT', '/t/_doc/1', { f: 1 });
    const stale = await call('POST', '/t/_update/1?if_seq_no=0&if_primary_term=1', { doc: { f: 2 }, if_seq_no: 7, if_primary_term: 1 });
    expect(stale.status).toBe(409);
    expect((stale.body?.error as Record<string, unknown>).reason).toBe(
      '[1]: version conflict, required seqNo [7], primary term [1]. current document has seqNo [0] and primary term [1]',
    );
    expect((await call('POST', '/t/_update/1', { doc: { f: 2 }, if_seq_no: '0', if_primary_term: 1 })).body).toMatchObject({ result: 'updated', _seq_no: 1 });
    expect((await call('POST', '/t/_update/1', { doc: { f: 3 }, if_seq_no: 1 })).body).toEqual(
      envelope(400, { type: 'action_request_validation_exception', reason: 'Validation Failed: 1: ifSeqNo is set, but primary term is [0];' }),
    );
    const r = await bulk('/t/_bulk', ['{"update":{"_id":"1","if_seq_no":1,"if_primary_term":1}}', '{"doc":{"f":4},"if_seq_no":0}']);
    expect(items(r.body)[0]?.update).toMatchObject({ status: 409, error: { type: 'version_conflict_engine_exception' } });
  });
});

describe('_bulk: a numeric _id is its text as written', () => {
  it('keeps 1.50, 1e2 and -0 as they are in the line', async () => {
    const r = await bulk('/t/_bulk', ['{"index":{"_id":1.50}}', '{"f":1}', '{ "index" : { "_index" : "t", "_id" : 1e2 } }', '{"f":2}', '{"delete":{"_id":-0}}']);
    expect(items(r.body).map((it) => Object.values(it)[0]?._id)).toEqual(['1.50', '1e2', '-0']);
    expect((await call('GET', '/t/_doc/1.50')).body?.found).toBe(true);
  });

  it('reads the _id of the action object, not a key of the same name elsewhere in the line', async () => {
    const r = await bulk('/_bulk', ['{"index":{"_index":"t","dynamic_templates":{"_id":"x"},"_id":10}}', '{"f":1}']);
    expect(items(r.body)[0]?.index?._id).toBe('10');
  });
});

describe('allow_no_indices=false when nothing resolves', () => {
  const noneExist = {
    type: 'index_not_found_exception',
    reason: 'no such index [_all] and no indices exist',
    'resource.type': 'index_or_alias',
    'resource.id': '_all',
    index_uuid: '_na_',
    index: '_all',
  };

  it('_all and no index at all: no such index [_all] and no indices exist', async () => {
    for (const url of ['/_search?allow_no_indices=false', '/_all/_search?allow_no_indices=false', '/_count?allow_no_indices=false', '/_all/_count?allow_no_indices=false']) {
      expect(await call('GET', url), url).toEqual({ status: 404, body: envelope(404, noneExist) });
    }
  });

  it('* alone: no such index [*]', async () => {
    expect(await call('GET', '/*/_search?allow_no_indices=false')).toEqual({ status: 404, body: envelope(404, notFound('*')) });
  });

  it('names all skipped by ignore_unavailable: the one name, or every expression', async () => {
    expect(await call('GET', '/a/_search?allow_no_indices=false&ignore_unavailable=true')).toEqual({ status: 404, body: envelope(404, notFound('a')) });
    const both = { type: 'index_not_found_exception', reason: 'no such index [null]', 'resource.type': 'index_expression', 'resource.id': ['a', 'b'] };
    expect(await call('GET', '/a,b/_search?allow_no_indices=false&ignore_unavailable=true')).toEqual({ status: 404, body: envelope(404, both) });
  });

  it('still answers 200 when something resolves, or by default', async () => {
    expect((await call('GET', '/_search')).status).toBe(200);
    expect((await call('GET', '/*/_search')).status).toBe(200);
    await call('PUT', '/t/_doc/1', { f: 1 });
    expect((await call('GET', '/_search?allow_no_indices=false')).status).toBe(200);
    expect((await call('GET', '/*/_search?allow_no_indices=false')).status).toBe(200);
  });
});

describe('a long document id in the URL', () => {
  it('is refused by ES validation, not by the router, up to a 4 KB request line', async () => {
    const id = 'x'.repeat(3000);
    const r = await call('PUT', `/t/_doc/${id}`, { f: 1 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(
      envelope(400, {
        type: 'action_request_validation_exception',
        reason: `Validation Failed: 1: id [${id}] is too long, must be no longer than 512 bytes but was: 3000;`,
      }),
    );
    expect((await call('GET', `/t/_doc/${id}`)).status).toBe(404);
  });
});
