import { noShardSearched } from './no-shard-search.js';
import { pitProblems, searchInContext } from './scroll-pit-search.js';
import { resolveDateMathExpression } from '../syntax/date-math-index-name.js';
import { errors, SearchError } from '../errors.js';
import { parseJsonBody } from '../http/json-render.js';
import { parseSearchRequest, readSearchBody, type SearchRequest } from '../requests/search-request.js';
import { withIndexBoosts, withSearchType, type SearchService } from './search-service.js';
import { requestCacheKey } from './request-cache.js';
import { boolParam, intParam, type QueryParams } from '../http/url-params.js';

/**
 * The multi-search API (`_msearch`): NDJSON header/body line pairs read as ES's MultiSearchRequest
 * reads them, each search run in order, and `{"took":…,"responses":[…]}` with one item per search.
 *
 * As in ES, what is read while parsing the request fails the whole request (a malformed line, an
 * unknown header key, a body the search parser refuses, a missing final newline); what goes wrong
 * while a search runs (an index that is not there, a shard failure such as the result window)
 * fails only that search's item, which is then ES's error object with its status.
 */

/** One search of the request: where to search (header), and what (body). */
export interface MultiSearchItem {
  /** Index expression; undefined searches every index. */
  readonly index: string | undefined;
  readonly ignoreUnavailable: boolean;
  readonly allowNoIndices: boolean;
  /** The header's `preference`, read as the search runs (SearchService.searchShards). */
  readonly preference: string | undefined;
  /** The header's `routing` (else the URL's): the shards searched (SearchService.searchShards). */
  readonly routing: string | undefined;
  /** The URL's `search_type`, else the header's (withSearchType). */
  readonly searchType: string | undefined;
  readonly request: SearchRequest;
  /**
   * The item's key in the request cache (request-cache.ts): its body line and the URL's parameters
   * a search reads. Made only when the cache applies to the item, as `_search` makes it.
   */
  cacheKey(): string;
  /** The header's `request_cache` (`true`, `false`), if it names one. */
  readonly requestCache: string | undefined;
}

/**
 * `read` of one line of the request parsed as ES's JSON parser does: malformed JSON as parseJsonBody
 * refuses it, and a key that repeats one of its object's as Jackson's strict duplicate detection
 * refuses it unless `read` refuses something the line holds before it (readInTextOrder). Either
 * fails the whole request, `[line:col]` counted within the line as ES parses each line alone.
 */
function readLine<T>(text: string, read: (value: unknown) => T): T {
  return readSearchBody(text, parseJsonBody(text), read);
}

/** What a header line sets; each member undefined when the line does not name it. */
interface HeaderFields {
  index?: string;
  ignoreUnavailable?: boolean;
  allowNoIndices?: boolean;
  expandWildcards?: string;
  routing?: string | null;
  searchType?: string;
  preference?: string | null;
  requestCache?: string;
}

/** A header line's value read key by key as ES reads it (the first refused key fails the request). */
function readHeader(header: unknown): HeaderFields {
  const out: HeaderFields = {};
  // ES reads the header as a map: anything but an object reads as an empty one.
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return out;
  for (const [k, v] of Object.entries(header as Record<string, unknown>)) {
    const key = HEADER_KEYS[k];
    if (key === undefined) throw errors.illegalArgument(`key [${k}] is not supported in the metadata section`);
    if (key === 'index') out.index = headerIndices(v);
    else if (key === 'ignore_unavailable') out.ignoreUnavailable = headerBool(k, v);
    else if (key === 'allow_no_indices') out.allowNoIndices = headerBool(k, v);
    else if (key === 'expand_wildcards') out.expandWildcards = Array.isArray(v) ? v.map(String).join(',') : String(v);
    // nodeStringValue: a null routing or preference is none.
    else if (key === 'routing') out.routing = v === null ? null : String(v);
    else if (key === 'preference') out.preference = v === null ? null : String(v);
    else if (key === 'search_type') {
      if (!SEARCH_TYPES.has(String(v))) throw errors.illegalArgument(`No search type for [${String(v)}]`);
      out.searchType = String(v);
    }
    else if (key === 'request_cache') out.requestCache = String(headerBool(k, v));
    else if (key === 'ccs_minimize_roundtrips' || key === 'allow_partial_search_results' || key === 'ignore_throttled') headerBool(k, v);
  }
  return out;
}

