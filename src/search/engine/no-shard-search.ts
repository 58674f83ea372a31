import type { SearchRequest } from '../requests/search-request.js';

/**
 * The answer to a search that `preference=_shards:…` sends to no shard (none names shard 0, each
 * index's only one), as the node gives it once the indices are resolved (a missing one is still
 * its 404): no hits, `max_score` 0, `_shards.total` 0, no aggregations, suggestions or scroll id.
 */
export function noShardSearched(request: Pick<SearchRequest, 'trackTotalHits' | 'restTotalHitsAsInt'>, started: number, now: number): Record<string, unknown> {
  const total = request.trackTotalHits === false ? undefined : request.restTotalHitsAsInt ? 0 : { value: 0, relation: 'eq' };
  return {
    took: Math.max(0, Math.round(now - started)),
    timed_out: false,
    _shards: { total: 0, successful: 0, skipped: 0, failed: 0 },
    hits: total === undefined ? { max_score: 0, hits: [] } : { total, max_score: 0, hits: [] },
  };
}
