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
