import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DynamicConfiguration, ProviderSnapshot } from '../../../src/dynamic-config/configuration.js';
import type { Middleware, Router, Service } from '../../../src/dynamic-config/http.js';
import { RecordStore, type RecordStoreOptions } from '../../../src/management/record-store.js';
import { RouterMemo, sameJson } from '../../../src/management/runtime/router-memo.js';
import type { RuntimeView } from '../../../src/management/view/runtime-view.js';
import { TRAEFIK, WEB, WEBSECURE } from '../helpers.js';

// Small name pools, so routers, services and middlewares of different providers meet.
const PROVIDERS = ['kubernetes', 'kubernetescrd', 'file'];
const name = fc.constantFrom('a', 'b', 'c', 'd');
const ref = fc.oneof(name, fc.tuple(name, fc.constantFrom(...PROVIDERS, 'internal')).map(([n, p]) => `${n}@${p}`), fc.constant(''));

const router: fc.Arbitrary<Router> = fc.record({
  entryPoints: fc.subarray(['web', 'websecure', 'traefik', 'nope']),
  middlewares: fc.array(ref, { maxLength: 3 }),
  service: ref,
  rule: fc.constantFrom('Host(`x`)', 'PathPrefix(`/é`)', ''),
  priority: fc.constantFrom(0, 5, 9223372036854775000),
  parentRefs: fc.array(ref, { maxLength: 1 }),
  observability: fc.record({ accessLogs: fc.boolean(), traceVerbosity: fc.constantFrom('', 'detailed') }, { requiredKeys: [] }),
}, { requiredKeys: [] });

const configuration: fc.Arbitrary<DynamicConfiguration> = fc.record({
  http: fc.record({
    routers: fc.dictionary(name, router, { maxKeys: 4 }),
    services: fc.dictionary(name, fc.oneof<fc.Arbitrary<Service>[]>(
      fc.constant({ loadBalancer: { servers: [{ url: 'http://x' }] } }),
      fc.constant({}),
      ref.map((s) => ({ failover: { service: s } })),
    ), { maxKeys: 3 }),
    middlewares: fc.dictionary(name, fc.oneof<fc.Arbitrary<Middleware>[]>(
      fc.constant({ stripPrefix: { prefixes: ['/x'] } }),
      fc.array(ref, { maxLength: 2 }).map((m) => ({ chain: { middlewares: m } })),
    ), { maxKeys: 3 }),
  }),
});

/** A step: set a provider's snapshot (sometimes a copy of its current one), or delete it. */
const step = fc.oneof(
  fc.record({ provider: fc.constantFrom(...PROVIDERS), configuration }),
  fc.record({ provider: fc.constantFrom(...PROVIDERS), copy: fc.constant(true) }),
  fc.record({ provider: fc.constantFrom(...PROVIDERS), remove: fc.constant(true) }),
);

/** Everything the view serves, as text. */
function served(view: RuntimeView): string {
  const parts = [view.rawdata().toString('utf8')];
  for (const kind of [view.http.routers, view.http.services, view.http.middlewares]) {
    for (const e of kind.entries) parts.push(e.json);
    for (const key of ['priority', 'status', 'rule', 'service']) parts.push(kind.ascending(key).map((e) => e.name).join());
  }
  return parts.join('\n');
}

function storeOptions(buildRouters: boolean): RecordStoreOptions {
  return { entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => 0, runtime: { buildRouters } };
}

describe('runtime memo', () => {
  it('an incremental store serves exactly what a store built from scratch serves', () => {
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), (steps, buildRouters) => {
      const store = new RecordStore(storeOptions(buildRouters));
      const current = new Map<string, ProviderSnapshot>();
      for (const s of steps) {
        if ('remove' in s) {
          store.delete(s.provider);
          current.delete(s.provider);
        } else {
          const previous = current.get(s.provider);
          // A deep copy: equal records that are not the same objects, as an operator re-sends them.
          const snapshot = 'copy' in s ? (previous ? structuredClone(previous) : { configuration: {} }) : { configuration: s.configuration };
          store.set(s.provider, snapshot);
          current.set(s.provider, snapshot);
        }
        const fresh = new RecordStore(storeOptions(buildRouters));
        for (const [p, snap] of current) fresh.set(p, structuredClone(snap));
        expect(served(store.view)).toBe(served(fresh.view));
      }
    }), { numRuns: 200 });
  });

  it('forgets everything when the entry point defaults change', () => {
    const memo = new RouterMemo();
    const r: Router = { rule: 'Host(`x`)', service: 's' };
    memo.begin({ defaults: ['web'], build: true });
    expect(memo.prepare(r, 'r', 'p', { defaults: ['web'], build: true }).config.entryPoints).toEqual(['web']);
    memo.commit();
    memo.begin({ defaults: ['websecure'], build: true });
    expect(memo.prepare(structuredClone(r), 'r', 'p', { defaults: ['websecure'], build: true }).config.entryPoints).toEqual(['websecure']);
  });

  it('reuses the prepared router only for an equal record under the same name and provider', () => {
    const memo = new RouterMemo();
    const ctx = { defaults: ['web'], build: true };
    memo.begin(ctx);
    const first = memo.prepare({ service: 's', middlewares: ['m'] }, 'r', 'p', ctx);
    memo.commit();
    memo.begin(ctx);
    expect(memo.prepare({ service: 's', middlewares: ['m'] }, 'r', 'p', ctx)).toBe(first);
    expect(memo.prepare({ service: 's', middlewares: ['m'] }, 'r', 'q', ctx).service).toBe('s@q');
    expect(memo.prepare({ service: 's', middlewares: ['n'] }, 'x', 'p', ctx).middlewareRefs).toEqual(['n@p']);
    expect(first.built.middlewares).toEqual(['m@p']);
  });

  it('compares JSON values with key order', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson({ a: null }, { a: undefined })).toBe(false);
    expect(sameJson({ a: [] }, { a: [1] })).toBe(false);
    // Objects that are not plain (a YAML timestamp) are equal only to themselves: no keys to compare.
    const day = new Date(0);
    expect(sameJson({ a: day }, { a: new Date(86_400_000) })).toBe(false);
    expect(sameJson({ a: day }, { a: day })).toBe(true);
    expect(sameJson({ a: new Map([['x', 1]]) }, { a: new Map([['x', 2]]) })).toBe(false);
  });
});
