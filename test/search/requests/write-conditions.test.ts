import { describe, expect, it } from 'vitest';
import { parseBulk } from '../../../src/search/requests/bulk.js';
import { casProblems, conflict, indexProblems, MATCH_ANY, NO_CONDITIONS, UNASSIGNED_SEQ_NO } from '../../../src/search/requests/write-conditions.js';
import { searchForEach } from '../harness.js';

/**
 * Version and sequence-number conditions on writes (`version`, `version_type`, `if_seq_no`,
 * `if_primary_term`), in `_bulk` action lines and on the document APIs, and the shapes of action
 * lines ES's bulk parser refuses.
 */

describe('write conditions: validation (IndexRequest/DeleteRequest.validate)', () => {
  it('names each problem as ES does', () => {
    expect(casProblems({ ...NO_CONDITIONS, version: 3 })).toEqual([
      'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead',
    ]);
    expect(casProblems({ ...NO_CONDITIONS, ifSeqNo: 4 })).toEqual(['ifSeqNo is set, but primary term is [0]']);
    expect(casProblems({ ...NO_CONDITIONS, ifPrimaryTerm: 1 })).toEqual(['ifSeqNo is unassigned, but primary term is [1]']);
    expect(casProblems({ ...NO_CONDITIONS, versionType: 'external', version: 2, ifSeqNo: 1, ifPrimaryTerm: 1 })).toEqual(['compare and write operations can not use versioning']);
    expect(casProblems({ ...NO_CONDITIONS, version: 0 })).toEqual([
      'illegal version value [0] for version type [INTERNAL]',
      'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead',
    ]);
    expect(indexProblems('index', undefined, { ...NO_CONDITIONS, versionType: 'external' })).toEqual([
      'an id must be provided if version type or value are set',
      `illegal version value [${MATCH_ANY}] for version type [EXTERNAL]`,
    ]);
    expect(indexProblems('create', '1', { ...NO_CONDITIONS, versionType: 'external_gte', version: 3 })).toEqual(['create operations only support internal versioning. use index instead']);
    expect(indexProblems('create', '1', { ...NO_CONDITIONS, version: 3 })).toEqual(['create operations do not support explicit versions. use index instead']);
    expect(indexProblems('create', '1', { ...NO_CONDITIONS, ifSeqNo: 1, ifPrimaryTerm: 1 })).toEqual(['create operations do not support compare and set. use index instead']);
    expect(indexProblems('index', '1', { ...NO_CONDITIONS, ifSeqNo: 1, ifPrimaryTerm: 1 })).toEqual([]);
  });

  it('says why a write conflicts with the current document', () => {
    const cas = { ...NO_CONDITIONS, ifSeqNo: 3, ifPrimaryTerm: 1 };
    expect(conflict(cas, { version: 2, seqNo: 3 })).toBeUndefined();
    expect(conflict(cas, { version: 2, seqNo: 4 })).toBe('required seqNo [3], primary term [1]. current document has seqNo [4] and primary term [1]');
    expect(conflict({ ...cas, ifPrimaryTerm: 2 }, { version: 2, seqNo: 3 })).toBe('required seqNo [3], primary term [2]. current document has seqNo [3] and primary term [1]');
    expect(conflict(cas, undefined)).toBe('required seqNo [3], primary term [1]. but no document was found');
    expect(conflict({ ...NO_CONDITIONS, versionType: 'external', version: 5 }, { version: 5, seqNo: 0 })).toBe('current version [5] is higher or equal to the one provided [5]');
    expect(conflict({ ...NO_CONDITIONS, versionType: 'external_gte', version: 5 }, { version: 5, seqNo: 0 })).toBeUndefined();
    expect(conflict({ ...NO_CONDITIONS, versionType: 'external_gte', version: 4 }, { version: 5, seqNo: 0 })).toBe('current version [5] is higher than the one provided [4]');
    expect(conflict({ ...NO_CONDITIONS, versionType: 'external', version: 1 }, undefined)).toBeUndefined();
    expect(NO_CONDITIONS.ifSeqNo).toBe(UNASSIGNED_SEQ_NO);
  });
});

