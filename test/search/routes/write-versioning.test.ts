import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchForEach } from '../harness.js';

/**
 * Write versioning over HTTP as ES 8 behaves (version, version_type, if_seq_no, if_primary_term):
 * how the parameters are read, delete tombstones, sequence numbers across a start without the
 * snapshot, versions beyond 2^53, and what must survive a restart.
 */

const h = searchForEach();

type Json = Record<string, unknown> & { error?: { type: string; reason: string } };

async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.statusCode, body: res.json() as Json, text: res.body };
}

async function bulk(lines: readonly string[], url = '/test/_bulk') {
  const res = await h.app.inject({ method: 'POST', url, payload: lines.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' } });
  return { status: res.statusCode, body: res.json() as Json & { errors: boolean; items: Record<string, Record<string, unknown>>[] } };
}

async function bulkText(lines: readonly string[], url = '/test/_bulk') {
  const res = await h.app.inject({ method: 'POST', url, payload: lines.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' } });
  return { status: res.statusCode, text: res.body };
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

describe('external versions above 2^53', () => {
  // ES versions are longs. A JavaScript number holds integers exactly only up to 2^53 - 1, and
  // versions such as nanosecond timestamps (about 1.7e18) are common with external versioning:
  // in a bulk line they were rounded silently, so the answer named another version, and a newer
  // write whose version rounds to the stored one was refused as a conflict (the update lost). The
  // least fix: refuse, in a bulk line and in the URL, what cannot be held exactly, with a 400 that
  // says so (ES accepts these; exact longs would need BigInt through store, snapshot and writers).
  const reason = (name: string, shown: string) =>
    `[${name}] value${shown} is beyond ±9007199254740991, the largest integer this server holds exactly; it refuses the value rather than round it`;

  it('never keeps a rounded version: a bulk line with one is refused, nothing applied', async () => {
    const first = await bulkText(['{"index":{"_id":"1","version":1732320000000000001,"version_type":"external"}}', '{"n":1}']);
    expect(first.status).toBe(400);
    expect(JSON.parse(first.text)).toMatchObject({ status: 400, error: { type: 'illegal_argument_exception', reason: reason('version', '') } });
    const asString = await bulkText(['{"index":{"_id":"1","version":"9007199254740993","version_type":"external"}}', '{"n":1}']);
    expect(JSON.parse(asString.text)).toMatchObject({ status: 400, error: { reason: reason('version', ' [9007199254740993]') } });
    expect((await call('GET', '/test/_doc/1')).status).toBe(404);
    // The largest exact one is taken as given.
    const top = await bulkText(['{"index":{"_id":"1","version":9007199254740991,"version_type":"external"}}', '{"n":1}']);
    expect(top.text).toContain('"_version":9007199254740991');
  });

  it('refuses one in the URL with the same reason, not as an unparsable long', async () => {
    const url = await call('PUT', '/test/_doc/2?version=9007199254740993&version_type=external', { n: 1 });
    expect(url).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: reason('version', ' [9007199254740993]') } } });
    expect((await call('DELETE', '/test/_doc/2?if_seq_no=1732320000000000001&if_primary_term=1')).body.error?.reason).toBe(reason('if_seq_no', ' [1732320000000000001]'));
    // Beyond a long is what ES itself refuses.
    expect((await call('PUT', '/test/_doc/2?version=9223372036854775808&version_type=external', { n: 1 })).body.error?.reason).toBe(
      'Failed to parse long parameter [version] with value [9223372036854775808]',
    );
  });
});

describe('sequence numbers after a start without the snapshot (a crash)', () => {
  // if_seq_no is a compare-and-set only if a sequence number is never handed out twice: ES keeps
  // them rising for the life of the shard. Here a start that rebuilds from the store (no trusted
  // snapshot: a crash, a failed writer) takes the next one from the highest stored document, so
  // the numbers of the last deletes are handed out again, and a client holding one may overwrite
  // a document that is not the one it read.
  it('does not hand out a sequence number again, so a stale if_seq_no cannot match a newer document', async () => {
    expect(await call('PUT', '/test/_doc/x', { owner: 'alice' })).toMatchObject({ status: 201, body: { _seq_no: 0 } });
    expect(await call('DELETE', '/test/_doc/x')).toMatchObject({ status: 200, body: { _seq_no: 1 } });
    // A crash: no snapshot saved at close.
    await h.app.close();
    rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
    await h.restart();
    const again = await call('PUT', '/test/_doc/x', { owner: 'bob' });
    expect(again.status).toBe(201);
    expect(again.body._seq_no).toBeGreaterThan(1);
    // Alice's compare-and-set from before the delete must not overwrite Bob's document.
    expect((await call('PUT', '/test/_doc/x?if_seq_no=0&if_primary_term=1', { owner: 'alice', v: 2 })).status).toBe(409);
  });
});

describe('a deleted document\'s version (ES keeps a tombstone for index.gc_deletes, 60 s by default)', () => {
  // External versioning exists so that writes arriving out of order cannot undo newer ones. ES
  // remembers a deleted document's version for gc_deletes: a stale index arriving just after the
  // delete is a conflict. Here the delete forgets the version, so the stale write brings the
  // deleted document back.
  it('refuses an external version not above the delete\'s, right after the delete', async () => {
    expect((await call('PUT', '/test/_doc/1?version=5&version_type=external', { n: 1 })).status).toBe(201);
    expect(await call('DELETE', '/test/_doc/1?version=7&version_type=external')).toMatchObject({ status: 200, body: { _version: 7, result: 'deleted' } });
    const stale = await call('PUT', '/test/_doc/1?version=6&version_type=external', { n: 6 });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.reason).toBe('[1]: version conflict, current version [7] is higher or equal to the one provided [6]');
    expect((await call('GET', '/test/_doc/1')).status).toBe(404);
  });

  it('remembers the version of a delete of a document that was not there (SimpleVersioningIT.testExternalVersioningInitialDelete)', async () => {
    await call('PUT', '/test/_doc/other', { n: 0 });
    expect(await call('DELETE', '/test/_doc/3?version=17&version_type=external')).toMatchObject({ status: 404, body: { result: 'not_found', _version: 17 } });
    expect((await call('PUT', '/test/_doc/3?version=13&version_type=external', { n: 1 })).status).toBe(409);
    expect(await call('PUT', '/test/_doc/3?version=18&version_type=external', { n: 1 })).toMatchObject({ status: 201, body: { _version: 18 } });
  });

  it('counts the versions of an internally versioned document on from the delete\'s', async () => {
    await call('PUT', '/test/_doc/2', { n: 1 });
    expect((await call('DELETE', '/test/_doc/2')).body).toMatchObject({ _version: 2 });
    expect((await call('PUT', '/test/_doc/2', { n: 2 })).body).toMatchObject({ result: 'created', _version: 3 });
  });
});

