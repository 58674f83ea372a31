import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';

/** The small validations of issue 21, each as OpenSearch or Elasticsearch 8 answers it. */
describe('search validations', () => {
  const h = searchForAll();
  const { call, ok } = esCalls(h);
  beforeAll(async () => {
    await ok('PUT', '/t', { mappings: { properties: { body: { type: 'text' }, k: { type: 'keyword' } } } });
    const docs = [['1', 'a b c b a'], ['2', ['x a y', 'b z']], ['3', 'b a'], ['4', 'a x x b a b a']] as const;
    for (const [id, body] of docs) await ok('PUT', `/t/_doc/${id}?refresh=true`, { body });
  });

  it('_count keeps the hits scoring at least min_score (OpenSearch counts 1 at 0.065)', async () => {
    expect((await ok('GET', '/t/_count?q=body:a')).count).toBe(4);
    expect((await ok('GET', '/t/_count?q=body:a&min_score=0.065')).count).toBe(1);
    const bad = await call('GET', '/t/_count?min_score=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error.reason).toBe('Failed to parse float parameter [min_score] with value [abc]');
  });

  it('reads size=-1 in the URL as no size, as ES 8 does, and refuses it in the body', async () => {
    expect((await ok('GET', '/t/_search?size=-1')).hits.hits).toHaveLength(4);
    expect((await ok('POST', '/t/_search?size=-1', { size: 2 })).hits.hits).toHaveLength(2);
    const bad = await call('POST', '/t/_search', { size: -1 });
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: '[size] parameter cannot be negative, found [-1]' });
  });

  it('refuses an empty field name where ES does, and finds nothing with match', async () => {
    for (const query of [{ term: { '': 'x' } }, { exists: { field: '' } }, { range: { '': { gte: 1 } } }, { prefix: { '': 'x' } }]) {
      const res = await call('POST', '/t/_search', { query });
      expect(res.body.error, JSON.stringify(query)).toMatchObject({ type: 'illegal_argument_exception', reason: 'field name is null or empty' });
    }
    expect((await ok('POST', '/t/_search', { query: { match: { '': 'x' } } })).hits.total.value).toBe(0);
  });
});

describe('search_after on a boolean sort', () => {
  const h = searchForAll();
  const { ok } = esCalls(h);
  it('takes back the 1 and 0 a hit sorted on a boolean shows (the differential suite found it refused)', async () => {
    await ok('PUT', '/b', { mappings: { properties: { flag: { type: 'boolean' }, n: { type: 'long' } } } });
    for (const [id, flag, n] of [['1', true, 1], ['2', false, 2], ['3', true, 3]] as const) await ok('PUT', `/b/_doc/${id}?refresh=true`, { flag, n });
    const first = await ok('POST', '/b/_search', { sort: [{ flag: 'desc' }, { n: 'asc' }], size: 1 });
    expect(first.hits.hits[0].sort).toEqual([1, 1]);
    const next = await ok('POST', '/b/_search', { sort: [{ flag: 'desc' }, { n: 'asc' }], size: 5, search_after: first.hits.hits[0].sort });
    expect((next.hits.hits as { _id: string }[]).map((x) => x._id)).toEqual(['3', '2']);
  });
});
