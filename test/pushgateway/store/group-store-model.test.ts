import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupingKeyId } from '../../../src/pushgateway/store/grouping-key.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import type { Label, Metric, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';
import { decodeGroups, encodeGroups } from '../../../src/pushgateway/store/persistence.js';
import { sanitizeFamily } from '../../../src/pushgateway/store/sanitize.js';

/**
 * The store against a plain model of Pushgateway's write semantics: PUT replaces the group, POST
 * only the pushed families (an empty one deletes that family), DELETE drops the group, a refused
 * push changes nothing but the failure time, and families keep their metrics in push order. Many
 * pushes are refused (types and series clash across groups), so this also checks that the
 * in-place updates of a refused push leave nothing behind, and that a persistence round trip keeps
 * it all.
 */
interface ModelGroup {
  readonly grouping: readonly Label[];
  families: Map<string, MetricFamily>;
  pushTime: number;
  failureTime: number;
}

const LONG = 'a-label-value-longer-than-13';
const label = fc.constantFrom<Label>(['a', '1'], ['a', '2'], ['b', LONG], ['b', 'x "y" \\ \n'], ['instance', 'i1'], ['job', 'j1']);
const family = fc.record({
  name: fc.constantFrom('m1', 'm2', 'm3', 'm3_sum'),
  type: fc.constantFrom<MetricType>('gauge', 'gauge', 'counter', 'summary'),
  help: fc.constantFrom(undefined, 'help', `help ${LONG}`),
  labels: fc.array(fc.uniqueArray(label, { maxLength: 2, selector: (l) => l[0] }), { maxLength: 4 }),
  value: fc.constantFrom(0, 1.5, -2, 1e21),
});
const grouping = fc.constantFrom<Label[]>([['job', 'j1']], [['job', 'j2']], [['job', 'j1'], ['instance', 'i1']], [['job', LONG]]);
const op = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('push' as const), grouping, replace: fc.boolean(), families: fc.uniqueArray(family, { maxLength: 3, selector: (f) => f.name }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), grouping }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reload' as const) }) },
);

function toFamily(f: { name: string; type: MetricType; help: string | undefined; labels: Label[][]; value: number }): MetricFamily {
  const metrics = f.labels.map((labels, i): Metric =>
    f.type === 'summary'
      ? { labels, summary: { sampleCount: i, sampleSum: f.value, quantiles: [{ quantile: 0.5, value: f.value + i }] } }
      : { labels, value: f.value + i },
  );
  return { name: f.name, help: f.help, type: f.type, metrics };
}

describe('InMemoryGroupStore against a model of Pushgateway', () => {
  it('holds what the model holds after any sequence of pushes, refusals, deletes and reloads', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), (ops) => {
        const store = new InMemoryGroupStore();
        const model = new Map<string, ModelGroup>();
        let now = 1_000_000;
        for (const o of ops) {
          now += 1000;
          if (o.kind === 'delete') {
            expect(store.delete(o.grouping, now)).toBe(model.delete(groupingKeyId(o.grouping)));
          } else if (o.kind === 'reload') {
            store.load(decodeGroups(encodeGroups(store.groups(now))));
          } else {
            const id = groupingKeyId(o.grouping);
            const families = o.families.map(toFamily);
            let refused = false;
            try {
              store.push({ grouping: o.grouping, families, replace: o.replace, nowMs: now });
            } catch {
              refused = true;
            }
            let g = model.get(id);
            if (g === undefined) {
              g = { grouping: o.grouping, families: new Map(), pushTime: 0, failureTime: 0 };
              model.set(id, g);
            }
            if (refused) g.failureTime = now / 1000;
            else {
              if (o.replace) g.families = new Map();
              for (const f of families) {
                if (f.metrics.length === 0) g.families.delete(f.name);
                else g.families.set(f.name, sanitizeFamily(f, o.grouping));
              }
              g.pushTime = now / 1000;
            }
          }
          expect(store.groupCount).toBe(model.size);
          for (const g of model.values()) {
            const held = store.get(g.grouping, now);
            expect(held).toBeDefined();
            expect([held?.pushTimeSeconds, held?.pushFailureTimeSeconds]).toEqual([g.pushTime, g.failureTime]);
            const families = [...(held?.families.values() ?? [])].map((s) => s.family).sort((a, b) => (a.name < b.name ? -1 : 1));
            expect(families).toEqual([...g.families.values()].sort((a, b) => (a.name < b.name ? -1 : 1)));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
