import { errors, SearchError } from '../../errors.js';
import { isJsonObject, jsonToken } from '../../syntax/json-members.js';
import { LocatedQueryError } from '../query-error.js';
import { parseTopLevelQuery, type Query } from '../query-dsl.js';
import { parseBucketOptions, parseMetricOptions, parseTopHits, type BucketOptions, type MetricOptions, type BodyReaders, type TopHitsOptions } from './agg-options.js';
import { located, notComputed, parsingAt } from './agg-errors.js';

/**
 * The `aggs` (or `aggregations`) of a search body, as ES 8's AggregatorFactories.parseAggregators
 * reads them: a name, one type with its options, optional sub-aggregations (not under metrics) and
 * `meta`. `readers` read a top_hits `sort` and `_source` as the search body's (search-request.ts owns that grammar). Every type and option Portico does not compute is refused with ES's own error (an
 * unknown type is ES's "Unknown aggregation type [x]"), never ignored.
 */

export type BucketType = 'terms' | 'range' | 'date_range' | 'histogram' | 'date_histogram' | 'filter' | 'filters' | 'missing';
export type MetricType = 'min' | 'max' | 'avg' | 'sum' | 'stats' | 'value_count' | 'cardinality';

interface AggBase {
  readonly name: string;
  readonly meta: Record<string, unknown> | undefined;
}

export interface BucketAgg extends AggBase {
  readonly type: BucketType;
  readonly options: BucketOptions;
  /** `filter`: its query; `filters`: one per bucket. */
  readonly filters: readonly { readonly key: string | undefined; readonly query: Query }[];
  readonly subs: readonly Agg[];
}

export interface MetricAgg extends AggBase {
  readonly type: MetricType;
  readonly options: MetricOptions;
}

export interface TopHitsAgg extends AggBase {
  readonly type: 'top_hits';
  readonly options: TopHitsOptions;
}

export type Agg = BucketAgg | MetricAgg | TopHitsAgg;

const BUCKET_TYPES: readonly string[] = ['terms', 'range', 'date_range', 'histogram', 'date_histogram', 'filter', 'filters', 'missing'];
const METRIC_TYPES: readonly string[] = ['min', 'max', 'avg', 'sum', 'stats', 'value_count', 'cardinality'];

/**
 * ES 8's other aggregation types: known to ES, not computed here, so refused with a clear
 * illegal_argument_exception rather than ES's "Unknown aggregation type" (which would say they
 * do not exist).
 */
const NOT_COMPUTED = new Set([
  'adjacency_matrix', 'auto_date_histogram', 'boxplot', 'categorize_text', 'children', 'composite', 'diversified_sampler', 'extended_stats',
  'geo_bounds', 'geo_centroid', 'geo_distance', 'geohash_grid', 'geotile_grid', 'global', 'ip_prefix', 'ip_range', 'matrix_stats',
  'median_absolute_deviation', 'multi_terms', 'nested', 'parent', 'percentile_ranks', 'percentiles', 'random_sampler', 'rare_terms',
  'reverse_nested', 'sampler', 'scripted_metric', 'significant_terms', 'significant_text', 'string_stats', 't_test', 'top_metrics',
  'variable_width_histogram', 'weighted_avg', 'avg_bucket', 'bucket_script', 'bucket_selector', 'bucket_sort', 'cumulative_sum',
  'derivative', 'extended_stats_bucket', 'max_bucket', 'min_bucket', 'moving_fn', 'percentiles_bucket', 'serial_diff', 'stats_bucket',
  'sum_bucket', 'cumulative_cardinality', 'moving_percentiles', 'normalize', 'inference', 'geo_line', 'frequent_item_sets', 'rate',
]);

type Path = (string | number)[];

/**
 * Parses the aggregations object under `key` (`aggs` or `aggregations`) of a search body; `path`
 * is where it sits in the body.
 */
export function parseAggregations(raw: unknown, path: Path, readers: BodyReaders): Agg[] {
  if (!isJsonObject(raw)) throw parsingAt(path, `Unknown key for a ${jsonToken(raw)} in [${String(path[path.length - 1])}].`);
  const out: Agg[] = [];
  for (const [name, def] of Object.entries(raw)) out.push(parseOne(name, def, [...path, name], readers));
  return out;
}

