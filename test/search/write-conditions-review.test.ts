import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

/**
 * Second reader's cases for the write conditions (version, version_type, if_seq_no,
 * if_primary_term): ES 8 behaviour the first version missed, and what must survive a restart.
 */

let h: SearchHarness;
beforeEach(async () => {
  h = await startSearch();
});
afterEach(async () => h.close());

type Json = Record<string, unknown> & { error?: { type: string; reason: string } };

async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.statusCode, body: res.json() as Json };
}

async function bulk(lines: readonly string[], url = '/test/_bulk') {
  const res = await h.app.inject({ method: 'POST', url, payload: lines.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' } });
  return { status: res.statusCode, body: res.json() as Json & { errors: boolean; items: Record<string, Record<string, unknown>>[] } };
}

describe('a write that fails after auto-creating its index', () => {
  // ES creates the index before the write is tried, and keeps it whatever becomes of the write.
  // Here the index was created inside the write's store transaction: the failure rolled the
  // index's row back while the in-memory index stayed, so every later document of that index was
  // acknowledged but gone after a restart.
  it('keeps the index, and the documents written to it later, across a restart (409 on if_seq_no)', async () => {
    const cas = await call('PUT', '/fresh/_doc/1?if_seq_no=0&if_primary_term=1', { n: 1 });
    expect(cas.status).toBe(409);
    expect((await call('PUT', '/fresh/_doc/2', { n: 2 })).status).toBe(201);
    await h.restart();
    expect(await call('GET', '/fresh/_doc/2')).toMatchObject({ status: 200, body: { found: true, _source: { n: 2 } } });
  });

  it('keeps the index, and the documents written to it later, across a restart (document parsing error)', async () => {
    expect((await call('PUT', '/fresh2/_doc/1', { _id: 'x' })).status).toBe(400);
    expect((await call('PUT', '/fresh2/_doc/2', { n: 2 })).status).toBe(201);
    await h.restart();
    expect(await call('GET', '/fresh2/_doc/2')).toMatchObject({ status: 200, body: { found: true, _source: { n: 2 } } });
  });
});

describe('versioning parameters as ES 8 reads them', () => {
  it('accepts external_gt as another name of external (VersionType.fromString)', async () => {
    expect(await call('PUT', '/test/_doc/1?version=5&version_type=external_gt', { n: 1 })).toMatchObject({ status: 201, body: { _version: 5 } });
    const stale = await call('PUT', '/test/_doc/1?version=5&version_type=external_gt', { n: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.reason).toBe('[1]: version conflict, current version [5] is higher or equal to the one provided [5]');
    const r = await bulk(['{"index":{"_id":"2","version":3,"version_type":"external_gt"}}', '{"n":1}']);
    expect(r.body.items[0]?.index).toMatchObject({ status: 201, _version: 3 });
  });

  it('refuses a negative if_seq_no or if_primary_term with 400 (the request setters), not a 409', async () => {
    await call('PUT', '/test/_doc/1', { n: 1 });
    const seq = await call('PUT', '/test/_doc/1?if_seq_no=-5&if_primary_term=1', { n: 2 });
    expect(seq).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'sequence numbers must be non negative. got [-5].' } } });
    const term = await call('DELETE', '/test/_doc/1?if_seq_no=0&if_primary_term=-1');
    expect(term).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'primary term must be non negative. got [-1]' } } });
    const upd = await call('POST', '/test/_update/1?if_seq_no=-3&if_primary_term=1', { doc: { n: 3 } });
    expect(upd).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'sequence numbers must be non negative. got [-3].' } } });
    const b = await bulk(['{"index":{"_id":"1","if_seq_no":-5,"if_primary_term":1}}', '{"n":2}']);
    expect(b).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'sequence numbers must be non negative. got [-5].' } } });
    const b2 = await bulk(['{"delete":{"_id":"1","if_seq_no":0,"if_primary_term":-2}}']);
    expect(b2).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'primary term must be non negative. got [-2]' } } });
    // -2 is "unassigned": allowed, and then the primary term alone is a validation problem.
    const unassigned = await call('PUT', '/test/_doc/1?if_seq_no=-2&if_primary_term=1', { n: 2 });
    expect(unassigned.body.error?.reason).toBe('Validation Failed: 1: ifSeqNo is unassigned, but primary term is [1];');
    expect((await call('GET', '/test/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
  });

  it('refuses version or version_type on the update API (RestUpdateAction) instead of ignoring them', async () => {
    await call('PUT', '/test/_doc/1', { n: 1 });
    const reason = 'Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;';
    for (const q of ['version=1', 'version_type=external', 'version=2&version_type=external']) {
      const r = await call('POST', `/test/_update/1?${q}`, { doc: { n: 2 } });
      expect(r, q).toMatchObject({ status: 400, body: { error: { type: 'action_request_validation_exception', reason } } });
    }
    expect((await call('GET', '/test/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
  });

  it('reads a version given as a string as the JSON parser\'s longValue does (decimals truncated, a bad one an illegal_argument_exception)', async () => {
    const r = await bulk(['{"index":{"_id":"1","version":"7.9","version_type":"external"}}', '{"n":1}']);
    expect(r.body.items[0]?.index).toMatchObject({ status: 201, _version: 7 });
    const bad = await bulk(['{"index":{"_id":"2","version":"x1","version_type":"external"}}', '{"n":1}']);
    expect(bad).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'For input string: "x1"' } } });
  });
});

