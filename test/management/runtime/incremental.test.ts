import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DynamicConfiguration } from '../../../src/dynamic-config/configuration.js';
import { computeRuntime, type EntryPointDef, type ProviderInput } from '../../../src/management/runtime/runtime.js';
import { IncrementalRuntime } from '../../../src/management/runtime/incremental.js';
import { SORT_KEYS } from '../../../src/management/view/kind-view.js';
import { RuntimeView } from '../../../src/management/view/runtime-view.js';

// The incremental runtime against the full computation: random providers, then random edits that
// keep most records as the same objects (as the snapshot-lines decoder does), reorder keys, add
// and remove records and providers. Every record's JSON must be equal after every step.

const ENTRY_POINTS: EntryPointDef[] = [
  { name: 'web', address: ':80', protocol: 'tcp', isDefault: true },
  { name: 'dns', address: ':53/udp', protocol: 'udp', isDefault: false },
];

const svcName = fc.constantFrom('s0', 's1', 's2', 's3', 's0@b', 's1@a', 'gone', '');
const mwName = fc.constantFrom('m0', 'm1', 'm2', 'm0@b', 'm1@a', 'nope');
const routerName = fc.constantFrom('r0', 'r1', 'r2', 'r3', 'r4', 'r0@b');
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const clean = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

const router = fc.record({
  entryPoints: opt(fc.constantFrom(['web'], ['nope'], [], ['web', 'nope'])),
  service: opt(svcName),
  middlewares: opt(fc.array(mwName, { maxLength: 2 })),
  parentRefs: opt(fc.array(routerName, { maxLength: 1 })),
  rule: fc.constantFrom('Host(`a`)', 'Path(`/x`)'),
  priority: opt(fc.constantFrom(0, 5)),
  // TLS options on a rule with no host split the router into per-entry-point copies (tls-conflicts.ts).
  tls: opt(fc.constantFrom({}, { options: 'strict' }, { options: 'default' })),
}).map(clean);
const service = fc.oneof(
  fc.constant({ loadBalancer: { servers: [{ url: 'http://10.0.0.1' }] } }),
  fc.array(svcName, { minLength: 1, maxLength: 2 }).map((names) => ({ weighted: { services: names.map((name) => ({ name, weight: 1 })) } })),
  svcName.map((s) => ({ failover: { service: s, fallback: 's0' } })),
  fc.constant({}),
  fc.constant({ loadBalancer: { servers: [] }, weighted: { services: [] } }),
);
const middleware = fc.oneof(
  fc.constant({ headers: { customRequestHeaders: { a: 'b' } } }),
  fc.array(mwName, { maxLength: 2 }).map((middlewares) => ({ chain: { middlewares } })),
  fc.constant({}),
);
const tcpRouter = fc.record({ service: opt(fc.constantFrom('t0', 't1', 'gone')), rule: fc.constantFrom('HostSNI(`*`)', 'HostSNI(`a`)', ''), middlewares: opt(fc.array(fc.constantFrom('tm0', 'x'), { maxLength: 1 })) }).map(clean);
const tcpService = fc.oneof(fc.constant({ loadBalancer: { servers: [{ address: '10.0.0.1:1' }] } }), fc.constantFrom('t0', 't1').map((n) => ({ weighted: { services: [{ name: n }] } })));
const udpRouter = fc.record({ entryPoints: fc.constant(['dns']), service: fc.constantFrom('u0', 'u1') });

const dict = <T>(keys: string[], value: fc.Arbitrary<T>) => fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length });
const configuration: fc.Arbitrary<DynamicConfiguration> = fc.record({
  http: fc.record({
    routers: dict(['r0', 'r1', 'r2', 'r3', 'r4'], router),
    services: dict(['s0', 's1', 's2', 's3'], service),
    middlewares: dict(['m0', 'm1', 'm2'], middleware),
  }),
  tcp: fc.record({ routers: dict(['q0', 'q1'], tcpRouter), services: dict(['t0', 't1'], tcpService), middlewares: dict(['tm0'], fc.constant({ ipAllowList: {} })) }),
  udp: fc.record({ routers: dict(['v0'], udpRouter), services: dict(['u0'], fc.constant({ loadBalancer: { servers: [{ address: '1.1.1.1:53' }] } })) }),
}) as unknown as fc.Arbitrary<DynamicConfiguration>;

type Maps = Record<string, Record<string, Record<string, unknown>>>;

