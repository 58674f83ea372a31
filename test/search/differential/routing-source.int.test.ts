/**
 * Issue 21's last fidelity gaps, side by side with the OpenSearch node: custom routing (`routing` on
 * every document API, `_routing` stored, returned and queried, `_routing.required`), an index
 * without `_source` (`_source.enabled: false`), and `_mget` items whose `_index` is a date-math
 * name. Each request goes to both and the answers must be equal once what differs by nature is
 * left out (`took`, index uuids, scores unless a test compares them). Where ES 8 is known to answer
 * otherwise than OpenSearch, the case is written out here instead: the wording of a refused
 * mapping (comparable), and `_update_by_query`/`_reindex`, which the node has no module for.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';

/** Per test: a guard for a busy shared machine, never a timing assertion. */
const SLOW = 600_000;

const { porticoCall, nodeCall, harness } = sideBySide();

/** One shard and one replica: the node (one node, so yellow) then reports `_shards` as Portico does. */
const SETTINGS = { number_of_shards: 1, number_of_replicas: 1 };

/** What is compared of an answer: an error's status, types and reasons; a success's body without `took`, uuids and (unless `scores`) scores. */
function comparable(a: Answer, scores: boolean): unknown {
  if (a.status >= 300 && a.body?.error !== undefined) {
    const e = a.body.error;
    const cause = e.caused_by === undefined ? undefined : { type: e.caused_by.type, reason: e.caused_by.reason };
    // ES 8 and OpenSearch word a refused mapping differently: ES 8's "Failed to parse mapping: …"
    // (Portico's) is OpenSearch's "Failed to parse mapping [_doc]: …".
    return { status: a.status, type: e.type, reason: String(e.reason).replace('Failed to parse mapping [_doc]: ', 'Failed to parse mapping: '), cause };
  }
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'took' || k === 'index_uuid' || (!scores && (k === '_score' || k === 'max_score'))) continue;
      // An error inside a 200 answer (an _mget or bulk item): its type and reason.
      if (k === 'error' && x !== null && typeof x === 'object') {
        const e = x as Record<string, unknown>;
        out[k] = { type: e.type, reason: e.reason };
        continue;
      }
      out[k] = strip(x);
    }
    return out;
  };
  return { status: a.status, body: strip(a.body) };
}

/** Sends the request to both and expects equal answers; returns Portico's. */
async function same(method: string, path: string, body?: unknown, scores = false): Promise<Answer> {
  const p = await porticoCall(method, path, body);
  const r = await nodeCall(method, path, body);
  const [a, b] = [comparable(p, scores), comparable(r, scores)];
  if (!isDeepStrictEqual(a, b)) expect.fail(`${method} ${path} ${JSON.stringify(body) ?? ''}\nPortico: ${JSON.stringify(a)}\nnode:    ${JSON.stringify(b)}`);
  return p;
}

