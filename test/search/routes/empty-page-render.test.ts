import { describe, expect, it } from 'vitest';
import { renderEmptyPage } from '../../../src/search/routes/search-routes.js';
import { parseSearchRequest } from '../../../src/search/requests/search-request.js';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { MapStore } from '../map-store.js';

// The `_search` route writes responses without hits from a template: its bytes must be
// JSON.stringify's for every envelope runSearch builds without hits.
describe('empty page rendering', () => {
  const service = new SearchService(new MapStore(), () => 1_000);
  service.load();
  service.indexDoc('a', '1', { t: 'red fox' }, '{"t":"red fox"}', 'index');
  service.indexDoc('a', '2', { t: 'red red fox' }, '{"t":"red red fox"}', 'index');
  service.indexDoc('b', '1', { t: 'blue fox' }, '{"t":"blue fox"}', 'index');

  const cases: [string, unknown, Record<string, string>][] = [
    ['a', { query: { match: { t: 'red' } } }, { from: '9990', size: '10' }],
    ['a', { query: { match: { t: 'red' } } }, { size: '0' }],
    ['a', { query: { match: { t: 'green' } } }, {}],
    ['a', { query: { match: { t: 'red' } } }, { from: '5', track_total_hits: 'false' }],
    ['a', { query: { match: { t: 'red' } } }, { from: '5', rest_total_hits_as_int: 'true' }],
    ['a', { query: { match: { t: 'red' } }, track_total_hits: 1 }, { from: '5' }],
    ['a', { query: { match: { t: 'fox' } }, sort: [{ _doc: 'asc' }] }, { from: '5' }],
    ['a,b', { query: { match: { t: 'fox' } } }, { from: '50' }],
    ['a', { query: { match_all: {} } }, { from: '3' }],
    ['a', { query: { match: { t: 'red' } }, track_scores: true, sort: ['_doc'] }, { from: '3' }],
  ];
  for (const [index, body, params] of cases) {
    it(`writes JSON.stringify's bytes for ${index} ${JSON.stringify(body)} ${JSON.stringify(params)}`, () => {
      const out = service.search(service.resolve(index), parseSearchRequest(body, params), 990);
      expect((out.hits as { hits: unknown[] }).hits).toEqual([]);
      expect(renderEmptyPage(out)).toBe(JSON.stringify(out));
    });
  }

  it('leaves other envelopes to the general renderer', () => {
    const base = { took: 1, timed_out: false, hits: { max_score: null, hits: [] } };
    expect(renderEmptyPage({ ...base, _shards: { total: 2, successful: 1, skipped: 0, failed: 1, failures: [] } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, took: 1.5, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { total: { value: 1, relation: 'x' }, max_score: null, hits: [] } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { max_score: 'x', hits: [] } })).toBeUndefined();
  });

  it('leaves an envelope with a member the template does not write to the general renderer (it would drop it)', () => {
    const shards = { total: 1, successful: 1, skipped: 0, failed: 0 };
    const base = { took: 1, timed_out: false, _shards: shards, hits: { max_score: null, hits: [] } };
    expect(renderEmptyPage(base)).toBe(JSON.stringify(base));
    expect(renderEmptyPage({ ...base, aggregations: {} })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { ...shards, extra: 1 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, hits: { max_score: null, hits: [], extra: 1 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, hits: { total: 3, max_score: null, hits: [], extra: 1 } })).toBeUndefined();
  });
});
