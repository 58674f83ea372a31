import { parseSuggest, type Suggestion } from './suggest-request.js';
import { intParam, totalHitsAsInt, type QueryParams } from '../http/url-params.js';
import { parseIndicesBoost, type IndexBoost } from './indices-boost.js';
import { errors, SearchError } from '../errors.js';
import { isJsonObject, jacksonInt, jsonToken, nestingError, readInTextOrder, tooDeepAt } from '../syntax/json-members.js';
import { NestedDepthExceeded, parseTopLevelQuery, queryStringToQuery, type Query } from './query-dsl.js';
import { LocatedQueryError } from './query-error.js';
import type { SourceFilter } from './source-filter.js';
import { parseHighlight, type HighlightRequest } from './highlight-request.js';
import { parseTimeValue } from '../syntax/time-value.js';
import type { SortKey, SortOrder } from './sort-key.js';
import { parseAggregations, type Agg } from './aggs/agg-request.js';
import { parseCollapse, type Collapse } from './collapse-request.js';
import { parseFetchFields, type FetchFields } from './fetch-fields-request.js';
import { parseRescore, type Rescorer } from './rescore-request.js';

export type { SortKey, SortOrder } from './sort-key.js';

/**
 * A `_search` (or `_count`) request from the body and the query string, with ES's precedence rules:
 * `from`, `size` and `q` in the query string win over the body; defaults are from 0 and size 10.
 */

export interface SearchRequest {
  readonly query: Query;
  readonly postFilter: Query | undefined;
  readonly from: number;
  readonly size: number;
  readonly sort: readonly SortKey[] | undefined;
  readonly source: SourceFilter;
  /** Exact count up to this many hits; `Infinity` for true; `false` to omit the total. */
  readonly trackTotalHits: number | false;
  readonly restTotalHitsAsInt: boolean;
  readonly searchAfter: readonly unknown[] | undefined;
  readonly trackScores: boolean;
  readonly version: boolean;
  readonly seqNoPrimaryTerm: boolean;
  readonly minScore: number | undefined;
  /** `?scroll`: this search begins a scroll kept this long (ms) between batches. */
  readonly scrollMs?: number | undefined;
  /** `pit`: the point in time to search, and its new keep-alive (ms) if given. */
  readonly pit?: PitReference | undefined;
  /** `highlight`: the fields to highlight in each hit. */
  readonly highlight?: HighlightRequest | undefined;
  /** `suggest`: the term suggestions asked for (suggest-request.ts). */
  readonly suggest?: readonly Suggestion[] | undefined;
  /** ES's suggest-only search (suggest, no query, size 0): no query runs, the total is 0. */
  readonly suggestOnly?: boolean;
  /** `aggs` / `aggregations` (the last of the two when both are given, as ES reads them). */
  readonly aggs?: readonly Agg[] | undefined;
  /** `collapse`: one hit per value of a field, with inner hits. */
  readonly collapse?: Collapse | undefined;
  /** Whether the request gave a query (`query` or `q=`): a collapsed hit's inner hits score with it. */
  readonly queryGiven?: boolean;
  /** `?typed_keys=true`: each aggregation named `type#name` in the response. */
  readonly typedKeys?: boolean;
  /** `slice` of a scroll or point in time: this request reads slice `id` of `max` (split by `_id`, see id-slice.ts). */
  readonly slice?: { readonly id: number; readonly max: number } | undefined;
  /** `docvalue_fields`, `fields`, `stored_fields` (fetch-fields-request.ts); undefined when none is given. */
  readonly fetchFields?: FetchFields | undefined;
  /**
   * `search_type=dfs_query_then_fetch` over several shards (withSearchType): the query scores with
   * every shard's statistics summed, gathered before it runs (search-phase.ts, scoring-stats.ts).
   */
  readonly dfs?: boolean;
  /** `terminate_after` above 0: each shard stops collecting after this many documents (engine/terminate-after.ts). */
  readonly terminateAfter?: number | undefined;
  /** `indices_boost` as written (indices-boost.ts). */
  readonly indicesBoost?: readonly IndexBoost[] | undefined;
  /** `indices_boost` resolved against the indices (SearchService.withIndexBoosts): each index's boost. */
  readonly indexBoosts?: ReadonlyMap<string, number> | undefined;
  /** `rescore`: the rescorers each shard applies in order to its top hits (engine/rescore.ts); undefined when none is given. */
  readonly rescore?: readonly Rescorer[] | undefined;
}