const ndjson = (...lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

describe('custom routing', () => {
  it('is kept with each document and returned where the node returns it', async () => {
    await same('PUT', '/rt', { settings: SETTINGS, mappings: { properties: { t: { type: 'keyword' } } } });
    await same('PUT', '/rt/_doc/1?routing=a&refresh=true', { t: 'one' });
    await same('PUT', '/rt/_create/2?routing=b&refresh=true', { t: 'two' });
    await same('PUT', '/rt/_doc/6?routing=&refresh=true', { t: 'empty routing is none' });
    await same('POST', '/_bulk?refresh=true', ndjson(
      { index: { _index: 'rt', _id: '3', routing: 'k' } }, { t: 'three' },
      { create: { _index: 'rt', _id: '4', routing: 'k' } }, { t: 'four' },
      { index: { _index: 'rt', _id: '5' } }, { t: 'five' },
      { delete: { _index: 'rt', _id: '4', routing: 'other' } },
      { index: { _index: 'rt', _id: '7', _routing: 'x' } }, { t: 'refused' },
    ));
    await same('POST', '/_bulk?refresh=true', ndjson(
      { index: { _index: 'rt', _id: '3', routing: 'k' } }, { t: 'three' },
      { create: { _index: 'rt', _id: '4', routing: 'k' } }, { t: 'four' },
      { index: { _index: 'rt', _id: '5' } }, { t: 'five' },
      { delete: { _index: 'rt', _id: '4', routing: 'other' } },
    ));
    await same('POST', '/rt/_bulk?routing=u&refresh=true', ndjson({ index: { _id: '8' } }, { t: 'eight' }, { index: { _id: '9', routing: 'v' } }, { t: 'nine' }));
    // One shard: a get finds the document whatever routing it is given, and shows the stored one.
    for (const q of ['', '?routing=a', '?routing=zz']) await same('GET', `/rt/_doc/1${q}`);
    for (const id of ['3', '4', '5', '6', '8', '9']) await same('GET', `/rt/_doc/${id}`);
    await same('GET', '/rt/_source/1?routing=zz');
    await same('POST', '/rt/_mget', { docs: [{ _id: '1' }, { _id: '1', routing: 'b' }, { _id: '3', routing: 'k' }, { _id: '5' }, { _id: '4' }] });
    await same('POST', '/rt/_mget?routing=q', { ids: ['1', '8', '9'] });
    await same('POST', '/_search?filter_path=hits.hits._id,hits.hits._routing', { query: { match_all: {} }, sort: [{ t: 'asc' }] });
    await same('POST', '/rt/_search', { query: { ids: { values: ['1', '5'] } }, stored_fields: ['t'] });
    await same('POST', '/rt/_search', { query: { ids: { values: ['1', '5'] } }, _source: false, docvalue_fields: ['t'], version: true, seq_no_primary_term: true });
  }, SLOW);

  it('is queried as the `_routing` field, and refused in aggregations and sorts', async () => {
    const queries: unknown[] = [
      { term: { _routing: 'k' } },
      { term: { _routing: { value: 'K', case_insensitive: true } } },
      { terms: { _routing: ['a', 'b', 'zz'] } },
      { exists: { field: '_routing' } },
      { bool: { must_not: { exists: { field: '_routing' } } } },
      { prefix: { _routing: 'u' } },
      { wildcard: { _routing: '?' } },
      { regexp: { _routing: '[ab]' } },
      { range: { _routing: { gte: 'b', lt: 'v' } } },
      { match: { _routing: 'k' } },
      { fuzzy: { _routing: 'c' } },
      { bool: { filter: [{ term: { _routing: 'a' } }, { term: { t: 'one' } }] } },
      { match_phrase: { _routing: 'k' } },
    ];
    for (const query of queries) await same('POST', '/rt/_search', { query, sort: [{ t: 'asc' }] });
    for (const q of ['_routing:k', '_routing:(a OR b)']) await same('GET', `/rt/_search?q=${encodeURIComponent(q)}&sort=t`);
    await same('POST', '/rt/_search', { size: 0, aggs: { r: { terms: { field: '_routing' } } } });
    await same('POST', '/rt/_search', { sort: [{ _routing: 'asc' }] });
    // `routing` on a search or count changes nothing on one shard.
    for (const p of ['/rt/_count?routing=zz', '/rt/_search?routing=zz&size=0']) await same('GET', p);
  }, SLOW);

  it('scores `term` and `match` on `_routing` as the node does (a fresh index: deletes would count in its statistics)', async () => {
    await same('PUT', '/rs', { settings: SETTINGS });
    await same('POST', '/rs/_bulk?refresh=true', ndjson(
      { index: { _id: '1', routing: 'a' } }, { n: 1 }, { index: { _id: '2', routing: 'a' } }, { n: 2 },
      { index: { _id: '3', routing: 'b' } }, { n: 3 }, { index: { _id: '4' } }, { n: 4 },
    ));
    for (const query of [{ term: { _routing: 'a' } }, { term: { _routing: 'b' } }, { match: { _routing: 'b' } }, { bool: { should: [{ term: { _routing: 'a' } }, { term: { _routing: 'b' } }] } }]) {
      await same('POST', '/rs/_search', { query }, true);
    }
  }, SLOW);

  it('goes with an update: the update’s own, else the document’s; an index without routing drops it', async () => {
    await same('POST', '/rt/_update/1?routing=b&refresh=true', { doc: { u: 1 } });
    await same('GET', '/rt/_doc/1');
    await same('POST', '/rt/_update/1?refresh=true', { doc: { u: 2 }, _source: true });
    await same('GET', '/rt/_doc/1');
    await same('POST', '/rt/_update/10?routing=w&refresh=true', { doc: { t: 'ten' }, doc_as_upsert: true });
    await same('GET', '/rt/_doc/10');
    await same('PUT', '/rt/_doc/1?refresh=true', { t: 'one again' });
    await same('GET', '/rt/_doc/1');
    await same('DELETE', '/rt/_doc/10?routing=nope&refresh=true');
    await same('GET', '/rt/_doc/10');
  }, SLOW);

  it('is kept by update by query and carried by reindex (Portico alone: the node has no reindex module)', async () => {
    const routings = async (index: string): Promise<unknown> => {
      const res = await porticoCall('POST', `/${index}/_search`, { query: { ids: { values: ['3', '9'] } } });
      expect(res.status).toBe(200);
      return res.body.hits.hits.map((h: { _id: string; _routing?: string }) => [h._id, h._routing]).sort();
    };
    expect((await porticoCall('POST', '/rt/_update_by_query?refresh=true', { query: { ids: { values: ['3', '9'] } } })).body).toMatchObject({ updated: 2, failures: [] });
    expect(await routings('rt')).toEqual([['3', 'k'], ['9', 'v']]);
    expect((await porticoCall('POST', '/_reindex?refresh=true', { source: { index: 'rt' }, dest: { index: 'rt-copy' } })).body).toMatchObject({ failures: [] });
    expect(await routings('rt-copy')).toEqual([['3', 'k'], ['9', 'v']]);
  }, SLOW);

  it('is refused when the mapping requires it and a request gives none', async () => {
    await same('PUT', '/rq', { settings: SETTINGS, mappings: { _routing: { required: true }, properties: { t: { type: 'keyword' } } } });
    await same('GET', '/rq/_mapping');
    await same('PUT', '/rq/_doc/1', { t: 'x' });
    await same('PUT', '/rq/_create/1', { t: 'x' });
    await same('PUT', '/rq/_doc/1?routing=r&refresh=true', { t: 'x' });
    await same('GET', '/rq/_doc/1');
    await same('GET', '/rq/_doc/1?routing=r');
    await same('GET', '/rq/_source/1');
    const head = await Promise.all([porticoCall('HEAD', '/rq/_doc/1'), nodeCall('HEAD', '/rq/_doc/1')]);
    expect(head.map((a) => a.status)).toEqual([400, 400]);
    await same('DELETE', '/rq/_doc/1');
    await same('POST', '/rq/_update/1', { doc: { u: 1 } });
    await same('POST', '/rq/_update/1', { doc: { u: 1 }, upsert: { u: 0 } });
    await same('POST', '/rq/_mget', { docs: [{ _id: '1' }, { _id: '1', routing: 'r' }] });
    await same('POST', '/rq/_mget?routing=r', { ids: ['1', '2'] });
    await same('POST', '/_bulk', ndjson(
      { index: { _index: 'rq', _id: '2' } }, { t: 'z' }, { delete: { _index: 'rq', _id: '1' } },
      { update: { _index: 'rq', _id: '1' } }, { doc: { v: 1 } }, { index: { _index: 'rq', _id: '3', routing: 'w' } }, { t: 'z' },
    ));
    // Neither mapper can be changed by a put mapping; repeating the value is accepted.
    await same('PUT', '/rq/_mapping', { _routing: { required: false } });
    await same('PUT', '/rq/_mapping', { _routing: { required: true } });
    await same('PUT', '/rt/_mapping', { _routing: { required: true } });
    await same('PUT', '/rx', { mappings: { _routing: { required: true, x: 1 } } });
    await same('PUT', '/rx', { mappings: { _routing: { required: 'no' } } });
  }, SLOW);
});

describe('an index without _source', () => {
  const MAPPING = { _source: { enabled: false }, properties: { t: { type: 'text', store: true }, k: { type: 'keyword' }, n: { type: 'integer' } } };

  it('keeps no source to return, and still searches, aggregates and returns stored and docvalue fields', async () => {
    await same('PUT', '/sd', { settings: SETTINGS, mappings: MAPPING });
    await same('GET', '/sd/_mapping');
    await same('POST', '/sd/_bulk?refresh=true', ndjson({ index: { _id: '1' } }, { t: 'hello world', k: 'a', n: 3 }, { index: { _id: '2', routing: 'r' } }, { t: 'hello there', k: 'b', n: 5 }));
    await checkSourceless();
  }, SLOW);

  it('refuses what needs the source as the node does', async () => {
    await same('POST', '/sd/_search', { _source: ['k'] });
    await same('POST', '/sd/_search?_source_includes=k', {});
    await same('POST', '/sd/_search', { fields: ['n'] });
    await same('POST', '/sd/_update/1', { doc: { n: 4 } });
    await same('POST', '/sd/_update/1', { doc: { n: 4 }, doc_as_upsert: true });
    await same('POST', '/_bulk', ndjson({ update: { _index: 'sd', _id: '1' } }, { doc: { v: 1 } }));
    await same('POST', '/sd/_update/3?refresh=true', { doc: { n: 4 }, upsert: { n: 1 } });
    await same('PUT', '/sd/_mapping', { _source: { enabled: true } });
    await same('PUT', '/sd/_mapping', { _source: { enabled: false } });
    await same('PUT', '/rt/_mapping', { _source: { enabled: false } });
    await same('PUT', '/sx', { mappings: { _source: { enabled: 'no' } } });
    // The node has no reindex module: ES's AbstractAsyncBulkByScrollAction refuses a hit without source.
    for (const [path, body] of [['/sd/_update_by_query', {}], ['/_reindex', { source: { index: 'sd' }, dest: { index: 'sd2' } }]] as const) {
      const res = await porticoCall('POST', path, body);
      expect([res.status, res.body.error.type, res.body.error.reason]).toEqual([400, 'illegal_argument_exception', '[sd][1] didn\'t store _source']);
    }
    expect((await porticoCall('GET', '/sd2')).status).toBe(404);
    const deleted = await porticoCall('POST', '/sd/_delete_by_query?refresh=true', { query: { ids: { values: ['3'] } } });
    expect([deleted.status, deleted.body.deleted]).toEqual([200, 1]);
    await nodeCall('DELETE', '/sd/_doc/3?refresh=true');
  }, SLOW);

  it('stays so across a restart', async () => {
    await harness().restart();
    await checkSourceless();
  }, SLOW);
});

/** The answers of the source-disabled index `sd` (two documents, 1 and 2 routed `r`). */
async function checkSourceless(): Promise<void> {
  for (const q of ['', '?_source=true', '?_source_includes=k', '?stored_fields=t']) await same('GET', `/sd/_doc/1${q}`);
  await same('GET', '/sd/_doc/2');
  await same('GET', '/sd/_source/1');
  const head = await Promise.all([porticoCall('HEAD', '/sd/_source/1'), nodeCall('HEAD', '/sd/_source/1')]);
  expect(head.map((a) => a.status)).toEqual([404, 404]);
  await same('POST', '/sd/_mget', { docs: [{ _id: '1', _source: ['k'] }, { _id: '2' }] });
  await same('POST', '/sd/_search', { query: { match: { t: 'hello' } }, sort: ['n'] });
  await same('POST', '/sd/_search', { _source: true, sort: ['n'] });
  await same('POST', '/sd/_search', { _source: false, sort: ['n'] });
  await same('POST', '/sd/_search', { query: { match: { t: 'hello' } }, aggs: { k: { terms: { field: 'k' } }, s: { sum: { field: 'n' } } }, docvalue_fields: ['n', 'k'], stored_fields: ['t'] }, true);
  await same('POST', '/sd/_search', { query: { match: { t: 'world' } }, highlight: { fields: { t: {} } } });
  await same('POST', '/sd/_search', { query: { term: { k: 'a' } }, highlight: { fields: { k: {} } } });
}

describe('_shards of writes and refreshes', () => {
  it('counts every copy of the shard, as the node does, whatever number_of_replicas is', async () => {
    for (const replicas of [0, 2]) {
      const index = `copies-${replicas}`;
      await same('PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: replicas } });
      await same('PUT', `/${index}/_doc/1`, { a: 1 });
      await same('POST', `/${index}/_update/1`, { doc: { a: 1 } });
      await same('POST', `/${index}/_bulk?refresh=true`, ndjson({ index: { _id: '2' } }, { a: 2 }, { delete: { _id: '1' } }, { delete: { _id: '9' } }));
      await same('DELETE', `/${index}/_doc/2`);
      await same('POST', `/${index}/_refresh`);
    }
  }, SLOW);

  it('counts them in `_stats` too: every copy in `total`, the primaries as `successful`', async () => {
    for (const replicas of [0, 1]) await same('PUT', `/stats-${replicas}`, { settings: { number_of_shards: 1, number_of_replicas: replicas } });
    await same('POST', '/stats-1/_bulk?refresh=true', ndjson({ index: { _id: '1' } }, { a: 1 }, { index: { _id: '2' } }, { a: 2 }));
    for (const path of ['/stats-0/_stats', '/stats-1/_stats/docs', '/stats-0,stats-1/_stats/docs', '/stats-*/_stats/indexing,search']) {
      await same('GET', `${path}?filter_path=_shards,_all.primaries.docs.count,_all.total.docs.count`);
    }
  }, SLOW);

  it('lists them in `_cat/shards`: the primary started, each replica unassigned', async () => {
    // Sorted (`s`): the node lists indices in its routing table's order.
    for (const path of ['/_cat/shards/stats-0,stats-1?s=index,prirep', '/_cat/shards/stats-*?s=prirep:desc,index', '/_cat/shards/stats-1', '/_cat/shards/nope']) {
      await same('GET', `${path}${path.includes('?') ? '&' : '?'}format=json&h=index,shard,prirep,state,docs`);
    }
  }, SLOW);
});

describe('_mget with a date-math _index', () => {
  it('resolves each item’s name now, as the node does', async () => {
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '.');
    await same('PUT', `/logs-${day}/_doc/1?refresh=true`, { a: 1 });
    const docs = ['<logs-{now/d}>', '<logs-{now/d-1d}>', '<logs-{now/d}', '<logs-*>', 'logs-*'].map((_index) => ({ _index, _id: '1' }));
    await same('POST', '/_mget', { docs });
    await same('POST', `/${encodeURIComponent('<logs-{now/d}>')}/_mget`, { ids: ['1', '2'] });
  }, SLOW);
});

describe('`_routing` in the field lists of multi_match, query_string and simple_query_string', () => {
  it('is searched as the node searches it, scores included; `*` alone leaves it out', async () => {
    await same('PUT', '/rf', { settings: SETTINGS, mappings: { properties: { t: { type: 'text' }, k: { type: 'keyword' } } } });
    await same('POST', '/rf/_bulk?refresh=true', ndjson(
      { index: { _id: '1', routing: 'abc' } }, { t: 'one abc', k: 'abc' }, { index: { _id: '2', routing: 'xyz' } }, { t: 'two', k: 'q' },
      { index: { _id: '3' } }, { t: 'abc three', k: 'abd' }, { index: { _id: '4', routing: 'abd' } }, { t: 'four xyz' },
    ));
    const mm = (o: Record<string, unknown>) => ({ multi_match: { query: 'abc', fields: ['t', '_routing'], ...o } });
    const queries: unknown[] = [
      mm({}), mm({ fields: ['_routing'] }), mm({ fields: ['_rout*'] }), mm({ fields: ['*ing'] }), mm({ fields: ['*'] }), mm({ fields: ['t', '_routing^3'], tie_breaker: 0.5 }),
      mm({ query: 'abc xyz', type: 'most_fields' }), mm({ query: 'abc xyz', operator: 'and' }), mm({ type: 'cross_fields' }),
      mm({ fields: ['t', 'k', '_routing'], type: 'cross_fields' }), mm({ query: 'abc xyz', fields: ['_routing', 'k'], type: 'cross_fields', operator: 'and' }),
      mm({ type: 'phrase' }), mm({ query: 'ab', type: 'phrase_prefix' }), mm({ query: 'ab', type: 'phrase_prefix', lenient: true }),
      mm({ query: 'ab', type: 'bool_prefix' }), mm({ type: 'bool_prefix' }), mm({ query: 'abx', fuzziness: 1 }), mm({ query: 'abx', fields: ['k', '_routing'], fuzziness: 'AUTO' }),
      { match_bool_prefix: { _routing: 'abc' } }, { match_bool_prefix: { _routing: 'ab' } }, { match_bool_prefix: { _routing: { query: 'abx', fuzziness: 1 } } },
      { match_phrase_prefix: { _routing: 'ab' } },
      { query_string: { query: 'abc', fields: ['t', '_routing'] } }, { query_string: { query: 'abc', default_field: '_routing' } },
      { query_string: { query: '"abc"', fields: ['t', '_routing'] } }, { query_string: { query: 'ab*', fields: ['t', '_routing'] } },
      { query_string: { query: 'abc OR xyz', fields: ['_routing', 'k'], tie_breaker: 0.3 } }, { query_string: { query: '_routing:abc' } },
      { simple_query_string: { query: 'abc', fields: ['t', '_routing'] } }, { simple_query_string: { query: 'abc | xyz', fields: ['_routing^2'] } },
      { simple_query_string: { query: 'abc', fields: ['_rou*', 'k'] } }, { simple_query_string: { query: 'abc -xyz', fields: ['t', '_routing'], default_operator: 'and' } },
    ];
    for (const query of queries) await same('POST', '/rf/_search', { query }, true);
  }, SLOW);

  it('searches _id and _index a list names as the node does, and refuses the metadata fields a pattern matches', async () => {
    for (const query of [
      { multi_match: { query: '1', fields: ['t', '_id'] } }, { multi_match: { query: 'rf', fields: ['_index'] } },
      { query_string: { query: 'rf', fields: ['_index', 't'] } },
    ]) await same('POST', '/rf/_search', { query }, true);
    // A pattern reaching them: the node fails on `_*` with "no such index []"; Portico refuses the
    // list and says why, never answering without them.
    for (const query of [{ multi_match: { query: 'abc', fields: ['_*'] } }, { simple_query_string: { query: 'abc', fields: ['_i*'] } }]) {
      const res = await porticoCall('POST', '/rf/_search', { query });
      expect([res.status, res.body.error?.type, res.body.error?.root_cause?.[0]?.type]).toEqual([400, 'search_phase_execution_exception', 'query_shard_exception']);
      expect(res.body.error.root_cause[0].reason).toMatch(/^failed to create query: the metadata field \[_(id|index)\] in the fields of a \[multi_match\], \[query_string\] or \[simple_query_string\] query is not supported by this server$/);
    }
  }, SLOW);
});

describe('a mapping’s `_source` includes and excludes', () => {
  const MAPPING = {
    _source: { includes: ['a*', 'm.*', 's*'], excludes: ['*.secret', 'b'] },
    properties: { a: { type: 'text' }, b: { type: 'keyword' }, s: { type: 'keyword', store: true }, m: { properties: { x: { type: 'keyword' }, secret: { type: 'keyword' } } } },
  };
  const DOC = { a: 'hello world', ab: 1, b: 'bee', s: 'stored', c: 'sea', m: { x: 'ex', secret: 'shh' } };

  it('keeps the filtered source: get, _source, _mget and hits show it, every field is still searchable', async () => {
    await same('PUT', '/sf', { settings: SETTINGS, mappings: MAPPING });
    await same('GET', '/sf/_mapping');
    await same('PUT', '/sf/_doc/1?refresh=true', DOC);
    await same('POST', '/sf/_bulk?refresh=true', ndjson({ index: { _id: '2', routing: 'r' } }, { ...DOC, a: 'other words', b: 'bee2', c: ['sea', 'land'] }));
    await checkFilteredSource();
  }, SLOW);

  it('updates from the filtered source: the excluded fields are gone afterwards, as in the node', async () => {
    await same('POST', '/sf/_update/2?refresh=true', { doc: { c: 'new' }, _source: true });
    await same('POST', '/sf/_update/2?refresh=true', { doc: { a: 'other words' }, _source: true });
    await same('POST', '/sf/_update/3?refresh=true', { doc: { c: 'up', b: 'x' }, doc_as_upsert: true, _source: ['b', 'c'] });
    await same('POST', '/_bulk?refresh=true', ndjson({ update: { _index: 'sf', _id: '3' } }, { doc: { d: 1 }, _source: true }));
    for (const id of ['2', '3']) await same('GET', `/sf/_doc/${id}`);
    for (const q of [{ term: { b: 'bee2' } }, { match: { c: 'sea' } }, { term: { b: 'x' } }, { match: { c: 'up' } }]) await same('POST', '/sf/_search', { query: q, _source: false });
    await nodeCall('DELETE', '/sf/_doc/3?refresh=true');
    await porticoCall('DELETE', '/sf/_doc/3?refresh=true');
  }, SLOW);

  it('cannot be changed by a put mapping; a bad list is refused', async () => {
    await same('PUT', '/sf/_mapping', { _source: MAPPING._source });
    await same('PUT', '/sf/_mapping', { _source: { includes: ['x'] } });
    await same('PUT', '/sf/_mapping', { _source: { enabled: false, excludes: ['b'] } });
    await same('PUT', '/sf/_mapping', { properties: { z: { type: 'keyword' } } });
    await same('PUT', '/sf-off', { mappings: { _source: { enabled: false, excludes: ['a'] } } });
    await same('GET', '/sf-off/_mapping');
    // ES 8 reads a single string (or a number) as a list where OpenSearch fails with a class cast: refused here, only the status and type compared.
    for (const bad of [{ includes: 'a' }, { excludes: 5 }, { includes: ['a', 5] }]) {
      const res = await porticoCall('PUT', '/sf-bad', { mappings: { _source: bad } });
      expect([res.status, res.body.error.type]).toEqual([400, 'mapper_parsing_exception']);
    }
    expect((await porticoCall('HEAD', '/sf-bad')).status).toBe(404);
  }, SLOW);

  it('stays so across a restart', async () => {
    await harness().restart();
    await same('GET', '/sf/_mapping');
    await checkFilteredSource();
  }, SLOW);
});

/** The answers of `sf` (documents 1 and 2, routed `r`, under MAPPING's `_source` filter). */
async function checkFilteredSource(): Promise<void> {
  for (const q of ['', '?_source_includes=m.*', '?_source_excludes=a', '?stored_fields=s,b', '?stored_fields=s&_source=true']) await same('GET', `/sf/_doc/1${q}`);
  await same('GET', '/sf/_doc/2');
  await same('GET', '/sf/_source/1');
  await same('GET', '/sf/_source/2?_source_includes=a');
  await same('POST', '/sf/_mget', { docs: [{ _id: '1', stored_fields: ['s'] }, { _id: '1', _source: 'a' }, { _id: '2' }] });
  for (const query of [{ term: { b: 'bee' } }, { term: { 'm.secret': 'shh' } }, { match: { c: 'land' } }, { exists: { field: 'b' } }, { match_all: {} }]) {
    await same('POST', '/sf/_search', { query, sort: ['b'] });
  }
  await same('POST', '/sf/_search', { query: { match: { c: 'sea' } }, _source: ['m'], sort: ['b'] });
  await same('POST', '/sf/_search', { fields: ['*'], _source: false, sort: ['b'] });
  await same('POST', '/sf/_search', { docvalue_fields: ['b', 'm.secret'], stored_fields: ['s'], sort: ['b'] });
  await same('POST', '/sf/_search', { query: { bool: { should: [{ match: { a: 'hello' } }, { match: { c: 'sea' } }] } }, highlight: { fields: { a: {}, c: {} } }, _source: false, sort: ['b'] });
  await same('POST', '/sf/_search', { size: 0, aggs: { b: { terms: { field: 'b' } }, top: { top_hits: { sort: ['b'], _source: { excludes: ['a'] } } } } });
}
