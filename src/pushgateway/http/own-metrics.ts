import { Counter, Gauge, Registry, Summary, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Label, Metric, MetricFamily, MetricType } from '../model.js';
import { compareStrings } from '../store/sanitize.js';

/** Names of Pushgateway's own HTTP handlers, used as the `handler` label (dashboards key on them). */
export type HandlerName =
  | 'push'
  | 'delete'
  | 'healthy'
  | 'ready'
  | 'status'
  | 'static'
  | 'wipe'
  | 'quit'
  | 'metrics'
  | 'api/v1/status'
  | 'api/v1/metrics'
  | 'api/v1/options';

export interface BuildInfo {
  readonly version: string;
  readonly revision: string;
  readonly branch: string;
}

/**
 * The gateway's own metrics, on a private prom-client Registry (never the global one): process_*
 * and nodejs_* defaults plus Pushgateway-named ones, so that existing dashboards keep working.
 */
export class OwnMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'code' | 'handler' | 'method'>;
  private readonly pushDuration: Summary<'method'>;
  private readonly pushSize: Summary<'method'>;
  private readonly limitRefusals: Counter<'limit'>;

  private cached: { atMs: number; families: Promise<MetricFamily[]> } | undefined;

  /**
   * @param maxAgeMs how long collected values are reused (default 1000 ms): collecting the process
   *   and Node.js metrics costs several ms of system calls, more than serving every pushed group,
   *   and nobody scrapes more often than once a second.
   * @param now clock in ms (injected for tests)
   */
  constructor(
    build: BuildInfo,
    private readonly maxAgeMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    collectDefaultMetrics({ register: this.registry });
    const info = new Gauge({
      name: 'pushgateway_build_info',
      help: 'A metric with a constant \'1\' value labeled by version, revision, branch, and runtime version from which Portico\'s push gateway was built.',
      labelNames: ['branch', 'nodeversion', 'revision', 'version'],
      registers: [this.registry],
    });
    info.set({ branch: build.branch, nodeversion: process.version, revision: build.revision, version: build.version }, 1);
    this.requests = new Counter({
      name: 'pushgateway_http_requests_total',
      help: 'Total HTTP requests processed by the Pushgateway, excluding scrapes.',
      labelNames: ['code', 'handler', 'method'],
      registers: [this.registry],
    });
    const objectives = { percentiles: [0.1, 0.5, 0.9], maxAgeSeconds: 600, ageBuckets: 5 };
    this.pushDuration = new Summary({
      name: 'pushgateway_http_push_duration_seconds',
      help: 'HTTP request duration for pushes to the Pushgateway.',
      labelNames: ['method'],
      registers: [this.registry],
      ...objectives,
    });
    this.limitRefusals = new Counter({
      name: 'pushgateway_push_limit_refusals_total',
      help: 'Pushes refused by one of Portico\'s limits (--push.max-body-size, --push.max-groups, --push.max-series-per-group, --push.max-series), by limit.',
      labelNames: ['limit'],
      registers: [this.registry],
    });
    for (const limit of ['max-body-size', 'max-groups', 'max-series-per-group', 'max-series']) this.limitRefusals.inc({ limit }, 0);
    this.pushSize = new Summary({
      name: 'pushgateway_http_push_size_bytes',
      help: 'HTTP request size for pushes to the Pushgateway.',
      labelNames: ['method'],
      registers: [this.registry],
      ...objectives,
    });
  }

  /** Adds a gauge read when scraped (Portico's own, e.g. the shared store's health). */
  addGauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** Counts a push refused by one of Portico's limits (`max-body-size`, `max-groups`, ...). */
  countLimitRefusal(limit: string): void {
    this.limitRefusals.inc({ limit });
  }

  countRequest(handler: HandlerName, method: string, code: number): void {
    this.requests.inc({ code: String(code), handler, method: method.toLowerCase() });
  }

  observePush(method: string, seconds: number, bytes: number): void {
    const m = method.toLowerCase();
    this.pushDuration.observe({ method: m }, seconds);
    this.pushSize.observe({ method: m }, bytes);
  }

  /** Name → type of every own metric (pushed families of these names must match). */
  types(): Map<string, MetricType> {
    const out = new Map<string, MetricType>();
    for (const m of this.registry.getMetricsAsArray()) out.set(m.name, toType(String((m as unknown as { type: string }).type)));
    return out;
  }

  /** Name → help of every own metric (replaces the help of a pushed family of that name, as Pushgateway does). */
  helps(): Map<string, string> {
    const out = new Map<string, string>();
    for (const m of this.registry.getMetricsAsArray()) out.set(m.name, m.help);
    return out;
  }

  /** Current values (at most maxAgeMs old) as the shared model, sorted by name. */
  families(): Promise<MetricFamily[]> {
    const now = this.now();
    if (this.cached === undefined || now - this.cached.atMs >= this.maxAgeMs || now < this.cached.atMs) {
      const families = this.registry.getMetricsAsJSON().then((json) => json.map(toFamily).sort((a, b) => compareStrings(a.name, b.name)));
      this.cached = { atMs: now, families };
      families.catch(() => {
        if (this.cached?.families === families) this.cached = undefined;
      });
    }
    return this.cached.families;
  }
}

function toType(t: string): MetricType {
  return t === 'counter' || t === 'gauge' || t === 'summary' || t === 'histogram' ? t : 'untyped';
}

function labelsOf(raw: Partial<Record<string, string | number>>, skip: string): Label[] {
  return Object.entries(raw)
    .filter(([n]) => n !== skip)
    .map(([n, v]): Label => [n, String(v)])
    .sort((a, b) => compareStrings(a[0], b[0]));
}

function toFamily(m: MetricObjectWithValues<MetricValue<string>>): MetricFamily {
  const type = toType(String(m.type));
  const values = m.values as readonly { value: number; labels: Partial<Record<string, string | number>>; metricName?: string }[];
  if (type !== 'summary' && type !== 'histogram') {
    return { name: m.name, help: m.help, type, metrics: values.map((v): Metric => ({ labels: labelsOf(v.labels, ''), value: v.value })) };
  }
  const special = type === 'summary' ? 'quantile' : 'le';
  const byKey = new Map<string, { labels: Label[]; count: number; sum: number; points: [number, number][] }>();
  for (const v of values) {
    const labels = labelsOf(v.labels, special);
    const key = JSON.stringify(labels);
    let acc = byKey.get(key);
    if (acc === undefined) {
      acc = { labels, count: 0, sum: 0, points: [] };
      byKey.set(key, acc);
    }
    const suffix = v.metricName?.slice(m.name.length);
    if (suffix === '_count') acc.count = v.value;
    else if (suffix === '_sum') acc.sum = v.value;
    else {
      const at = v.labels[special];
      acc.points.push([at === '+Inf' ? Infinity : Number(at), v.value]);
    }
  }
  const metrics = [...byKey.values()].map((a): Metric =>
    type === 'summary'
      ? { labels: a.labels, summary: { sampleCount: a.count, sampleSum: a.sum, quantiles: a.points.map(([quantile, value]) => ({ quantile, value })) } }
      : {
          labels: a.labels,
          histogram: {
            sampleCount: a.count,
            sampleSum: a.sum,
            buckets: a.points.map(([upperBound, cumulativeCount]) => ({ upperBound, cumulativeCount })),
          },
        },
  );
  return { name: m.name, help: m.help, type, metrics };
}
