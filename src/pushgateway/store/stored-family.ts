/**
 * How the store holds what a group pushed, compactly: one object per metric that serves the
 * exposition (its text 0.0.4 lines, rendered once per push), the consistency check (its labels)
 * and the model readers (its value), and one record per family of a group. Plain models are built
 * from them only on the rare paths that need them (JSON API, console, persistence, protobuf).
 */
import type { Label, Metric, MetricFamily, MetricType } from '../model.js';
import { compareMetricLabels, sameLabels } from './sanitize.js';

/** A stored family and when it was last pushed. */
export interface StoredFamily {
  /** Sanitized: grouping labels applied, instance="" added, labels sorted. */
  readonly family: MetricFamily;
  readonly pushedAtMs: number;
}

/** One stored metric (one series, or one summary/histogram with its sample lines). */
export class StoredMetric {
  constructor(
    /** The family record it belongs to (which knows the group, the type and the help). */
    readonly record: GroupFamily,
    /** Sanitized and sorted by name; the tuples are shared with neighbouring metrics where equal. */
    readonly labels: readonly Label[],
    /**
     * The value of a counter, gauge or untyped metric without a timestamp (the common case, a
     * number only), or else the whole metric (its `labels` are not used).
     */
    public payload: number | Metric,
    /** Text 0.0.4 lines of this metric, flat. */
    public text: string,
  ) {}

  /** groupingKeyId of the group that holds it: the tie-break of the exposition order. */
  get groupId(): string {
    return this.record.groupId;
  }

  /** The metric as a plain model. */
  toMetric(): Metric {
    const p = this.payload;
    return typeof p === 'number' ? { labels: this.labels, value: p } : { ...p, labels: this.labels };
  }
}

const NO_LABELS: readonly Label[] = [];

/**
 * What a metric's payload is: a bare number when nothing else about it needs keeping, else a new
 * object with the value fields only. Never the pushed metric itself: its `labels` are the
 * parser's tuples, slices of the push body, which would keep that whole body alive.
 */
export function payloadOf(m: Metric): number | Metric {
  const { value, summary, histogram, timestampMs } = m;
  if (value !== undefined && summary === undefined && histogram === undefined && timestampMs === undefined) return value;
  return {
    labels: NO_LABELS,
    ...(value !== undefined && { value }),
    ...(summary !== undefined && { summary }),
    ...(histogram !== undefined && { histogram }),
    ...(timestampMs !== undefined && { timestampMs }),
  };
}

/** Metrics sorted into exposition order, and where each stood in the push when that differs. */
export interface SortedMetrics {
  readonly sorted: readonly Metric[];
  /** `order[k]`: the push position of `sorted[k]`; undefined when the push was in order already. */
  readonly order: readonly number[] | undefined;
}

/** Sorts a family's metrics by labels as Pushgateway exposes them (stable: equal ones keep their push order). */
export function sortMetrics(metrics: readonly Metric[]): SortedMetrics {
  if (metrics.length < 2) return { sorted: metrics, order: undefined };
  const order = metrics.map((_, i) => i).sort((a, b) => compareMetricLabels((metrics[a] as Metric).labels, (metrics[b] as Metric).labels) || a - b);
  if (order.every((at, k) => at === k)) return { sorted: metrics, order: undefined };
  return { sorted: order.map((at) => metrics[at] as Metric), order };
}

/**
 * A family as one group holds it; it is also that group's entry in `Group.families`. A re-push of
 * the same label sets updates it (help, push time, values, push order) in place.
 */
export class GroupFamily implements StoredFamily {
  /** The metrics in exposition order; a lone metric is held without an array. Set once, by the view. */
  metrics: StoredMetric | readonly StoredMetric[] = [];
  /**
   * Push position of each of `metrics`, when the push was not in exposition order (see
   * sortMetrics): the API, the console and persistence give the metrics in push order, as
   * Pushgateway does (it keeps families as pushed and sorts only its exposition).
   */
  order: readonly number[] | undefined = undefined;

  constructor(
    readonly groupId: string,
    readonly name: string,
    /** HELP text, unescaped; the same string object as other groups' equal help where possible. */
    public help: string | undefined,
    readonly type: MetricType,
    public pushedAtMs: number,
  ) {}

  get size(): number {
    const m = this.metrics;
    return m instanceof StoredMetric ? 1 : m.length;
  }

  /** The metrics as a list (a new one-element array for a lone metric). */
  list(): readonly StoredMetric[] {
    const m = this.metrics;
    return m instanceof StoredMetric ? [m] : m;
  }

  /** Whether one of the metrics has exactly these labels. */
  holds(labels: readonly Label[]): boolean {
    const m = this.metrics;
    if (m instanceof StoredMetric) return sameLabels(m.labels, labels);
    let lo = 0;
    let hi = m.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareMetricLabels((m[mid] as StoredMetric).labels, labels) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < m.length && compareMetricLabels((m[i] as StoredMetric).labels, labels) === 0; i++) {
      if (sameLabels((m[i] as StoredMetric).labels, labels)) return true;
    }
    return false;
  }

  /** The family as a plain model, its metrics in push order, built on each call. */
  get family(): MetricFamily {
    const sorted = this.list();
    const order = this.order;
    let metrics: Metric[];
    if (order === undefined) metrics = sorted.map((m) => m.toMetric());
    else {
      metrics = new Array<Metric>(sorted.length);
      sorted.forEach((m, k) => (metrics[order[k] as number] = m.toMetric()));
    }
    return { name: this.name, help: this.help, type: this.type, metrics };
  }
}