export interface PitReference {
  readonly id: string;
  readonly keepAliveMs: number | undefined;
}

const empty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0);

/**
 * The keys of ES 8's search body (SearchSourceBuilder) and what Portico does with each: `true`
 * when it acts on the key (or the key changes nothing here: `timeout` on a search that never
 * times out, `stats` groups), else the values that change nothing (ES's defaults). Any other value
 * of a key Portico does not act on (`collapse`, `suggest`, `explain: true`, …) is
 * refused as ES refuses a key it does not know, never accepted and ignored.
 */
export const BODY_KEYS: Readonly<Record<string, true | ((v: unknown) => boolean)>> = {
  query: true, aggs: true, aggregations: true, collapse: true, from: true, size: true, sort: true, _source: true, track_total_hits: true, search_after: true, track_scores: true,
  version: true, seq_no_primary_term: true, min_score: true, post_filter: true, pit: true, timeout: true, stats: true,
  // Negative values are refused with ES's own error below; 0 is ES's "no limit" (terminateAfterOf).
  terminate_after: true,
  explain: (v) => v === false,
  profile: (v) => v === false,
  ext: empty,
  // Arrays are read (indices-boost.ts); ES 8 refuses the object form of ES 7 as an unknown key.
  indices_boost: (v) => Array.isArray(v),
  docvalue_fields: true,
  fields: true,
  script_fields: empty,
  runtime_mappings: empty,
  stored_fields: true,
  highlight: true,
  rescore: true,
  suggest: true,
  // Read by parseSlice; a plain search refuses it in checkContextRules, as ES's validation does.
  slice: true,
  knn: () => false,
  rank: () => false,
  retriever: () => false,
  sub_searches: () => false,
};

/**
 * The first key of a search body that ES does not know (`known` false), or that Portico does not
 * act on with the value it has (`known` true: refused only once ES's request validation, which
 * has its own answers for some of them in a scroll, has passed).
 */
function refusedBodyKey(b: Record<string, unknown>, known: boolean): string | undefined {
  for (const [k, v] of Object.entries(b)) {
    const rule = Object.hasOwn(BODY_KEYS, k) ? BODY_KEYS[k] : undefined;
    if (known ? rule !== undefined && rule !== true && !rule(v) : rule === undefined) return k;
  }
  return undefined;
}

function refuseBodyKey(b: Record<string, unknown>, known: boolean): void {
  const k = refusedBodyKey(b, known);
  if (k !== undefined) throw errors.parsing(`Unknown key for a ${jsonToken(b[k])} in [${k}].`, 1, 2);
}

/** Jackson's intValue() on a body value (jacksonInt), a value that is no number refused as the search body's parser refuses it. */
function bodyInt(v: unknown, name: string): number {
  return jacksonInt(v, () => errors.parsing(`[${name}] failed to parse field: Current token (${jsonToken(v)}) not numeric, can not use numeric value accessors`));
}

function checkFrom(from: number): number {
  if (from < 0) throw errors.illegalArgument(`[from] parameter cannot be negative but was [${from}]`);
  return from;
}

function checkSize(size: number): number {
  if (size < 0) throw errors.illegalArgument(`[size] parameter cannot be negative, found [${size}]`);
  return size;
}

