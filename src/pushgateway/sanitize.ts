import type { Label, Metric, MetricFamily } from './model.js';

/**
 * Pushgateway's label sanitizing (storage/diskmetricstore.go `sanitizeLabels`): every grouping
 * label overwrites the metric's label of the same name or is appended, `instance=""` is added
 * when the metric has no instance label, and the pairs end up sorted by name.
 */
export function sanitizeLabels(labels: readonly Label[], grouping: readonly Label[]): Label[] {
  // The label tuples are reused rather than copied: every metric of a push shares the grouping
  // key's tuples, which matters for memory with many series.
  const out: Label[] = [];
  let hasInstance = false;
  outer: for (const l of labels) {
    for (const g of grouping) if (g[0] === l[0]) continue outer;
    if (l[0] === 'instance') hasInstance = true;
    out.push(l);
  }
  for (const g of grouping) {
    if (g[0] === 'instance') hasInstance = true;
    out.push(g);
  }
  if (!hasInstance) out.push(EMPTY_INSTANCE);
  return out.sort(byLabelName);
}

const EMPTY_INSTANCE: Label = ['instance', ''];

function byLabelName(a: Label, b: Label): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** Returns the family with every metric's labels sanitized against the grouping key. */
export function sanitizeFamily(family: MetricFamily, grouping: readonly Label[]): MetricFamily {
  return {
    ...family,
    metrics: family.metrics.map((m): Metric => ({ ...m, labels: sanitizeLabels(m.labels, grouping) })),
  };
}

/**
 * Identity of one series (or one summary/histogram metric) across the store: the family name and
 * the sorted label pairs joined by a lone surrogate (U+D800). Prometheus joins with the byte 0xFF,
 * which valid UTF-8 cannot contain; a JS string can hold U+00FF, but never a lone surrogate in a
 * stored label (they are refused as invalid UTF-8), so two label sets never share a key.
 */
export function seriesKey(name: string, sortedLabels: readonly Label[]): string {
  // join() gives one flat string; `+=` would keep a tree of pieces alive in the index.
  const parts: string[] = [name];
  for (const [n, v] of sortedLabels) parts.push(n, v);
  return parts.join('\uD800');
}

/** `{a="1",b="2"}` for messages; values JSON-quoted so that odd characters stay visible. */
export function formatLabelSet(labels: readonly Label[]): string {
  return `{${labels.map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(',')}}`;
}

/**
 * Pushgateway's order of metrics within a family (client_golang internal.NormalizeMetricFamilies):
 * fewer labels first, then label values compared position by position (names are not compared).
 */
export function compareMetricLabels(a: readonly Label[], b: readonly Label[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const va = (a[i] as Label)[1];
    const vb = (b[i] as Label)[1];
    if (va !== vb) return va < vb ? -1 : 1;
  }
  return 0;
}

/** Byte-order comparison used for family names and grouping keys. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
