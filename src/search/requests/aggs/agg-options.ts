import { errors, SearchError, type EsCause } from '../../errors.js';
import { isJsonObject, jsonToken } from '../../syntax/json-members.js';
import { parseTimeValue } from '../../syntax/time-value.js';
import { LocatedQueryError } from '../query-error.js';
import type { SortKey } from '../sort-key.js';
import type { SourceFilter } from '../source-filter.js';
import { badOption, located, notComputed, unknownOption } from './agg-errors.js';
import { compileLuceneRegexp } from './lucene-regexp.js';

/**
 * The options of each aggregation type, checked as ES 8's parsers check them (each type's
 * ObjectParser: "[terms] unknown field [x]", "[terms] failed to parse field [size]" caused by the
 * value's own error). Options ES has and Portico does not act on (`script`, `value_type`, numeric
 * `format` patterns, `partition`) are refused.
 */

type Path = (string | number)[];

/** One key of a bucket order: `_count`, `_key`, or a path into sub-aggregations (`stats.avg`, `f>m`). */
export interface OrderKey {
  readonly by: '_count' | '_key' | 'path';
  readonly path: readonly string[];
  readonly metric: string | undefined;
  readonly asc: boolean;
}

/** include/exclude of terms: a Lucene regular expression, or sets of exact values. */
export type TermFilter = { readonly regexp: RegExp } | { readonly values: readonly unknown[] };

export interface RangeSpec {
  readonly key: string | undefined;
  readonly from: number | string | undefined;
  readonly to: number | string | undefined;
}

/** Calendar units of date_histogram (`calendar_interval`). */
export type CalendarUnit = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface BucketOptions {
  readonly field: string | undefined;
  readonly missing: unknown;
  readonly format: string | undefined;
  readonly keyed: boolean;
  readonly size: number;
  readonly shardSize: number | undefined;
  readonly minDocCount: number | undefined;
  readonly shardMinDocCount: number;
  readonly order: readonly OrderKey[] | undefined;
  readonly include: TermFilter | undefined;
  readonly exclude: TermFilter | undefined;
  readonly showTermDocCountError: boolean;
  readonly ranges: readonly RangeSpec[] | undefined;
  readonly interval: number | undefined;
  readonly calendar: CalendarUnit | undefined;
  readonly fixedMs: number | undefined;
  readonly offset: number | string;
  readonly timeZone: string | undefined;
  readonly extendedBounds: { readonly min: unknown; readonly max: unknown } | undefined;
  readonly hardBounds: { readonly min: unknown; readonly max: unknown } | undefined;
  readonly otherBucket: boolean;
  readonly otherBucketKey: string | undefined;
}

export interface MetricOptions {
  readonly field: string | undefined;
  readonly missing: unknown;
  readonly format: string | undefined;
  readonly precisionThreshold: number;
}

export interface TopHitsOptions {
  readonly from: number;
  readonly size: number;
  readonly sort: readonly SortKey[] | undefined;
  readonly source: SourceFilter;
  readonly version: boolean;
  readonly seqNoPrimaryTerm: boolean;
  readonly trackScores: boolean;
}

const VALUES_KEYS = ['field', 'missing', 'format', 'script', 'value_type'];
const KEYS: Readonly<Record<string, readonly string[]>> = {
  terms: [...VALUES_KEYS, 'size', 'shard_size', 'min_doc_count', 'shard_min_doc_count', 'order', 'include', 'exclude', 'execution_hint', 'collect_mode', 'show_term_doc_count_error'],
  range: [...VALUES_KEYS, 'ranges', 'keyed'],
  date_range: [...VALUES_KEYS, 'ranges', 'keyed', 'time_zone'],
  histogram: [...VALUES_KEYS, 'interval', 'offset', 'min_doc_count', 'extended_bounds', 'hard_bounds', 'keyed', 'order'],
  date_histogram: [...VALUES_KEYS, 'calendar_interval', 'fixed_interval', 'offset', 'min_doc_count', 'extended_bounds', 'hard_bounds', 'keyed', 'order', 'time_zone'],
  missing: ['field', 'missing', 'script', 'value_type'],
  filters: ['filters', 'other_bucket', 'other_bucket_key', 'keyed'],
  cardinality: [...VALUES_KEYS, 'precision_threshold', 'execution_hint'],
  top_hits: ['from', 'size', 'sort', '_source', 'version', 'seq_no_primary_term', 'track_scores', 'explain', 'highlight', 'stored_fields', 'docvalue_fields', 'fields', 'script_fields'],
};
const METRIC_KEYS = VALUES_KEYS;

