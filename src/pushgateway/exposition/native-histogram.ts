/**
 * A native histogram's buckets as Pushgateway 1.11.1's /api/v1/metrics lists them: it turns the
 * pushed message into Prometheus's histogram model (float when `sample_count_float` or
 * `zero_count_float` is above 0, reading `*_count`; integer otherwise, reading `*_delta`) and
 * lists the negative buckets from the lowest up, the zero bucket, then the positive buckets,
 * leaving out buckets whose count is 0. Each bucket is `[boundaries, lower, upper, count]` with
 * Prometheus's boundary rule (0 `(]`, 1 `[)`, 2 `()`, 3 `[]`) and numbers printed as Go's `%v`.
 *
 * The bounds follow Prometheus's rule: for schema s ≥ 0, bucket i's upper bound is 2^(i/2^s), a
 * fraction in [0.5, 1) times a power of two, and the bucket just below +Inf ends at the largest
 * float64; for s < 0 it is 2^(i·2^-s); schema -53 (custom buckets) has no bounds in this format
 * (metrics.proto has no field for them), so only index 0 has one. One difference: Prometheus
 * takes the fractions from a hand-written table whose entries are up to 4 ulps below the exact
 * value; Portico computes the nearest double, so for schemas 1 to 8 some bounds differ from
 * Pushgateway's in the last digit (docs/pushgateway.md, "Differences").
 */
import type { BucketSpan, HistogramValue } from '../model.js';
import { formatGoFloat } from './go-float.js';

/** One bucket of the API: boundaries rule, lower and upper bound, count, as Pushgateway prints them. */
export type ApiNativeBucket = [boundaries: number, lower: string, upper: string, count: string];

const CUSTOM_BUCKETS_SCHEMA = -53;

/**
 * Thrown where Pushgateway 1.11.1 itself panics while listing the buckets (a schema above 8, a
 * custom-buckets index other than 0, spans longer than the counts): its API request then ends
 * without an answer.
 */
export class UnlistableHistogram extends Error {}

const fractions = new Map<number, number[]>();

/** The double nearest to 2^(j/2^s - 1) for j in [0, 2^s): exact rational comparison in BigInt. */
function fractionTable(schema: number): number[] {
  const known = fractions.get(schema);
  if (known !== undefined) return known;
  const n = 2 ** schema;
  const table: number[] = [];
  for (let j = 0; j < n; j++) {
    // r = 2^(j/n) in [1, 2) is m·2^-52 for an integer m; pick m so that m ± 1/2 brackets 2^(j/n),
    // i.e. (2m-1)^n ≤ 2^(j + 53n) < (2m+1)^n.
    let m = BigInt(Math.round(2 ** (j / n) * 2 ** 52));
    const target = 1n << BigInt(j + 53 * n);
    const pow = (x: bigint): bigint => x ** BigInt(n);
    while (pow(2n * m + 1n) <= target) m++;
    while (pow(2n * m - 1n) > target) m--;
    table.push(Number(m) * 2 ** -53);
  }
  fractions.set(schema, table);
  return table;
}

/** frac·2^exp as Go's math.Ldexp (exact: a power of two in two steps so that it neither overflows nor underflows early). */
function ldexp(frac: number, exp: number): number {
  const half = Math.trunc(exp / 2);
  return frac * 2 ** half * 2 ** (exp - half);
}

function bound(idx: number, schema: number): number {
  if (schema === CUSTOM_BUCKETS_SCHEMA) {
    if (idx === 0) return Infinity;
    if (idx === -1) return -Infinity;
    throw new UnlistableHistogram(`custom bucket index ${idx} without custom bounds`);
  }
  if (schema < 0) {
    const exp = idx * 2 ** -schema;
    return exp === 1024 ? Number.MAX_VALUE : ldexp(1, exp);
  }
  if (schema > 8) throw new UnlistableHistogram(`schema ${schema}`);
  const frac = (fractionTable(schema)[idx & ((1 << schema) - 1)]) as number;
  const exp = (idx >> schema) + 1;
  return frac === 0.5 && exp === 1025 ? Number.MAX_VALUE : ldexp(frac, exp);
}

interface RawBucket {
  readonly lower: number;
  readonly upper: number;
  readonly lowerInclusive: boolean;
  readonly upperInclusive: boolean;
  /** A uint64 (integer histograms) or a float64. */
  readonly count: number | bigint;
}