describe('bulk action lines ES\'s parser refuses (whole request)', () => {
  const refuses = (body: string, reason: string) => expect(() => parseBulk(body, 'i')).toThrow(reason);

  it('an action line that is not an object, or an empty one, with its line number and token', () => {
    refuses('{"index":{"_id":"1"}}\n{"n":1}\n[1]\n', 'Malformed action/metadata line [3], expected START_OBJECT but found [START_ARRAY]');
    refuses('"x"\n', 'Malformed action/metadata line [1], expected START_OBJECT but found [VALUE_STRING]');
    refuses('{}\n', 'Malformed action/metadata line [1], expected FIELD_NAME but found [END_OBJECT]');
  });

  it('an array or object value in the action\'s object, except dynamic_templates and _source objects', () => {
    refuses('{"index":{"_id":["a"]}}\n{}\n', 'Malformed action/metadata line [1], expected a simple value for field [_id] but found [START_ARRAY]');
    refuses('{"index":{"routing":{"a":1}}}\n{}\n', 'Malformed action/metadata line [1], expected a simple value for field [routing] but found [START_OBJECT]');
    expect(parseBulk('{"update":{"_id":"1","_source":{"includes":["a"]}}}\n{"doc":{}}\n', 'i')).toHaveLength(1);
  });

  it('a null value is skipped whatever its key (the default index, no id)', () => {
    const [a] = parseBulk('{"index":{"_index":null,"_id":null,"bogus":null}}\n{"n":1}\n', 'i');
    expect(a).toMatchObject({ op: 'index', index: 'i', id: undefined });
  });

  it('versioning on an update, dynamic_templates on a delete or update, an unknown version type', () => {
    const versioning = 'Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead';
    refuses('{"update":{"_id":"1","version":2}}\n{"doc":{}}\n', versioning);
    refuses('{"update":{"_id":"1","version_type":"external"}}\n{"doc":{}}\n', versioning);
    refuses('{"delete":{"_id":"1","dynamic_templates":{"a":"b"}}}\n', 'Delete request in line [1] does not accept dynamic_templates');
    refuses('{"index":{}}\n{}\n{"update":{"_id":"1","dynamic_templates":{"a":"b"}}}\n{"doc":{}}\n', 'Update request in line [3] does not accept dynamic_templates');
    refuses('{"index":{"_id":"1","version_type":"force"}}\n{}\n', 'No version type match [force]');
  });
});

const h = searchForEach();

type Item = Record<string, Record<string, unknown>>;