const CALENDAR: Readonly<Record<string, CalendarUnit>> = {
  minute: 'minute', '1m': 'minute', hour: 'hour', '1h': 'hour', day: 'day', '1d': 'day', week: 'week', '1w': 'week',
  month: 'month', '1M': 'month', quarter: 'quarter', '1q': 'quarter', year: 'year', '1y': 'year',
};

function checkKeys(type: string, body: Record<string, unknown>, at: Path, keys: readonly string[]): void {
  for (const k of Object.keys(body)) if (!keys.includes(k)) throw unknownOption(type, k, [...at, k]);
  if (body.script !== undefined) throw notComputed([...at, 'script'], `[script] in the [${type}] aggregation`);
  if (body.value_type !== undefined) throw notComputed([...at, 'value_type'], `[value_type] in the [${type}] aggregation`);
}

function bodyOf(type: string, body: unknown, at: Path): Record<string, unknown> {
  if (!isJsonObject(body)) throw located(at, (v) => errors.parsing(`[${type}] aggregation body must be an object, got [${jsonToken(body)}]`, v?.line, v?.col));
  return body;
}

/** An int option as Jackson reads it (numbers truncated, numeric strings coerced). */
function intOption(type: string, key: string, v: unknown, at: Path): number {
  const fail = (cause: EsCause): LocatedQueryError => badOption(type, key, [...at, key], cause);
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  if (typeof v === 'string') throw fail({ type: 'number_format_exception', reason: `For input string: "${v}"` });
  throw fail({ type: 'x_content_parse_exception', reason: `Current token (${jsonToken(v)}) not numeric, can not use numeric value accessors` });
}

function numberOption(type: string, key: string, v: unknown, at: Path): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw badOption(type, key, [...at, key], { type: 'number_format_exception', reason: `For input string: "${String(v)}"` });
}

function boolOption(type: string, key: string, v: unknown, at: Path): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason: `Failed to parse value [${String(v)}] as only [true] or [false] are allowed.` });
}

function stringOption(type: string, key: string, v: unknown, at: Path): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason: `[${key}] must be a string, got [${jsonToken(v)}]` });
}

function positive(type: string, key: string, n: number, name: string, at: Path, min = 1): number {
  if (n < min) {
    const reason = min === 1 ? `[${key}] must be greater than 0. Found [${n}] in [${name}]` : `[${key}] must be greater than or equal to 0. Found [${n}] in [${name}]`;
    throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason });
  }
  return n;
}

function parseOrder(type: string, v: unknown, at: Path): OrderKey[] {
  const entries = Array.isArray(v) ? v : [v];
  return entries.map((e) => {
    if (!isJsonObject(e) || Object.keys(e).length !== 1) {
      throw badOption(type, 'order', [...at, 'order'], { type: 'parsing_exception', reason: `Order must be an object with a single key, got [${jsonToken(e)}]` });
    }
    const [key, dir] = Object.entries(e)[0] as [string, unknown];
    const d = typeof dir === 'string' ? dir.toLowerCase() : '';
    if (d !== 'asc' && d !== 'desc') {
      throw located([...at, 'order'], (p) => {
        const cause: EsCause = { type: 'parsing_exception', reason: `Unknown order direction [${String(dir)}]`, meta: p && { line: p.line, col: p.col } };
        return new SearchError(400, { type: 'x_content_parse_exception', reason: `[${p?.line ?? 1}:${p?.col ?? 1}] [${type}] failed to parse field [order]`, causedBy: cause }, [cause]);
      });
    }
    if (key === '_count' || key === '_key') return { by: key, path: [], metric: undefined, asc: d === 'asc' };
    const steps = key.split('>');
    const last = steps[steps.length - 1] as string;
    const dot = last.indexOf('.');
    const metric = dot === -1 ? undefined : last.slice(dot + 1);
    steps[steps.length - 1] = dot === -1 ? last : last.slice(0, dot);
    return { by: 'path', path: steps, metric, asc: d === 'asc' };
  });
}

function termFilter(type: string, key: string, v: unknown, at: Path): TermFilter {
  if (typeof v === 'string') {
    try {
      return { regexp: compileLuceneRegexp(v) };
    } catch (e) {
      throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason: (e as Error).message });
    }
  }
  if (Array.isArray(v)) return { values: v };
  if (isJsonObject(v) && (v.partition !== undefined || v.num_partitions !== undefined)) throw notComputed([...at, key], `[${key}] partitions in the [${type}] aggregation`);
  throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason: `Unrecognized token for an include [${jsonToken(v)}]` });
}

