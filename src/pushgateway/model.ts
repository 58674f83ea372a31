/**
 * The metric data model shared by the exposition parsers/encoders and the group store. It mirrors
 * Prometheus' client_model `MetricFamily` closely enough that text 0.0.4, protobuf and OpenMetrics
 * round-trip through it, but uses plain numbers (float64) for every value and count.
 */

export type MetricType = 'counter' | 'gauge' | 'untyped' | 'summary' | 'histogram';

/** A label as `[name, value]`. Arrays keep the order they were written in until sanitized. */
export type Label = readonly [name: string, value: string];

export interface Quantile {
  readonly quantile: number;
  readonly value: number;
}

export interface Bucket {
  /** Upper bound (`le`); +Inf for the last bucket. */
  readonly upperBound: number;
  /** The integer count (protobuf `cumulative_count`), which the text formats print. */
  readonly cumulativeCount: number;
  /** The float count (protobuf `cumulative_count_float`) when one was pushed; the JSON API prints it when above 0. */
  readonly cumulativeCountFloat?: number;
}

export interface SummaryValue {
  readonly sampleCount: number;
  readonly sampleSum: number;
  readonly quantiles: readonly Quantile[];
}

/** A run of consecutive native-histogram buckets: `offset` from the end of the previous span (or from index 0). */
export interface BucketSpan {
  readonly offset: number;
  readonly length: number;
}

/**
 * The native (sparse, exponential) part of a histogram, kept field for field as it was pushed in
 * protobuf, so that a protobuf scrape gives it back exactly. Optional scalars are undefined when
 * the push did not send them (metrics.proto is proto2: presence is part of the message).
 */
export interface NativeBuckets {
  /** -4 to 8 for exponential buckets, -53 for custom buckets; Pushgateway does not check it. */
  readonly schema?: number;
  readonly zeroThreshold?: number;
  readonly zeroCount?: number;
  readonly zeroCountFloat?: number;
  readonly negativeSpans: readonly BucketSpan[];
  /** Integer histograms: each bucket's count as the difference to the previous one. */
  readonly negativeDeltas: readonly number[];
  /** Float histograms: each bucket's count. */
  readonly negativeCounts: readonly number[];
  readonly positiveSpans: readonly BucketSpan[];
  readonly positiveDeltas: readonly number[];
  readonly positiveCounts: readonly number[];
}

/** A protobuf `google.protobuf.Timestamp`. */
export interface ProtoTimestamp {
  readonly seconds: number;
  readonly nanos: number;
}

export interface HistogramValue {
  /** The integer count (protobuf `sample_count`), which the text formats print. */
  readonly sampleCount: number;
  readonly sampleSum: number;
  readonly buckets: readonly Bucket[];
  /** The float count (protobuf `sample_count_float`) when one was pushed. */
  readonly sampleCountFloat?: number;
  /** Schema, zero bucket and sparse buckets, when the push sent any of them. */
  readonly native?: NativeBuckets;
  /** The created timestamp a client sent (client_golang sends one), given back on a protobuf scrape. */
  readonly createdTimestamp?: ProtoTimestamp;
}

/**
 * One series (or, for summaries and histograms, one group of series sharing labels).
 * Exactly one of `value`, `summary`, `histogram` is set, matching the family's type
 * (`value` for counter, gauge and untyped).
 */
export interface Metric {
  readonly labels: readonly Label[];
  readonly value?: number;
  readonly summary?: SummaryValue;
  readonly histogram?: HistogramValue;
  /** Milliseconds since the epoch, when the pusher sent one (Pushgateway refuses such pushes). */
  readonly timestampMs?: number;
}

export interface MetricFamily {
  readonly name: string;
  /** HELP text, unescaped; undefined when the family had no HELP line. */
  readonly help: string | undefined;
  readonly type: MetricType;
  readonly metrics: readonly Metric[];
}

/**
 * The two gauges the gateway keeps per group (Pushgateway's names and help texts): a pushed family
 * of either name is refused unless it is a gauge, and is replaced by the gateway's own.
 */
export const PUSH_TIME = 'push_time_seconds';
export const PUSH_FAILURE_TIME = 'push_failure_time_seconds';
export const PUSH_TIME_HELP = 'Last Unix time when changing this group in the Pushgateway succeeded.';
export const PUSH_FAILURE_TIME_HELP = 'Last Unix time when changing this group in the Pushgateway failed.';

const UPPER: Record<MetricType, string> = {
  counter: 'COUNTER',
  gauge: 'GAUGE',
  untyped: 'UNTYPED',
  summary: 'SUMMARY',
  histogram: 'HISTOGRAM',
};

/** A type as Pushgateway spells it in messages, the JSON API and the console (`COUNTER`, ...). */
export function upperType(t: MetricType): string {
  return UPPER[t];
}
