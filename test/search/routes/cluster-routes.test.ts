import { describe, expect, it, beforeAll } from 'vitest';
import { bulkIndex, esCalls, searchForAll } from '../harness.js';
import { catBytes } from '../../../src/search/http/cat-table.js';
import { timeValueText } from '../../../src/search/engine/node-stats.js';

/** `_nodes`, `_nodes/stats`, `_stats`, `_cat/health`, `_cat/count`, `_cat/nodes`, `_cat/shards` and real sizes in `_cat/indices`. */

const h = searchForAll();
const { call, ok } = esCalls(h);

async function text(url: string): Promise<string> {
  const res = await h.app.inject({ method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

const DOCS = Array.from({ length: 30 }, (_, i) => [`d${i}`, { title: `document number ${i} about ${i % 2 === 0 ? 'foxes' : 'dogs'}`, n: i }] as const);

beforeAll(async () => {
  await ok('PUT', '/books', { settings: { number_of_replicas: 0 }, mappings: { properties: { title: { type: 'text' }, n: { type: 'long' } } } });
  await bulkIndex(h.app, 'books', DOCS);
  await ok('DELETE', '/books/_doc/d0?refresh=true');
  await ok('PUT', '/other', { settings: { number_of_replicas: 1 } });
  await ok('POST', '/books/_search', { query: { match: { title: 'foxes' } } });
  await ok('POST', '/books/_count', {});
});

describe('_cat/indices', () => {
  it('shows each column as h asked for it: by alias, by name, or by a * pattern under its name (as the OpenSearch node answers)', async () => {
    const json = async (h: string) => JSON.parse(await text(`/_cat/indices/books?format=json&h=${h}`)) as unknown;
    expect(await json('i,dc,docs.count')).toEqual([{ i: 'books', dc: '29', 'docs.count': '29' }]);
    expect(await json('docs.*')).toEqual([{ 'docs.count': '29', 'docs.deleted': '1' }]);
    // `i*` matches index by its name, uuid by its alias `id`; shown under their names, in table order.
    expect(Object.keys(((await json('i*')) as Record<string, string>[])[0] as object)).toEqual(['index', 'uuid']);
    expect(await json('i,i,idx')).toEqual([{ i: 'books', idx: 'books' }]);
    // Names are case-sensitive, as in ES: nothing is shown.
    expect(await json('I,DC')).toEqual([{}]);
    expect(await text('/_cat/indices/books?h=i,dc&v')).toBe('i     dc\nbooks 29\n');
  });

  it('reports the bytes the documents take in the store, not 0b', async () => {
    const rows = JSON.parse(await text('/_cat/indices/books?format=json&h=index,docs.count,docs.deleted,store.size')) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    const row = rows[0] as Record<string, string>;
    expect(row['docs.count']).toBe('29');
    expect(row['docs.deleted']).toBe('1');
    // 29 sources of about 45 bytes and their ids: between 1 and 2 kb.
    expect(row['store.size']).toMatch(/^1(\.\d)?kb$/);
    const stats = await ok('GET', '/books/_stats/store');
    const bytes = stats.indices.books.primaries.store.size_in_bytes as number;
    const expected = DOCS.filter(([id]) => id !== 'd0').reduce((n, [id, d]) => n + Buffer.byteLength(id) + Buffer.byteLength(JSON.stringify(d)), 0);
    expect(bytes).toBe(expected);
    expect(row['store.size']).toBe(catBytes(expected));
  });
});

describe('_stats', () => {
  it('counts documents, store bytes and the indexing and search work done', async () => {
    const body = await ok('GET', '/_stats');
    // Every copy: books' primary, other's primary and its replica (unassigned on one node, so not successful).
    expect(body._shards).toEqual({ total: 3, successful: 2, failed: 0 });
    const books = body.indices.books;
    expect(books.health).toBe('green');
    expect(body.indices.other.health).toBe('yellow');
    expect(books.primaries.docs).toMatchObject({ count: 29, deleted: 1 });
    expect(books.primaries.indexing).toMatchObject({ index_total: 30, delete_total: 1, index_failed: 0 });
    expect(books.primaries.search).toMatchObject({ query_total: 2, fetch_total: 1 });
    expect(body._all.total.docs.count).toBe(29);
    expect(body._all.primaries.indexing.index_total).toBe(30);
  });

  it('narrows to the metrics asked for and refuses those it does not keep', async () => {
    const body = await ok('GET', '/books/_stats/docs,search');
    expect(Object.keys(body.indices.books.total)).toEqual(['docs', 'search']);
    const unknown = await call('GET', '/_stats/nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.reason).toBe('request [/_stats/nope] contains unrecognized metric: [nope]');
    const unkept = await call('GET', '/_stats/merge');
    expect(unkept.status).toBe(400);
    expect(unkept.body.error.type).toBe('illegal_argument_exception');
    expect((await call('GET', '/missing/_stats')).status).toBe(404);
  });
});

describe('_nodes', () => {
  it('describes the one node instead of answering "no such index [_nodes]"', async () => {
    const body = await ok('GET', '/_nodes');
    expect(body._nodes).toEqual({ total: 1, successful: 1, failed: 0 });
    const nodes = Object.values(body.nodes) as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- ES answer
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ name: 'portico', version: '8.17.0', roles: ['data', 'master'] });
    expect(nodes[0]?.http.publish_address).toMatch(/:\d+$/);
  });

  it('takes metrics or a node filter in the path', async () => {
    const http = await ok('GET', '/_nodes/http');
    const node = Object.values(http.nodes)[0] as Record<string, unknown>;
    expect(node.http).toBeDefined();
    expect(node.os).toBeUndefined();
    expect((await ok('GET', '/_nodes/_local/os')).nodes).not.toEqual({});
    const none = await ok('GET', '/_nodes/someone-else');
    expect(none).toMatchObject({ _nodes: { total: 0 }, nodes: {} });
    expect((await call('GET', '/_nodes/_all/thread_pool')).status).toBe(400);
  });

  it('gives the node stats: documents, store, heap and uptime', async () => {
    const body = await ok('GET', '/_nodes/stats');
    const node = Object.values(body.nodes)[0] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- ES answer
    expect(node.indices.docs.count).toBe(29);
    expect(node.indices.store.size_in_bytes).toBeGreaterThan(1000);
    expect(node.jvm.mem.heap_used_in_bytes).toBeGreaterThan(1_000_000);
    expect(node.jvm.mem.heap_max_in_bytes).toBeGreaterThan(node.jvm.mem.heap_used_in_bytes);
    expect(node.jvm.uptime_in_millis).toBeGreaterThanOrEqual(0);
    expect(node.fs.total.total_in_bytes).toBeGreaterThan(0);
    expect((await ok('GET', '/_nodes/_local/stats'))._nodes.total).toBe(1);
  });
});

describe('_cat', () => {
  it('_cat/health: one row, yellow when an index has replicas that cannot be placed', async () => {
    const out = await text('/_cat/health?v');
    const [head, row] = out.trimEnd().split('\n');
    expect(head?.split(/\s+/)).toEqual(['epoch', 'timestamp', 'cluster', 'status', 'node.total', 'node.data', 'shards', 'pri', 'relo', 'init', 'unassign', 'unassign.pri', 'pending_tasks', 'max_task_wait_time', 'active_shards_percent']);
    expect(row?.split(/\s+/).slice(2)).toEqual(['portico', 'yellow', '1', '1', '2', '2', '0', '0', '1', '0', '0', '-', '66.7%']);
    const json = JSON.parse(await text('/_cat/health?format=json&h=status,shards&ts=false')) as unknown;
    expect(json).toEqual([{ status: 'yellow', shards: '2' }]);
  });

  it('_cat/count: live documents of all or some indices', async () => {
    expect(JSON.parse(await text('/_cat/count/books?format=json&h=count'))).toEqual([{ count: '29' }]);
    expect((await text('/_cat/count?h=count')).trim()).toBe('29');
    expect((await call('GET', '/_cat/count/missing')).status).toBe(404);
  });

  it('_cat/shards: each primary started, each replica unassigned with empty cells', async () => {
    const out = await text('/_cat/shards?v');
    const [head, ...rows] = out.trimEnd().split('\n');
    expect(head?.split(/\s+/)).toEqual(['index', 'shard', 'prirep', 'state', 'docs', 'store', 'dataset', 'ip', 'node']);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 5))).toEqual([['books', '0', 'p', 'STARTED', '29'], ['other', '0', 'p', 'STARTED', '0'], ['other', '0', 'r', 'UNASSIGNED']]);
    expect(JSON.parse(await text('/_cat/shards/other?format=json&h=prirep,state,docs,node'))).toEqual([{ prirep: 'p', state: 'STARTED', docs: '0', node: 'portico' }, { prirep: 'r', state: 'UNASSIGNED', docs: null, node: null }]);
    expect((await call('GET', '/_cat/shards/missing')).status).toBe(404);
  });

  it('_cat/nodes: the node with its heap, RAM and role columns', async () => {
    const out = await text('/_cat/nodes?v');
    const [head, row] = out.trimEnd().split('\n');
    expect(head?.split(/\s+/)).toEqual(['ip', 'heap.percent', 'ram.percent', 'cpu', 'load_1m', 'load_5m', 'load_15m', 'node.role', 'master', 'name']);
    expect(row?.split(/\s+/).slice(-3)).toEqual(['dm', '*', 'portico']);
    const [json] = JSON.parse(await text('/_cat/nodes?format=json&h=name,heap.percent,uptime')) as Record<string, string>[];
    expect(Object.keys(json ?? {})).toEqual(['name', 'heap.percent', 'uptime']);
    expect(Number(json?.['heap.percent'])).toBeGreaterThan(0);
  });
});

describe('formats', () => {
  it('prints sizes and times as ES does (one decimal cut)', () => {
    expect([catBytes(0), catBytes(208), catBytes(1024), catBytes(1300), catBytes(55_700_000)]).toEqual(['0b', '208b', '1kb', '1.2kb', '53.1mb']);
    expect([timeValueText(450), timeValueText(41_000), timeValueText(936_000), timeValueText(7_560_000)]).toEqual(['450ms', '41s', '15.6m', '2.1h']);
  });
});