function bounds(type: string, key: string, v: unknown, at: Path): { min: unknown; max: unknown } {
  if (!isJsonObject(v)) throw badOption(type, key, [...at, key], { type: 'illegal_argument_exception', reason: `[${key}] must be an object` });
  for (const k of Object.keys(v)) if (k !== 'min' && k !== 'max') throw unknownOption(key, k, [...at, key, k]);
  return { min: v.min, max: v.max };
}

function parseRanges(type: string, v: unknown, at: Path): RangeSpec[] {
  if (!Array.isArray(v)) throw badOption(type, 'ranges', [...at, 'ranges'], { type: 'illegal_argument_exception', reason: `[ranges] must be an array` });
  return v.map((r, i) => {
    if (!isJsonObject(r)) throw badOption(type, 'ranges', [...at, 'ranges', i], { type: 'illegal_argument_exception', reason: `a range must be an object` });
    for (const k of Object.keys(r)) if (k !== 'from' && k !== 'to' && k !== 'key') throw unknownOption('range', k, [...at, 'ranges', i, k]);
    const bound = (b: unknown): number | string | undefined => (b === undefined || b === null ? undefined : typeof b === 'number' ? b : String(b));
    return { key: r.key === undefined || r.key === null ? undefined : String(r.key), from: bound(r.from), to: bound(r.to) };
  });
}

/** The options of a bucket aggregation (`filter`'s body is its query: no options). */
// eslint-disable-next-line complexity -- one short decision per option of the bucket types, in ES's order
export function parseBucketOptions(type: string, raw: unknown, at: Path): BucketOptions {
  const name = String(at[at.length - 2]);
  const body = type === 'filter' ? {} : bodyOf(type, raw, at);
  if (type !== 'filter') checkKeys(type, body, at, KEYS[type] ?? []);
  const opt = (k: string): unknown => body[k];
  let calendar: CalendarUnit | undefined;
  let fixedMs: number | undefined;
  if (opt('calendar_interval') !== undefined) {
    const s = stringOption(type, 'calendar_interval', opt('calendar_interval'), at);
    calendar = Object.hasOwn(CALENDAR, s) ? CALENDAR[s] : undefined;
    if (calendar === undefined) throw badOption(type, 'calendar_interval', [...at, 'calendar_interval'], { type: 'illegal_argument_exception', reason: `The supplied interval [${s}] could not be parsed as a calendar interval.` });
  }
  if (opt('fixed_interval') !== undefined) {
    const s = stringOption(type, 'fixed_interval', opt('fixed_interval'), at);
    // Fixed units only (ms, s, m, h, d): a calendar unit such as `1M` or `1w` is refused, never read as minutes.
    if (!/^\s*\d+(?:\.\d+)?\s*(?:nanos|micros|ms|s|m|h|d)\s*$/.test(s)) {
      throw badOption(type, 'fixed_interval', [...at, 'fixed_interval'], { type: 'illegal_argument_exception', reason: `failed to parse setting [date_histogram.fixedInterval] with value [${s}] as a time value: unit is missing or unrecognized` });
    }
    fixedMs = parseTimeValue(s, 'date_histogram.fixedInterval');
  }
  if (calendar !== undefined && fixedMs !== undefined) {
    throw badOption(type, 'fixed_interval', [...at, 'fixed_interval'], { type: 'illegal_argument_exception', reason: 'Cannot use [fixed_interval] with [calendar_interval] configuration option.' });
  }
  const include = opt('include') === undefined ? undefined : termFilter(type, 'include', opt('include'), at);
  const exclude = opt('exclude') === undefined ? undefined : termFilter(type, 'exclude', opt('exclude'), at);
  if (include !== undefined && exclude !== undefined && 'regexp' in include !== 'regexp' in exclude) {
    const reason = 'regexp' in include ? 'Cannot mix a regex-based include with a set-based method' : 'Cannot mix a set-based include with a regex-based method';
    throw badOption(type, 'exclude', [...at, 'exclude'], { type: 'illegal_argument_exception', reason });
  }
  const format = opt('format') === undefined ? undefined : stringOption(type, 'format', opt('format'), at);
  const offset = opt('offset') === undefined ? 0 : type === 'date_histogram' && typeof opt('offset') === 'string' ? (opt('offset') as string) : numberOption(type, 'offset', opt('offset'), at);
  return {
    field: opt('field') === undefined ? undefined : stringOption(type, 'field', opt('field'), at),
    missing: opt('missing'),
    format,
    keyed: opt('keyed') === undefined ? false : boolOption(type, 'keyed', opt('keyed'), at),
    size: opt('size') === undefined ? 10 : positive(type, 'size', intOption(type, 'size', opt('size'), at), name, at),
    shardSize: opt('shard_size') === undefined ? undefined : positive(type, 'shard_size', intOption(type, 'shard_size', opt('shard_size'), at), name, at),
    minDocCount: opt('min_doc_count') === undefined ? undefined : positive(type, 'min_doc_count', intOption(type, 'min_doc_count', opt('min_doc_count'), at), name, at, 0),
    shardMinDocCount: opt('shard_min_doc_count') === undefined ? 0 : positive(type, 'shard_min_doc_count', intOption(type, 'shard_min_doc_count', opt('shard_min_doc_count'), at), name, at, 0),
    order: opt('order') === undefined ? undefined : parseOrder(type, opt('order'), at),
    include,
    exclude,
    showTermDocCountError: opt('show_term_doc_count_error') === undefined ? false : boolOption(type, 'show_term_doc_count_error', opt('show_term_doc_count_error'), at),
    ranges: opt('ranges') === undefined ? undefined : parseRanges(type, opt('ranges'), at),
    interval: opt('interval') === undefined ? undefined : numberOption(type, 'interval', opt('interval'), at),
    calendar,
    fixedMs,
    offset,
    timeZone: opt('time_zone') === undefined ? undefined : stringOption(type, 'time_zone', opt('time_zone'), at),
    extendedBounds: opt('extended_bounds') === undefined ? undefined : bounds(type, 'extended_bounds', opt('extended_bounds'), at),
    hardBounds: opt('hard_bounds') === undefined ? undefined : bounds(type, 'hard_bounds', opt('hard_bounds'), at),
    otherBucket: opt('other_bucket') === undefined ? opt('other_bucket_key') !== undefined : boolOption(type, 'other_bucket', opt('other_bucket'), at),
    otherBucketKey: opt('other_bucket_key') === undefined ? undefined : stringOption(type, 'other_bucket_key', opt('other_bucket_key'), at),
  };
}