async function bulk(lines: readonly string[]) {
  const res = await h.app.inject({ method: 'POST', url: '/test/_bulk', payload: lines.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' } });
  return { status: res.statusCode, body: res.json() as { errors: boolean; items: Item[]; error?: { type: string; reason: string } } };
}

async function write(method: 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> & { error?: { type: string; reason: string } } };
}

const conflictItem = (op: string, id: string, reason: string) => ({
  [op]: { _index: 'test', _id: id, status: 409, error: { type: 'version_conflict_engine_exception', reason: `[${id}]: version conflict, ${reason}`, index_uuid: expect.any(String), shard: '0', index: 'test' } },
});

describe('_bulk items with conditions', () => {
  it('refuses invalid conditions for the whole request, every problem named, nothing applied', async () => {
    const r = await bulk([
      '{"index":{"_id":"a"}}', '{"n":1}',
      '{"index":{"_id":"1","version":3}}', '{"n":1}',
      '{"index":{"_id":"2","if_seq_no":0}}', '{"n":1}',
      '{"create":{"_id":"3","version_type":"external","version":4}}', '{"n":1}',
      '{"delete":{"_id":"4","if_primary_term":1}}',
      '{"update":{"_id":"5","if_seq_no":1,"if_primary_term":1}}', '{"doc":{"n":1},"doc_as_upsert":true}',
    ]);
    expect(r.status).toBe(400);
    expect(r.body.error?.type).toBe('action_request_validation_exception');
    expect(r.body.error?.reason).toBe(
      'Validation Failed: ' +
        '1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;' +
        '2: ifSeqNo is set, but primary term is [0];' +
        '3: create operations only support internal versioning. use index instead;' +
        '4: ifSeqNo is unassigned, but primary term is [1];' +
        '5: compare and write operations can not be used with upsert;',
    );
    expect((await write('DELETE', '/test/_doc/a')).status).toBe(404);
  });

  it('compare-and-set on the sequence number: index, update and delete; a mismatch fails its item with 409', async () => {
    await bulk(['{"index":{"_id":"1"}}', '{"n":1}', '{"index":{"_id":"2"}}', '{"n":2}']);
    const r = await bulk([
      '{"index":{"_id":"1","if_seq_no":0,"if_primary_term":1}}', '{"n":10}',
      '{"index":{"_id":"2","if_seq_no":0,"if_primary_term":1}}', '{"n":20}',
      '{"index":{"_id":"9","if_seq_no":0,"if_primary_term":1}}', '{"n":90}',
      '{"update":{"_id":"1","if_seq_no":0,"if_primary_term":1}}', '{"doc":{"n":11}}',
      '{"update":{"_id":"1","if_seq_no":2,"if_primary_term":1}}', '{"doc":{"n":11}}',
      '{"delete":{"_id":"2","if_seq_no":1,"if_primary_term":2}}',
      '{"delete":{"_id":"2","if_seq_no":1,"if_primary_term":1}}',
    ]);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBe(true);
    const [i1, i2, i9, u1, u2, d1, d2] = r.body.items;
    expect(i1?.index).toMatchObject({ result: 'updated', _version: 2, _seq_no: 2, status: 200 });
    expect(i2).toEqual(conflictItem('index', '2', 'required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]'));
    expect(i9).toEqual(conflictItem('index', '9', 'required seqNo [0], primary term [1]. but no document was found'));
    expect(u1).toEqual(conflictItem('update', '1', 'required seqNo [0], primary term [1]. current document has seqNo [2] and primary term [1]'));
    expect(u2?.update).toMatchObject({ result: 'updated', _version: 3, status: 200 });
    expect(d1).toEqual(conflictItem('delete', '2', 'required seqNo [1], primary term [2]. current document has seqNo [1] and primary term [1]'));
    expect(d2?.delete).toMatchObject({ result: 'deleted', status: 200 });
  });

  it('external versions: the given version is stored; not above (external) or below (external_gte) the current one is a conflict', async () => {
    const r = await bulk([
      '{"index":{"_id":"1","version":5,"version_type":"external"}}', '{"n":1}',
      '{"index":{"_id":"1","version":5,"version_type":"external"}}', '{"n":2}',
      '{"index":{"_id":"1","version":5,"version_type":"external_gte"}}', '{"n":3}',
      '{"index":{"_id":"1","version":4,"version_type":"external_gte"}}', '{"n":4}',
      '{"index":{"_id":"1","version":"9","version_type":"external"}}', '{"n":5}',
      '{"delete":{"_id":"1","version":9,"version_type":"external"}}',
      '{"delete":{"_id":"1","version":12,"version_type":"external"}}',
    ]);
    const [a, b, c, d, e, f, g] = r.body.items;
    expect(a?.index).toMatchObject({ result: 'created', _version: 5, status: 201 });
    expect(b).toEqual(conflictItem('index', '1', 'current version [5] is higher or equal to the one provided [5]'));
    expect(c?.index).toMatchObject({ result: 'updated', _version: 5, status: 200 });
    expect(d).toEqual(conflictItem('index', '1', 'current version [5] is higher than the one provided [4]'));
    expect(e?.index).toMatchObject({ result: 'updated', _version: 9 });
    expect(f).toEqual(conflictItem('delete', '1', 'current version [9] is higher or equal to the one provided [9]'));
    expect(g?.delete).toMatchObject({ result: 'deleted', _version: 12, status: 200 });
  });

  it('op_type create in an index action line makes it a create', async () => {
    await bulk(['{"index":{"_id":"1"}}', '{"n":1}']);
    const r = await bulk(['{"index":{"_id":"1","op_type":"create"}}', '{"n":2}', '{"index":{"_id":"2","op_type":"create"}}', '{"n":2}']);
    expect(r.body.items[0]?.create).toMatchObject({ status: 409, error: { type: 'version_conflict_engine_exception' } });
    expect(r.body.items[1]?.create).toMatchObject({ result: 'created', status: 201 });
  });
});

describe('document APIs with conditions in the URL', () => {
  it('PUT _doc: compare-and-set, external versions, and refusals', async () => {
    expect((await write('PUT', '/test/_doc/1', { n: 1 })).status).toBe(201);
    const stale = await write('PUT', '/test/_doc/1?if_seq_no=5&if_primary_term=1', { n: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ type: 'version_conflict_engine_exception', reason: '[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [0] and primary term [1]', shard: '0', index: 'test' });
    expect(await write('PUT', '/test/_doc/1?if_seq_no=0&if_primary_term=1', { n: 2 })).toMatchObject({ status: 200, body: { _version: 2, _seq_no: 1 } });
    expect(await write('PUT', '/test/_doc/2?version=7&version_type=external', { n: 2 })).toMatchObject({ status: 201, body: { _version: 7 } });
    const internal = await write('PUT', '/test/_doc/1?version=2', { n: 3 });
    expect(internal.status).toBe(400);
    expect(internal.body.error?.reason).toBe('Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;');
    const create = await write('PUT', '/test/_create/3?version=2&version_type=external', { n: 3 });
    expect(create.body.error?.reason).toBe('Validation Failed: 1: create operations only support internal versioning. use index instead;');
    const bad = await write('PUT', '/test/_doc/1?if_seq_no=x&if_primary_term=1', { n: 3 });
    expect(bad).toMatchObject({ status: 400, body: { error: { type: 'illegal_argument_exception', reason: 'Failed to parse long parameter [if_seq_no] with value [x]' } } });
    expect((await write('PUT', '/test/_doc/1?version_type=nope&version=3', { n: 3 })).body.error?.reason).toBe('No version type match [nope]');
  });

  it('DELETE _doc and POST _update with if_seq_no/if_primary_term', async () => {
    await write('PUT', '/test/_doc/1', { n: 1 });
    const del = await write('DELETE', '/test/_doc/1?if_seq_no=3&if_primary_term=1');
    expect(del.status).toBe(409);
    expect(del.body.error?.reason).toBe('[1]: version conflict, required seqNo [3], primary term [1]. current document has seqNo [0] and primary term [1]');
    const upd = await write('POST', '/test/_update/1?if_seq_no=3&if_primary_term=1', { doc: { n: 2 } });
    expect(upd.status).toBe(409);
    expect((await write('POST', '/test/_update/1?if_seq_no=0&if_primary_term=1', { doc: { n: 2 } })).status).toBe(200);
    const upsert = await write('POST', '/test/_update/1?if_seq_no=1&if_primary_term=1', { doc: { n: 3 }, upsert: { n: 0 } });
    expect(upsert.body.error?.reason).toBe("Validation Failed: 1: upsert requests don't support `if_seq_no` and `if_primary_term`;");
    expect((await write('DELETE', '/test/_doc/1?if_seq_no=1&if_primary_term=1')).status).toBe(200);
    const gone = await write('DELETE', '/test/_doc/1?if_seq_no=1&if_primary_term=1');
    expect(gone.status).toBe(409);
    expect(gone.body.error?.reason).toBe('[1]: version conflict, required seqNo [1], primary term [1]. but no document was found');
  });
});
