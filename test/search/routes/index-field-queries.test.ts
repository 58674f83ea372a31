import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esCalls, startSearch, type SearchHarness } from '../harness.js';

/**
 * Queries on `_index` and `index.max_terms_count`, as the OpenSearch node answered them (probed
 * side by side): `_index` queries match every document of an index whose name they match, score 1
 * times the boost, and a `terms` query over the index's limit is ES's query_shard_exception.
 */

let h: SearchHarness;
let es: ReturnType<typeof esCalls>;

beforeAll(async () => {
  h = await startSearch();
  es = esCalls(h);
  await es.ok('PUT', '/ix1', { settings: { 'index.max_terms_count': 2 }, mappings: { properties: { k: { type: 'keyword' } } } });
  await es.ok('PUT', '/ix1/_doc/1?refresh=true', { k: 'a' });
  await es.ok('PUT', '/ix2/_doc/1?refresh=true', { k: 'a' });
});

afterAll(async () => {
  await h.close();
});

const hitsOf = async (query: unknown): Promise<[string, number][]> => {
  const body = await es.ok('POST', '/ix1,ix2/_search', { query });
  return (body.hits.hits as { _index: string; _score: number }[]).map((x) => [x._index, x._score]);
};

describe('_index queries', () => {
  it('match the documents of the indices whose name they match', async () => {
    expect(await hitsOf({ term: { _index: { value: 'ix1', boost: 2 } } })).toEqual([['ix1', 2]]);
    expect(await hitsOf({ terms: { _index: ['ix2', 'zz'] } })).toEqual([['ix2', 1]]);
    expect(await hitsOf({ match: { _index: 'ix2' } })).toEqual([['ix2', 1]]);
    expect(await hitsOf({ prefix: { _index: 'ix' } })).toEqual([['ix1', 1], ['ix2', 1]]);
    expect(await hitsOf({ wildcard: { _index: '*2' } })).toEqual([['ix2', 1]]);
    expect(await hitsOf({ term: { _index: 'nope' } })).toEqual([]);
    expect(await hitsOf({ bool: { must_not: [{ term: { _index: 'ix1' } }] } })).toEqual([['ix2', 0]]);
  });
});

describe('index.max_terms_count', () => {
  it('refuses a terms query with more values than the index allows', async () => {
    const res = await es.call('POST', '/ix1/_search', { query: { terms: { k: ['a', 'b', 'c'] } } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('search_phase_execution_exception');
    expect(res.body.error.root_cause[0]).toMatchObject({
      type: 'query_shard_exception',
      reason: 'failed to create query: The number of terms [3] used in the Terms Query request has exceeded the allowed maximum of [2]. This maximum can be set by changing the [index.max_terms_count] index level setting.',
    });
    expect((await es.ok('POST', '/ix1/_search', { query: { terms: { k: ['a', 'b'] } } })).hits.total.value).toBe(1);
  });

  it('is checked as an integer of at least 1 at creation', async () => {
    const res = await es.call('PUT', '/bad', { settings: { 'index.max_terms_count': 0 } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('illegal_argument_exception');
  });
});
