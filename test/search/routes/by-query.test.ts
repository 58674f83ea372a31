import { beforeEach, describe, expect, it } from 'vitest';
import { bulkIndex, esCalls, searchForEach } from '../harness.js';

/** `_delete_by_query`, `_update_by_query` and `_reindex`: ES 8's bodies, parameters and BulkByScrollResponse. */

const h = searchForEach();
const { call, ok } = esCalls(h);

const DOCS = Array.from({ length: 12 }, (_, i) => [`d${i}`, { title: i % 3 === 0 ? `quick fox ${i}` : `lazy dog ${i}`, n: i }] as const);

beforeEach(async () => {
  await ok('PUT', '/src', { settings: { number_of_replicas: 0 }, mappings: { properties: { title: { type: 'text' }, n: { type: 'long' } } } });
  await bulkIndex(h.app, 'src', DOCS);
});

const ids = async (index: string, query: unknown = { match_all: {} }) =>
  ((await ok('POST', `/${index}/_search`, { query, size: 100, sort: ['n'] })).hits.hits as { _id: string }[]).map((x) => x._id);

describe('_delete_by_query', () => {
  it('deletes what the query matches and answers as ES does', async () => {
    const body = await ok('POST', '/src/_delete_by_query?refresh=true&slices=auto', { query: { match: { title: 'fox' } } });
    expect(Object.keys(body)).toEqual(['took', 'timed_out', 'total', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'failures']);
    expect(body).toMatchObject({ timed_out: false, total: 4, deleted: 4, batches: 1, version_conflicts: 0, noops: 0, retries: { bulk: 0, search: 0 }, requests_per_second: -1, failures: [] });
    expect(await ids('src')).toEqual(['d1', 'd2', 'd4', 'd5', 'd7', 'd8', 'd10', 'd11']);
    const stats = await ok('GET', '/src/_stats/indexing');
    expect(stats.indices.src.total.indexing.delete_total).toBe(4);
  });

  it('refuses the search parameters it would not act on, deleting nothing', async () => {
    for (const param of ['terminate_after=2', 'analyzer=whitespace', 'analyze_wildcard=true']) {
      for (const api of ['_delete_by_query', '_update_by_query']) {
        const res = await call('POST', `/src/${api}?${param}`, { query: { match_all: {} } });
        expect([param, api, res.status, res.body.error?.type]).toEqual([param, api, 400, 'illegal_argument_exception']);
      }
    }
    expect((await ids('src')).length).toBe(12);
    expect((await ok('POST', '/src/_delete_by_query?terminate_after=0&refresh=true', { query: { match: { title: 'fox' } } })).deleted).toBe(4);
  });

  it('max_docs takes the first documents in write order; q= and scroll_size are read', async () => {
    const body = await ok('POST', '/src/_delete_by_query?q=title:dog&scroll_size=3&refresh=true', { max_docs: 5 });
    expect(body).toMatchObject({ total: 5, deleted: 5, batches: 2 });
    expect(await ids('src', { match: { title: 'dog' } })).toEqual(['d8', 'd10', 'd11']);
    const url = await ok('POST', '/src/_delete_by_query?max_docs=1', { query: { match_all: {} }, max_docs: 5 });
    expect(url.deleted).toBe(1);
  });

  it("refuses what it cannot do with ES's errors, deleting nothing", async () => {
    const cases: [string, unknown, string, string][] = [
      ['/src/_delete_by_query?conflicts=maybe', { query: { match_all: {} } }, 'illegal_argument_exception', 'conflicts may only be "proceed" or "abort" but was [maybe]'],
      ['/src/_delete_by_query', { query: { match_all: {} }, max_docs: -1 }, 'illegal_argument_exception', '[max_docs] parameter cannot be negative, found [-1]'],
      ['/src/_delete_by_query', { query: { match_all: {} }, foo: 1 }, 'parsing_exception', 'Unknown key for a VALUE_NUMBER in [foo].'],
      ['/src/_delete_by_query?slices=0', { query: { match_all: {} } }, 'illegal_argument_exception', '[slices] must be at least 1, was [0]'],
      ['/src/_delete_by_query?wait_for_completion=false', { query: { match_all: {} } }, 'illegal_argument_exception', '[wait_for_completion=false] (background tasks) is not supported by this server'],
      ['/src/_delete_by_query?nope=1', { query: { match_all: {} } }, 'illegal_argument_exception', 'request [/src/_delete_by_query] contains unrecognized parameter: [nope]'],
      ['/src/_update_by_query', { script: { source: 'ctx._source.n++' } }, 'illegal_argument_exception', '[script] in _update_by_query (Portico runs no scripts) is not supported by this server'],
      ['/src/_delete_by_query', { query: { more_like_this: { fields: ['title'], like: 'fix' } } }, 'parsing_exception', ''],
    ];
    for (const [url, body, type, reason] of cases) {
      const res = await call('POST', url, body);
      expect([url, res.status, res.body.error?.type]).toEqual([url, 400, type]);
      if (reason !== '') expect(res.body.error.reason).toBe(reason);
    }
    expect((await call('POST', '/src/_delete_by_query')).body.error.reason).toBe('Validation Failed: 1: query is missing;');
    expect((await call('POST', '/missing/_delete_by_query', { query: { match_all: {} } })).status).toBe(404);
    expect(await ids('src')).toHaveLength(12);
  });
});

