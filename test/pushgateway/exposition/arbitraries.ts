/** fast-check arbitraries for the push gateway's metric model, shared by the codec property tests. */
import fc from 'fast-check';
import type { Label, Metric, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';

const NAME_START = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_';
const NAME_REST = `${NAME_START}0123456789`;

function nameArb(start: string, rest: string): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...start), fc.array(fc.constantFrom(...rest), { maxLength: 8 }))
    .map(([a, b]) => a + b.join(''));
}

/** Valid label names, not reserved (`__` prefix). */
export const labelNameArb = nameArb(NAME_START, NAME_REST).filter((n) => !n.startsWith('__'));

/**
 * Metric names that cannot be mistaken for another family's `_sum`/`_count`/`_bucket` series
 * (the text format legitimately merges those, which is not what a round trip test is about).
 */
export const metricNameArb = nameArb(`${NAME_START}:`, `${NAME_REST}:`).filter(
  (n) => !/_(sum|count|bucket)$/.test(n) && !n.startsWith('__'),
);

/** Any well-formed string: unicode, quotes, backslashes, newlines, control characters. */
export const textArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', ' ', '/', '%', '+', '=', '\t', 'é', '😀'), maxLength: 8 }),
);

const countArb = fc.oneof(fc.nat(), fc.constantFrom(0, 1, 2 ** 53 - 1, 1234567));

function labelsArb(reserved: string | undefined): fc.Arbitrary<Label[]> {
  return fc
    .uniqueArray(
      fc.tuple(
        labelNameArb.filter((n) => n !== reserved),
        textArb,
      ),
      { selector: (l) => l[0], maxLength: 4 },
    )
    .map((ls) => ls.map(([n, v]) => [n, v] as Label));
}

function metricArb(type: MetricType, withTimestamps: boolean): fc.Arbitrary<Metric> {
  const reserved = type === 'summary' ? 'quantile' : type === 'histogram' ? 'le' : undefined;
  const ts = withTimestamps
    ? fc.option(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), { nil: undefined })
    : fc.constant(undefined);
  const body: fc.Arbitrary<Partial<Metric>> =
    type === 'summary'
      ? fc.record({
          summary: fc.record({
            sampleCount: countArb,
            sampleSum: fc.double(),
            quantiles: fc.array(fc.record({ quantile: fc.double(), value: fc.double() }), { maxLength: 4 }),
          }),
        })
      : type === 'histogram'
        ? fc.record({
            histogram: fc.record({
              sampleCount: countArb,
              sampleSum: fc.double(),
              buckets: fc.array(fc.record({ upperBound: fc.double(), cumulativeCount: countArb }), { maxLength: 4 }),
            }),
          })
        : fc.record({ value: fc.double() });
  return fc.tuple(labelsArb(reserved), body, ts).map(([labels, b, timestampMs]) => {
    const m: Metric = { labels, ...b };
    return timestampMs === undefined ? m : { ...m, timestampMs };
  });
}

function signature(labels: readonly Label[]): string {
  return [...labels]
    .map(([n, v]) => `${n}\xff${v}`)
    .sort()
    .join('\xfe');
}

export const metricTypeArb = fc.constantFrom<MetricType>('counter', 'gauge', 'untyped', 'summary', 'histogram');

export function familyArb(withTimestamps: boolean, name: fc.Arbitrary<string> = metricNameArb): fc.Arbitrary<MetricFamily> {
  return fc
    .tuple(name, fc.option(textArb, { nil: undefined }), metricTypeArb)
    .chain(([n, help, type]) =>
      fc
        .uniqueArray(metricArb(type, withTimestamps), { minLength: 1, maxLength: 4, selector: (m) => signature(m.labels) })
        .map((metrics): MetricFamily => ({ name: n, help, type, metrics })),
    );
}

/** Families with distinct names. */
export function familiesArb(withTimestamps: boolean): fc.Arbitrary<MetricFamily[]> {
  return fc.uniqueArray(familyArb(withTimestamps), { maxLength: 5, selector: (f) => f.name });
}

/** What the text format cannot carry, removed from generated families before comparing. */
export function normalizeForText(f: MetricFamily): MetricFamily {
  const zero = (v: number): number => (Object.is(v, -0) ? 0 : v);
  const help = f.help?.replace(/^[ \t]+/, '');
  const metrics = f.metrics.map((m): Metric => {
    const base: Metric = m.timestampMs === undefined ? { labels: m.labels } : { labels: m.labels, timestampMs: m.timestampMs };
    if (m.summary) {
      return {
        ...base,
        summary: {
          sampleCount: m.summary.sampleCount,
          sampleSum: zero(m.summary.sampleSum),
          // A NaN quantile cannot be told from "no quantile label".
          quantiles: m.summary.quantiles
            .filter((q) => !Number.isNaN(q.quantile))
            .map((q) => ({ quantile: zero(q.quantile), value: zero(q.value) })),
        },
      };
    }
    if (m.histogram) {
      const buckets = m.histogram.buckets
        .filter((b) => !Number.isNaN(b.upperBound))
        .map((b) => ({ upperBound: zero(b.upperBound), cumulativeCount: b.cumulativeCount }));
      // client_golang adds the +Inf bucket when it is missing.
      if (!m.histogram.buckets.some((b) => b.upperBound === Infinity)) {
        buckets.push({ upperBound: Infinity, cumulativeCount: m.histogram.sampleCount });
      }
      return { ...base, histogram: { sampleCount: m.histogram.sampleCount, sampleSum: zero(m.histogram.sampleSum), buckets } };
    }
    return { ...base, value: zero(m.value ?? 0) };
  });
  return { name: f.name, help: help === '' ? undefined : help, type: f.type, metrics };
}