function parseSortEntry(entry: unknown): SortKey[] {
  if (typeof entry === 'string') {
    return [{ field: entry, order: entry === '_score' ? 'desc' : 'asc', missing: undefined, mode: undefined, unmappedType: undefined }];
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw errors.parsing(`[sort] failed to parse field [sort]`);
  return Object.entries(entry as Record<string, unknown>).map(([field, spec]) => {
    const defaultOrder: SortOrder = field === '_score' ? 'desc' : 'asc';
    if (typeof spec === 'string') return { field, order: sortOrder(spec), missing: undefined, mode: undefined, unmappedType: undefined };
    if (spec === null || typeof spec !== 'object') throw errors.parsing(`[${field}] sort spec malformed`);
    const o = spec as Record<string, unknown>;
    const mode = o.mode === undefined ? undefined : String(o.mode);
    if (mode !== undefined && mode !== 'min' && mode !== 'max') throw errors.illegalArgument(`Unknown SortMode [${mode}]`);
    return {
      field,
      order: o.order === undefined ? defaultOrder : sortOrder(String(o.order)),
      missing: o.missing,
      mode,
      unmappedType: o.unmapped_type === undefined ? undefined : String(o.unmapped_type),
    };
  });
}

function sortOrder(s: string): SortOrder {
  const v = s.toLowerCase();
  if (v === 'asc' || v === 'desc') return v;
  throw errors.illegalArgument(`Unknown SortOrder [${s}]`);
}

/** `sort=field:desc,other` from the query string. */
function parseSortParam(raw: string): SortKey[] {
  return raw.split(',').filter((s) => s !== '').map((part) => {
    const i = part.lastIndexOf(':');
    const field = i === -1 ? part : part.slice(0, i);
    const order = i === -1 ? (field === '_score' ? 'desc' : 'asc') : sortOrder(part.slice(i + 1));
    return { field, order, missing: undefined, mode: undefined, unmappedType: undefined };
  });
}

/** The filter of a request that names none (shared: filters are read-only, never filled in). */
const WHOLE_SOURCE: SourceFilter = Object.freeze({ fetch: true, includes: Object.freeze([]), excludes: Object.freeze([]) });
const NO_SOURCE: SourceFilter = Object.freeze({ fetch: false, includes: Object.freeze([]), excludes: Object.freeze([]) });

function parseSourceFilter(v: unknown): SourceFilter {
  if (v === undefined || v === true) return WHOLE_SOURCE;
  if (v === false) return { fetch: false, includes: [], excludes: [] };
  if (typeof v === 'string') return { fetch: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) return { fetch: true, includes: v.map(String), excludes: [] };
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const list = (x: unknown) => (x === undefined ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
    return { fetch: true, includes: list(o.includes ?? o.include), excludes: list(o.excludes ?? o.exclude) };
  }
  throw errors.parsing('[_source] failed to parse field [_source]');
}

function sourceFromParams(params: QueryParams, body: SourceFilter): SourceFilter {
  let out = body;
  const raw = params._source;
  if (raw !== undefined) {
    if (raw === 'false') out = { fetch: false, includes: [], excludes: [] };
    else if (raw === 'true' || raw === '') out = { fetch: true, includes: [], excludes: [] };
    else out = { fetch: true, includes: raw.split(','), excludes: [] };
  }
  const inc = params._source_includes ?? params._source_include;
  const exc = params._source_excludes ?? params._source_exclude;
  if (inc !== undefined || exc !== undefined) {
    out = { fetch: true, includes: inc !== undefined ? inc.split(',') : out.includes, excludes: exc !== undefined ? exc.split(',') : out.excludes };
  }
  return out;
}

function trackTotalHits(v: unknown): number | false {
  if (v === undefined) return 10_000;
  if (v === true || v === 'true') return Infinity;
  if (v === false || v === 'false') return false;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n)) throw errors.illegalArgument(`[track_total_hits] parameter must be a boolean or an integer, got [${String(v)}]`);
  if (n < -1) throw errors.illegalArgument(`[track_total_hits] parameter must be positive or equals to -1, got ${n}`);
  return n === -1 ? Infinity : n;
}

/** Builds the `q=` query: Lucene syntax over `df` (default all fields) with `default_operator`. */
function uriQuery(params: QueryParams): Query | undefined {
  const q = params.q;
  if (q === undefined) return undefined;
  const op = (params.default_operator ?? 'or').toLowerCase();
  if (op !== 'or' && op !== 'and') throw errors.illegalArgument(`No enum constant org.elasticsearch.index.query.Operator.${op.toUpperCase()}`);
  return queryStringToQuery(q, { fields: params.df === undefined ? undefined : [{ field: params.df, boost: 1 }], operator: op, tieBreaker: 0, phraseSlop: 0 });
}

/**
 * `read` of a search body (`_search`, `_count`, an `_msearch` line) parsed from `text`, answering
 * as ES's parser, which reads the text in order and stops at the first problem, does: a key that
 * repeats (readInTextOrder), a query nested past MAX_NESTED_DEPTH (located in the text), and a
 * text nested past Jackson's 1000 levels, whichever comes first. A query chain is refused about
 * 124 levels down, so a chain thousands deep answers the query's error. `read` is run on a text
 * that deep only to find a query error before it: anything else it throws then, the stack
 * exhausted included, gives way to the nesting error.
 */
