import { describe, expect, it } from 'vitest';
import { overviewProviders, snapshotVersion, RecordStore } from '../../src/management/record-store.js';
import { storeWith, TRAEFIK, WEB } from './helpers.js';
import fc from 'fast-check';
import type { DynamicConfiguration } from '../../src/dynamic-config/configuration.js';
import type { RuntimeView } from '../../src/management/view/runtime-view.js';

describe('record store', () => {
  it('keeps providers side by side and swaps the view on every change', () => {
    const store = storeWith({ kubernetes: { http: { routers: { a: { rule: 'Path(`/a`)', service: 'api@internal' } } } } });
    const first = store.view;
    store.set('kubernetescrd', { configuration: { http: { routers: { b: { rule: 'Path(`/b`)', service: 'api@internal' } } } } });
    expect(store.view).not.toBe(first);
    expect(store.view.http.routers.entries.map((e) => e.name)).toEqual(['a@kubernetes', 'api@internal', 'b@kubernetescrd', 'dashboard@internal']);
    expect(first.http.routers.get('b@kubernetescrd')).toBeUndefined();
    expect(store.providers()).toEqual(['kubernetes', 'kubernetescrd']);
    expect(store.delete('kubernetes')).toBe(true);
    expect(store.delete('kubernetes')).toBe(false);
  });

  it('notifies listeners with the new view', () => {
    const store = storeWith({});
    const seen: number[] = [];
    const off = store.onChange((v) => seen.push(v.http.routers.entries.length));
    store.set('kubernetes', { configuration: { http: { routers: { a: { service: 'x' } } } } });
    off();
    store.set('kubernetes', { configuration: {} });
    expect(seen).toEqual([3]);
  });

  it('versions a snapshot by content when none is given', () => {
    const a = snapshotVersion({ configuration: { http: { routers: { a: {} } } } });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(snapshotVersion({ configuration: { http: { routers: { a: {} } } } })).toBe(a);
    expect(snapshotVersion({ configuration: { http: { routers: { b: {} } } } })).not.toBe(a);
  });

  it('lists overview providers by Traefik\'s Go field names in struct order', () => {
    expect(overviewProviders(['kubernetescrd', 'internal', 'file', 'kubernetes', 'zzz'])).toEqual(['File', 'KubernetesIngress', 'KubernetesCRD', 'plugin-zzz']);
  });
});

const P = ['a', 'b', 'c'] as const;
const ref = (names: string[]) => fc.oneof(fc.constantFrom(...names), fc.tuple(fc.constantFrom(...names), fc.constantFrom(...P, 'internal')).map(([n, p]) => `${n}@${p}`), fc.constantFrom('api@internal', 'noop@internal', 'dashboard_redirect@internal'));
const svc = ref(['s0', 's1', 's2']);
const mw = ref(['m0', 'm1']);
const rtr = ref(['r0', 'r1', 'dashboard']);
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const clean = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
const router = fc.record({ service: opt(svc), middlewares: opt(fc.array(mw, { maxLength: 2 })), parentRefs: opt(fc.array(rtr, { maxLength: 1 })), rule: fc.constantFrom('Host(`a`)', 'Path(`/x`)'), entryPoints: opt(fc.constantFrom(['web'], ['traefik'])) }).map(clean);
const service = fc.oneof(
  fc.constant({ loadBalancer: { servers: [{ url: 'http://10.0.0.1' }] } }),
  fc.array(svc, { minLength: 1, maxLength: 2 }).map((names) => ({ weighted: { services: names.map((name) => ({ name, weight: 1 })) } })),
  fc.tuple(svc, svc).map(([s, f]) => ({ failover: { service: s, fallback: f } })),
  fc.tuple(svc, svc).map(([s, m]) => ({ mirroring: { service: s, mirrors: [{ name: m, percent: 10 }] } })),
);
const middleware = fc.oneof(fc.constant({ stripPrefix: { prefixes: ['/x'] } }), fc.array(mw, { maxLength: 2 }).map((m) => ({ chain: { middlewares: m } })));
const dict = <T>(keys: string[], v: fc.Arbitrary<T>) => fc.dictionary(fc.constantFrom(...keys), v, { maxKeys: keys.length });
const configuration = fc.record({
  http: fc.record({ routers: dict(['r0', 'r1', 'dashboard'], router), services: dict(['s0', 's1', 's2'], service), middlewares: dict(['m0', 'm1'], middleware) }),
}) as unknown as fc.Arbitrary<DynamicConfiguration>;
const step = fc.record({ keep: fc.boolean(), provider: fc.constantFrom(...P), del: fc.boolean(), configuration, incremental: fc.boolean(), others: fc.boolean(), tick: fc.boolean() });