export function parseMetricOptions(type: string, raw: unknown, at: Path): MetricOptions {
  const body = bodyOf(type, raw, at);
  checkKeys(type, body, at, KEYS[type] ?? METRIC_KEYS);
  const threshold = body.precision_threshold === undefined ? 3000 : intOption(type, 'precision_threshold', body.precision_threshold, at);
  if (threshold < 0) throw badOption(type, 'precision_threshold', [...at, 'precision_threshold'], { type: 'illegal_argument_exception', reason: `[precisionThreshold] must be greater than or equal to 0. Found [${threshold}] in [${String(at[at.length - 2])}]` });
  return {
    field: body.field === undefined ? undefined : stringOption(type, 'field', body.field, at),
    missing: body.missing,
    format: body.format === undefined ? undefined : stringOption(type, 'format', body.format, at),
    precisionThreshold: threshold,
  };
}

export function parseTopHits(raw: unknown, at: Path, readers: BodyReaders): TopHitsOptions {
  const type = 'top_hits';
  const body = bodyOf(type, raw, at);
  for (const k of Object.keys(body)) if (!(KEYS.top_hits ?? []).includes(k)) throw unknownOption(type, k, [...at, k]);
  for (const k of ['highlight', 'stored_fields', 'docvalue_fields', 'fields', 'script_fields']) {
    if (body[k] !== undefined) throw notComputed([...at, k], `[${k}] in the [top_hits] aggregation`);
  }
  if (body.explain !== undefined && body.explain !== false) throw notComputed([...at, 'explain'], '[explain] in the [top_hits] aggregation');
  const from = body.from === undefined ? 0 : intOption(type, 'from', body.from, at);
  const size = body.size === undefined ? 3 : intOption(type, 'size', body.size, at);
  if (from < 0) throw badOption(type, 'from', [...at, 'from'], { type: 'illegal_argument_exception', reason: `[from] must be greater than or equal to 0. Found [${from}] in [${String(at[at.length - 2])}]` });
  if (size < 0) throw badOption(type, 'size', [...at, 'size'], { type: 'illegal_argument_exception', reason: `[size] must be greater than or equal to 0. Found [${size}] in [${String(at[at.length - 2])}]` });
  return {
    from,
    size,
    sort: body.sort === undefined ? undefined : topHitsPart(() => readers.sort(body.sort), [...at, 'sort']),
    source: topHitsPart(() => readers.source(body._source), [...at, '_source']),
    version: body.version === true,
    seqNoPrimaryTerm: body.seq_no_primary_term === true,
    trackScores: body.track_scores === true,
  };
}

/** Read a `sort` and a `_source` as the search body's (search-request.ts owns that grammar). */
export interface BodyReaders {
  sort(raw: unknown): SortKey[];
  source(raw: unknown): SourceFilter;
}

function topHitsPart<T>(read: () => T, at: Path): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SearchError) throw LocatedQueryError.around(e, at);
    throw e;
  }
}