describe('tombstones beyond the basics', () => {
  it('a delete of a deleted document counts on too, and compare-and-set sees no document', async () => {
    await call('PUT', '/test/_doc/t', { n: 1 });
    expect((await call('DELETE', '/test/_doc/t')).body).toMatchObject({ result: 'deleted', _version: 2, _seq_no: 1 });
    expect(await call('DELETE', '/test/_doc/t')).toMatchObject({ status: 404, body: { result: 'not_found', _version: 3 } });
    const cas = await call('PUT', '/test/_doc/t?if_seq_no=2&if_primary_term=1', { n: 2 });
    expect(cas.body.error?.reason).toBe('[t]: version conflict, required seqNo [2], primary term [1]. but no document was found');
    expect((await call('PUT', '/test/_create/t', { n: 2 })).body).toMatchObject({ result: 'created', _version: 4 });
  });

  it('in a bulk too, and an external_gte equal to the delete\'s version goes ahead', async () => {
    const r = await bulkText([
      '{"index":{"_id":"b","version":5,"version_type":"external"}}', '{"n":1}',
      '{"delete":{"_id":"b","version":7,"version_type":"external"}}',
      '{"index":{"_id":"b","version":6,"version_type":"external"}}', '{"n":2}',
      '{"index":{"_id":"b","version":7,"version_type":"external_gte"}}', '{"n":3}',
    ]);
    const items = (JSON.parse(r.text) as { items: Record<string, { status: number; _version?: number }>[] }).items.map((i) => Object.values(i)[0]);
    expect(items.map((i) => i?.status)).toEqual([201, 200, 409, 201]);
    expect(items[3]?._version).toBe(7);
  });

  it('forgets them with the index', async () => {
    await call('PUT', '/test/_doc/1', { n: 1 });
    await call('DELETE', '/test/_doc/1');
    await call('DELETE', '/test');
    expect((await call('PUT', '/test/_doc/1', { n: 1 })).body).toMatchObject({ result: 'created', _version: 1 });
  });
});

describe('the stored next sequence number', () => {
  const crash = async () => {
    await h.app.close();
    rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
    await h.restart();
  };

  it('covers a delete of a document that was not there, and deletes in a bulk', async () => {
    await call('PUT', '/test/_doc/a', { n: 1 });
    expect((await call('DELETE', '/test/_doc/nope')).body).toMatchObject({ result: 'not_found', _seq_no: 1 });
    await bulkText(['{"index":{"_id":"b"}}', '{"n":1}', '{"delete":{"_id":"b"}}', '{"delete":{"_id":"a"}}']);
    await crash();
    expect((await call('PUT', '/test/_doc/c', { n: 1 })).body).toMatchObject({ _seq_no: 5 });
  });

  it('is forgotten with the index: a new index of the same name starts at 0', async () => {
    await call('PUT', '/test/_doc/a', { n: 1 });
    await call('DELETE', '/test/_doc/a');
    await call('DELETE', '/test');
    await call('PUT', '/test/_doc/a', { n: 1 });
    await call('DELETE', '/test/_doc/a');
    await call('DELETE', '/test');
    await crash();
    expect((await call('PUT', '/test/_doc/x', { n: 1 })).body).toMatchObject({ _seq_no: 0 });
  });

  it('is not needed to load a store written before it was kept (no meta row): the documents give it', async () => {
    await call('PUT', '/test/_doc/a', { n: 1 });
    await call('PUT', '/test/_doc/b', { n: 1 });
    await call('DELETE', '/test/_doc/b');
    await h.app.close();
    rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
    const db = new Database(join(h.dataDir, 'search', 'documents.db'));
    expect(db.prepare("DELETE FROM meta WHERE key LIKE 'next_seq_no:%'").run().changes).toBe(1);
    db.close();
    await h.restart();
    expect((await call('GET', '/test/_doc/a')).body).toMatchObject({ found: true, _seq_no: 0 });
    expect((await call('PUT', '/test/_doc/c', { n: 1 })).body).toMatchObject({ _seq_no: 1 });
  });
});
