import { describe, expect, it } from 'vitest';
import { RequestCache } from '../../../src/search/engine/request-cache.js';
import { newIndexState } from '../../../src/search/engine/index-state.js';
import { parseSettings } from '../../../src/search/engine/index-settings.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { searchForEach, startSearch } from '../harness.js';

/**
 * The shard request cache (engine/request-cache.ts): what is cached, when an entry stops being
 * given (refreshes that show writes, mappings, the settings a search reads), the bypass rules, the
 * `request_cache` stats, `_cache/clear`, and eviction. The node's counters for the same steps are
 * checked side by side in test/search/differential/request-cache.int.test.ts.
 */

const h = searchForEach();

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';
async function raw(method: Method, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers = { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' };
  const r = await h.app.inject({ method, url, ...(payload === undefined ? {} : { payload, headers }) });
  return { status: r.statusCode, text: r.body };
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers read loosely
async function call(method: Method, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await raw(method, url, body);
  return { status: r.status, body: r.text === '' ? null : JSON.parse(r.text) };
}

async function cacheStats(index = 't'): Promise<{ memory_size_in_bytes: number; evictions: number; hit_count: number; miss_count: number }> {
  const r = await call('GET', `/${index}/_stats/request_cache`);
  expect(r.status).toBe(200);
  return r.body.indices[index].primaries.request_cache;
}

async function counts(index = 't'): Promise<[number, number]> {
  const s = await cacheStats(index);
  return [s.hit_count, s.miss_count];
}

/** The answer's text without `took`, the one member a cached answer may change. */
const withoutTook = (text: string): string => text.replace(/^\{"took":\d+,/, '{');

const AGG = { size: 0, aggs: { s: { stats: { field: 'n' } }, k: { terms: { field: 'k' } } } };

async function seed(settings: Record<string, unknown> = {}): Promise<void> {
  await call('PUT', '/t', { settings: { number_of_replicas: 0, ...settings }, mappings: { properties: { n: { type: 'integer' }, k: { type: 'keyword' }, d: { type: 'date' } } } });
  const lines = [0, 1, 2, 3, 4].flatMap((i) => [JSON.stringify({ index: { _index: 't', _id: String(i) } }), JSON.stringify({ n: i, k: `k${i % 2}`, d: `2026-01-0${i + 1}` })]);
  expect((await call('POST', '/_bulk?refresh=true', lines.join('\n') + '\n')).status).toBe(200);
}

describe('the shard request cache', () => {
  it('answers a repeated size-0 search from the cache, byte for byte but `took`, and counts hits and misses', async () => {
    await seed();
    expect(await cacheStats()).toEqual({ memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 });
    const first = await raw('POST', '/t/_search', AGG);
    expect(first.status).toBe(200);
    const after1 = await cacheStats();
    expect(after1).toMatchObject({ hit_count: 0, miss_count: 1, evictions: 0 });
    // The entry's key and answer, in UTF-8 bytes.
    expect(after1.memory_size_in_bytes).toBeGreaterThan(withoutTook(first.text).length);
    const second = await raw('POST', '/t/_search', AGG);
    expect(withoutTook(second.text)).toBe(withoutTook(first.text));
    expect(await counts()).toEqual([1, 1]);
    // Rendering parameters are not part of the key: the cached answer is filtered and indented as a fresh one.
    const filtered = await call('POST', '/t/_search?filter_path=aggregations.s&pretty', AGG);
    expect(filtered.body).toEqual({ aggregations: { s: JSON.parse(first.text).aggregations.s } });
    expect(await counts()).toEqual([2, 1]);
    // The same answer again after a filtered one (the entry was not changed by the filter).
    expect(withoutTook((await raw('POST', '/t/_search', AGG)).text)).toBe(withoutTook(first.text));
    // An _msearch item of the same body shares the entry (as on the node), its own body another.
    const ms = (body: unknown) => `{"index":"t"}\n${JSON.stringify(body)}\n`;
    const m1 = await call('POST', '/_msearch', ms(AGG));
    expect(m1.body.responses[0].aggregations).toEqual(JSON.parse(first.text).aggregations);
    expect(await counts()).toEqual([4, 1]);
    await call('POST', '/_msearch', ms({ ...AGG, track_total_hits: false }));
    await call('POST', '/_msearch', ms({ ...AGG, track_total_hits: false }));
    expect(await counts()).toEqual([5, 2]);
    // _stats of all indices and _nodes/stats sum it.
    expect((await call('GET', '/_stats/request_cache')).body._all.primaries.request_cache).toMatchObject({ hit_count: 5, miss_count: 2 });
    const nodes = (await call('GET', '/_nodes/stats')).body.nodes;
    expect((Object.values(nodes)[0] as { indices: { request_cache: unknown } }).indices.request_cache).toMatchObject({ hit_count: 5, miss_count: 2 });
    // And _cat/indices, under ES's column names and aliases.
    const cat = await call('GET', '/_cat/indices/t?format=json&h=rchc,rcmc,rce,request_cache.memory_size');
    expect(cat.body).toEqual([{ rchc: '5', rcmc: '2', rce: '0', 'request_cache.memory_size': `${(await cacheStats()).memory_size_in_bytes}b` }]);
  });

  it('never answers from before a refresh that showed writes, a mapping change or a change of a setting searches read', async () => {
    await seed({ refresh_interval: '-1' });
    const sum = async () => (await call('POST', '/t/_search', AGG)).body.aggregations.s.sum as number;
    expect(await sum()).toBe(10);
    // A write no refresh has shown: the cached answer is still what a search computes.
    await call('PUT', '/t/_doc/a', { n: 100 });
    expect(await sum()).toBe(10);
    expect(await counts()).toEqual([1, 1]);
    // A refresh that shows nothing new keeps the entries (the node hits there too).
    await call('POST', '/t/_refresh');
    await call('POST', '/t/_refresh');
    expect(await sum()).toBe(110);
    expect(await sum()).toBe(110);
    await call('POST', '/t/_refresh');
    expect(await sum()).toBe(110);
    expect(await counts()).toEqual([3, 2]);
    // refresh=true and refresh=wait_for writes.
    await call('PUT', '/t/_doc/b?refresh=true', { n: 1000 });
    expect(await sum()).toBe(1110);
    // (refresh_interval -1: the wait ends at the next explicit refresh.)
    const waiting = call('DELETE', '/t/_doc/b?refresh=wait_for');
    await call('POST', '/t/_refresh');
    expect((await waiting).status).toBe(200);
    expect(await sum()).toBe(110);
    expect(await counts()).toEqual([3, 4]);
    // A mapping change (ES 8 keys entries by the mapping): put mapping, and a write mapping a new field.
    await call('PUT', '/t/_mapping', { properties: { z: { type: 'keyword' } } });
    expect(await sum()).toBe(110);
    await call('PUT', '/t/_doc/c', { fresh: 'x' });
    expect(await sum()).toBe(110);
    expect(await counts()).toEqual([3, 6]);
    // A search of the new field sees it mapped (no documents yet in the refreshed view).
    expect((await call('POST', '/t/_search', { size: 0, query: { exists: { field: 'fresh' } } })).body.hits.total.value).toBe(0);
    // max_result_window and max_terms_count are read by searches: a change drops the entries.
    const terms = { size: 0, query: { terms: { k: ['k0', 'k1', 'k2'] } } };
    expect((await call('POST', '/t/_search', terms)).status).toBe(200);
    expect((await call('POST', '/t/_search', terms)).status).toBe(200);
    await call('PUT', '/t/_settings', { index: { max_terms_count: 2 } });
    const refused = await call('POST', '/t/_search', terms);
    expect(refused.status).toBe(400);
    // Other settings keep them (the node hits after a settings update too).
    await call('PUT', '/t/_settings', { index: { refresh_interval: '-1', max_terms_count: null } });
    const before = await counts();
    await call('POST', '/t/_search', terms);
    await call('PUT', '/t/_settings', { index: { refresh_interval: '30s' } });
    await call('POST', '/t/_search', terms);
    const after = await counts();
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([1, 1]);
  });

  it('caches as ES does: size 0 by default, any size with request_cache=true, nothing with request_cache=false, scrolls, several indices or `now`', async () => {
    await seed();
    await call('PUT', '/u', { settings: { number_of_replicas: 0 } });
    const expectCounts = async (what: string, req: () => Promise<unknown>, delta: [number, number]) => {
      const [h0, m0] = await counts();
      await req();
      const [h1, m1] = await counts();
      expect([h1 - h0, m1 - m0], what).toEqual(delta);
    };
    const size1 = { size: 1, query: { match_all: {} } };
    await expectCounts('size 1', () => call('POST', '/t/_search', size1), [0, 0]);
    await expectCounts('default size', () => call('POST', '/t/_search', {}), [0, 0]);
    await expectCounts('size 1, request_cache=true', () => call('POST', '/t/_search?request_cache=true', size1), [0, 1]);
    await expectCounts('size 1, request_cache=true again', () => call('POST', '/t/_search?request_cache=true', size1), [1, 0]);
    // A cached page of hits is the page a fresh search gives.
    const fresh = await raw('POST', '/t/_search?request_cache=false', size1);
    expect(withoutTook((await raw('POST', '/t/_search?request_cache=true', size1)).text)).toBe(withoutTook(fresh.text));
    await expectCounts('request_cache=false', () => call('POST', '/t/_search?request_cache=false', AGG), [0, 0]);
    await expectCounts('size=0 in the URL', () => call('POST', '/t/_search?size=0', {}), [0, 1]);
    await expectCounts('dfs on one index (one shard: query_then_fetch)', () => call('POST', '/t/_search?search_type=dfs_query_then_fetch', AGG), [0, 1]);
    await expectCounts('suggest only', () => call('POST', '/t/_search', { size: 0, suggest: { x: { text: 'k0', term: { field: 'k' } } } }), [0, 0]);
    await expectCounts('two indices', () => call('POST', '/t,u/_search', AGG), [0, 0]);
    await expectCounts('scroll', () => call('POST', '/t/_search?scroll=1m', AGG), [0, 0]);
    // Date math on now: the answer depends on the time.
    await expectCounts('range on now', () => call('POST', '/t/_search', { size: 0, query: { range: { d: { gte: 'now-100y' } } } }), [0, 0]);
    await expectCounts('range on now again', () => call('POST', '/t/_search', { size: 0, query: { range: { d: { gte: 'now-100y' } } } }), [0, 0]);
    await expectCounts('date_range agg on now', () => call('POST', '/t/_search', { size: 0, aggs: { r: { date_range: { field: 'd', ranges: [{ from: 'now-100y' }] } } } }), [0, 0]);
    await expectCounts('fixed date range', () => call('POST', '/t/_search', { size: 0, query: { range: { d: { gte: '2020-01-01' } } }, aggs: { r: { date_range: { field: 'd', ranges: [{ from: '2020-01-01' }] } } } }), [0, 1]);
    // index.requests.cache.enable off: size 0 is not cached unless asked for.
    // Cached by the dfs search above (search_type is no part of the key).
    await expectCounts('size 0', () => call('POST', '/t/_search', AGG), [1, 0]);
    await call('PUT', '/t/_settings', { index: { 'requests.cache.enable': false } });
    expect((await call('GET', '/t/_settings')).body.t.settings.index.requests).toEqual({ cache: { enable: 'false' } });
    await expectCounts('setting off', () => call('POST', '/t/_search', AGG), [0, 0]);
    // request_cache=true is part of the key, as on the node: an entry of its own.
    await expectCounts('setting off, request_cache=true', () => call('POST', '/t/_search?request_cache=true', AGG), [0, 1]);
    await expectCounts('setting off, request_cache=true again', () => call('POST', '/t/_search?request_cache=true', AGG), [1, 0]);
    // The entries made while it was on are kept (the node keeps them too).
    await call('PUT', '/t/_settings', { index: { 'requests.cache.enable': true } });
    await expectCounts('setting on again', () => call('POST', '/t/_search', AGG), [1, 0]);
    const bad = await call('PUT', '/t/_settings', { index: { 'requests.cache.enable': 'yes' } });
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Failed to parse value [yes] as only [true] or [false] are allowed.' });
  });

  it('clears it with POST _cache/clear as ES answers, keeping the counters', async () => {
    await seed();
    await call('POST', '/t/_search', AGG);
    expect((await cacheStats()).memory_size_in_bytes).toBeGreaterThan(0);
    // `query` or `fielddata` alone clear other caches.
    expect(await call('POST', '/t/_cache/clear?query=true')).toEqual({ status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } });
    await call('POST', '/t/_cache/clear?fielddata=true');
    expect((await cacheStats()).memory_size_in_bytes).toBeGreaterThan(0);
    expect(await call('POST', '/t/_cache/clear?request=true')).toEqual({ status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } });
    expect(await cacheStats()).toEqual({ memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 1 });
    await call('POST', '/t/_search', AGG);
    expect(await counts()).toEqual([0, 2]);
    // No flag clears every cache.
    expect((await call('POST', '/_cache/clear')).status).toBe(200);
    expect((await cacheStats()).memory_size_in_bytes).toBe(0);
    expect((await call('POST', '/t/_cache/clear?bogus=1')).body.error.reason).toBe('request [/t/_cache/clear] contains unrecognized parameter: [bogus]');
    expect((await call('POST', '/nope/_cache/clear')).status).toBe(404);
    expect(await call('POST', '/t,nope/_cache/clear?ignore_unavailable=true')).toEqual({ status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } });
    const get = await call('GET', '/t/_cache/clear');
    expect(get).toEqual({ status: 405, body: { error: 'Incorrect HTTP method for uri [/t/_cache/clear] and method [GET], allowed: [POST]', status: 405 } });
  });

  it('drops the entries of a deleted index, and a re-created one starts from zero', async () => {
    await seed();
    await call('POST', '/t/_search', AGG);
    await call('POST', '/t/_search', AGG);
    await call('DELETE', '/t');
    await seed();
    expect(await cacheStats()).toEqual({ memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 });
    await call('POST', '/t/_search', AGG);
    expect(await counts()).toEqual([0, 1]);
  });
});

