import { tokens } from '../index/analyzer.js';
import type { Query } from '../requests/query-dsl.js';
import type { Hits } from '../query/hit-lists.js';
import type { IndexState } from './index-state.js';

/**
 * `terminate_after` (the search body or URL, `_count`'s URL): each shard stops collecting once it
 * has collected that many documents, as ES 8's query phase does (QueryPhaseCollector):
 * - documents are collected in the shard's order (Portico's write order, Lucene's doc ids of a
 *   shard in one segment), and only those that pass `post_filter` and `min_score` count; the shard
 *   stops at the first one past the limit, so it has terminated early only when more documents
 *   would have been collected (one segment: ES also stops at the next segment once the limit is
 *   reached, which Portico, without segments, never sees);
 * - the hits, the total and `max_score` come from the collected documents; aggregations see every
 *   match (post_filter or not) before the one that stopped the shard;
 * - with `size: 0` and neither `post_filter` nor `min_score` (also `_count`), ES takes the count
 *   of a query that Lucene counts without reading its documents (Weight#count: match_all, no
 *   match, one term, a value or range of a single-valued numeric or date field, exists on an
 *   indexed field, each on a shard without deleted documents except match_all), so nothing is
 *   collected: the total is every match, aggregations see every match, and the shard has not
 *   terminated early. `countedWithoutCollecting` says when;
 * - with `size: 0` the hit counter (PartialHitCountCollector) stops at `track_total_hits`: with
 *   `false` nothing is collected (aggregations see every match, nothing stops early); without
 *   aggregations a counter that stops before the limit stops the shard first, which has then not
 *   terminated early (search-phase.ts `collected`).
 * A search answers `terminated_early` whenever it set a limit: true when any shard stopped early.
 */

/** How many of `hits` (ascending ordinals) a shard collects under `limit`: the prefix before the first accepted document past it. */
export function collectedPrefix(hits: Hits, limit: number, accepted: ((ord: number) => boolean) | undefined): { readonly length: number; readonly terminated: boolean } {
  if (accepted === undefined) return hits.length > limit ? { length: limit, terminated: true } : { length: hits.length, terminated: false };
  let counted = 0;
  for (let i = 0; i < hits.length; i++) {
    if (!accepted(hits.docs[i] as number)) continue;
    if (counted === limit) return { length: i, terminated: true };
    counted++;
  }
  return { length: hits.length, terminated: false };
}

/**
 * Whether ES 8 counts `query` on this shard without collecting (Lucene's Weight#count, as the
 * rewritten query reaches it): a match_all or no-match query always; one term of a keyword, text
 * or boolean field, one value or a range of a numeric or date field (point queries), and exists,
 * on a shard without deleted documents. Constant-score wrappers and boosts do not change it. Any
 * other query (several terms, a bool, prefixes, fuzziness, case-insensitive terms, fields that are
 * not indexed) is collected.
 */
export function countedWithoutCollecting(query: Query, state: IndexState): boolean {
  switch (query.kind) {
    case 'match_all':
    case 'match_none':
      return true;
    case 'constant_score':
      return countedWithoutCollecting(query.filter, state);
    default:
      break;
  }
  if (state.index.deadCount > 0) return false;
  switch (query.kind) {
    case 'term':
      return !query.caseInsensitive && indexedOneValue(query.field, state);
    case 'match': {
      if (query.fuzzy !== undefined) return false;
      const def = state.mappings.field(query.field);
      if (def?.kind === 'text') return def.index && tokens(query.text).length === 1;
      return def !== undefined && indexedOneValue(query.field, state);
    }
    case 'range': {
      const def = state.mappings.field(query.field);
      return def !== undefined && (def.kind === 'numeric' || def.kind === 'date') && def.index && singleValued(query.field, state);
    }
    case 'exists': {
      // FieldExistsQuery counts from norms, points or indexed terms; a field kept in doc values alone is collected.
      const def = state.mappings.field(query.field);
      return def === undefined || def.index;
    }
    default:
      return false;
  }
}

/**
 * A term query on `path` that Lucene counts: one indexed term (keyword, text, boolean), or one
 * point of a numeric or date field (PointRangeQuery counts a one-dimensional field whose
 * documents hold one value each).
 */
function indexedOneValue(path: string, state: IndexState): boolean {
  const def = state.mappings.field(path);
  if (def === undefined) return true; // an unmapped field: no match, counted as 0
  if (!def.index) return false;
  if (def.kind === 'numeric' || def.kind === 'date') return singleValued(path, state);
  return def.kind === 'keyword' || def.kind === 'text' || def.kind === 'boolean';
}

/**
 * Whether every document of the shard holds at most one value of the numeric or date field at
 * `path` (Lucene's PointValues docCount equal to its size). Lucene also counts a range that holds
 * every value of a multi-valued field; Portico collects those.
 */
function singleValued(path: string, state: IndexState): boolean {
  const field = state.index.numeric.get(path);
  return field === undefined || field.multi.size === 0;
}
