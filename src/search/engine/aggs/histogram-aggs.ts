import { errors } from '../../errors.js';
import type { BucketAgg } from '../../requests/aggs/agg-request.js';
import { DateMathError, DateMathParser, zoneOf } from '../../syntax/date-math.js';
import { javaDouble } from '../../syntax/java-double.js';
import { parseTimeValue } from '../../syntax/time-value.js';
import type { BucketDocs} from './aggregate.js';
import { bucketJson, KEY_ASC, runBucketSubs, sortBuckets, type AggEnv, type AggResult, type Bucket, type DocSet } from './aggregate.js';
import { datePrinter, eachDocNumbers, fieldValues, type DatePrinter, type FieldValues } from './agg-field.js';
import { calendarRounding, fixedRounding, numericRounding, type Rounding } from './date-rounding.js';

/**
 * `histogram` and `date_histogram`: each value rounded to its bucket's key (date-rounding.ts), a
 * document counted once per bucket its values reach; with `min_doc_count: 0` (the default) the
 * empty buckets between the first and last key, and out to `extended_bounds`, are filled in;
 * `hard_bounds` limits the buckets. Keys are in ascending order unless `order` says otherwise.
 */

const dateMath = new DateMathParser();

/** A date_histogram's `offset`: milliseconds, or a signed time value (`+6h`, `-1d`). */
function offsetMs(raw: number | string, index: string): number {
  if (typeof raw === 'number') return raw;
  const m = /^([+-]?)(.*)$/.exec(raw.trim());
  try {
    return (m?.[1] === '-' ? -1 : 1) * parseTimeValue(m?.[2] ?? '', 'date_histogram.offset');
  } catch (e) {
    throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: (e as Error).message });
  }
}

interface Plan {
  readonly rounding: Rounding;
  readonly printer: DatePrinter | undefined;
  /** Reads a bound of extended_bounds / hard_bounds. */
  bound(v: unknown): number | undefined;
  /** A numeric histogram's interval and offset (its rounding is numericRounding of them). */
  readonly linear?: { readonly interval: number; readonly offset: number };
}

function planOf(agg: BucketAgg, mapped: (FieldValues & { kind: 'number' }) | undefined, env: AggEnv, index: string): Plan {
  const o = agg.options;
  const isDate = agg.type === 'date_histogram' || mapped?.def.kind === 'date';
  let printer: DatePrinter | undefined;
  try {
    if (isDate) printer = datePrinter(mapped?.def, o.format, o.timeZone);
  } catch (e) {
    throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: (e as Error).message });
  }
  const format = o.format ?? mapped?.def.dateFormat?.text ?? 'strict_date_optional_time||epoch_millis';
  const bound = (v: unknown): number | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number') return v;
    if (!isDate) return Number(v);
    try {
      return dateMath.parse(v, { format, get now() { return env.now; }, roundUp: false, ...(o.timeZone === undefined ? {} : { timeZone: o.timeZone }) });
    } catch (e) {
      if (e instanceof DateMathError) throw errors.shardFailure(index, { type: 'parse_exception', reason: e.message });
      throw e;
    }
  };
  if (agg.type === 'histogram') {
    const interval = o.interval ?? 0;
    if (!(interval > 0)) throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: `interval must be positive, got: ${javaDouble(interval)}` });
    const offset = typeof o.offset === 'number' ? o.offset : 0;
    return { rounding: numericRounding(interval, offset), printer, bound, linear: { interval, offset } };
  }
  let zone;
  try {
    zone = o.timeZone === undefined ? undefined : zoneOf(o.timeZone);
  } catch (e) {
    throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: (e as Error).message });
  }
  const offset = offsetMs(o.offset, index);
  if (o.calendar !== undefined) return { rounding: calendarRounding(o.calendar, zone, offset), printer, bound };
  if (o.fixedMs !== undefined && o.fixedMs > 0) return { rounding: fixedRounding(o.fixedMs, zone, offset), printer, bound };
  throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: 'Invalid interval specified, must be non-null and non-empty' });
}