/** Header keys ES reads, each with the names it also accepts. */
const HEADER_KEYS: Readonly<Record<string, string>> = {
  index: 'index', indices: 'index',
  search_type: 'search_type', searchType: 'search_type',
  ccs_minimize_roundtrips: 'ccs_minimize_roundtrips', ccsMinimizeRoundtrips: 'ccs_minimize_roundtrips',
  request_cache: 'request_cache', requestCache: 'request_cache',
  preference: 'preference',
  routing: 'routing',
  allow_partial_search_results: 'allow_partial_search_results',
  expand_wildcards: 'expand_wildcards', expandWildcards: 'expand_wildcards',
  ignore_unavailable: 'ignore_unavailable', ignoreUnavailable: 'ignore_unavailable',
  allow_no_indices: 'allow_no_indices', allowNoIndices: 'allow_no_indices',
  ignore_throttled: 'ignore_throttled', ignoreThrottled: 'ignore_throttled',
};

const SEARCH_TYPES = new Set(['query_then_fetch', 'dfs_query_then_fetch']);

/** A boolean in a header: JSON booleans or their text. */
function headerBool(key: string, v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw errors.illegalArgument(`Could not convert [${key}] to boolean`);
}

/** Index names in a header: a list, or a comma-separated string. */
function headerIndices(v: unknown): string {
  const parts = Array.isArray(v) ? v.map((x) => String(x)) : String(v).split(',');
  return parts.map((p) => p.trim()).filter((p) => p !== '').join(',');
}

/**
 * Parses an `_msearch` body. `index` is the URL's index (the default of every header); `params`
 * the URL parameters (`ignore_unavailable`, `allow_no_indices` defaults, `rest_total_hits_as_int`).
 */
export function parseMultiSearch(body: string, index: string | undefined, params: QueryParams): MultiSearchItem[] {
  // RestMultiSearchAction's order: indices options, then the request-wide numbers (each parsed as
  // an int; the shard ones are checked on each search once all are read), then the lines.
  const defaultIgnore = boolParam(params.ignore_unavailable, false);
  const defaultAllowNone = boolParam(params.allow_no_indices, true);
  const max = intParam(params, 'max_concurrent_searches');
  if (max !== undefined && max < 1) throw errors.illegalArgument('maxConcurrentSearchRequests must be positive');
  const preFilterShardSize = intParam(params, 'pre_filter_shard_size');
  const maxConcurrentShardRequests = intParam(params, 'max_concurrent_shard_requests');
  const ccsMinimizeRoundtrips = boolParam(params.ccs_minimize_roundtrips, false);
  // Only the response-rendering parameter reaches each search's parser.
  const searchParams: QueryParams = {
    ...(params.rest_total_hits_as_int === undefined ? {} : { rest_total_hits_as_int: params.rest_total_hits_as_int }),
    // Names each aggregation by its type (`sterms#tags`), in every item's response.
    ...(params.typed_keys === undefined ? {} : { typed_keys: params.typed_keys }),
  };
  const items: MultiSearchItem[] = [];
  let from = 0;
  for (;;) {
    const headerEnd = nextLine(body, from);
    if (headerEnd === -1) break;
    const headerText = body.slice(from, headerEnd);
    let target = index;
    let ignoreUnavailable = defaultIgnore;
    let allowNoIndices = defaultAllowNone;
    let expandWildcards = params.expand_wildcards;
    let routing = params.routing;
    let preference: string | undefined;
    let requestCache: string | undefined;
    let searchType: string | undefined;
    if (headerText.trim() !== '') {
      // ES parses the whole header into a map before it looks at a key (readMultiLineFormat), so a
      // repeated key fails the request before any refused key or value: read nothing in text order.
      const h = readHeader(readLine(headerText, (value) => value));
      target = h.index ?? target;
      ignoreUnavailable = h.ignoreUnavailable ?? ignoreUnavailable;
      allowNoIndices = h.allowNoIndices ?? allowNoIndices;
      expandWildcards = h.expandWildcards ?? expandWildcards;
      if (h.routing !== undefined) routing = h.routing ?? undefined;
      if (h.preference !== undefined) preference = h.preference ?? undefined;
      requestCache = h.requestCache;
      searchType = h.searchType;
    }
    from = headerEnd + 1;
    // A header without a body line after it is dropped, as ES drops it.
    const bodyEnd = nextLine(body, from);
    if (bodyEnd === -1) break;
    const bodyText = body.slice(from, bodyEnd);
    // ES parses every body line as a search source, a blank one too (no match_all as for `_search`).
    if (bodyText.trim() === '') throw errors.parsing('Expected [START_OBJECT] but found [null]');
    const request = readLine(bodyText, (value) => parseSearchRequest(value, searchParams));
    // The URL's search_type is set on every search as it is read (SearchType.fromString refuses others).
    if (params.search_type !== undefined && !SEARCH_TYPES.has(params.search_type)) throw errors.illegalArgument(`No search type for [${params.search_type}]`);
    if (request.pit !== undefined) {
      const problems = pitProblems({ index: target, ignoreUnavailable, allowNoIndices, expandWildcards, routing, preference }, ccsMinimizeRoundtrips);
      if (problems.length > 0) throw errors.actionValidation(problems);
    }
    items.push({ index: target, ignoreUnavailable, allowNoIndices, preference, routing, searchType: params.search_type ?? searchType, request, requestCache, cacheKey: () => requestCacheKey(searchParams, bodyText) });
    from = bodyEnd + 1;
  }
  // Set on each search once all are read: the first refusal fails the request.
  if (items.length > 0 && preFilterShardSize !== undefined && preFilterShardSize < 1) throw errors.illegalArgument('preFilterShardSize must be >= 1');
  if (items.length > 0 && maxConcurrentShardRequests !== undefined && maxConcurrentShardRequests < 1) {
    throw errors.illegalArgument('maxConcurrentShardRequests must be >= 1');
  }
  if (items.length === 0) throw errors.actionValidation(['no requests added']);
  return items;
}

