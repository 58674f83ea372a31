import { compareGoStrings } from '../exposition/go-string-order.js';
import type { Label, Metric, MetricFamily } from '../model.js';

/**
 * Pushgateway's label sanitizing (its disk metric store's `sanitizeLabels`): every grouping
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
 * Identity of one series (or one summary/histogram metric) as a string (for tests and tools; the
 * index uses seriesHash): the family name and
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

/**
 * A 53-bit hash of a series identity (a cyrb53-style pair of 32-bit multiplicative hashes over the
 * name and label pairs). The index keys series by it, as client_golang keys them by a 64-bit
 * xxhash: a number costs far less memory than the joined string, and a hit is confirmed against
 * the stored labels before a push is refused, so a collision can never refuse a valid push.
 */
export function seriesHash(name: string, sortedLabels: readonly Label[]): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const feed = (s: string) => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    // A separator no stored label character can be (a lone surrogate, see seriesKey).
    h1 = Math.imul(h1 ^ 0xd800, 2654435761);
    h2 = Math.imul(h2 ^ 0xd800, 1597334677);
  };
  feed(name);
  for (const [n, v] of sortedLabels) {
    feed(n);
    feed(v);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * `s` as a string of its own. The text parser hands out slices of the decoded push body (V8 shares
 * the characters of any substring of 13 or more with the string it was taken from), so a name,
 * help or label value kept from a push would keep that whole body alive for as long as it is
 * stored. Shorter strings are always copies already.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** A label whose strings are its own (see ownString); the same tuple when they are short. */
export function ownLabel(l: Label): Label {
  return l[0].length < 13 && l[1].length < 13 ? l : [ownString(l[0]), ownString(l[1])];
}

/** Same names and values in the same order. */
export function sameLabels(a: readonly Label[], b: readonly Label[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Label;
    const y = b[i] as Label;
    if (x[0] !== y[0] || x[1] !== y[1]) return false;
  }
  return true;
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
    if (va !== vb) return compareGoStrings(va, vb);
  }
  return 0;
}

/** Byte (UTF-8) order, as Go compares strings: for family names and grouping keys. */
export function compareStrings(a: string, b: string): number {
  return a === b ? 0 : compareGoStrings(a, b);
}
