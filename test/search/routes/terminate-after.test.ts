import { describe, expect, it } from 'vitest';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * `terminate_after` (src/search/engine/terminate-after.ts): each shard collects at most that many
 * documents in its order, and the answer says whether one stopped early. Side by side with the
 * node: test/search/differential/terminate-after.int.test.ts.
 */

const h = searchForEach();
const { call, ok } = esCalls(h);

/** 20 documents: n = 0..19, the even ones tagged `even`, every third with the word `fox`. */
async function load(index: string, shards = 1): Promise<void> {
  await ok('PUT', `/${index}`, { settings: { number_of_shards: shards }, mappings: { properties: { t: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } } } });
  const lines = Array.from({ length: 20 }, (_, n) => [JSON.stringify({ index: { _id: String(n) } }), JSON.stringify({ t: n % 3 === 0 ? 'red fox' : 'red dog', tag: n % 2 === 0 ? 'even' : 'odd', n })]).flat();
  const res = await h.app.inject({ method: 'POST', url: `/${index}/_bulk?refresh=true`, headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
  expect(JSON.parse(res.body).errors).toBe(false);
}

const ids = (b: EsBody): string[] => (b.hits.hits as { _id: string }[]).map((x) => x._id);

describe('terminate_after', () => {
  it('collects the first documents of the shard and says it stopped only when more would have been collected', async () => {
    await load('t');
    const b = await ok('POST', '/t/_search', { terminate_after: 5, query: { match: { t: 'red fox' } }, sort: [{ n: 'desc' }], _source: false });
    expect(Object.keys(b).slice(0, 4)).toEqual(['took', 'timed_out', 'terminated_early', '_shards']);
    expect([b.terminated_early, b.hits.total, ids(b)]).toEqual([true, { value: 5, relation: 'eq' }, ['4', '3', '2', '1', '0']]);
    // Exactly as many matches as the limit: nothing more to collect, not stopped early.
    const seven = await ok('POST', '/t/_search', { terminate_after: 7, query: { match: { t: 'fox' } }, size: 1 });
    expect([seven.terminated_early, seven.hits.total.value]).toEqual([false, 7]);
    // No limit, no key.
    expect('terminated_early' in (await ok('POST', '/t/_search', { terminate_after: 0 }))).toBe(false);
    expect('terminated_early' in (await ok('POST', '/t/_search?terminate_after=0', {}))).toBe(false);
  });

  it('counts only what post_filter keeps, and aggregates every match before the stop', async () => {
    await load('t');
    // Tagged even: 0, 2, 4 counted; 6 stops the shard; aggregations saw 0..5.
    const b = await ok('POST', '/t/_search', { terminate_after: 3, post_filter: { term: { tag: 'even' } }, aggs: { sum: { sum: { field: 'n' } } }, _source: false });
    expect([b.terminated_early, ids(b).sort(), b.aggregations.sum.value]).toEqual([true, ['0', '2', '4'], 0 + 1 + 2 + 3 + 4 + 5]);
  });

  it('with size 0 takes the count of a query counted without collecting (ES 8), unless documents were deleted', async () => {
    await load('t');
    const body = { terminate_after: 2, size: 0, query: { match: { t: 'fox' } }, aggs: { sum: { sum: { field: 'n' } } } };
    const counted = await ok('POST', '/t/_search', body);
    expect([counted.terminated_early, counted.hits.total.value, counted.aggregations.sum.value]).toEqual([false, 7, 0 + 3 + 6 + 9 + 12 + 15 + 18]);
    // Two terms are collected: stopped after 2, aggregations over what came before the third.
    const collected = await ok('POST', '/t/_search', { ...body, query: { match: { t: 'red dog' } } });
    expect([collected.terminated_early, collected.hits.total.value, collected.aggregations.sum.value]).toEqual([true, 2, 0 + 1]);
    // A deleted document: Lucene no longer counts a term without collecting.
    await ok('DELETE', '/t/_doc/19?refresh=true');
    const afterDelete = await ok('POST', '/t/_search', body);
    expect([afterDelete.terminated_early, afterDelete.hits.total.value]).toEqual([true, 2]);
    // match_all is counted even then.
    const all = await ok('POST', '/t/_search', { terminate_after: 2, size: 0 });
    expect([all.terminated_early, all.hits.total.value]).toEqual([false, 19]);
  });

  it('stops each shard on its own, and the URL limit wins over the body', async () => {
    await load('m', 3);
    const b = await ok('POST', '/m/_search?terminate_after=2', { terminate_after: 50, query: { match: { t: 'red' } }, size: 20 });
    expect([b.terminated_early, b.hits.total.value, b.hits.hits.length]).toEqual([true, 6, 6]);
  });

  it('limits _count the same way, with terminated_early first', async () => {
    await load('m', 3);
    const collected = await ok('POST', '/m/_count?terminate_after=1', { query: { match: { t: 'red dog' } } });
    expect(collected).toEqual({ terminated_early: true, count: 3, _shards: { total: 3, successful: 3, skipped: 0, failed: 0 } });
    expect(Object.keys(collected)[0]).toBe('terminated_early');
    expect(await ok('POST', '/m/_count?terminate_after=1', { query: { term: { tag: 'odd' } } })).toEqual({ terminated_early: false, count: 10, _shards: { total: 3, successful: 3, skipped: 0, failed: 0 } });
    // min_score makes every query collected.
    expect((await ok('POST', '/m/_count?terminate_after=1&min_score=0.01', { query: { term: { tag: 'odd' } } })).count).toBe(3);
    const r = await call('POST', '/m/_count', { terminate_after: 1 });
    expect([r.status, r.body.error.type]).toEqual([400, 'parsing_exception']);
  });
});
