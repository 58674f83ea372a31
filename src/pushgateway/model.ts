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
  readonly cumulativeCount: number;
}

export interface SummaryValue {
  readonly sampleCount: number;
  readonly sampleSum: number;
  readonly quantiles: readonly Quantile[];
}

export interface HistogramValue {
  readonly sampleCount: number;
  readonly sampleSum: number;
  readonly buckets: readonly Bucket[];
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