/** Where the line starting at `from` ends; -1 at the end. Text left without a final newline is refused. */
function nextLine(body: string, from: number): number {
  const at = body.indexOf('\n', from);
  if (at === -1 && from !== body.length) throw errors.illegalArgument('The msearch request must be terminated by a newline [\n]');
  return at;
}

/**
 * Runs every search in order; an item whose search fails with an ES error carries it (`error`,
 * `status`), anything else fails the request. The body carries stored sources as RawJson.
 */
export function multiSearch(items: readonly MultiSearchItem[], service: SearchService, now: () => number): Record<string, unknown> {
  const started = now();
  const responses = items.map((item): Record<string, unknown> => {
    const itemStarted = now();
    try {
      // A point in time searches its own indices (its options were checked as the line was read).
      if (item.request.pit !== undefined) {
        return { ...searchInContext(service, withIndexBoosts(service, item.request, false, true), { index: undefined, ignoreUnavailable: false, allowNoIndices: true, searchType: item.searchType }, itemStarted, now()), status: 200 };
      }
      // A header's date-math names (`<logs-{now/d}>`) resolve as a path's do (date-math-hook.ts).
      const index = item.index === undefined ? undefined : resolveDateMathExpression(item.index, itemStarted);
      const states = service.resolve(index, item.ignoreUnavailable, item.allowNoIndices);
      // `_shards:…` naming none of the shards searches none; an id that is no int fails the item.
      const shards = service.searchShardsOrNone(states, item.routing, item.preference);
      if (shards === null) return { ...noShardSearched(item.request, itemStarted, now()), status: 200 };
      const cache = item.request.scrollMs === undefined ? { key: item.cacheKey, param: item.requestCache } : undefined;
      const request = withIndexBoosts(service, withSearchType(item.request, item.searchType, shards), item.ignoreUnavailable, item.allowNoIndices);
      return { ...service.search(shards, request, itemStarted, cache), status: 200 };
    } catch (e) {
      if (e instanceof SearchError) return e.toBody();
      throw e;
    }
  });
  return { took: Math.max(0, Math.round(now() - started)), responses };
}