export function histogramAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const o = agg.options;
  const index = sets[0]?.state.name ?? '_na_';
  const mapped = sets.map((s) => fieldValues(s.state, o.field as string, agg.type, true)).find((v) => v.kind === 'number') as (FieldValues & { kind: 'number' }) | undefined;
  const plan = planOf(agg, mapped, env, index);
  const { rounding } = plan;
  const hardMin = plan.bound(o.hardBounds?.min);
  const hardMax = plan.bound(o.hardBounds?.max);
  // Read whether or not empty buckets are filled: a bound the format cannot read fails the search, as in ES.
  const ext = { min: plan.bound(o.extendedBounds?.min), max: plan.bound(o.extendedBounds?.max) };
  const inHard = (k: number): boolean => (hardMin === undefined || k >= hardMin) && (hardMax === undefined || k < hardMax);
  const slot = new Map<number, number>();
  const keys: number[] = [];
  const counts: number[] = [];
  const collectors: BucketDocs[] = [];
  const counted = plan.linear !== undefined && agg.subs.length === 0 && o.missing === undefined ? countColumns(sets, o.field as string, plan.linear) : undefined;
  if (counted !== undefined) {
    for (const [k, c] of counted) {
      if (!inHard(k)) continue;
      const b = slot.get(k);
      if (b !== undefined) counts[b] = (counts[b] as number) + c;
      else {
        slot.set(k, keys.length);
        keys.push(k);
        counts.push(c);
      }
    }
  } else eachDocNumbers(sets, o.field as string, agg.type, o.missing, agg.subs.length > 0, collectors, (vals, i, docs) => {
    let prev = Number.NaN;
    for (const v of vals) {
      const k = rounding.round(v);
      if (k === prev || !inHard(k)) continue;
      prev = k;
      let b = slot.get(k);
      if (b === undefined) {
        b = keys.length;
        slot.set(k, b);
        keys.push(k);
        counts.push(0);
      }
      counts[b] = (counts[b] as number) + 1;
      docs?.add(b, i);
    }
  });
  let buckets: Bucket[] = keys.map((k, b) => ({ fields: keyFields(k, plan.printer), docCount: counts[b] as number, sortKey: k, sets: undefined, subs: undefined }));
  for (const c of collectors) c.fill(buckets);
  const minDoc = o.minDocCount ?? 0;
  if (minDoc > 0) buckets = buckets.filter((b) => b.docCount >= minDoc);
  else buckets = fillEmpty(index, buckets, rounding, plan, ext, inHard);
  runBucketSubs(agg, buckets, env, sets);
  sortBuckets(buckets, o.order, KEY_ASC);
  if (!o.keyed) return { json: { buckets: buckets.map(bucketJson) }, value: () => Number.NaN };
  const keyed: Record<string, unknown> = {};
  for (const b of buckets) keyed[plan.printer !== undefined ? plan.printer.print(b.sortKey as number) : javaDouble(b.sortKey as number)] = bucketJson(b);
  return { json: { buckets: keyed }, value: () => Number.NaN };
}

/** The widest range of bucket numbers countColumns counts in an array (a wider one goes through the general path). */
const MAX_SPAN = 1 << 16;

/**
 * A numeric histogram's counts per key, read straight from columns without multi-valued documents
 * (one number or NaN per ordinal): each value's bucket number q = floor((v - offset) / interval),
 * which never decreases as v grows, indexes an array spanning the bounds' bucket numbers (the
 * fields' bounds of every value, NumericField.lo and hi, else the documents' own), and a bucket's
 * key is q * interval + offset, as numericRounding computes it (q - first and back is exact: both
 * are integers, of one sign and within a factor of two of each other when beyond 2^53). Undefined
 * when a column has multi-valued documents or the values span more than MAX_SPAN buckets. An index
 * where the field is not numeric (or absent) adds nothing, as in eachDocNumbers without `missing`.
 */
function countColumns(sets: readonly DocSet[], field: string, linear: { readonly interval: number; readonly offset: number }): [number, number][] | undefined {
  const { interval, offset } = linear;
  const columns: [Float64Array, Int32Array, boolean, boolean][] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const set of sets) {
    const values = fieldValues(set.state, field, 'histogram', true);
    if (values.kind !== 'number' || values.field === undefined) continue;
    const f = values.field;
    if (f.multi.size > 0) return undefined;
    const float = values.def.esType === 'float';
    // Every live document of the index (a match_all: the index's own list, see search-phase.ts).
    columns.push([f.min, set.docs, float, set.docs === set.state.index.allLive()]);
    // Math.fround never reorders two numbers: the bounds of the float32 values are those of the bounds.
    lo = Math.min(lo, float ? Math.fround(f.lo) : f.lo);
    hi = Math.max(hi, float ? Math.fround(f.hi) : f.hi);
  }
  if (columns.length === 0 || lo > hi) return [];
  let first = Math.floor((lo - offset) / interval);
  let span = Math.floor((hi - offset) / interval) - first + 1;
  if (!(span <= MAX_SPAN)) {
    // Bounds too far apart (a value long gone, say): the documents' own bounds.
    [lo, hi] = documentBounds(columns);
    if (lo > hi) return [];
    first = Math.floor((lo - offset) / interval);
    span = Math.floor((hi - offset) / interval) - first + 1;
    if (!(span <= MAX_SPAN)) return undefined;
  }
  const counts = new Int32Array(span);
  for (const [column, docs, float, everyLive] of columns) {
    if (everyLive) countSorted(sortedValues(column, docs, float), counts, first, interval, offset);
    else countColumn(column, docs, float, counts, first, interval, offset);
  }
  const out: [number, number][] = [];
  for (let b = 0; b < span; b++) if ((counts[b] as number) > 0) out.push([(first + b) * interval + offset, counts[b] as number]);
  return out;
}