describe('_update_by_query', () => {
  it('writes each matching document again (a new version) and counts them as updated', async () => {
    const body = await ok('POST', '/src/_update_by_query?conflicts=proceed&refresh=true', { query: { range: { n: { gte: 9 } } } });
    expect(Object.keys(body)).toEqual(['took', 'timed_out', 'total', 'updated', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'failures']);
    expect(body).toMatchObject({ total: 3, updated: 3, deleted: 0, failures: [] });
    expect((await ok('GET', '/src/_doc/d9'))._version).toBe(2);
    expect((await ok('GET', '/src/_doc/d8'))._version).toBe(1);
    // No body: every document.
    expect((await ok('POST', '/src/_update_by_query')).updated).toBe(12);
  });
});

describe('_reindex', () => {
  it('copies a local source, with its query, max_docs and _source filter, into a new index', async () => {
    const body = await ok('POST', '/_reindex?refresh=true', { source: { index: 'src', query: { match: { title: 'dog' } }, _source: ['n'] }, dest: { index: 'dst' }, max_docs: 3 });
    expect(Object.keys(body)).toEqual(['took', 'timed_out', 'total', 'updated', 'created', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'failures']);
    expect(body).toMatchObject({ total: 3, created: 3, updated: 0, failures: [] });
    expect(await ids('dst')).toEqual(['d1', 'd2', 'd4']);
    expect((await ok('GET', '/dst/_doc/d1'))._source).toEqual({ n: 1 });
    const again = await ok('POST', '/_reindex', { source: { index: 'src', query: { match: { title: 'dog' } } }, dest: { index: 'dst' }, max_docs: 3 });
    expect(again).toMatchObject({ created: 0, updated: 3 });
  });

  it('op_type create: an existing document is a version conflict, fatal unless conflicts proceed', async () => {
    await ok('PUT', '/dst/_doc/d3', { title: 'already here' });
    const abort = await call('POST', '/_reindex', { source: { index: 'src' }, dest: { index: 'dst', op_type: 'create' } });
    expect(abort.status).toBe(409);
    expect(abort.body).toMatchObject({ total: 12, created: 11, version_conflicts: 1 });
    expect(abort.body.failures[0]).toMatchObject({ index: 'dst', id: 'd3', status: 409, cause: { type: 'version_conflict_engine_exception' } });
    await ok('DELETE', '/dst');
    await ok('PUT', '/dst/_doc/d3', { title: 'already here' });
    const proceed = await ok('POST', '/_reindex', { conflicts: 'proceed', source: { index: 'src' }, dest: { index: 'dst', op_type: 'create' } });
    expect(proceed).toMatchObject({ total: 12, created: 11, version_conflicts: 1, failures: [] });
    expect((await ok('GET', '/dst/_doc/d3'))._source).toEqual({ title: 'already here' });
  });

  it('refuses a remote source, scripts and writing into its own source', async () => {
    const cases: [unknown, number, string][] = [
      [{ source: { index: 'src', remote: { host: 'http://x:9200' } }, dest: { index: 'd' } }, 400, 'illegal_argument_exception'],
      [{ source: { index: 'src' }, dest: { index: 'd' }, script: { source: 'x' } }, 400, 'illegal_argument_exception'],
      [{ source: { index: 'src' }, dest: { index: 'src' } }, 400, 'action_request_validation_exception'],
      [{ source: { index: 'src' } }, 400, 'action_request_validation_exception'],
      [{ source: { index: 'src' }, dest: { index: 'd' }, nope: 1 }, 400, 'x_content_parse_exception'],
      [{ source: { index: 'missing' }, dest: { index: 'd' } }, 404, 'index_not_found_exception'],
    ];
    for (const [body, status, type] of cases) {
      const res = await call('POST', '/_reindex', body);
      expect([JSON.stringify(body), res.status, res.body.error?.type]).toEqual([JSON.stringify(body), status, type]);
    }
    expect((await call('GET', '/d/_count')).status).toBe(404);
  });
});

describe('an index that keeps no _source', () => {
  it('refuses an update by query or a reindex, sliced or not, before writing anything', async () => {
    await ok('PUT', '/bare', { settings: { number_of_shards: 2 }, mappings: { _source: { enabled: false }, properties: { n: { type: 'long' } } } });
    await bulkIndex(h.app, 'bare', [['a', { n: 1 }], ['b', { n: 2 }], ['c', { n: 3 }]]);
    for (const [url, body] of [['/bare/_update_by_query', {}], ['/bare/_update_by_query?slices=auto', {}], ['/_reindex?slices=2', { source: { index: 'bare' }, dest: { index: 'copy' } }]] as const) {
      const r = await call('POST', url, body);
      expect([url, r.status, r.body.error?.type]).toEqual([url, 400, 'illegal_argument_exception']);
      expect(r.body.error.reason).toMatch(/^\[bare\]\[[abc]\] didn't store _source$/);
    }
    const versions = await ok('POST', '/bare/_search', { version: true, size: 10 });
    expect(versions.hits.hits.map((x: { _version: number }) => x._version)).toEqual([1, 1, 1]);
    expect((await h.app.inject({ method: 'HEAD', url: '/copy' })).statusCode).toBe(404);
  });
});
