import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/create-app.js';
import type { ProviderSnapshot } from '../../../src/dynamic-config/configuration.js';
import { registerInternalRoutes } from '../../../src/management/internal/routes.js';
import { RecordStore } from '../../../src/management/record-store.js';
import type { RuntimeView } from '../../../src/management/view/runtime-view.js';
import { SNAPSHOT_DELTA_MEDIA_TYPE, snapshotDeltaBody } from '../../../src/dynamic-config/snapshot/delta.js';
import {
  SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder, SnapshotLineEncoder, snapshotLinesBody, type EncodedSnapshot,
} from '../../../src/dynamic-config/snapshot/lines.js';
import { validateProviderSnapshot } from '../../../src/dynamic-config/validation.js';
import { silentLogger, TRAEFIK, WEB, WEBSECURE } from '../helpers.js';

// The server's whole apply path for format 2 bodies (decode against the last body, validation of
// changed lines, runtime diff from the lines, patched views) against the plain way: each body
// decoded from scratch, validated whole and applied to a store built from scratch. Bodies change
// a few records at a time as an operator's do, keeping the other records as the same objects.

const PROVIDERS = ['kubernetes', 'kubernetescrd'] as const;
const name = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const ref = fc.oneof(name, name.map((n) => `${n}@kubernetescrd`), fc.constant(''));

const router = fc.oneof(
  { weight: 8, arbitrary: fc.record({
    entryPoints: fc.subarray(['web', 'websecure', 'nope']),
    middlewares: fc.array(ref, { maxLength: 2 }),
    service: ref,
    rule: fc.constantFrom('Host(`x`)', 'PathPrefix(`/y`)', ''),
    priority: fc.constantFrom(0, 5),
  }, { requiredKeys: ['rule'] }) },
  // Refused: a bad field, so the whole body is.
  { weight: 1, arbitrary: fc.constant({ rule: 7 }) },
);
const service = fc.oneof(
  fc.constant({ loadBalancer: { servers: [{ url: 'http://x' }] } }),
  fc.constant({ loadBalancer: { servers: [{ url: 'http://x' }, { url: 'http://y' }] } }),
  fc.constant({}),
  ref.map((s) => ({ failover: { service: s, fallback: 'a' } })),
);
const middleware = fc.oneof(
  fc.constant({ stripPrefix: { prefixes: ['/x'] } }),
  fc.array(ref, { maxLength: 2 }).map((m) => ({ chain: { middlewares: m } })),
);
const states = fc.dictionary(fc.constantFrom('http://x', 'http://y'), fc.constantFrom('UP', 'DOWN'), { maxKeys: 2 });

type Rec = Record<string, unknown>;

/** One edit of a record map: the record under `key` replaced (undefined: removed). */
const edits = <T>(value: fc.Arbitrary<T>) => fc.array(fc.tuple(name, fc.option(value, { nil: undefined, freq: 4 })), { maxLength: 3 });

const step = fc.record({
  provider: fc.constantFrom(...PROVIDERS),
  routers: edits(router),
  services: edits(service),
  middlewares: edits(middleware),
  serverStatus: edits(states),
  // Records in another order: the lines part and resync everywhere.
  reverse: fc.boolean(),
  // Sent as a delta from the last accepted body (src/dynamic-config/snapshot/delta.ts) rather than whole.
  delta: fc.boolean(),
});

// Records no step touches (the same objects in every body), so that a step changes few enough
// records to be applied incrementally (the store recomputes from scratch from a quarter).
const FILLER_ROUTERS: Rec = {};
const FILLER_SERVICES: Rec = {};
for (let i = 0; i < 30; i++) {
  FILLER_ROUTERS[`f${i}`] = { rule: `Host(\`f${i}\`)`, service: i % 3 === 0 ? 'a' : `f${i}` };
  FILLER_SERVICES[`f${i}`] = { loadBalancer: { servers: [{ url: `http://f${i}` }] } };
}

function edited(map: Rec | undefined, changes: readonly (readonly [string, unknown])[], reverse: boolean): Rec {
  const out: Rec = { ...map };
  for (const [k, v] of changes) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  if (!reverse) return out;
  const reversed: Rec = {};
  for (const k of Object.keys(out).reverse()) reversed[k] = out[k];
  return reversed;
}

