import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConsistencyError } from '../../../src/pushgateway/errors.js';
import { InMemoryGroupStore, type InMemoryGroupStoreOptions } from '../../../src/pushgateway/store/group-store.js';
import type { Label, Metric, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';
import { sanitizeFamily, seriesKey } from '../../../src/pushgateway/store/sanitize.js';

type State = Map<string, Map<string, MetricFamily>>;

/** What Pushgateway's full Gather over the whole store would say, computed from scratch. */
function consistent(state: State): boolean {
  const types = new Map<string, MetricType>();
  const series = new Set<string>();
  for (const families of state.values()) {
    for (const f of families.values()) {
      const t = types.get(f.name);
      if (t !== undefined && t !== f.type) return false;
      types.set(f.name, f.type);
      for (const m of f.metrics) {
        const key = seriesKey(f.name, m.labels);
        if (series.has(key)) return false;
        series.add(key);
      }
    }
  }
  for (const [name, t] of types) {
    const suffixes = t === 'summary' ? ['_sum', '_count'] : t === 'histogram' ? ['_sum', '_count', '_bucket'] : [];
    if (suffixes.some((s) => types.has(name + s))) return false;
  }
  return true;
}

function metricOf(type: MetricType, labels: Label[], v: number): Metric {
  if (type === 'summary') return { labels, summary: { sampleCount: v, sampleSum: v, quantiles: [] } };
  if (type === 'histogram') return { labels, histogram: { sampleCount: v, sampleSum: v, buckets: [{ upperBound: Infinity, cumulativeCount: v }] } };
  return { labels, value: v };
}

const label = fc.constantFrom<Label>(['x', '1'], ['x', '2'], ['job', 'j1'], ['g', 'a']);
const family = fc.record({
  name: fc.constantFrom('m', 'm_sum', 'm_count', 'm_bucket', 'n'),
  type: fc.constantFrom<MetricType>('gauge', 'counter', 'summary', 'histogram'),
  metrics: fc.array(fc.uniqueArray(label, { maxLength: 2, selector: (l) => l[0] }), { minLength: 1, maxLength: 2 }),
});
const push = fc.record({
  job: fc.constantFrom('j1', 'j2'),
  g: fc.constantFrom(undefined, 'a'),
  replace: fc.boolean(),
  families: fc.uniqueArray(family, { maxLength: 3, selector: (f) => f.name }),
});

function groupingOf(p: { job: string; g: string | undefined }): Label[] {
  return p.g === undefined ? [['job', p.job]] : [['g', p.g], ['job', p.job]];
}

interface ModelPush {
  job: string;
  g: string | undefined;
  replace: boolean;
  families: { name: string; type: MetricType; metrics: Label[][] }[];
}

/** The families of a model push, as the store is given them. */
function familiesOf(p: ModelPush): MetricFamily[] {
  return p.families.map((f) => ({ name: f.name, help: undefined, type: f.type, metrics: f.metrics.map((ls, i) => metricOf(f.type, ls, i)) }));
}

/** Group `key` of `state` as the push of `families` leaves it (PUT replaces it, POST only the pushed families). */
function groupAfter(state: State, key: string, p: ModelPush, families: readonly MetricFamily[]): Map<string, MetricFamily> {
  const group = p.replace ? new Map<string, MetricFamily>() : new Map(state.get(key) ?? []);
  for (const f of families) group.set(f.name, sanitizeFamily(f, groupingOf(p)));
  return group;
}

/** Runs 300 random sequences of up to `maxLength` steps, each against a fresh store. */
function forEverySequence<T>(step: fc.Arbitrary<T>, maxLength: number, run: (store: InMemoryGroupStore, steps: T[]) => void, opts?: InMemoryGroupStoreOptions): void {
  fc.assert(
    fc.property(fc.array(step, { maxLength }), (steps) => run(new InMemoryGroupStore(opts), steps)),
    { numRuns: 300 },
  );
}

/**
 * Pushes to the store and to the model state; checks that the store accepts exactly when the
 * model after the push would be consistent. Returns whether it was accepted.
 */
function pushBoth(store: InMemoryGroupStore, state: State, p: ModelPush, nowMs: number, ttlMs?: number): boolean {
  const grouping = groupingOf(p);
  const key = JSON.stringify(grouping);
  const families = familiesOf(p);
  const next: State = new Map([...state].map(([k, v]) => [k, new Map(v)]));
  const group = groupAfter(next, key, p, families);
  next.set(key, group);
  let accepted = true;
  try {
    store.push({ grouping, families, replace: p.replace, nowMs, ttlMs });
  } catch (err) {
    if (!(err instanceof ConsistencyError)) throw err;
    accepted = false;
  }
  expect(accepted).toBe(consistent(next));
  if (accepted) state.set(key, group);
  else if (!state.has(key)) state.set(key, new Map());
  return accepted;
}


describe('ConsistencyIndex', () => {
  it('accepts a push exactly when the whole store would stay consistent (same outcome as a full check)', () => {
    forEverySequence(push, 20, (store, pushes) => {
      const state: State = new Map();
      for (const p of pushes) pushBoth(store, state, p, 1);
    });
  });
});

const op = fc.oneof(
  { weight: 6, arbitrary: push.chain((p) => fc.constantFrom(undefined, 2, 5).map((ttl) => ({ kind: 'push' as const, ...p, ttl }))) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), job: fc.constantFrom('j1', 'j2'), g: fc.constantFrom(undefined, 'a') }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wipe' as const }) },
);

