/**
 * The shard request cache side by side with the OpenSearch node (issue 22): after each step both
 * servers' `request_cache` hit, miss and eviction counters must be equal (the bytes held differ by
 * nature: Portico counts its key and compact answer, the node its serialized shard request and
 * result; only whether something is held is compared), and so must the answers of the searches and
 * of `_cache/clear`. Steps where the two differ on purpose are left out and listed in docs/search.md
 * ("The shard request cache"): a mapping change (ES 8 drops entries, the node does not), the same
 * request in other whitespace or key order, a range on `now` the node rewrites away.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';

const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

/** A body without `took`, `max_score` and `_score` (scores may differ in their last bits). */
function comparable(a: Answer): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'took' && k !== 'max_score' && k !== '_score') out[k] = strip(x);
    return out;
  };
  return { status: a.status, body: strip(a.body) };
}

async function same(method: string, path: string, body?: unknown): Promise<Answer> {
  const p = await porticoCall(method, path, body);
  const r = await nodeCall(method, path, body);
  const [a, b] = [comparable(p), comparable(r)];
  if (!isDeepStrictEqual(a, b)) expect.fail(`${method} ${path} ${JSON.stringify(body) ?? ''}\nPortico: ${JSON.stringify(a)}\nnode:    ${JSON.stringify(b)}`);
  return p;
}

/**
 * Both servers' counters of `index` after `step`: hits, misses, evictions equal; bytes held both
 * zero or both not, unless `holds` is false: right after a refresh that shows writes, the node
 * still holds the entries it will never give again until its cleaner runs (each minute), where
 * Portico drops them at once.
 */
async function sameCounters(step: string, holds = true, index = 'rc'): Promise<void> {
  const [p, r] = await Promise.all([porticoCall('GET', `/${index}/_stats/request_cache`), nodeCall('GET', `/${index}/_stats/request_cache`)]);
  const view = (a: Answer) => {
    const c = a.body.indices[index].primaries.request_cache;
    return { hit_count: c.hit_count, miss_count: c.miss_count, evictions: c.evictions, ...(holds ? { holds: c.memory_size_in_bytes > 0 } : {}) };
  };
  if (!isDeepStrictEqual(view(p), view(r))) expect.fail(`after ${step}\nPortico: ${JSON.stringify(view(p))}\nnode:    ${JSON.stringify(view(r))}`);
}

const AGG = { size: 0, aggs: { s: { stats: { field: 'n' } }, k: { terms: { field: 'k' } } } };

