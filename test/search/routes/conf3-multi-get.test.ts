import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Issue 3, the last `_mget` differences: `version_type` is read as VersionType.fromString reads it
// (an unknown one fails the request; every type checks a read by equality; version -3 is
// MATCH_ANY), `routing` changes nothing on one shard, and `stored_fields` answers `fields` with the
// values of the fields the mapping stores (and leaves it out for any other).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_mget (issue 3)', () => {
  let h: SearchHarness;
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
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
  afterAll(async () => h.close());

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
