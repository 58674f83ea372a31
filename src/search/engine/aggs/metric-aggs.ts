import { errors } from '../../errors.js';
import type { MetricAgg } from '../../requests/aggs/agg-request.js';
import type { AggResult, DocSet } from './aggregate.js';
import { datePrinter, docValues, fieldValues, missingNumber, numberValues, type DatePrinter, type FieldValues } from './agg-field.js';

/**
 * The metric aggregations: min, max, avg, sum, stats (numbers of numeric, date and boolean
 * fields), value_count and cardinality (any field ES can aggregate). Sums are compensated (Kahan)
 * as ES's CompensatedSum adds them, in document order, so sums and averages agree to the bit.
 * Cardinality is exact: ES documents its HyperLogLog++ counts as exact below
 * `precision_threshold` (default 3000); above it Portico still counts exactly.
 */

/** ES's CompensatedSum. */
class KahanSum {
  value = 0;
  /** The compensation; read and written by takeColumn's inlined copy of add. */
  delta = 0;

  add(v: number): void {
    if (!Number.isFinite(v)) {
      this.value += v;
      return;
    }
    if (!Number.isFinite(this.value)) return;
    const corrected = v + this.delta;
    const updated = this.value + corrected;
    this.delta = corrected - (updated - this.value);
    this.value = updated;
  }
}

interface Numbers {
  count: number;
  min: number;
  max: number;
  readonly sum: KahanSum;
  /** Whether the values are dates (printed as `*_as_string`), booleans, or plain numbers. */
  kind: 'date' | 'boolean' | 'number' | undefined;
  printer: DatePrinter | undefined;
}

function numbersOf(agg: MetricAgg, sets: readonly DocSet[]): Numbers {
  const o = agg.options;
  const out: Numbers = { count: 0, min: Infinity, max: -Infinity, sum: new KahanSum(), kind: undefined, printer: undefined };
  const take = (v: number): void => {
    out.count++;
    if (v < out.min) out.min = v;
    if (v > out.max) out.max = v;
    out.sum.add(v);
  };
  for (const set of sets) {
    const values = fieldValues(set.state, o.field as string, agg.type, true);
    if (values.kind !== 'number') {
      if (values.kind === 'unmapped' && typeof o.missing === 'number') for (let i = 0; i < set.docs.length; i++) take(o.missing);
      continue;
    }
    const def = values.def;
    out.kind ??= def.kind === 'date' ? 'date' : def.kind === 'boolean' ? 'boolean' : 'number';
    if (out.kind === 'date' && out.printer === undefined) out.printer = printerFor(values, o.format);
    const missing = o.missing === undefined ? undefined : missingNumber(def, o.missing);
    const field = values.field;
    if (field !== undefined && field.multi.size === 0) {
      if (!(def.integer && missing === undefined && takeIntegers(out, field.min, set.docs))) takeColumn(out, field.min, set.docs, def.esType === 'float', missing);
      continue;
    }
    for (let i = 0; i < set.docs.length; i++) {
      const vals = numberValues(values, set.docs[i] as number);
      if (vals.length === 0) {
        if (missing !== undefined) take(missing);
      } else for (const v of vals) take(v);
    }
  }
  return out;
}

/**
 * numbersOf's loop over a column without multi-valued documents (one number or NaN per ordinal):
 * the same values in the same order as `take` gets them, the sum compensated as KahanSum.add does,
 * with no array or call per document.
 */
function takeColumn(out: Numbers, column: Float64Array, docs: Int32Array, float: boolean, missing: number | undefined): void {
  let { count, min, max } = out;
  let sum = out.sum.value;
  let delta = out.sum.delta;
  const length = column.length;
  for (let i = 0, n = docs.length; i < n; i++) {
    const ord = docs[i] as number;
    let v = ord < length ? (column[ord] as number) : Number.NaN;
    if (v !== v) {
      if (missing === undefined) continue;
      v = missing;
    } else if (float) v = Math.fround(v);
    count++;
    if (v < min) min = v;
    if (v > max) max = v;
    if (!Number.isFinite(v)) {
      sum += v;
      continue;
    }
    if (!Number.isFinite(sum)) continue;
    const corrected = v + delta;
    const updated = sum + corrected;
    delta = corrected - (updated - sum);
    sum = updated;
  }
  out.count = count;
  out.min = min;
  out.max = max;
  out.sum.value = sum;
  out.sum.delta = delta;
}

/**
 * takeColumn for a column of integers (an integer field's values are truncated when parsed): a
 * plain sum, which is the compensated sum to the bit as long as every partial sum is an integer
 * below 2^53 in magnitude (each addition is then exact, so the compensation stays 0). Checked
 * after the pass from the largest magnitude met; returns false, having changed nothing, when it
 * does not hold (or the sum so far carries a compensation), and takeColumn then does the work.
 */