describe('the shard request cache, side by side', () => {
  it('counts hits and misses as the node does, and keeps or drops entries at the same steps', async () => {
    await same('PUT', '/rc', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 }, mappings: { properties: { n: { type: 'integer' }, k: { type: 'keyword' }, d: { type: 'date' } } } });
    const lines = [0, 1, 2, 3, 4].flatMap((i) => [JSON.stringify({ index: { _index: 'rc', _id: String(i) } }), JSON.stringify({ n: i, k: `k${i % 2}`, d: `2026-01-0${i + 1}` })]);
    await porticoCall('POST', '/_bulk?refresh=true', lines.join('\n') + '\n');
    await nodeCall('POST', '/_bulk?refresh=true', lines.join('\n') + '\n');
    await sameCounters('creation');
    const steps: [string, () => Promise<unknown>, boolean?][] = [
      ['a size-0 search', () => same('POST', '/rc/_search', AGG)],
      ['the same again', () => same('POST', '/rc/_search', AGG)],
      ['with pretty and filter_path', () => same('POST', '/rc/_search?pretty&filter_path=aggregations.s', AGG)],
      ['size 1', () => same('POST', '/rc/_search', { size: 1, sort: ['n'] })],
      ['size 1, request_cache=true', () => same('POST', '/rc/_search?request_cache=true', { size: 1, sort: ['n'] })],
      ['size 1, request_cache=true again', () => same('POST', '/rc/_search?request_cache=true', { size: 1, sort: ['n'] })],
      ['the default size', () => same('POST', '/rc/_search', { sort: ['n'] })],
      ['request_cache=false', () => same('POST', '/rc/_search?request_cache=false', AGG)],
      ['size=0 in the URL', () => same('POST', '/rc/_search?size=0', { query: { term: { k: 'k1' } } })],
      ['dfs_query_then_fetch', () => same('POST', '/rc/_search?search_type=dfs_query_then_fetch', AGG)],
      ['a date_range aggregation on now', () => same('POST', '/rc/_search', { size: 0, aggs: { r: { date_range: { field: 'd', ranges: [{ from: 'now-100y/d' }] } } } })],
      ['a suggest-only search', () => same('POST', '/rc/_search', { size: 0, suggest: { x: { text: 'k0', term: { field: 'k' } } } })],
      ['an _msearch item', () => same('POST', '/_msearch', `{"index":"rc"}\n${JSON.stringify(AGG)}\n`)],
      ['a write not refreshed', () => same('PUT', '/rc/_doc/9', { n: 9, k: 'k9' })],
      ['a search before the refresh', () => same('POST', '/rc/_search', AGG)],
      ['a refresh that shows the write', () => same('POST', '/rc/_refresh'), false],
      ['a search after it', () => same('POST', '/rc/_search', AGG)],
      ['a refresh that shows nothing', () => same('POST', '/rc/_refresh')],
      ['a search after that', () => same('POST', '/rc/_search', AGG)],
      ['a write with refresh=true', () => same('PUT', '/rc/_doc/10?refresh=true', { n: 10, k: 'k0' }), false],
      ['a search after it', () => same('POST', '/rc/_search', AGG)],
      ['refresh_interval changed', () => same('PUT', '/rc/_settings', { index: { refresh_interval: '-1' } })],
      ['a search after it', () => same('POST', '/rc/_search', AGG)],
      ['the cache turned off', () => same('PUT', '/rc/_settings', { index: { 'requests.cache.enable': false } })],
      ['a size-0 search', () => same('POST', '/rc/_search', AGG)],
      ['request_cache=true', () => same('POST', '/rc/_search?request_cache=true', AGG)],
      ['the cache turned on again', () => same('PUT', '/rc/_settings', { index: { 'requests.cache.enable': null } })],
      ['a search', () => same('POST', '/rc/_search', AGG)],
      ['_cache/clear?query=true', () => same('POST', '/rc/_cache/clear?query=true')],
      ['a search', () => same('POST', '/rc/_search', AGG)],
      ['_cache/clear?request=true', () => same('POST', '/rc/_cache/clear?request=true')],
      ['a search', () => same('POST', '/rc/_search', AGG)],
      ['_cache/clear', () => same('POST', '/_cache/clear')],
      ['a search', () => same('POST', '/rc/_search', AGG)],
    ];
    for (const [step, run, holds] of steps) {
      await run();
      await sameCounters(step, holds);
    }
    // _cat/indices shows the same counters (its byte column differs by nature, as above).
    await same('GET', '/_cat/indices/rc?format=json&h=index,rchc,rcmc,rce,pri.request_cache.hit_count');
  }, SLOW);

  it('answers _cache/clear and a bad enable value as the node does', async () => {
    await same('PUT', '/rc2', { settings: { number_of_shards: 1, number_of_replicas: 1 } });
    await same('POST', '/rc2/_cache/clear?request=true');
    await same('POST', '/rc2,nope/_cache/clear?ignore_unavailable=true');
    await same('POST', '/nope/_cache/clear');
    await same('POST', '/rc2/_cache/clear?bogus=1');
    await same('GET', '/rc2/_cache/clear');
    await same('PUT', '/rc2/_settings', { index: { 'requests.cache.enable': 'yes' } });
  }, SLOW);
});
