import { describe, expect, it } from 'vitest';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * The finer points of dfs_query_then_fetch, terminate_after, indices_boost and collapse where
 * they meet each other and ES 8's shard phases (found by a second reader of the change, each read
 * from ES's and Lucene's source).
 */

const h = searchForEach();
const { ok } = esCalls(h);

async function load(index: string, texts: Record<string, string>, shards = 1): Promise<void> {
  await ok('PUT', `/${index}`, { settings: { number_of_shards: shards, number_of_replicas: 0 }, mappings: { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' } } } });
  const lines = Object.entries(texts).flatMap(([id, text]) => [JSON.stringify({ index: { _id: id } }), JSON.stringify({ text, tag: text.split(' ')[0] })]);
  const res = await h.app.inject({ method: 'POST', url: `/${index}/_bulk?refresh=true`, headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
  expect(JSON.parse(res.body).errors).toBe(false);
}

const scores = (b: EsBody): [string, number][] => (b.hits.hits as { _id: string; _score: number }[]).map((x): [string, number] => [x._id, x._score]).sort((a, c) => a[0].localeCompare(c[0]));

describe('dfs_query_then_fetch over a shard where a queried term is missing', () => {
  // ES's DFS phase records a shard's collectionStatistics(field) whenever a scoring TermWeight or
  // PhraseWeight is built (Lucene 9's TermWeight asks before it checks the term), and PhraseWeight
  // each present term's: a shard without the term still counts in the sums.
  const A = { a1: 'alpha beta', a2: 'alpha', a3: 'beta gamma' };
  const B = { b1: 'alpha gamma delta', b2: 'gamma', b3: 'delta epsilon zeta eta' };
  const C = { c1: 'gamma delta', c2: 'delta epsilon', c3: 'zeta' };

  it('a one-term match: the shard without the term still gives its field statistics', async () => {
    await load('one', { ...A, ...C });
    await load('half-a', A);
    await load('half-c', C);
    for (const query of [{ match: { text: 'alpha' } }, { term: { tag: 'alpha' } }]) {
      const whole = await ok('POST', '/one/_search', { query });
      const dfs = await ok('POST', '/half-a,half-c/_search?search_type=dfs_query_then_fetch', { query });
      expect(dfs._shards.total).toBe(2);
      expect(scores(dfs), JSON.stringify(query)).toEqual(scores(whole));
    }
  });

  it('a phrase: the shard missing one of its terms still gives the other terms\' statistics', async () => {
    await load('one', { ...A, ...B });
    await load('half-a', A);
    await load('half-b', B);
    const query = { match_phrase: { text: 'alpha beta' } };
    const whole = await ok('POST', '/one/_search', { query });
    expect(whole.hits.total.value).toBe(1);
    const dfs = await ok('POST', '/half-a,half-b/_search?search_type=dfs_query_then_fetch', { query });
    expect(scores(dfs)).toEqual(scores(whole));
  });
});

describe('terminate_after with size 0: queries Lucene 9 does not count without collecting', () => {
  // Lucene 9 counts a PointRangeQuery without collecting only when the shard's values all lie
  // inside it or the field is single-valued in one dimension, and FieldExistsQuery only from norms,
  // points or indexed terms: otherwise ES's QueryPhaseCollector collects and stops at the limit.
  async function loadMulti(): Promise<void> {
    await ok('PUT', '/m', { mappings: { properties: { n: { type: 'long' }, k: { type: 'keyword', index: false } } } });
    const lines = Array.from({ length: 10 }, (_, i) => [JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ n: [i, 100 + i], k: `v${i}` })]).flat();
    const res = await h.app.inject({ method: 'POST', url: '/m/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
    expect(JSON.parse(res.body).errors).toBe(false);
  }

  it('a range on a multi-valued long that the shard\'s values are not all inside is collected', async () => {
    await loadMulti();
    // Matches 5..9 (by their first value) and every document by its second: 10 matches, not all of the shard's range inside.
    const b = await ok('POST', '/m/_search', { size: 0, terminate_after: 2, query: { range: { n: { gte: 5, lte: 150 } } } });
    expect([b.terminated_early, b.hits.total.value]).toEqual([true, 2]);
  });

  it('exists on a keyword that is not indexed (doc values only) is collected', async () => {
    await loadMulti();
    const b = await ok('POST', '/m/_search', { size: 0, terminate_after: 2, query: { exists: { field: 'k' } } });
    expect([b.terminated_early, b.hits.total.value]).toEqual([true, 2]);
    const c = await ok('GET', '/m/_count?terminate_after=2&q=_exists_:k');
    expect([c.terminated_early, c.count]).toEqual([true, 2]);
  });
});

describe('terminate_after with size 0 and a smaller track_total_hits', () => {
  // A size 0 search counts with a PartialHitCountCollector whose threshold is track_total_hits (0
  // when false); it stops before terminate_after's check fires. With false nothing is collected and
  // aggregations see every match (QueryPhaseCollectorManager.EmptyHits).
  async function load20(): Promise<void> {
    await ok('PUT', '/t', { mappings: { properties: { t: { type: 'text' }, n: { type: 'integer' } } } });
    const lines = Array.from({ length: 20 }, (_, n) => [JSON.stringify({ index: { _id: String(n) } }), JSON.stringify({ t: n % 3 === 0 ? 'red fox' : 'red dog', n })]).flat();
    const res = await h.app.inject({ method: 'POST', url: '/t/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
    expect(JSON.parse(res.body).errors).toBe(false);
  }

  it('track_total_hits false: nothing is collected for the hits, aggregations see every match, not terminated early', async () => {
    await load20();
    // Two terms: not counted by Weight#count, so collected.
    const b = await ok('POST', '/t/_search', { size: 0, track_total_hits: false, terminate_after: 2, query: { match: { t: 'red dog' } }, aggs: { sum: { sum: { field: 'n' } } } });
    expect([b.terminated_early, b.aggregations.sum.value]).toEqual([false, 190]);
  });

  it('track_total_hits below terminate_after: the count stops first, not terminated early', async () => {
    await load20();
    const b = await ok('POST', '/t/_search', { size: 0, track_total_hits: 3, terminate_after: 5, query: { match: { t: 'red dog' } } });
    expect([b.terminated_early, b.hits.total]).toEqual([false, { value: 3, relation: 'gte' }]);
  });
});

describe('dfs_query_then_fetch with a shard that fails its checks', () => {
  // ES checks a shard (DefaultSearchContext.preProcess) as it makes the context for the DFS phase: a
  // shard that fails there fails the DFS phase, and its statistics are in no sum.
  const A = { a1: 'alpha beta', a2: 'alpha', a3: 'beta gamma' };
  const B = { b1: 'alpha gamma delta', b2: 'alpha', b3: 'delta epsilon zeta eta', b4: 'alpha alpha' };

  it('a shard over its max_result_window gives no statistics', async () => {
    await load('half-a', A);
    await load('half-b', B);
    await ok('PUT', '/half-b/_settings', { index: { max_result_window: 5 } });
    const query = { match: { text: 'alpha' } };
    const alone = await ok('POST', '/half-a/_search', { size: 10, query });
    const dfs = await ok('POST', '/half-a,half-b/_search?search_type=dfs_query_then_fetch', { size: 10, query });
    expect([dfs._shards.total, dfs._shards.failed]).toEqual([2, 1]);
    expect(scores(dfs)).toEqual(scores(alone));
  });

  it('a shard whose indices_boost is negative gives no statistics', async () => {
    await load('half-a', A);
    await load('half-b', B);
    const query = { match: { text: 'alpha' } };
    const alone = await ok('POST', '/half-a/_search', { query });
    const dfs = await ok('POST', '/half-a,half-b/_search?search_type=dfs_query_then_fetch', { query, indices_boost: [{ 'half-b': -1 }] });
    expect([dfs._shards.total, dfs._shards.failed]).toEqual([2, 1]);
    expect(scores(dfs)).toEqual(scores(alone));
  });
});

describe('terminate_after on a scroll', () => {
  // Each scroll round runs the shard's query phase again with the original request, terminate_after
  // included, so every page says whether a shard stopped early (from ES's source).
  it('the next page of a scroll with terminate_after says whether the shard stopped early', async () => {
    await ok('PUT', '/s', { mappings: { properties: { n: { type: 'long' } } } });
    for (let i = 0; i < 6; i++) await ok('PUT', `/s/_doc/${i}`, { n: i });
    await ok('POST', '/s/_refresh');
    const first = await ok('POST', '/s/_search?scroll=1m', { size: 1, terminate_after: 3 });
    expect([first.terminated_early, first.hits.hits.map((x: { _id: string }) => x._id)]).toEqual([true, ['0']]);
    const next = await ok('POST', '/_search/scroll', { scroll: '1m', scroll_id: first._scroll_id });
    expect(next.hits.hits.map((x: { _id: string }) => x._id)).toEqual(['1']);
    expect(next.terminated_early).toBe(true);
  });
});

describe('indices_boost and collapse inner_hits', () => {
  // ES's ExpandSearchPhase runs each group as a search of the query and post_filter alone: the inner
  // hits score without the index boost, while the group's top hit is boosted.
  it('inner hits are scored without the index boost', async () => {
    await load('ib', { x1: 'alpha beta', x2: 'alpha', x3: 'alpha gamma' });
    const query = { match: { text: 'alpha' } };
    const plain = await ok('POST', '/ib/_search', { query });
    const unboosted = new Map((plain.hits.hits as { _id: string; _score: number }[]).map((x) => [x._id, x._score]));
    const b = await ok('POST', '/ib/_search', { query, indices_boost: [{ ib: 2 }], collapse: { field: 'tag', inner_hits: { name: 'g', size: 5 } } });
    const top = b.hits.hits[0] as { _id: string; _score: number; inner_hits: { g: { hits: { hits: { _id: string; _score: number }[] } } } };
    // The collapsed top hit is boosted, as in ES.
    expect(top._score).toBeCloseTo((unboosted.get(top._id) as number) * 2, 5);
    const inner = top.inner_hits.g.hits.hits;
    expect(inner.length).toBe(3);
    for (const x of inner) expect(x._score, x._id).toBe(unboosted.get(x._id));
  });
});

describe('terminate_after and collapse inner_hits', () => {
  // The group searches do not carry terminate_after either: the inner hits are every document of
  // the group that matches the query.
  it('inner hits see the whole group, not only the collected documents', async () => {
    await ok('PUT', '/ta', { mappings: { properties: { tag: { type: 'keyword' }, n: { type: 'integer' } } } });
    const lines = Array.from({ length: 20 }, (_, n) => [JSON.stringify({ index: { _id: String(n) } }), JSON.stringify({ tag: n % 2 === 0 ? 'even' : 'odd', n })]).flat();
    const res = await h.app.inject({ method: 'POST', url: '/ta/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
    expect(JSON.parse(res.body).errors).toBe(false);
    const b = await ok('POST', '/ta/_search', { terminate_after: 3, sort: [{ n: 'asc' }], collapse: { field: 'tag', inner_hits: { name: 'g', size: 20 } } });
    expect(b.terminated_early).toBe(true);
    const groups = b.hits.hits as { fields: { tag: string[] }; inner_hits: { g: { hits: { total: { value: number } } } } }[];
    expect(groups.map((g) => [g.fields.tag[0], g.inner_hits.g.hits.total.value])).toEqual([['even', 10], ['odd', 10]]);
  });
});

describe('search_after without a sort, checked in ES\'s order', () => {
  // ES builds the search_after point (SearchService.parseSource) before it checks the result window
  // (DefaultSearchContext.preProcess).
  it('a page past max_result_window with search_after and no sort fails on the sort', async () => {
    await load('sa', { s1: 'alpha' });
    const res = await h.app.inject({ method: 'POST', url: '/sa/_search', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ size: 20000, search_after: [1] }) });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.root_cause[0].reason).toBe('Sort must contain at least one field.');
  });
});