function seriesIn(state: State): number {
  let n = 0;
  for (const families of state.values()) for (const f of families.values()) n += f.metrics.length;
  return n;
}

describe('ConsistencyIndex after deletes, wipes and TTL expiry', () => {
  it('keeps the same outcome as a full check and releases every series and type it no longer holds', () => {
    forEverySequence(op, 25, (store, ops) => {
      let state: State = new Map();
      const expiry = new Map<string, number | undefined>();
      ops.forEach((o, now) => {
        for (const [key, at] of expiry) {
          if (at !== undefined && at <= now) {
            state.delete(key);
            expiry.delete(key);
          }
        }
        if (o.kind === 'wipe') {
          store.wipe();
          state = new Map();
          expiry.clear();
        } else {
          const key = JSON.stringify(groupingOf(o));
          if (o.kind === 'delete') {
            store.delete(groupingOf(o), now);
            state.delete(key);
            expiry.delete(key);
          } else {
            const existed = state.has(key);
            const accepted = pushBoth(store, state, o, now, o.ttl);
            if (accepted || !existed) expiry.set(key, o.ttl === undefined ? undefined : now + o.ttl);
          }
        }
        expect(store.groupCount).toBe(state.size);
        expect(store.seriesCount).toBe(seriesIn(state));
      });
    });
  });
});

describe('ConsistencyIndex with the check disabled (--push.disable-consistency-check)', () => {
  it('stores every push and reports an inconsistency exactly while the store is inconsistent', () => {
    forEverySequence(op, 25, (store, ops) => {
      let state: State = new Map();
      ops.forEach((o, now) => {
        if (o.kind === 'wipe') {
          store.wipe();
          state = new Map();
        } else if (o.kind === 'delete') {
          store.delete(groupingOf(o), now);
          state.delete(JSON.stringify(groupingOf(o)));
        } else {
          const grouping = groupingOf(o);
          const key = JSON.stringify(grouping);
          const families = familiesOf(o);
          state.set(key, groupAfter(state, key, o, families));
          // No TTL here: expiry is covered above, and the model would have to follow it.
          store.push({ grouping, families, replace: o.replace, nowMs: now });
        }
        expect({ step: now, inconsistent: store.inconsistency() !== undefined }).toEqual({ step: now, inconsistent: !consistent(state) });
        expect(store.groupCount).toBe(state.size);
      });
    }, { checkConsistency: false });
  });
});