/** countColumns' loop: one column's documents counted per bucket number (minus `first`). */
function countColumn(column: Float64Array, docs: Int32Array, float: boolean, counts: Int32Array, first: number, interval: number, offset: number): void {
  for (let i = 0, n = docs.length, length = column.length; i < n; i++) {
    const ord = docs[i] as number;
    if (ord >= length) continue;
    let v = column[ord] as number;
    if (v !== v) continue;
    if (float) v = Math.fround(v);
    const b = Math.floor((v - offset) / interval) - first;
    counts[b] = (counts[b] as number) + 1;
  }
}

/**
 * The values of `docs` in `column` (float32 when `float`), ascending, NaN (no value) left out:
 * kept per list of every live document of an index and column, both replaced, never written,
 * where a value of a listed document could change (a write makes a new list), so a histogram over
 * every document of an index that has not changed since reads no document.
 */
const sortedCache = new WeakMap<Int32Array, WeakMap<Float64Array, Float64Array>>();

function sortedValues(column: Float64Array, docs: Int32Array, float: boolean): Float64Array {
  let byColumn = sortedCache.get(docs);
  const cached = byColumn?.get(column);
  if (cached !== undefined) return cached;
  const values = new Float64Array(docs.length);
  let k = 0;
  for (let i = 0, n = docs.length, length = column.length; i < n; i++) {
    const ord = docs[i] as number;
    if (ord >= length) continue;
    const v = column[ord] as number;
    if (v !== v) continue;
    values[k++] = float ? Math.fround(v) : v;
  }
  const sorted = values.slice(0, k).sort();
  if (byColumn === undefined) sortedCache.set(docs, (byColumn = new WeakMap()));
  byColumn.set(column, sorted);
  return sorted;
}

/**
 * countColumn over ascending values: a bucket's values are one run (its number never decreases as
 * the value grows), found by a binary search for the last value of each bucket number.
 */
function countSorted(sorted: Float64Array, counts: Int32Array, first: number, interval: number, offset: number): void {
  const n = sorted.length;
  let i = 0;
  while (i < n) {
    const q = Math.floor(((sorted[i] as number) - offset) / interval);
    // The first position past i whose bucket number is above q.
    let lo = i + 1;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Math.floor(((sorted[mid] as number) - offset) / interval) > q) hi = mid;
      else lo = mid + 1;
    }
    const b = q - first;
    counts[b] = (counts[b] as number) + (lo - i);
    i = lo;
  }
}

/** The smallest and largest value of the documents of `columns`. */
function documentBounds(columns: readonly [Float64Array, Int32Array, boolean, boolean][]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const [column, docs, float] of columns) {
    for (let i = 0, n = docs.length, length = column.length; i < n; i++) {
      const ord = docs[i] as number;
      if (ord >= length) continue;
      let v = column[ord] as number;
      if (v !== v) continue;
      if (float) v = Math.fround(v);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return [lo, hi];
}

function keyFields(k: number, printer: DatePrinter | undefined): Record<string, unknown> {
  return printer === undefined ? { key: k } : { key_as_string: printer.print(k), key: k };
}

/** The buckets from the first key (or extended_bounds.min) to the last (or extended_bounds.max), the missing ones empty. */
function fillEmpty(index: string, buckets: Bucket[], rounding: Rounding, plan: Plan, ext: { min: number | undefined; max: number | undefined }, inHard: (k: number) => boolean): Bucket[] {
  const keys = buckets.map((b) => b.sortKey as number);
  let lo = keys.length === 0 ? Infinity : Math.min(...keys);
  let hi = keys.length === 0 ? -Infinity : Math.max(...keys);
  const extMin = ext.min;
  const extMax = ext.max;
  if (extMin !== undefined) lo = Math.min(lo, rounding.round(extMin));
  if (extMax !== undefined) hi = Math.max(hi, rounding.round(extMax));
  if (!(lo <= hi)) return buckets;
  const byKey = new Map(buckets.map((b) => [b.sortKey as number, b]));
  const out: Bucket[] = [];
  // A guard against an interval too small for the range (ES refuses more than its max buckets).
  for (let k = lo, n = 0; k <= hi; k = rounding.next(k), n++) {
    if (n > 65_535) {
      throw errors.shardFailure(index, { type: 'too_many_buckets_exception', reason: 'Trying to create too many buckets. Must be less than or equal to: [65536] but this number of buckets was exceeded. This limit can be set by changing the [search.max_buckets] cluster level setting.' });
    }
    const b = byKey.get(k);
    if (b !== undefined) out.push(b);
    else if (inHard(k)) out.push({ fields: keyFields(k, plan.printer), docCount: 0, sortKey: k, sets: undefined, subs: undefined });
  }
  return out;
}
