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

/** When a push stored a family: one object shared by every record the push stored. */
export interface PushStamp {
  readonly ms: number;
}

/** How many of a push's latest label sets a new metric is compared with (see PushShare). */
const SHARED_SETS = 8;

/**
 * What the records stored by one push (or one group's load) share, so that each holds a reference
 * rather than a copy of its own: the push time (a number field is a 16-byte box in every object
 * that holds it) and equal label sets. The families of a group mostly carry the same labels (the
 * grouping labels, `instance`, and a few of their own, as every family of a job's push does), so a
 * metric whose labels equal one of the push's latest sets takes that array.
 */
export class PushShare {
  private stamp: PushStamp | undefined;
  private readonly sets: (readonly Label[])[] = [];
  private next = 0;

  /**
   * @param grouping the group's grouping labels (sorted by name), tuples that may be kept as they
   * are; also the label set of the push time gauges when the grouping key has an `instance`.
   */
  constructor(readonly grouping: readonly Label[]) {
    this.keep(grouping);
  }

  /** The stamp of time `ms`: the last one made when it is the same time. */
  stampAt(ms: number): PushStamp {
    if (this.stamp === undefined || !Object.is(this.stamp.ms, ms)) this.stamp = { ms };
    return this.stamp;
  }

  /** A label set kept lately that equals `labels`. */
  equalSet(labels: readonly Label[]): readonly Label[] | undefined {
    for (const set of this.sets) if (sameLabels(set, labels)) return set;
    return undefined;
  }

  /** Remembers a stored label set (the oldest of SHARED_SETS is forgotten); returns it. */
  keep(set: readonly Label[]): readonly Label[] {
    if (this.sets.length < SHARED_SETS) this.sets.push(set);
    else {
      this.sets[this.next] = set;
      this.next = (this.next + 1) % SHARED_SETS;
    }
    return set;
  }
}

/**
 * An integer value as V8's small integer, which a field holds without a box: the text parser's
 * numbers are boxed doubles even when whole, and most pushed values (counts, bytes, seconds since
 * the epoch) are whole. -0 stays itself (the protobuf format keeps its sign).
 */
function smallIntegerOr(value: number): number {
  return (value | 0) === value && !Object.is(value, -0) ? value | 0 : value;
}

/**
 * What a metric's payload is: a bare number when nothing else about it needs keeping, else a new
 * object with the value fields only. Never the pushed metric itself: its `labels` are the
 * parser's tuples, slices of the push body, which would keep that whole body alive.
 */
export function payloadOf(m: Metric): number | Metric {
  const { value, summary, histogram, timestampMs } = m;
  if (value !== undefined && summary === undefined && histogram === undefined && timestampMs === undefined) return smallIntegerOr(value);
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
    /** When the family was last pushed (shared with the other records of that push). */
    public pushedAt: PushStamp,
  ) {}

  get pushedAtMs(): number {
    return this.pushedAt.ms;
  }

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