describe('retry_on_conflict with compare-and-set (UpdateRequest.validate)', () => {
  it('refuses an update that both retries and sets if_seq_no, in a bulk line and in the URL', async () => {
    await call('PUT', '/test/_doc/1', { n: 1 });
    const reason = 'Validation Failed: 1: compare and write operations can not be retried;';
    const b = await bulk(['{"update":{"_id":"1","if_seq_no":0,"if_primary_term":1,"retry_on_conflict":3}}', '{"doc":{"n":2}}']);
    expect(b).toMatchObject({ status: 400, body: { error: { type: 'action_request_validation_exception', reason } } });
    const u = await call('POST', '/test/_update/1?retry_on_conflict=2&if_seq_no=0&if_primary_term=1', { doc: { n: 2 } });
    expect(u).toMatchObject({ status: 400, body: { error: { type: 'action_request_validation_exception', reason } } });
    expect((await call('GET', '/test/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
    // Without if_seq_no, retry_on_conflict is fine.
    expect((await bulk(['{"update":{"_id":"1","retry_on_conflict":3}}', '{"doc":{"n":2}}'])).body.items[0]?.update).toMatchObject({ status: 200 });
    expect((await call('POST', '/test/_update/1?retry_on_conflict=x', { doc: { n: 3 } })).body.error?.reason).toBe('Failed to parse int parameter [retry_on_conflict] with value [x]');
    // Repeated, the last one counts (and nothing crashes).
    expect((await call('POST', '/test/_update/1?retry_on_conflict=x&retry_on_conflict=1', { doc: { n: 4 } })).status).toBe(200);
  });
});

describe('internal version -4 (Versions.MATCH_DELETED): the document must not exist', () => {
  // The one explicit internal version IndexRequest.validate lets through: INTERNAL's
  // isVersionConflictForWrites then refuses the write when the document exists, as a create does.
  it('is a 409 "document already exists" when the document is there, and a plain write when it is not', async () => {
    expect((await call('PUT', '/test/_doc/1?version=-4', { n: 1 })).status).toBe(201);
    const again = await call('PUT', '/test/_doc/1?version=-4', { n: 2 });
    expect(again).toMatchObject({ status: 409, body: { error: { type: 'version_conflict_engine_exception', reason: '[1]: version conflict, document already exists (current version [1])' } } });
    const b = await bulk(['{"index":{"_id":"1","version":-4}}', '{"n":3}']);
    expect(b.body.items[0]?.index).toMatchObject({ status: 409, error: { reason: '[1]: version conflict, document already exists (current version [1])' } });
    expect((await call('GET', '/test/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
  });
});
