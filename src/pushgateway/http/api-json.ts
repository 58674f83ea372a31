import { formatGoFloat } from '../exposition/go-float.js';
import { nativeApiView } from '../exposition/native-histogram.js';
import { PUSH_FAILURE_TIME, PUSH_TIME, upperType, type Label, type Metric, type MetricFamily } from '../model.js';
import { pushTimeFamilies, type Group } from '../store/group.js';

/** Go's RFC3339Nano for a time in ms, in UTC: fractional seconds without trailing zeros. */
export function formatRfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const [main, frac] = iso.slice(0, -1).split('.') as [string, string | undefined];
  const trimmed = (frac ?? '').replace(/0+$/, '');
  return `${main}${trimmed === '' ? '' : `.${trimmed}`}Z`;
}

/** Counts as Go's fmt.Sprint(uint64) prints them (never in exponent form). */
function formatCount(n: number): string {
  return Number.isInteger(n) && n >= 0 ? (Number.isSafeInteger(n) ? String(n) : BigInt(n).toString()) : formatGoFloat(n);
}

function labelObject(labels: readonly Label[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [n, v] of labels) out[n] = v;
  return out;
}

/** One metric as Pushgateway's /api/v1/metrics encodes it: every number a Go-formatted string. */
export function metricJson(m: Metric): Record<string, unknown> {
  const out: Record<string, unknown> = { labels: labelObject(m.labels) };
  if (m.summary !== undefined) {
    const quantiles: Record<string, string> = {};
    for (const q of m.summary.quantiles) quantiles[formatGoFloat(q.quantile)] = formatGoFloat(q.value);
    out.quantiles = quantiles;
    out.count = formatCount(m.summary.sampleCount);
    out.sum = formatGoFloat(m.summary.sampleSum);
  } else if (m.histogram !== undefined) {
    const h = m.histogram;
    const native = nativeApiView(h);
    if (native !== undefined) {
      out.buckets = native.buckets;
      out.count = native.count;
    } else {
      // A float count is shown when above 0, as Pushgateway does.
      const buckets: Record<string, string> = {};
      for (const b of h.buckets) buckets[formatGoFloat(b.upperBound)] = (b.cumulativeCountFloat ?? 0) > 0 ? formatGoFloat(b.cumulativeCountFloat as number) : formatCount(b.cumulativeCount);
      out.buckets = buckets;
      out.count = (h.sampleCountFloat ?? 0) > 0 ? formatGoFloat(h.sampleCountFloat as number) : formatCount(h.sampleCount);
    }
    out.sum = formatGoFloat(h.sampleSum);
  } else {
    out.value = formatGoFloat(m.value ?? NaN);
  }
  return out;
}

function familyJson(f: MetricFamily, atMs: number): Record<string, unknown> {
  return {
    time_stamp: formatRfc3339Nano(atMs),
    type: upperType(f.type),
    ...(f.help !== undefined && f.help !== '' ? { help: f.help } : {}),
    metrics: f.metrics.map(metricJson),
  };
}

/** Pushgateway's LastPushSuccess: no failure after the last success. */
export function lastPushSuccessful(g: Group): boolean {
  return g.pushFailureTimeSeconds <= g.pushTimeSeconds;
}

/** One element of /api/v1/metrics' `data`: labels, last_push_successful and one key per family, keys sorted as Go does. */
export function groupJson(g: Group): Record<string, unknown> {
  const entries: [string, unknown][] = [
    ['labels', labelObject(g.labels)],
    ['last_push_successful', lastPushSuccessful(g)],
  ];
  for (const [name, s] of g.families) entries.push([name, familyJson(s.family, s.pushedAtMs)]);
  const [pt, pft] = pushTimeFamilies(g);
  entries.push([PUSH_TIME, familyJson(pt, g.pushTimeSeconds * 1000)]);
  entries.push([PUSH_FAILURE_TIME, familyJson(pft, Math.max(g.pushFailureTimeSeconds, g.pushTimeSeconds) * 1000)]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return Object.fromEntries(entries);
}
