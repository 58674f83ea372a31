import type { estypes } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';
import { clientForAll } from '../search/harness.js';
import { FRUIT_DOCS, OFFICIAL_CLIENTS } from '../search/es-clients.js';

/**
 * The official Elasticsearch clients' typed aggregation calls against a listening search app:
 * `search<TDocument, TAggregations>` with facets beside hits, a post_filter, and collapse with
 * inner hits, read through the clients' own response types.
 */
describe.each(OFFICIAL_CLIENTS)('%s aggregations', (_name, make) => {
  const s = clientForAll(make);

  it('reads typed facets beside hits, apart from a post_filter, and collapsed hits', async () => {
    await s.client.indices.create({ index: 'fruit', mappings: { properties: { title: { type: 'text', fields: { raw: { type: 'keyword' } } }, n: { type: 'integer' } } } });
    await s.client.bulk({ refresh: true, operations: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'fruit', _id: id } }, doc]) });
    type Facets = { kinds: estypes.AggregationsStringTermsAggregate; sizes: estypes.AggregationsHistogramAggregate; n: estypes.AggregationsStatsAggregate };
    const res = await s.client.search<{ title: string; n: number }, Facets>({
      index: 'fruit',
      query: { match: { title: 'apple' } },
      post_filter: { term: { 'title.raw': 'green apple' } },
      size: 3,
      aggs: { kinds: { terms: { field: 'title.raw' } }, sizes: { histogram: { field: 'n', interval: 10 } }, n: { stats: { field: 'n' } } },
    });
    expect(res.hits.total).toEqual({ value: 10, relation: 'eq' });
    const kinds = res.aggregations?.kinds.buckets as estypes.AggregationsStringTermsBucket[];
    expect(kinds.map((b) => [b.key, b.doc_count])).toEqual([['green apple', 10], ['red apple pie', 10]]);
    const sizes = res.aggregations?.sizes.buckets as estypes.AggregationsHistogramBucket[];
    expect(sizes.map((b) => b.doc_count)).toEqual([7, 7, 6]);
    expect(res.aggregations?.n).toMatchObject({ count: 20, min: 0, max: 28 });
    const collapsed = await s.client.search<{ n: number }>({ index: 'fruit', sort: [{ n: 'desc' }], collapse: { field: 'title.raw', inner_hits: { name: 'low', size: 1, sort: [{ n: 'asc' }] } } });
    expect(collapsed.hits.hits.map((h) => [h._id, h.fields?.['title.raw']])).toEqual([['29', ['blue sky']], ['28', ['green apple']], ['27', ['red apple pie']]]);
    expect(collapsed.hits.hits[0]?.inner_hits?.low?.hits.hits[0]?._id).toBe('2');
  });
});