export function readSearchBody<T>(text: string, value: unknown, read: (value: unknown) => T): T {
  const deep = tooDeepAt(text);
  try {
    const out = readInTextOrder(text, value, read);
    if (deep === undefined) return out;
  } catch (e) {
    if (e instanceof NestedDepthExceeded && (deep === undefined || e.offsetIn(text) < deep)) throw e.locatedIn(text);
    if (e instanceof LocatedQueryError && deep === undefined) throw e.locatedIn(text);
    if (deep === undefined) throw e;
  }
  throw nestingError(text, deep);
}

/** Parses a `_search` request. `body` is the parsed JSON body or undefined. */
// eslint-disable-next-line complexity -- ES's precedence of URL parameters over body keys, one short decision per parameter in ES's order, so that the first refusal is the one ES gives
export function parseSearchRequest(body: unknown, params: QueryParams): SearchRequest {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw errors.parsing(`Unknown key for a ${jsonToken(body)} in [null].`);
  }
  const b = (body ?? {}) as Record<string, unknown>;
  let aggs: Agg[] | undefined;
  for (const k of Object.keys(b)) if (k === 'aggs' || k === 'aggregations') aggs = parseAggregations(b[k], [k], AGG_READERS);
  refuseBodyKey(b, false);
  checkBodyValues(b);
  let from = b.from === undefined ? 0 : checkFrom(bodyInt(b.from, 'from'));
  let size = b.size === undefined ? 10 : checkSize(bodyInt(b.size, 'size'));
  const qpFrom = intParam(params, 'from');
  const qpSize = intParam(params, 'size');
  if (qpFrom !== undefined) from = checkFrom(qpFrom);
  // ES 8 reads size=-1 in the URL as no size given (RestSearchAction), so the body's or the default stands.
  if (qpSize !== undefined && qpSize !== -1) size = checkSize(qpSize);
  const query = uriQuery(params) ?? (b.query === undefined ? ({ kind: 'match_all', boost: 1 } as Query) : parseTopLevelQuery(b.query, 'query'));
  let sort: SortKey[] | undefined;
  if (b.sort !== undefined) sort = (Array.isArray(b.sort) ? b.sort : [b.sort]).flatMap(parseSortEntry);
  if (params.sort !== undefined) sort = parseSortParam(params.sort);
  const restTotalHitsAsInt = totalHitsAsInt(params);
  let tth = trackTotalHits(params.track_total_hits ?? b.track_total_hits);
  if (restTotalHitsAsInt && b.track_total_hits === undefined && params.track_total_hits === undefined) tth = Infinity;
  if (restTotalHitsAsInt && tth !== false && tth !== Infinity) {
    throw errors.illegalArgument(`[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got ${tth}`);
  }
  const searchAfter = b.search_after;
  if (searchAfter !== undefined && !Array.isArray(searchAfter)) throw errors.parsing('[search_after] must be an array');
  const scrollMs = params.scroll === undefined ? undefined : parseTimeValue(params.scroll, 'scroll');
  const pit = b.pit === undefined ? undefined : parsePit(b.pit);
  // SearchRequest.validate, for what a scroll or a point in time rules out (no array made for a
  // plain search).
  if (scrollMs !== undefined || sort !== undefined || pit !== undefined || b.slice !== undefined) {
    const given = { rescore: b.rescore !== undefined && !(Array.isArray(b.rescore) && b.rescore.length === 0), collapse: b.collapse !== undefined, requestCache: params.request_cache === 'true', sliced: b.slice !== undefined };
    checkContextRules(scrollMs, pit, from, size, searchAfter, sort, (params.track_total_hits ?? b.track_total_hits) !== undefined && tth !== Infinity, given);
  }
  if (searchAfter !== undefined && from > 0) throw errors.actionValidation(['[from] parameter must be set to 0 when [search_after] is used']);
  const collapse = b.collapse === undefined ? undefined : parseCollapse(b.collapse, AGG_READERS);
  const rescore = b.rescore === undefined ? undefined : parseRescore(b.rescore);
  if (collapse !== undefined && searchAfter !== undefined && (sort?.length !== 1 || sort[0]?.field !== collapse.field)) {
    throw errors.actionValidation(['Cannot use [collapse] in conjunction with [search_after] unless the search is sorted on the same field. Multiple sort fields are not allowed.']);
  }
  refuseBodyKey(b, true);
  let fetchFields = parseFetchFields(b, params);
  const explicitSource = b._source !== undefined || params._source !== undefined || params._source_includes !== undefined || params._source_excludes !== undefined || params._source_include !== undefined || params._source_exclude !== undefined;
  let source = sourceFromParams(params, parseSourceFilter(b._source));
  if (fetchFields !== undefined) {
    // Asking for the source with `_none_` fails each shard (checkFetchFields), as in ES.
    if (fetchFields.storedNone && explicitSource && source.fetch) fetchFields = { ...fetchFields, noneWithSource: true };
    source = sourceWithStoredFields(source, fetchFields, explicitSource);
  }
  return {
    query,
    postFilter: b.post_filter === undefined ? undefined : parseTopLevelQuery(b.post_filter, 'post_filter'),
    from,
    size,
    sort,
    source,
    trackTotalHits: tth,
    restTotalHitsAsInt,
    searchAfter,
    trackScores: b.track_scores === true || params.track_scores === 'true',
    version: b.version === true || params.version === 'true',
    seqNoPrimaryTerm: b.seq_no_primary_term === true || params.seq_no_primary_term === 'true',
    minScore: typeof b.min_score === 'number' ? b.min_score : undefined,
    scrollMs,
    pit,
    highlight: b.highlight === undefined ? undefined : parseHighlight(b.highlight),
    suggest: b.suggest === undefined ? undefined : parseSuggest(b.suggest),
    suggestOnly: b.suggest !== undefined && b.query === undefined && params.q === undefined && size === 0 && b.aggs === undefined && b.aggregations === undefined,
    aggs,
    collapse,
    queryGiven: b.query !== undefined || params.q !== undefined,
    typedKeys: params.typed_keys === 'true',
    slice: b.slice === undefined ? undefined : parseSlice(b.slice),
    fetchFields,
    terminateAfter: terminateAfterOf(b, params),
    indicesBoost: Array.isArray(b.indices_boost) && b.indices_boost.length > 0 ? parseIndicesBoost(b.indices_boost) : undefined,
    rescore: rescore === undefined || rescore.length === 0 ? undefined : rescore,
  };
}