/** A new configuration object that keeps the records `fresh` does not replace, in a possibly new order. */
function edit(old: DynamicConfiguration, fresh: DynamicConfiguration, keep: boolean[], reverse: boolean): DynamicConfiguration {
  const out: Maps = {};
  let k = 0;
  for (const protocol of ['http', 'tcp', 'udp'] as const) {
    const a = (old as Maps)[protocol] ?? {};
    const b = (fresh as Maps)[protocol] ?? {};
    out[protocol] = {};
    for (const kind of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const merged: Record<string, unknown> = {};
      const names = [...new Set([...Object.keys(a[kind] ?? {}), ...Object.keys(b[kind] ?? {})])];
      if (reverse) names.reverse();
      for (const name of names) {
        const choice = keep[k++ % keep.length];
        const value = choice ? (a[kind]?.[name] ?? b[kind]?.[name]) : b[kind]?.[name];
        if (value !== undefined) merged[name] = value;
      }
      (out[protocol] as Record<string, unknown>)[kind] = merged;
    }
  }
  return out as DynamicConfiguration;
}

/**
 * Every entry's JSON; with `orders`, also every sorted order and status filter (made on the view,
 * so the next view patches or keeps them).
 */
function shown(view: RuntimeView, orders = false): string[] {
  const out: string[] = [];
  for (const kinds of [view.http, view.tcp, view.udp]) {
    for (const kind of Object.values(kinds)) {
      for (const e of kind.entries) out.push(`${e.name} ${e.json} ${e.raw}`);
      if (!orders) continue;
      for (const key of SORT_KEYS[kind.kind]) out.push(`${key}: ${kind.ascending(key).map((e) => e.name).join()}`);
      for (const status of ['enabled', 'warning', 'disabled']) out.push(`${status}: ${kind.filtered('name', status, '').map((e) => e.name).join()}`);
      out.push(JSON.stringify(kind.counts()));
    }
  }
  return out;
}

const step = fc.record({
  provider: fc.constantFrom('a', 'b'),
  fresh: configuration,
  keep: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
  reverse: fc.boolean(),
  drop: fc.boolean(),
  serverStatus: fc.boolean(),
  sortFirst: fc.boolean(),
});