function served(view: RuntimeView): string {
  const parts = [view.rawdata().toString('utf8'), JSON.stringify(view.overview())];
  for (const kind of [view.http.routers, view.http.services, view.http.middlewares]) {
    for (const e of kind.entries) parts.push(e.json);
    for (const key of ['priority', 'status', 'rule', 'service', 'type', 'servers', 'provider']) parts.push(kind.ascending(key).map((e) => e.name).join());
  }
  return parts.join('\n');
}

const FILLER: { routers: Record<string, never>; services: Record<string, never> } = { routers: {}, services: {} };
for (let i = 0; i < 30; i++) {
  (FILLER.routers as Record<string, unknown>)[`f${i}`] = { rule: `Host(\`f${i}\`)`, service: i % 3 === 0 ? 's0' : `f${i}` };
  (FILLER.services as Record<string, unknown>)[`f${i}`] = { loadBalancer: { servers: [{ url: `http://f${i}` }] } };
}

const storeOptions = { entryPoints: [WEB, TRAEFIK], now: () => 0 };

describe('record store: providers added, removed, added again', () => {
  it('serves what a store built from scratch serves', async () => {
    let partial = 0;
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      const store = new RecordStore(storeOptions);
      const held = new Map<string, DynamicConfiguration>();
      for (const s of steps) {
        if (s.del) {
          store.delete(s.provider);
          held.delete(s.provider);
        } else {
          // Keep unchanged records as the same objects half of the time (as the decoder does).
          const http = s.configuration.http ?? {};
          const prev = held.get(s.provider)?.http;
          // Filler records, the same objects every time, and the records of the last snapshot kept
          // unless replaced: changes stay small enough to be applied incrementally.
          const configuration: DynamicConfiguration = { http: {
            routers: { ...FILLER.routers, ...(s.keep ? prev?.routers : {}), ...http.routers },
            services: { ...FILLER.services, ...(s.keep ? prev?.services : {}), ...http.services },
            middlewares: { ...(s.keep ? prev?.middlewares : {}), ...http.middlewares },
          } };
          store.set(s.provider, { configuration }, { incremental: s.incremental, othersInFlight: s.others });
          held.set(s.provider, configuration);
          if (store.lastRecomputed >= 0) partial++;
        }
        if (s.tick) await new Promise((resolve) => setImmediate(resolve));
        const fresh = new RecordStore(storeOptions);
        for (const p of store.providers().sort((x, y) => [...held.keys()].indexOf(x) - [...held.keys()].indexOf(y))) fresh.set(p, { configuration: structuredClone(held.get(p) as DynamicConfiguration) });
        expect(served(store.view)).toBe(served(fresh.view));
      }
    }), { numRuns: 400 });
    // A sanity check that the incremental and appended paths are exercised (the count varies with the seed).
    expect(partial).toBeGreaterThan(50);
  }, 300_000); // a guard, not a speed limit: 400 runs take 13 s of CPU, 36-62 s on a loaded machine
});

describe('record store: large changes', () => {
  const routers = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { rule: `Path(\`/${prefix}${i}\`)`, service: 'backend' }]));

  it('tells onLargeChange after a change that recomputed 2,000 records or more, and only then', async () => {
    const large: number[] = [];
    const store = storeWith({}, { onLargeChange: () => large.push(store.view.http.routers.entries.length) });
    store.set('kubernetes', { configuration: { http: { routers: routers(10, 'small') } } });
    expect(large).toEqual([]);
    store.set('kubernetes', { configuration: { http: { routers: routers(2_500, 'r') } } }, { incremental: true });
    expect(large).toEqual([2_502]);
    // The reference graph is prepared after the answer; then a new provider of a few records is
    // linked to the others, not recomputed with them.
    await new Promise((resolve) => setImmediate(resolve));
    store.set('file', { configuration: { http: { routers: routers(3, 'f') } } }, { incremental: true });
    expect(store.lastRecomputed).toBe(3);
    expect(large).toEqual([2_502]);
    // Removing the large provider recomputes what is left: a few records.
    store.delete('kubernetes');
    expect(large).toEqual([2_502]);
    store.set('kubernetes', { configuration: { http: { routers: routers(2_500, 'r') } } });
    store.delete('file');
    expect(large).toEqual([2_502, 2_505, 2_502]);
  });
});