/**
 * `terminate_after`, the URL's over the body's (RestSearchAction sets it after parsing the body;
 * `_count` takes the URL's alone): an int, refused below 0 with ES's error; undefined for 0, ES's
 * "no limit" (terminate-after.ts).
 */
export function terminateAfterOf(b: Record<string, unknown>, params: QueryParams): number | undefined {
  const n = intParam(params, 'terminate_after') ?? (b.terminate_after === undefined ? undefined : bodyInt(b.terminate_after, 'terminate_after'));
  if (n !== undefined && n < 0) throw errors.illegalArgument('terminateAfter must be > 0');
  return n === undefined || n === 0 ? undefined : n;
}

/**
 * The source a search with `stored_fields` fetches, as ES's FetchContext decides: stored fields
 * named (an empty list too) leave `_source` out unless it is asked for (`_source` in the body or
 * the URL, or `_source` among the stored fields); `_none_` fetches no source.
 */
function sourceWithStoredFields(source: SourceFilter, f: FetchFields, explicit: boolean): SourceFilter {
  if (f.storedNone) return NO_SOURCE;
  if (f.stored === undefined || explicit) return source;
  return f.stored.includes('_source') ? WHOLE_SOURCE : NO_SOURCE;
}

/** How a top_hits aggregation reads its `sort` and `_source`: as the search body's. */
const AGG_READERS = {
  sort: (raw: unknown): SortKey[] => (Array.isArray(raw) ? raw : [raw]).flatMap(parseSortEntry),
  source: parseSourceFilter,
};

/** ES's checks of the body keys Portico takes without acting on them. */
function checkBodyValues(b: Record<string, unknown>): void {
  if (b.timeout !== undefined) {
    // The time value's own parse_exception, which the search body parser rethrows as illegal_argument_exception.
    try {
      parseTimeValue(String(b.timeout), 'timeout');
    } catch (e) {
      if (e instanceof SearchError) throw errors.illegalArgument(e.message);
      throw e;
    }
  }
  if (typeof b.terminate_after === 'number' && b.terminate_after < 0) throw errors.illegalArgument('terminateAfter must be > 0');
}