function parseOne(name: string, def: unknown, path: Path, readers: BodyReaders): Agg {
  if (/[[\]>]/.test(name)) {
    throw parsingAt(path, `Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`, true);
  }
  if (!isJsonObject(def)) throw parsingAt(path, `Aggregation definition for [${name} starts with a [${jsonToken(def)}], expected a [START_OBJECT].`);
  let type: string | undefined;
  let subsRaw: { key: string; value: unknown } | undefined;
  let meta: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(def)) {
    if (key === 'aggs' || key === 'aggregations') {
      if (subsRaw !== undefined) throw parsingAt([...path, key], `Found two sub aggregation definitions under [${name}]`);
      subsRaw = { key, value };
    } else if (key === 'meta') {
      if (!isJsonObject(value)) throw parsingAt([...path, key], `Expected [START_OBJECT] under [meta], but got a [${jsonToken(value)}] in [${name}]`);
      meta = value;
    } else {
      if (type !== undefined) throw parsingAt([...path, key], `Found two aggregation type definitions in [${name}]: [${type}] and [${key}]`);
      type = key;
    }
  }
  if (type === undefined) throw parsingAt(path, `Missing definition for aggregation [${name}]`);
  const body = def[type];
  const at = [...path, type];
  if (!BUCKET_TYPES.includes(type) && !METRIC_TYPES.includes(type) && type !== 'top_hits') {
    if (NOT_COMPUTED.has(type)) throw notComputed(at, `the [${type}] aggregation`);
    throw located(at, (v) => {
      const place = v === undefined ? '' : `[${v.line}:${v.col}] `;
      return new SearchError(400, { type: 'parsing_exception', reason: `Unknown aggregation type [${type}]`, meta: v && { line: v.line, col: v.col }, causedBy: { type: 'named_object_not_found_exception', reason: `${place}unknown field [${type}]` } }, [
        { type: 'parsing_exception', reason: `Unknown aggregation type [${type}]`, meta: v && { line: v.line, col: v.col } },
      ]);
    });
  }
  const subs = subsRaw === undefined ? [] : parseAggregations(subsRaw.value, [...path, subsRaw.key], readers);
  if (!BUCKET_TYPES.includes(type) && subs.length > 0) {
    // ES's AggregationInitializationException keeps ElasticsearchException's status: 500.
    throw located(path, () => new SearchError(500, { type: 'aggregation_initialization_exception', reason: `Aggregator [${name}] of type [${type}] cannot accept sub-aggregations` }));
  }
  if (type !== 'filter' && type !== 'filters' && type !== 'top_hits' && !isJsonObject(body) ) throw parsingAt(at, `[${type}] aggregation body must be an object, got [${jsonToken(body)}]`);
  if (type !== 'filter' && type !== 'filters' && type !== 'top_hits' && (body as Record<string, unknown>).field === undefined) {
    throw located(at, () => errors.illegalArgument('Required one of fields [field, script], but none were specified. '));
  }
  if (type === 'top_hits') return { name, meta, type, options: parseTopHits(body, at, readers) };
  if (METRIC_TYPES.includes(type)) return { name, meta, type: type as MetricType, options: parseMetricOptions(type, body, at) };
  return { name, meta, type: type as BucketType, options: parseBucketOptions(type, body, at), filters: parseFilters(type, body, at), subs };
}

/** A query inside an aggregation, its errors placed in the whole body (see LocatedQueryError). */
function subQuery(raw: unknown, path: Path, key: string): Query {
  try {
    return parseTopLevelQuery(raw, key);
  } catch (e) {
    if (e instanceof LocatedQueryError) throw e.within(path);
    if (e instanceof SearchError) throw LocatedQueryError.around(e, path);
    throw e;
  }
}

function parseFilters(type: string, body: unknown, at: Path): BucketAgg['filters'] {
  if (type === 'filter') {
    if (!isJsonObject(body)) throw parsingAt(at, '[filter] query malformed, must start with start_object');
    // The agg's body is the query itself: parsed as `filter` one step up.
    return [{ key: undefined, query: subQuery(body, at.slice(0, -1), at[at.length - 1] as string) }];
  }
  if (type !== 'filters') return [];
  const o = body as Record<string, unknown>;
  const f = o.filters;
  if (Array.isArray(f)) return f.map((q, i) => ({ key: undefined, query: subQuery(q, [...at, 'filters'], String(i)) }));
  if (!isJsonObject(f)) throw parsingAt([...at, 'filters'], `[filters] cannot be empty.`);
  // Keyed filters are kept in key order, as ES sorts them (FiltersAggregationBuilder).
  return Object.keys(f)
    .sort()
    .map((key) => ({ key, query: subQuery(f[key], [...at, 'filters'], key) }));
}