describe('the request cache bound', () => {
  it('evicts the least recently used entries past --search.request-cache-size', async () => {
    const small = await startSearch(['--search.request-cache-size', '1kb']);
    try {
      const c = async (method: Method, url: string, body?: unknown) => {
        const r = await small.app.inject({ method, url, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' } }) });
        return r.json();
      };
      await c('PUT', '/t', { settings: { number_of_replicas: 0 } });
      await c('PUT', '/t/_doc/1?refresh=true', { n: 1 });
      const q = (i: number) => ({ size: 0, query: { term: { n: i } } });
      const stats = async () => (await c('GET', '/t/_stats/request_cache')).indices.t.primaries.request_cache;
      await c('POST', '/t/_search', q(1));
      const one = (await stats()).memory_size_in_bytes as number;
      expect(one).toBeGreaterThan(0);
      const fit = Math.floor(1024 / one);
      // Fill the cache, touch the first entry, add one more: the second (least recently used) goes.
      for (let i = 2; i <= fit; i++) await c('POST', '/t/_search', q(i));
      expect(await stats()).toMatchObject({ evictions: 0, miss_count: fit });
      await c('POST', '/t/_search', q(1));
      await c('POST', '/t/_search', q(fit + 1));
      expect(await stats()).toMatchObject({ evictions: 1, hit_count: 1, miss_count: fit + 1 });
      expect((await stats()).memory_size_in_bytes).toBeLessThanOrEqual(1024);
      await c('POST', '/t/_search', q(1));
      expect(await stats()).toMatchObject({ hit_count: 2 });
      await c('POST', '/t/_search', q(2));
      expect(await stats()).toMatchObject({ hit_count: 2, miss_count: fit + 2, evictions: 2 });
    } finally {
      await small.close();
    }
  });

  it('keeps nothing larger than the bound, and nothing at 0', () => {
    const state = newIndexState('x', 'u1', 0, parseSettings({}), Mappings.parse({}));
    const cache = new RequestCache(100);
    cache.put(state, 'k', { big: 'x'.repeat(200) });
    expect(cache.get(state, 'k')).toBeUndefined();
    expect(cache.stats(state)).toEqual({ memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 1 });
    cache.put(state, 'k', { small: 1 });
    expect(cache.get(state, 'k')).toEqual({ small: 1 });
    expect(cache.size).toBe(cache.stats(state).memory_size_in_bytes);
    expect(cache.size).toBe(Buffer.byteLength('u1\0k') + Buffer.byteLength('{"small":1}'));
    expect(new RequestCache(0).applies(state, 'true', 0)).toBe(false);
  });
});
