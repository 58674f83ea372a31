import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderFamiliesOpenMetrics } from '../../../src/pushgateway/exposition/openmetrics-encoder.js';
import { renderFamiliesText } from '../../../src/pushgateway/exposition/text-encoder.js';
import { pushTimeFamilies, type Group } from '../../../src/pushgateway/store/group.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import type { Label, Metric, MetricFamily } from '../../../src/pushgateway/model.js';
import { compareMetricLabels, compareStrings } from '../../../src/pushgateway/store/sanitize.js';

/** The exposition computed from scratch from the groups, the way Pushgateway does on every scrape. */
function naive(groups: readonly Group[]): MetricFamily[] {
  const byName = new Map<string, { help: string | undefined; type: MetricFamily['type']; metrics: { m: Metric; id: string }[] }>();
  for (const g of groups) {
    for (const f of [...[...g.families.values()].map((s) => s.family), ...pushTimeFamilies(g)]) {
      let acc = byName.get(f.name);
      if (acc === undefined) {
        // Groups come in grouping-key order, so the first one seen gives the help.
        acc = { help: f.help, type: f.type, metrics: [] };
        byName.set(f.name, acc);
      }
      for (const m of f.metrics) acc.metrics.push({ m, id: g.id });
    }
  }
  return [...byName.entries()]
    .sort((a, b) => compareStrings(a[0], b[0]))
    .map(([name, acc]) => ({
      name,
      help: acc.help,
      type: acc.type,
      metrics: acc.metrics.sort((a, b) => compareMetricLabels(a.m.labels, b.m.labels) || compareStrings(a.id, b.id)).map((x) => x.m),
    }));
}

// Values with a space, a quote, a backslash and a newline: OpenMetrics lines reuse the text's label set.
const label = fc.constantFrom<Label>(['a', '1'], ['a', '2'], ['b', 'x'], ['b', ''], ['b', 'x y "q" \\ \n'], ['instance', 'i1']);
/** One type per name, so that most pushes are accepted; counters with and without `_total`. */
const TYPES: Record<string, MetricFamily['type']> = { m1: 'gauge', m2: 'counter', m3_total: 'counter', m4: 'untyped', m5: 'summary' };
const family = fc.record({
  name: fc.constantFrom('m1', 'm2', 'm3_total', 'm4', 'm5'),
  help: fc.constantFrom(undefined, 'help one', 'help two'),
  metrics: fc.uniqueArray(fc.uniqueArray(label, { maxLength: 2, selector: (l) => l[0] }), {
    minLength: 1,
    maxLength: 3,
    selector: (ls) => JSON.stringify([...ls].sort()),
  }),
  value: fc.double({ noNaN: true }),
});
const op = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), job: fc.constantFrom('j1', 'j2', 'j3'), replace: fc.boolean(), families: fc.uniqueArray(family, { maxLength: 3, selector: (f) => f.name }) }),
  fc.record({ kind: fc.constant('delete' as const), job: fc.constantFrom('j1', 'j2', 'j3') }),
);

describe('ExpositionCache (through the store)', () => {
  it('always equals the exposition computed from scratch, in text and OpenMetrics', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
        const store = new InMemoryGroupStore();
        let now = 1_000_000;
        for (const o of ops) {
          now += 1000;
          if (o.kind === 'delete') {
            store.delete([['job', o.job]], now);
            continue;
          }
          const families: MetricFamily[] = o.families.map((f) => ({
            name: f.name,
            help: f.help,
            type: TYPES[f.name] ?? 'gauge',
            metrics: f.metrics.map((labels, i) =>
              TYPES[f.name] === 'summary'
                ? { labels, summary: { sampleCount: i + 1, sampleSum: f.value, quantiles: [{ quantile: 0.5, value: f.value + i }] } }
                : { labels, value: f.value + i },
            ),
          }));
          try {
            store.push({ grouping: [['job', o.job]], families, replace: o.replace, nowMs: now });
          } catch {
            // refused pushes (duplicate series) must leave the cache consistent too
          }
          const expected = naive(store.groups(now));
          expect(store.rendered(now).map((f) => f.text).join('')).toBe(renderFamiliesText(expected));
          expect(store.rendered(now, 'openmetrics').map((f) => f.text).join('') + '# EOF\n').toBe(renderFamiliesOpenMetrics(expected));
        }
      }),
      { numRuns: 150 },
    );
  });
});