function takeIntegers(out: Numbers, column: Float64Array, docs: Int32Array): boolean {
  const start = out.sum.value;
  if (out.sum.delta !== 0 || !Number.isInteger(start)) return false;
  let { count, min, max } = out;
  let sum = start;
  let largest = 0;
  const length = column.length;
  for (let i = 0, n = docs.length; i < n; i++) {
    const ord = docs[i] as number;
    if (ord >= length) continue;
    const v = column[ord] as number;
    if (v !== v) continue;
    count++;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  if (count > out.count) largest = Math.max(Math.abs(min), Math.abs(max));
  // Every partial sum is within |start| + (values added) × largest of 0; the integer check covers a column of non-integers.
  if (!(Math.abs(start) + (count - out.count) * largest < 2 ** 53) || !Number.isInteger(min) || !Number.isInteger(max) || !Number.isInteger(sum)) return false;
  out.count = count;
  out.min = min;
  out.max = max;
  out.sum.value = sum;
  return true;
}

function printerFor(values: FieldValues & { kind: 'number' }, format: string | undefined): DatePrinter {
  try {
    return datePrinter(values.def, format, undefined);
  } catch (e) {
    throw errors.illegalArgument((e as Error).message);
  }
}

/** `value` and, for dates and booleans with a value, `value_as_string`. */
function valueJson(n: Numbers, v: number | null, name = 'value'): Record<string, unknown> {
  const out: Record<string, unknown> = { [name]: v };
  if (v === null) return out;
  const text = asString(n, v);
  if (text !== undefined) out[`${name}_as_string`] = text;
  return out;
}

/** A date's text in the aggregation's format; a boolean field's values as ES's BOOLEAN format prints any number (0 false, else true). */
function asString(n: Numbers, v: number): string | undefined {
  if (n.kind === 'date' && n.printer !== undefined) return n.printer.print(v);
  if (n.kind === 'boolean') return v === 0 ? 'false' : 'true';
  return undefined;
}

function statsJson(n: Numbers): Record<string, unknown> {
  const empty = n.count === 0;
  const body: Record<string, unknown> = {
    count: n.count,
    min: empty ? null : n.min,
    max: empty ? null : n.max,
    avg: empty ? null : n.sum.value / n.count,
    sum: n.sum.value,
  };
  if (!empty && (n.kind === 'date' || n.kind === 'boolean')) {
    // ES's stats write the format's object: a date's text, a boolean's true or false (JSON booleans).
    for (const k of ['min', 'max', 'avg', 'sum']) body[`${k}_as_string`] = n.kind === 'boolean' ? (body[k] as number) !== 0 : asString(n, body[k] as number);
  }
  return body;
}

export function numericMetric(agg: MetricAgg, sets: readonly DocSet[]): AggResult {
  return metricResult(agg, numbersOf(agg, sets));
}

/** The types BucketMetrics computes. */
const COLUMN_METRICS = new Set(['min', 'max', 'avg', 'sum', 'stats']);

/**
 * A numeric metric (min, max, avg, sum, stats) computed for many buckets in one pass over the
 * documents (terms-agg.ts: a bucket per document, found by term id), as numericMetric computes it
 * over each bucket's documents: the same values in the same order, so the same sums to the bit.
 * Only for columns without multi-valued documents and without `missing`: `of` answers undefined
 * otherwise. `take(b, ord)` adds the document's number, if it has one, to bucket b.
 */
export class BucketMetrics {
  private readonly count: Float64Array;
  private readonly min: Float64Array;
  private readonly max: Float64Array;
  private readonly sum: Float64Array;
  private readonly delta: Float64Array;
  private column = new Float64Array(0);
  private float = false;
  /**
   * Whether sums are plain (every column an integer field's): exact, so the compensated sums to the
   * bit, while every bucket's partial sums stay below 2^53 (exactSums checks, after the pass).
   */
  plain: boolean;

  private constructor(
    readonly agg: MetricAgg,
    buckets: number,
    private readonly columns: readonly (FieldValues & { kind: 'number' })[],
    private readonly kind: Numbers['kind'],
  ) {
    this.count = new Float64Array(buckets);
    this.min = new Float64Array(buckets).fill(Infinity);
    this.max = new Float64Array(buckets).fill(-Infinity);
    this.sum = new Float64Array(buckets);
    this.delta = new Float64Array(buckets);
    this.plain = columns.every((c) => c.def === undefined || c.def.integer);
  }

  /**
   * After a pass with plain sums: whether they are the compensated ones, every partial sum of each
   * bucket having been an integer below 2^53 (within count × the largest magnitude of 0). When not,
   * the numbers are cleared and `plain` turned off: the caller passes over the documents again.
   */
  exactSums(): boolean {
    if (!this.plain) return true;
    for (let b = 0; b < this.count.length; b++) {
      const n = this.count[b] as number;
      if (n > 0 && !(n * Math.max(Math.abs(this.min[b] as number), Math.abs(this.max[b] as number)) < 2 ** 53)) {
        this.plain = false;
        this.count.fill(0);
        this.min.fill(Infinity);
        this.max.fill(-Infinity);
        this.sum.fill(0);
        return false;
      }
    }
    return true;
  }

  /** The metrics of `agg` over `buckets` buckets of `sets`, or undefined when it is not a numeric metric over plain columns. */
  static of(agg: MetricAgg, sets: readonly DocSet[], buckets: number): BucketMetrics | undefined {
    if (!COLUMN_METRICS.has(agg.type) || agg.options.missing !== undefined) return undefined;
    const columns: (FieldValues & { kind: 'number' })[] = [];
    let kind: Numbers['kind'];
    for (const set of sets) {
      const values = fieldValues(set.state, agg.options.field as string, agg.type, true);
      if (values.kind !== 'number') {
        if (values.kind !== 'unmapped') return undefined;
        columns.push({ kind: 'number', def: undefined as never, field: undefined, round: (v) => v });
        continue;
      }
      if (values.field !== undefined && values.field.multi.size > 0) return undefined;
      kind ??= values.def.kind === 'date' ? 'date' : values.def.kind === 'boolean' ? 'boolean' : 'number';
      columns.push(values);
    }
    return new BucketMetrics(agg, buckets, columns, kind);
  }

  /** Reads the column of the s-th set from now on. */
  useSet(s: number): void {
    const values = this.columns[s] as FieldValues & { kind: 'number' };
    this.column = values.field?.min ?? new Float64Array(0);
    this.float = values.field !== undefined && values.def.esType === 'float';
  }

  take(b: number, ord: number): void {
    const column = this.column;
    if (ord >= column.length) return;
    let v = column[ord] as number;
    if (v !== v) return;
    if (this.float) v = Math.fround(v);
    this.count[b] = (this.count[b] as number) + 1;
    if (v < (this.min[b] as number)) this.min[b] = v;
    if (v > (this.max[b] as number)) this.max[b] = v;
    const sum = this.sum[b] as number;
    if (this.plain) {
      this.sum[b] = sum + v;
      return;
    }
    // KahanSum.add, on bucket b's sum.
    if (!Number.isFinite(v)) {
      this.sum[b] = sum + v;
      return;
    }
    if (!Number.isFinite(sum)) return;
    const corrected = v + (this.delta[b] as number);
    const updated = sum + corrected;
    this.delta[b] = corrected - (updated - sum);
    this.sum[b] = updated;
  }

  /** Bucket b's result, as numericMetric gives it. */
  result(b: number): AggResult {
    const sum = new KahanSum();
    sum.value = this.sum[b] as number;
    sum.delta = this.delta[b] as number;
    const n: Numbers = { count: this.count[b] as number, min: this.min[b] as number, max: this.max[b] as number, sum, kind: this.kind, printer: undefined };
    if (n.kind === 'date') {
      // The first index where the field is numeric, as numbersOf takes the format's printer from.
      const mapped = this.columns.find((c) => c.def !== undefined) as FieldValues & { kind: 'number' };
      n.printer = printerFor(mapped, this.agg.options.format);
    }
    return metricResult(this.agg, n);
  }
}

function metricResult(agg: MetricAgg, n: Numbers): AggResult {
  const avg = n.count === 0 ? Number.NaN : n.sum.value / n.count;
  switch (agg.type) {
    case 'min':
      return { json: valueJson(n, n.count === 0 ? null : n.min), value: () => n.min };
    case 'max':
      return { json: valueJson(n, n.count === 0 ? null : n.max), value: () => n.max };
    case 'avg':
      return { json: valueJson(n, n.count === 0 ? null : avg), value: () => avg };
    case 'sum':
      return { json: valueJson(n, n.sum.value), value: () => n.sum.value };
    default: {
      const stats: Record<string, number> = { count: n.count, min: n.min, max: n.max, avg, sum: n.sum.value };
      return { json: statsJson(n), value: (m) => stats[m ?? ''] ?? Number.NaN };
    }
  }
}

/** value_count (every value, a keyword's distinct per document) and cardinality (distinct values). */
export function countingMetric(agg: MetricAgg, sets: readonly DocSet[]): AggResult {
  const o = agg.options;
  const distinct = new Set<string | number>();
  let count = 0;
  for (const set of sets) {
    const values = fieldValues(set.state, o.field as string, agg.type, false);
    const missing = o.missing === undefined || o.missing === null ? undefined : values.kind === 'number' ? missingNumber(values.def, o.missing) : String(o.missing);
    for (let i = 0; i < set.docs.length; i++) {
      const ord = set.docs[i] as number;
      const vals = docValues(values, ord);
      if (vals.length === 0 && missing !== undefined) {
        count++;
        distinct.add(missing);
      }
      count += vals.length;
      for (const v of vals) distinct.add(v);
    }
  }
  const value = agg.type === 'cardinality' ? distinct.size : count;
  return { json: { value }, value: () => value };
}
