import { similarNames } from '../syntax/did-you-mean.js';
import { errors } from '../errors.js';

/**
 * ES refuses URL parameters a REST handler does not read (BaseRestHandler): "request [<path>]
 * contains unrecognized parameter: [p]", several as "parameters: [a], [b]", each followed by
 * "-> did you mean [x]?" (or "any of [x, y]?") naming the known parameters whose similarity
 * (1 - edit distance / longer length) is above 0.5, best first.
 */

/** Parameters every handler reads (response rendering, the body in the query string). */
const GLOBAL = ['pretty', 'human', 'error_trace', 'filter_path', 'source', 'source_content_type'];

/** What `_search` reads (ES 8's RestSearchAction), whether or not Portico acts on it. */
export const SEARCH_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'q', 'df', 'analyzer', 'analyze_wildcard', 'default_operator', 'lenient', 'explain', 'stored_fields',
  'docvalue_fields', 'from', 'size', 'sort', 'track_scores', 'track_total_hits', 'rest_total_hits_as_int', 'timeout',
  'terminate_after', '_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude',
  'allow_no_indices', 'expand_wildcards', 'ignore_unavailable', 'ignore_throttled', 'preference', 'routing', 'search_type',
  'request_cache', 'batched_reduce_size', 'max_concurrent_shard_requests', 'pre_filter_shard_size',
  'allow_partial_search_results', 'ccs_minimize_roundtrips', 'scroll', 'seq_no_primary_term', 'version', 'typed_keys',
  'stats', 'suggest_field', 'suggest_mode', 'suggest_size', 'suggest_text', 'min_compatible_shard_node',
  'include_named_queries_score', 'force_synthetic_source',
]);

/** What `_count` reads (ES 8's RestCountAction). */
export const COUNT_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'q', 'df', 'analyzer', 'analyze_wildcard', 'default_operator', 'lenient', 'min_score', 'terminate_after',
  'routing', 'preference', 'allow_no_indices', 'expand_wildcards', 'ignore_unavailable', 'ignore_throttled',
]);

/** What `_mget` reads (ES 8's RestMultiGetAction). */
export const MGET_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'preference', 'realtime', 'refresh', 'routing', 'stored_fields', '_source', '_source_includes', '_source_excludes',
  '_source_include', '_source_exclude', 'force_synthetic_source',
]);

/** What `_msearch` reads (ES 8's RestMultiSearchAction and its search defaults). */
export const MSEARCH_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'allow_no_indices', 'ccs_minimize_roundtrips', 'expand_wildcards', 'ignore_throttled', 'ignore_unavailable',
  'include_named_queries_score', 'max_concurrent_searches', 'max_concurrent_shard_requests', 'pre_filter_shard_size',
  'rest_total_hits_as_int', 'routing', 'search_type', 'typed_keys',
]);

/** What `_search/scroll` reads (RestSearchScrollAction). */
export const SCROLL_PARAMS: ReadonlySet<string> = new Set([...GLOBAL, 'scroll', 'scroll_id', 'rest_total_hits_as_int']);

/** What clearing scrolls reads (RestClearScrollAction). */
export const CLEAR_SCROLL_PARAMS: ReadonlySet<string> = new Set([...GLOBAL, 'scroll_id']);

/** What opening a point in time reads (RestOpenPointInTimeAction). */
export const OPEN_PIT_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'keep_alive', 'routing', 'preference', 'expand_wildcards', 'ignore_unavailable', 'allow_partial_search_results',
  'max_concurrent_shard_requests',
]);

/** What closing a point in time reads. */
export const CLOSE_PIT_PARAMS: ReadonlySet<string> = new Set(GLOBAL);

/**
 * Throws ES's illegal_argument_exception when `params` holds a name not in `known`. `url` is the
 * request's path, with or without its query string (cut off here, only when there is an error).
 */
export function checkParams(url: string, params: Readonly<Record<string, unknown>>, known: ReadonlySet<string>): void {
  let unknown = false;
  for (const p in params) if (!known.has(p)) unknown = true;
  if (!unknown) return;
  const path = url.split('?')[0] ?? url;
  const invalid = Object.keys(params).filter((p) => !known.has(p)).sort();
  const parts = invalid.map((p) => {
    const close = similarNames(p, known);
    if (close.length === 0) return `[${p}]`;
    return `[${p}] -> did you mean ${close.length === 1 ? `[${close[0]}]` : `any of [${close.join(', ')}]`}?`;
  });
  throw errors.illegalArgument(`request [${path}] contains unrecognized parameter${invalid.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
}
