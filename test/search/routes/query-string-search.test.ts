import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';

/**
 * query_string over HTTP (requests/query-string.ts, read into queries by query-dsl.ts), with the
 * hits and scores a real OpenSearch 2.19.6 node (Elasticsearch 8's BM25) gave for the same
 * documents and texts, `default_field: body`.
 */
describe('query_string as OpenSearch answers it', () => {
  const h = searchForAll();
  const { ok } = esCalls(h);
  beforeAll(async () => {
    await ok('PUT', '/t', { mappings: { properties: { body: { type: 'text' }, k: { type: 'keyword' } } } });
    const docs = [['1', { body: 'a b c b a', k: 'x' }], ['2', { body: ['x a y', 'b z'] }], ['3', { body: 'b a' }], ['4', { body: 'a x x b a b a' }]] as const;
    for (const [id, doc] of docs) await ok('PUT', `/t/_doc/${id}?refresh=true`, doc);
  });

  const cases: [string, [string, number][]][] = [
    ['a AND b OR c', [['1', 0.6655052], ['4', 0.12643136], ['3', 0.12550783], ['2', 0.093763456]]],
    ['x (-b)', [['4', 0.38228726], ['2', 0.30842614]]],
    ['body:(a b)^2', [['1', 0.25955912], ['4', 0.25286272], ['3', 0.25101566], ['2', 0.18752691]]],
    ['-x', [['1', 0], ['3', 0]]],
    ['NOT x', [['1', 0], ['3', 0]]],
    ['a -x', [['1', 0.06488978], ['3', 0.062753916]]],
    ['(a -x)', [['1', 0.06488978], ['3', 0.062753916]]],
    ['"a b"~1', [['1', 0.093763456], ['4', 0.08023447]]],
    ['a^2 b', [['4', 0.19475389], ['1', 0.19466934], ['3', 0.18826175], ['2', 0.14064518]]],
    ['+a -x b', [['1', 0.12977956], ['3', 0.12550783]]],
    ['a*', [['1', 1], ['2', 1], ['3', 1], ['4', 1]]],
    ['_exists_:k', [['1', 1]]],
  ];
  for (const [query, expected] of cases) {
    it(query, async () => {
      const res = await ok('POST', '/t/_search', { query: { query_string: { query, default_field: 'body' } } });
      const hits = res.hits.hits as { _id: string; _score: number }[];
      expect(hits.map((x) => x._id)).toEqual(expected.map((x) => x[0]));
      hits.forEach((x, i) => expect(x._score).toBeCloseTo(expected[i]?.[1] as number, 7));
    });
  }

  it('answers a text Lucene cannot parse with ES failed-shard error', async () => {
    const { call } = esCalls(h);
    const res = await call('POST', '/t/_search', { query: { query_string: { query: 'a:b:c' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('search_phase_execution_exception');
    expect(res.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: 'Failed to parse query [a:b:c]' });
  });

  it('q= takes wildcards and groups too', async () => {
    const res = await ok('GET', '/t/_search?q=body:(a%20AND%20c*)');
    expect((res.hits.hits as { _id: string }[]).map((x) => x._id)).toEqual(['1']);
  });
});