/**
 * The buckets of one side, from the zero bucket outwards, walked as Prometheus's bucket iterator
 * walks them (a span's offset counts from the index after the previous bucket; spans of length 0
 * only move the index). Integer counts are running sums of the deltas, read back as uint64 (a
 * negative sum wraps, as in Go).
 */
function side(spans: readonly BucketSpan[], values: readonly number[], deltas: boolean, positive: boolean, schema: number): RawBucket[] {
  const out: RawBucket[] = [];
  const custom = schema === CUSTOM_BUCKETS_SCHEMA;
  let spansIdx = 0;
  let idxInSpan = 0;
  let bucketsIdx = 0;
  let idx = 0;
  let running = 0n;
  for (;;) {
    if (spansIdx >= spans.length) return out;
    let span = spans[spansIdx] as BucketSpan;
    idx = bucketsIdx === 0 ? span.offset : idx + 1;
    while (idxInSpan >= span.length) {
      idxInSpan = 0;
      spansIdx++;
      if (spansIdx >= spans.length) return out;
      span = spans[spansIdx] as BucketSpan;
      idx += span.offset;
    }
    const v = values[bucketsIdx];
    if (v === undefined) throw new UnlistableHistogram('fewer bucket counts than the spans cover');
    let count: number | bigint = v;
    if (deltas) {
      running += BigInt(v);
      count = BigInt.asUintN(64, running);
    }
    idxInSpan++;
    bucketsIdx++;
    const up = bound(idx, schema);
    const low = bound(idx - 1, schema);
    const [lower, upper] = positive ? [low, up] : [-up, -low];
    out.push({ lower, upper, count, lowerInclusive: custom ? idx === 0 : lower < 0, upperInclusive: custom ? true : upper > 0 });
  }
}

function boundaries(b: RawBucket): number {
  if (b.lowerInclusive) return b.upperInclusive ? 3 : 1;
  return b.upperInclusive ? 0 : 2;
}

/** uint64 counts as Go prints them (never in exponent form). */
function formatUint(n: number | bigint): string {
  return typeof n === 'bigint' ? n.toString() : Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

function formatCount(n: number | bigint): string {
  return typeof n === 'bigint' ? n.toString() : formatGoFloat(n);
}

/**
 * The count and buckets /api/v1/metrics shows for a histogram with native buckets, or undefined
 * when it shows the classic view (no span on either side, as Pushgateway decides).
 *
 * @throws UnlistableHistogram where Pushgateway 1.11.1 panics.
 */
export function nativeApiView(h: HistogramValue): { count: string; buckets: ApiNativeBucket[] } | undefined {
  const n = h.native;
  if (n === undefined || n.negativeSpans.length + n.positiveSpans.length === 0) return undefined;
  const isFloat = (h.sampleCountFloat ?? 0) > 0 || (n.zeroCountFloat ?? 0) > 0;
  const schema = n.schema ?? 0;
  const zeroCount = isFloat ? (n.zeroCountFloat ?? 0) : (n.zeroCount ?? 0);
  const threshold = n.zeroThreshold ?? 0;
  const negative = side(n.negativeSpans, isFloat ? n.negativeCounts : n.negativeDeltas, !isFloat, false, schema);
  const positive = side(n.positiveSpans, isFloat ? n.positiveCounts : n.positiveDeltas, !isFloat, true, schema);
  const all: RawBucket[] = negative.filter((b) => b.count !== 0 && b.count !== 0n).reverse();
  if (zeroCount !== 0) {
    if (schema === CUSTOM_BUCKETS_SCHEMA) throw new UnlistableHistogram('a zero bucket with custom buckets');
    all.push({ lower: -threshold, upper: threshold, lowerInclusive: true, upperInclusive: true, count: isFloat ? zeroCount : BigInt(zeroCount) });
  }
  for (const b of positive) if (b.count !== 0 && b.count !== 0n) all.push(b);
  const count = isFloat ? formatGoFloat(h.sampleCountFloat ?? 0) : formatUint(h.sampleCount);
  return { count, buckets: all.map((b) => [boundaries(b), formatGoFloat(b.lower), formatGoFloat(b.upper), formatCount(b.count)]) };
}