/** Everything the view serves, as text, the sorted orders included. */
function served(view: RuntimeView): string {
  const parts = [view.rawdata().toString('utf8')];
  for (const kind of [view.http.routers, view.http.services, view.http.middlewares]) {
    for (const e of kind.entries) {
      parts.push(e.json);
      expect(kind.get(e.name)).toBe(e);
    }
    expect(kind.get('no-such@name')).toBeUndefined();
    for (const key of ['priority', 'status', 'rule', 'service', 'type', 'servers', 'provider']) parts.push(kind.ascending(key).map((e) => e.name).join());
  }
  return parts.join('\n');
}

const storeOptions = { entryPoints: [WEB, WEBSECURE, TRAEFIK], now: () => 0 };

describe('applying format 2 bodies', () => {
  it('serves exactly what a store built from scratch serves, and refuses what a whole validation refuses', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
      const store = new RecordStore(storeOptions);
      const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
      registerInternalRoutes(app, { store, token: 't' });
      const encoders = new Map(PROVIDERS.map((p) => [p, new SnapshotLineEncoder()]));
      // What each provider's snapshot is (accepted ones only), and what it would be after each step.
      const accepted = new Map<string, ProviderSnapshot>();
      const current = new Map<string, Rec>();
      const bases = new Map<string, EncodedSnapshot>();
      for (const s of steps) {
        const before = current.get(s.provider) ?? { configuration: { http: { routers: FILLER_ROUTERS, services: FILLER_SERVICES } }, serverStatus: {} };
        const http = ((before.configuration as Rec).http ?? {}) as Rec;
        const value: Rec = {
          configuration: {
            http: {
              routers: edited(http.routers as Rec | undefined, s.routers, s.reverse),
              services: edited(http.services as Rec | undefined, s.services, s.reverse),
              middlewares: edited(http.middlewares as Rec | undefined, s.middlewares, false),
            },
          },
          serverStatus: edited(before.serverStatus as Rec | undefined, s.serverStatus, s.reverse),
        };
        const encoded = (encoders.get(s.provider) as SnapshotLineEncoder).encode(value, { configuration: 3, serverStatus: 1 });
        const body = snapshotLinesBody(encoded);
        let expected: { ok: ProviderSnapshot } | { error: string };
        try {
          expected = { ok: validateProviderSnapshot(new SnapshotLineDecoder().decode(body).value) };
        } catch (err) {
          expected = { error: (err as Error).message };
        }
        const base = bases.get(s.provider);
        const res = await app.inject(s.delta && base !== undefined ? {
          method: 'PUT', url: `/internal/v1/providers/${s.provider}`, payload: snapshotDeltaBody(base, encoded),
          headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_DELTA_MEDIA_TYPE, 'if-match': `"${base.version}"` },
        } : {
          method: 'PUT', url: `/internal/v1/providers/${s.provider}`, payload: body,
          headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
        });
        if ('error' in expected) {
          expect(res.statusCode).toBe(400);
          expect(res.json<{ message: string }>().message).toBe(expected.error);
        } else {
          expect(res.statusCode).toBe(200);
          accepted.set(s.provider, expected.ok);
          current.set(s.provider, value);
          bases.set(s.provider, encoded);
        }
        // Sometimes the store prepares its reference graph between two bodies, sometimes not.
        if (s.reverse) await new Promise((resolve) => setImmediate(resolve));
        // Providers in the order the store first accepted them: that order is part of the result
        // (the first path found to a cycle is named), as it is in Traefik.
        const fresh = new RecordStore(storeOptions);
        for (const [p, snap] of accepted) fresh.set(p, structuredClone(snap));
        expect(served(store.view)).toBe(served(fresh.view));
      }
    }), {
      numRuns: 60,
      // Found once: a cycle of composite services reached from both providers (their order matters).
      examples: [[[
        { provider: 'kubernetescrd', routers: [], services: [['c', { failover: { service: '', fallback: 'a' } }]], middlewares: [], serverStatus: [], reverse: false, delta: false },
        { provider: 'kubernetescrd', routers: [], services: [['a', { failover: { service: '', fallback: 'a' } }]], middlewares: [], serverStatus: [], reverse: false, delta: false },
        { provider: 'kubernetes', routers: [['a', { service: 'c@kubernetescrd', rule: 'Host(`x`)' }]], services: [], middlewares: [], serverStatus: [], reverse: false, delta: false },
        { provider: 'kubernetes', routers: [], services: [], middlewares: [], serverStatus: [], reverse: false, delta: false },
      ]]],
    });
  }, 300_000); // a guard, not a speed limit: 60 runs take ~25 s on an idle 2-core machine, 60 s+ on a loaded one

  it('validates only the changed records of a body, and the whole body when something else changed', async () => {
    const store = new RecordStore(storeOptions);
    const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
    registerInternalRoutes(app, { store, token: 't' });
    const put = (body: string) => app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: body,
      headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
    });
    const line = (path: string[], value: unknown) => `${JSON.stringify(path)}\t${JSON.stringify(value)}`;
    const base = [
      line(['version'], 'v1'),
      line(['configuration', 'http', 'routers', 'r'], { rule: 'Host(`a`)', service: 's' }),
      line(['configuration', 'http', 'services', 's'], { loadBalancer: { servers: [{ url: 'http://a' }] } }),
    ];
    expect((await put(base.join('\n'))).statusCode).toBe(200);
    const bad = await put([line(['version'], 'v2'), base[1], base[2], line(['configuration', 'http', 'routers', 'x@y'], {})].join('\n'));
    expect(bad.json()).toEqual({ message: 'configuration.http.routers["x@y"]: a name may not contain "@" (the server appends @provider)' });
    const unknown = await put([line(['version'], 'v3'), base[1], base[2], line(['configuration', 'http', 'nope', 'x'], {})].join('\n'));
    expect(unknown.json<{ message: string }>().message).toMatch(/^configuration\.http\.nope is not a known field/);
    const ok = await put([line(['version'], 'v4'), base[1], line(['configuration', 'http', 'services', 's'], { loadBalancer: { servers: [] } })].join('\n'));
    expect(ok.json()).toEqual({ provider: 'kubernetes', version: 'v4' });
    const empty = await put(line(['version'], 'v5'));
    expect(empty.json()).toEqual({ message: 'body.configuration is required (use {} for an empty configuration)' });
    expect(store.get('kubernetes')?.version).toBe('v4');
  });

  it('takes a delta from the body it holds, and answers 412 to a delta from another one', async () => {
    const store = new RecordStore(storeOptions);
    const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
    registerInternalRoutes(app, { store, token: 't' });
    const encoder = new SnapshotLineEncoder();
    const routers: Rec = {};
    for (let i = 0; i < 100; i++) routers[`r${i}`] = { rule: `Host(\`h${i}\`)`, service: 's' };
    const first = encoder.encode({ configuration: { http: { routers } } }, { configuration: 3 });
    const next = encoder.encode({ configuration: { http: { routers: { ...routers, r50: { rule: 'Host(`x`)' } } } } }, { configuration: 3 });
    const put = (payload: string, type: string, ifMatch?: string) => app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', payload,
      headers: { authorization: 'Bearer t', 'content-type': type, ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }) },
    });
    const delta = snapshotDeltaBody(first, next);
    expect(delta.split('\n')).toEqual([`["version"]\t"${next.version}"`, '-1', '=50', '["configuration","http","routers","r50"]\t{"rule":"Host(`x`)"}', '-1', '=49']);
    const none = await put(delta, SNAPSHOT_DELTA_MEDIA_TYPE, `"${first.version}"`);
    expect(none.statusCode).toBe(412);
    expect(none.json()).toEqual({ message: 'provider "kubernetes" holds no format 2 snapshot a delta applies to: send the whole snapshot' });
    expect((await put(snapshotLinesBody(first), SNAPSHOT_LINES_MEDIA_TYPE)).statusCode).toBe(200);
    const other = await put(delta, SNAPSHOT_DELTA_MEDIA_TYPE, '"nope"');
    expect(other.statusCode).toBe(412);
    expect(other.json()).toEqual({ message: `provider "kubernetes" holds version "${first.version}", not "nope": send the whole snapshot` });
    expect((await put('=500', SNAPSHOT_DELTA_MEDIA_TYPE, first.version)).json()).toEqual({ message: '=500 runs past the 101 lines of the base'.replace(/^/, 'line 1 of the delta: ') });
    expect((await put('=x', SNAPSHOT_DELTA_MEDIA_TYPE, first.version)).statusCode).toBe(400);
    const ok = await put(delta, SNAPSHOT_DELTA_MEDIA_TYPE, `W/"${first.version}"`);
    expect(ok.json()).toEqual({ provider: 'kubernetes', version: next.version });
    expect(store.view.http.routers.get('r50@kubernetes')?.toRecord().rule).toBe('Host(`x`)');
    // The next delta applies to the body rebuilt from this one.
    const third = encoder.encode({ configuration: { http: { routers } } }, { configuration: 3 });
    expect((await put(snapshotDeltaBody(next, third), SNAPSHOT_DELTA_MEDIA_TYPE, next.version)).json()).toEqual({ provider: 'kubernetes', version: third.version });
    expect(store.view.http.routers.get('r50@kubernetes')?.toRecord().rule).toBe('Host(`h50`)');
  });
});