function checkContextRules(
  scrollMs: number | undefined,
  pit: PitReference | undefined,
  from: number,
  size: number,
  searchAfter: unknown,
  sort: readonly SortKey[] | undefined,
  inexactTotal: boolean,
  given: { readonly rescore: boolean; readonly collapse: boolean; readonly requestCache: boolean; readonly sliced: boolean },
): void {
  const problems: string[] = [];
  if (given.sliced && scrollMs === undefined && pit === undefined) problems.push('[slice] can only be used with [scroll] or [point-in-time] requests');
  if (scrollMs !== undefined) {
    // Accepted (and ignored) on a plain search, but ES refuses them with a scroll.
    if (inexactTotal) problems.push('disabling [track_total_hits] is not allowed in a scroll context');
    if (from > 0) problems.push('using [from] is not allowed in a scroll context');
    if (size === 0) problems.push('[size] cannot be [0] in a scroll context');
    // An empty array of rescorers is none (ES checks that the list is not empty).
    if (given.rescore) problems.push('using [rescore] is not allowed in a scroll context');
    if (searchAfter !== undefined) problems.push('[search_after] cannot be used in a scroll context');
    if (given.collapse) problems.push('cannot use `collapse` in a scroll context');
    if (given.requestCache) problems.push('[request_cache] cannot be used in a scroll context');
    if (pit !== undefined) problems.push('using [point in time] is not allowed in a scroll context');
  }
  if (pit === undefined && sort?.some((k) => k.field === '_shard_doc') === true) problems.push('[_shard_doc] sort field cannot be used without [point in time]');
  if (problems.length > 0) throw errors.actionValidation(problems);
}

/**
 * The body's `slice` (SliceBuilder's parser): `id` and `max`, checked by their setters in the
 * order the body gives them, a failure being ES's "[slice] failed to parse field [max]"; split on
 * `_id` (the default `field`; another field is refused as not supported). The number of slices
 * is checked on each shard (checkSliceLimit).
 */
function parseSlice(v: unknown): { id: number; max: number } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.parsing('[slice] failed to parse field [slice]');
  const o = v as Record<string, unknown>;
  let id = -1;
  let max = -1;
  const fail = (field: string, reason: string) => errors.fieldParse(1, 2, 'slice', field, { type: 'illegal_argument_exception', reason });
  for (const [k, value] of Object.entries(o)) {
    if (k === 'id') {
      id = bodyInt(value, 'id');
      if (id < 0) throw fail('id', 'id must be greater than or equal to 0');
      if (max !== -1 && id >= max) throw fail('id', 'max must be greater than id');
    } else if (k === 'max') {
      max = bodyInt(value, 'max');
      if (max <= 1) throw fail('max', 'max must be greater than 1');
      if (id !== -1 && id >= max) throw fail('max', 'max must be greater than id');
    } else if (k !== 'field') throw errors.xContentParse(1, 2, `[slice] unknown field [${k}]`);
  }
  if (o.field !== undefined && o.field !== '_id') throw errors.contextUnsupported(`[slice] on the field [${String(o.field)}]`);
  if (id === -1 || max === -1) throw errors.illegalArgument('[slice] needs both [id] and [max]');
  return { id, max };
}

/** The body's `pit`: `{"id": …, "keep_alive": "1m"}` (PointInTimeBuilder). */
function parsePit(v: unknown): PitReference {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.parsing(`[pit] failed to parse field [pit]`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'id' && k !== 'keep_alive') throw errors.parsing(`[pit] unknown field [${k}]`);
  if (o.id !== undefined && typeof o.id !== 'string') throw errors.parsing('[pit] failed to parse field [id]');
  if (o.keep_alive !== undefined && typeof o.keep_alive !== 'string' && typeof o.keep_alive !== 'number') throw errors.parsing('[pit] failed to parse field [keep_alive]');
  if (o.id === undefined || o.id === '') throw errors.illegalArgument('point in time id is not provided');
  return { id: o.id, keepAliveMs: o.keep_alive === undefined ? undefined : parseTimeValue(String(o.keep_alive), 'keep_alive') };
}

/** Parses a `_count` request: only `query` in the body, `q` in the query string. */
export function parseCountQuery(body: unknown, params: QueryParams): Query {
  const b = (body ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(b)) if (k !== 'query') throw errors.parsing(`request does not support [${k}]`, 1, 2);
  return uriQuery(params) ?? (b.query === undefined ? { kind: 'match_all', boost: 1 } : parseTopLevelQuery(b.query, 'query'));
}