describe('incremental runtime', () => {
  // fullRatio Infinity: every change incremental; 0: every change computed from scratch, keeping
  // the records that show the same (reuse.ts), the view patched or kept from the previous one.
  it.each([Infinity, 0])('equals the full computation after every change (fullRatio %s)', (fullRatio) => {
    fc.assert(fc.property(configuration, configuration, fc.array(step, { minLength: 1, maxLength: 8 }), fc.boolean(), (ca, cb, steps, build) => {
      const options = { buildRouters: build };
      const inc = new IncrementalRuntime(ENTRY_POINTS, options, fullRatio);
      let inputs: ProviderInput[] = [{ provider: 'a', configuration: ca }, { provider: 'b', configuration: cb }];
      let view = new RuntimeView(inc.compute(inputs), ENTRY_POINTS, []);
      for (const s of steps) {
        const at = inputs.findIndex((i) => i.provider === s.provider);
        if (s.drop && at !== -1 && inputs.length > 1) {
          inputs = inputs.filter((_, i) => i !== at);
        } else {
          const old = at === -1 ? {} : (inputs[at] as ProviderInput).configuration;
          const next: ProviderInput = {
            provider: s.provider, configuration: edit(old, s.fresh, s.keep, s.reverse),
            ...(s.serverStatus ? { serverStatus: { s0: { 'http://10.0.0.1': 'DOWN' as const } } } : {}),
          };
          inputs = at === -1 ? [...inputs, next] : inputs.map((i, n) => (n === at ? next : i));
        }
        inc.prepare();
        // With what the runtime says it recomputed: the view is patched from the previous one.
        view = new RuntimeView(inc.compute(inputs), ENTRY_POINTS, [], view, inc.lastChanges);
        const full = new RuntimeView(computeRuntime(inputs, ENTRY_POINTS, options), ENTRY_POINTS, []);
        expect(shown(view, s.sortFirst)).toEqual(shown(full, s.sortFirst));
        expect(view.rawdata().toString()).toBe(full.rawdata().toString());
      }
    }), { numRuns: 300 });
  });

  it('computes a provider added after the others alone when no reference crosses, and equals the full computation either way', () => {
    fc.assert(fc.property(configuration, configuration, configuration, fc.boolean(), fc.boolean(), fc.boolean(), (ca, cb, cc, build, prepared, prepareBeforeEdit) => {
      const options = { buildRouters: build };
      const inc = new IncrementalRuntime(ENTRY_POINTS, options);
      let inputs: ProviderInput[] = [{ provider: 'a', configuration: ca }];
      let view = new RuntimeView(inc.compute(inputs), ENTRY_POINTS, []);
      for (const [provider, configuration] of [['b', cb], ['c', cc]] as const) {
        if (prepared) inc.prepare();
        inputs = [...inputs, { provider, configuration, serverStatus: { s0: { 'http://10.0.0.1': 'DOWN' as const } } }];
        view = new RuntimeView(inc.compute(inputs), ENTRY_POINTS, [], view, inc.lastChanges);
        const full = new RuntimeView(computeRuntime(inputs, ENTRY_POINTS, options), ENTRY_POINTS, []);
        expect(shown(view)).toEqual(shown(full));
        expect(view.rawdata().toString()).toBe(full.rawdata().toString());
      }
      // Then small changes, incremental once prepared (the last provider's records linked by the
      // preparation, or else by the change itself), still equal.
      if (prepareBeforeEdit) inc.prepare();
      // One service of the last provider replaced by an equal new object: its users are recomputed.
      inputs = inputs.map((i) => {
        const services = i.configuration.http?.services ?? {};
        const first = Object.keys(services)[0];
        if (i.provider !== 'c' || first === undefined) return i;
        return { ...i, configuration: { ...i.configuration, http: { ...i.configuration.http, services: { ...services, [first]: { ...services[first] } } } } };
      });
      view = new RuntimeView(inc.compute(inputs), ENTRY_POINTS, [], view, inc.lastChanges);
      const full = new RuntimeView(computeRuntime(inputs, ENTRY_POINTS, options), ENTRY_POINTS, []);
      expect(shown(view)).toEqual(shown(full));
    }), { numRuns: 300 });
  });

  it('computes only the records of a provider added without references to or from the others', () => {
    const records = (prefix: string, ref = '') => {
      const routers: Record<string, object> = {};
      const services: Record<string, object> = {};
      for (let i = 0; i < 10; i++) {
        routers[`${prefix}r${i}`] = { rule: `Host(\`h${i}\`)`, service: `${prefix}s${i}${i === 0 ? ref : ''}` };
        services[`${prefix}s${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.0.${i}` }] } };
      }
      return { http: { routers, services } };
    };
    const inc = new IncrementalRuntime(ENTRY_POINTS);
    const a: ProviderInput = { provider: 'a', configuration: records('a') };
    inc.compute([a]);
    inc.compute([a, { provider: 'b', configuration: records('b') }]);
    expect(inc.lastRecomputed).toBe(20);
    // A reference from the new provider to an existing one: computed whole.
    const again = new IncrementalRuntime(ENTRY_POINTS);
    again.compute([a]);
    again.compute([a, { provider: 'b', configuration: records('b', '@a') }]);
    expect(again.lastRecomputed).toBe(-1);
    // A reference from an existing provider to the new one: computed whole.
    const other = new IncrementalRuntime(ENTRY_POINTS);
    const toB: ProviderInput = { provider: 'a', configuration: records('a', '@b') };
    other.compute([toB]);
    other.compute([toB, { provider: 'b', configuration: records('b') }]);
    expect(other.lastRecomputed).toBe(-1);
  });

  it('recomputes only the records a small change reaches', () => {
    const routers: Record<string, object> = {};
    const services: Record<string, object> = {};
    for (let i = 0; i < 100; i++) {
      routers[`r${i}`] = { rule: `Host(\`h${i}\`)`, service: `s${i}` };
      services[`s${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.0.${i}` }] } };
    }
    const inc = new IncrementalRuntime(ENTRY_POINTS);
    inc.compute([{ provider: 'a', configuration: { http: { routers, services } } }]);
    expect(inc.lastRecomputed).toBe(-1);
    expect(inc.needsPrepare).toBe(true);
    inc.prepare();
    // r5 moves from s5 to s6: r5, r6, s5 and s6 are recomputed.
    const rt = inc.compute([{ provider: 'a', configuration: { http: { routers: { ...routers, r5: { rule: 'Host(`x`)', service: 's6' } }, services } } }]);
    expect(inc.lastRecomputed).toBe(4);
    expect(rt.services.get('s6@a')?.usedBy).toEqual(['r5@a', 'r6@a']);
    expect(rt.services.get('s5@a')?.usedBy).toEqual([]);
    // Without a prepared graph (right after a computation from scratch) a change is computed whole.
    const fresh = new IncrementalRuntime(ENTRY_POINTS);
    fresh.compute([{ provider: 'a', configuration: { http: { routers, services } } }]);
    fresh.compute([{ provider: 'a', configuration: { http: { routers: { ...routers, r5: { rule: 'Host(`x`)', service: 's6' } }, services } } }]);
    expect(fresh.lastRecomputed).toBe(-1);
  });
});
