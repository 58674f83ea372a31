import { didYouMean } from '../syntax/did-you-mean.js';
import { errors, unsafeLong } from '../errors.js';

/**
 * URL parameters: which each handler reads, and how a value is read (RestRequest's paramAsInt,
 * paramAsLong, paramAsBoolean, …), for every route and request parser.
 *
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

/** What `POST [/<index>]/_cache/clear` reads (ES 8's RestClearIndicesCacheAction and its indices options). */
export const CLEAR_CACHE_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'query', 'request', 'fielddata', 'fields', 'index', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'ignore_throttled',
]);

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
    const hint = didYouMean(p, known);
    return hint === '' ? `[${p}]` : `[${p}] ->${hint}`;
  });
  throw errors.illegalArgument(`request [${path}] contains unrecognized parameter${invalid.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
}

/** A request's URL parameters, as the query-string parser gives them (url-query-parser.ts). */
export type QueryParams = Readonly<Record<string, string | undefined>>;

/** Long.MAX_VALUE + 1 as a double: every double at or above it (or at or below -it) is out of a long's range. */
export const LONG_LIMIT = 2 ** 63;

/** RestRequest.paramAsInt: "Failed to parse int parameter [from] with value [abc]". */
export function intParam(params: QueryParams, name: string): number | undefined {
  const raw = params[name];
  if (raw === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(raw.trim()) || Math.abs(Number(raw)) > 2147483647) {
    throw errors.illegalArgument(`Failed to parse int parameter [${name}] with value [${raw}]`);
  }
  return Number(raw);
}

/** A long-valued URL parameter (RestRequest.paramAsLong); undefined when absent. */
export function longParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(value) || !(Math.abs(Number(value)) < LONG_LIMIT)) {
    throw errors.illegalArgument(`Failed to parse long parameter [${name}] with value [${value}]`);
  }
  const n = Number(value);
  // A long ES accepts, but not one a double holds exactly.
  if (!Number.isSafeInteger(n)) throw unsafeLong(name, value);
  return n;
}

/** A boolean URL parameter (RestRequest.paramAsBoolean: present without a value is true). */
export function boolParam(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw errors.notBoolean(value);
}

/** `?rest_total_hits_as_int` (`true` or empty): hits.total as a number, as ES 6 answered (_search, scroll). */
export function totalHitsAsInt(params: QueryParams): boolean {
  return params.rest_total_hits_as_int === 'true' || params.rest_total_hits_as_int === '';
}

/** The URL's `stored_fields` split at commas, empty names dropped; undefined when absent. */
export function storedFieldsParam(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').filter((f) => f !== '');
}

const isFalseParam = (v: string): boolean => v === 'false';

/**
 * URL parameters that ES's `_search` and `_count` act on and Portico does not: each is taken only
 * at a value that changes nothing (its default, the one analyzer Portico has); any other value is
 * refused as ES refuses a parameter it does not read, never accepted and ignored. A parameter
 * missing here is one Portico acts on (`request_cache`, …), or one that changes nothing on one
 * shard (`routing`, `preference`, …).
 */
export const NO_OP_PARAMS: Readonly<Record<string, (value: string) => boolean>> = {
  explain: isFalseParam,
  analyzer: (v) => v === 'standard',
  analyze_wildcard: isFalseParam,
  suggest_field: () => false,
  suggest_text: () => false,
  suggest_mode: () => false,
  suggest_size: () => false,
  force_synthetic_source: isFalseParam,
};

const NO_OP_ENTRIES = Object.entries(NO_OP_PARAMS);

/** Throws ES's "contains unrecognized parameter" for the first parameter of `params` that Portico would not act on (NO_OP_PARAMS). */
export function checkNoOpParams(url: string, params: QueryParams): void {
  // The entries made once, not an array of pairs on every `_search` and `_count`.
  for (const [name, accepts] of NO_OP_ENTRIES) {
    const value = params[name];
    if (value !== undefined && !accepts(value)) {
      throw errors.illegalArgument(`request [${url.split('?')[0] ?? url}] contains unrecognized parameter: [${name}]`);
    }
  }
}

/**
 * `preference` as ES 8's OperationRouting reads it: a custom string (not starting with `_`) only
 * picks copies, so it changes nothing on one node; `_local`, `_only_local`, `_prefer_nodes:…` and
 * `_only_nodes:…` pick this node; `_shards:…` (with or without `|` and a preference after it) names
 * the shards to search. A type ES does not know is its "no Preference for [_primary]". Checked
 * here as it is for shard 0, before the indices are resolved; SearchService.searchShards asks
 * preferenceIncludes of each shard.
 */
export function checkPreference(params: QueryParams): void {
  preferenceIncludes(params.preference, 0);
}

/**
 * Whether `preference` (a URL's or an msearch header's) lets a search run on shard number `shard`:
 * `_shards` naming none of an index's shards searches none of it, and naming none at all searches
 * no shard (the node answers no hits and `_shards.total` 0). ES's errors as it meets them on that
 * shard.
 */
export function preferenceIncludes(p: string | undefined, shard: number): boolean {
  if (p === undefined || p === '' || !p.startsWith('_')) return true;
  const type = preferenceType(p);
  if (type !== '_shards') return true;
  const colon = p.indexOf(':');
  const rest = colon === -1 ? '' : p.slice(colon + 1);
  const pipe = rest.indexOf('|');
  const list = pipe === -1 ? rest : rest.slice(0, pipe);
  // Java's String.split(","), which drops trailing empty strings; each id is Integer.parseInt'ed
  // in turn until the shard is found (`_shards:0,x` searches shard 0; `_shards:x,0` is refused).
  const ids = list === '' ? [] : list.split(',');
  while (ids.length > 0 && ids[ids.length - 1] === '') ids.pop();
  for (const id of ids) {
    const n = /^[+-]?\d+$/.test(id) ? Number(id) : NaN;
    if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw errors.numberFormat(id);
    // The preference after `|` is read once the shard is in the list, a custom string refused there.
    if (n === shard) {
      if (pipe !== -1 && pipe < rest.length - 1) preferenceType(rest.slice(pipe + 1));
      return true;
    }
  }
  return false;
}

/** The type of a preference starting with `_` (ES's Preference.parse), or ES's refusal. */
function preferenceType(p: string): string {
  const colon = p.indexOf(':');
  const type = colon === -1 ? p : p.slice(0, colon);
  if (!['_shards', '_prefer_nodes', '_local', '_only_local', '_only_nodes'].includes(type)) throw errors.illegalArgument(`no Preference for [${type}]`);
  return type;
}

/** `terminate_after` in the URL: an int, refused below 0 as ES refuses it. */
export function checkTerminateAfter(params: QueryParams): void {
  const n = intParam(params, 'terminate_after');
  if (n !== undefined && n < 0) throw errors.illegalArgument('terminateAfter must be > 0');
}

/** RestRequest.paramAsFloat: "Failed to parse float parameter [min_score] with value [abc]"; undefined when absent. */
export function floatParam(params: QueryParams, name: string): number | undefined {
  const raw = params[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || Number.isNaN(n)) throw errors.illegalArgument(`Failed to parse float parameter [${name}] with value [${raw}]`);
  return Math.fround(n);
}

/** What `_analyze` reads (RestAnalyzeAction). */
export const ANALYZE_PARAMS: ReadonlySet<string> = new Set([...GLOBAL, 'index']);

/** What `_delete_by_query` reads (RestDeleteByQueryAction and the search it runs). */
export const DELETE_BY_QUERY_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'index', 'q', 'df', 'analyzer', 'analyze_wildcard', 'default_operator', 'lenient', 'from', 'sort', '_source', '_source_includes',
  '_source_excludes', 'conflicts', 'max_docs', 'refresh', 'requests_per_second', 'routing', 'scroll', 'scroll_size', 'search_timeout',
  'search_type', 'slices', 'stats', 'terminate_after', 'timeout', 'version', 'wait_for_active_shards', 'wait_for_completion',
  'allow_no_indices', 'expand_wildcards', 'ignore_unavailable', 'preference', 'request_cache',
]);

/** What `_update_by_query` reads (RestUpdateByQueryAction): `_delete_by_query`'s and the ingest pipeline. */
export const UPDATE_BY_QUERY_PARAMS: ReadonlySet<string> = new Set([...DELETE_BY_QUERY_PARAMS, 'pipeline', 'version_type']);

/** What `_reindex` reads (RestReindexAction). */
export const REINDEX_PARAMS: ReadonlySet<string> = new Set([
  ...GLOBAL, 'refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'slices', 'scroll', 'max_docs', 'require_alias',
]);
