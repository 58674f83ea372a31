import { describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/create-app.js';
import { registerInternalRoutes } from '../../../src/management/internal/routes.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineEncoder, snapshotLinesBody } from '../../../src/dynamic-config/snapshot/lines.js';
import { apiFor, silentLogger, storeWith } from '../helpers.js';

const TOKEN = 'tok-123';

function setup(providerError?: (p: string) => string | undefined) {
  const store = storeWith({});
  const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
  registerInternalRoutes(app, { store, token: TOKEN, ...(providerError ? { providerError } : {}) });
  return { store, app, api: apiFor(store) };
}
const auth = { authorization: `Bearer ${TOKEN}` };
const snapshot = {
  configuration: { http: { routers: { r: { entryPoints: ['web'], service: 's', rule: 'Path(`/`)' } }, services: { s: { loadBalancer: { servers: [{ url: 'http://a' }] } } } } },
  serverStatus: { s: { 'http://a': 'DOWN' } },
  version: 'v1',
};

describe('internal endpoint', () => {
  it('refuses requests without the right bearer token', async () => {
    const { app } = setup();
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Basic ${TOKEN}` }]) {
      const res = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers, payload: snapshot });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'missing or invalid bearer token' });
    }
  });

  it('PUT replaces a provider snapshot, served at once by the API', async () => {
    const { app, api } = setup();
    const res = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: snapshot });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ provider: 'kubernetes', version: 'v1' });
    const svc = (await api.inject('/api/http/services/s@kubernetes')).json() as Record<string, unknown>;
    expect(svc.serverStatus).toEqual({ 'http://a': 'DOWN' });
    expect(((await api.inject('/api/overview')).json() as Record<string, unknown>).providers).toEqual(['KubernetesIngress']);
    const next = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: { configuration: {} } });
    expect(next.json<{ version: string }>().version).toMatch(/^[0-9a-f]{16}$/);
    expect((await api.inject('/api/http/services/s@kubernetes')).statusCode).toBe(404);
  });

  it('PUT takes format 2 (snapshot lines): applies it whole, refuses a bad record and keeps the previous one', async () => {
    const { app, api, store } = setup();
    const encoder = new SnapshotLineEncoder();
    const put = (value: Record<string, unknown>) => {
      const encoded = encoder.encode(value, { configuration: 3, serverStatus: 1 });
      const { version } = encoded;
      const body = snapshotLinesBody(encoded);
      return { version, res: app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: { ...auth, 'content-type': SNAPSHOT_LINES_MEDIA_TYPE }, payload: body }) };
    };
    const { configuration, serverStatus } = snapshot;
    const first = put({ configuration, serverStatus });
    expect((await first.res).json()).toEqual({ provider: 'kubernetes', version: first.version });
    expect(((await api.inject('/api/http/services/s@kubernetes')).json() as Record<string, unknown>).serverStatus).toEqual({ 'http://a': 'DOWN' });

    // Same router object (its line is reused on both ends), another service: the router sees it,
    // and only those two records are recomputed (once the store prepared, after the response).
    await new Promise((resolve) => setImmediate(resolve));
    const routers = configuration.http.routers;
    const second = put({ configuration: { http: { routers, services: { s: { loadBalancer: { servers: [{ url: 'http://b' }] } } } } }, serverStatus: {} });
    expect((await second.res).statusCode).toBe(200);
    expect(store.lastRecomputed).toBe(2);
    expect(((await api.inject('/api/http/services/s@kubernetes')).json() as Record<string, unknown>).serverStatus).toEqual({ 'http://b': 'UP' });

    const bad = put({ configuration: { http: { routers: { ...routers, x: { rule: 7 } } } } });
    expect((await bad.res).statusCode).toBe(400);
    expect((await bad.res).json()).toEqual({ message: 'configuration.http.routers.x.rule must be a string, got number 7' });
    const garbled = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: { ...auth, 'content-type': SNAPSHOT_LINES_MEDIA_TYPE }, payload: '["configuration"]\t{' });
    expect(garbled.statusCode).toBe(400);
    expect(garbled.json<{ message: string }>().message).toMatch(/^line 1: the value is not valid JSON/);
    expect((await app.inject({ url: '/internal/v1/providers/kubernetes', headers: auth })).json()).toMatchObject({ version: second.version });
    expect((await api.inject('/api/http/routers/r@kubernetes')).statusCode).toBe(200);
  });

  it('PUT format 2 with sources: a changed source is served and recomputes no record; a bad one is refused', async () => {
    const { app, api, store } = setup();
    const encoder = new SnapshotLineEncoder();
    const source = (resourceVersion: string) => ({
      http: { routers: { r: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name: 'web', uid: 'u-1', resourceVersion } } },
    });
    const put = (value: { configuration: object; serverStatus?: object; sources?: object }) => app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: { ...auth, 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
      payload: snapshotLinesBody(encoder.encodeSnapshot(value)),
    });
    const { configuration, serverStatus } = snapshot;
    expect((await put({ configuration, serverStatus, sources: source('1') })).statusCode).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    // The operator translated the Ingress again (a new resourceVersion), with the same records.
    expect((await put({ configuration, serverStatus, sources: source('2') })).statusCode).toBe(200);
    expect(store.lastRecomputed).toBe(0);
    const served = (await api.inject(`/api/portico/sources/http/routers/${encodeURIComponent('r@kubernetes')}`)).json() as Record<string, unknown>;
    expect(served).toMatchObject({ kind: 'Ingress', name: 'web', uid: 'u-1', resourceVersion: '2', provider: 'kubernetes' });
    const bad = await put({ configuration, serverStatus, sources: { http: { routers: { r: { kind: 'Ingress', name: 'web', uid: 7 } } } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ message: 'sources.http.routers.r.uid must be a string, got number 7' });
    expect(store.get('kubernetes')?.snapshot.sources?.http?.routers?.r?.resourceVersion).toBe('2');
  });

  it('GET reports version and receive time, or 404 so the operator re-delivers', async () => {
    const { app } = setup();
    expect((await app.inject({ url: '/internal/v1/providers/kubernetescrd', headers: auth })).statusCode).toBe(404);
    await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetescrd', headers: auth, payload: snapshot });
    const res = await app.inject({ url: '/internal/v1/providers/kubernetescrd', headers: auth });
    expect(res.json()).toEqual({ provider: 'kubernetescrd', version: 'v1', receivedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('DELETE removes a snapshot', async () => {
    const { app, api } = setup();
    await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: snapshot });
    const res = await app.inject({ method: 'DELETE', url: '/internal/v1/providers/kubernetes', headers: auth });
    expect(res.statusCode).toBe(200);
    expect((await api.inject('/api/http/routers/r@kubernetes')).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/internal/v1/providers/kubernetes', headers: auth })).statusCode).toBe(404);
  });

  it('refuses reserved and malformed provider names', async () => {
    const { app } = setup();
    for (const name of ['internal', 'file']) {
      const res = await app.inject({ method: 'PUT', url: `/internal/v1/providers/${name}`, headers: auth, payload: snapshot });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(`"${name}" is reserved`);
    }
    expect((await app.inject({ method: 'PUT', url: '/internal/v1/providers/Bad_Name', headers: auth, payload: snapshot })).statusCode).toBe(400);
  });

  it('refuses invalid snapshots with a message naming the problem, applying nothing', async () => {
    const { app, api } = setup();
    await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: snapshot });
    const cases: [unknown, string][] = [
      [{}, 'body.configuration is required (use {} for an empty configuration)'],
      [{ configuration: { http: { routers: { r: { priority: 'high' } } } } }, 'configuration.http.routers.r.priority must be an integer, got string "high"'],
      [{ configuration: { http: { routers: { r: { entryPoints: 'web' } } } } }, 'configuration.http.routers.r.entryPoints must be a list of strings, got string "web"'],
      [{ configuration: { http: { routers: { 'a@b': {} } } } }, 'configuration.http.routers["a@b"]: a name may not contain "@" (the server appends @provider)'],
      [{ configuration: { http: { routers: { r: { servise: 'x' } } } } }, 'configuration.http.routers.r.servise is not a known field (expected one of: entryPoints, middlewares, service, rule, parentRefs, ruleSyntax, priority, tls, observability)'],
      [{ configuration: {}, serverStatus: { s: { 'http://a': 'SICK' } } }, 'serverStatus.s["http://a"] must be "UP" or "DOWN", got string "SICK"'],
      [{ configuration: { tcp: { services: { t: { loadBalancer: { servers: [{ address: 5 }] } } } } } }, 'configuration.tcp.services.t.loadBalancer.servers[0].address must be a string, got number 5'],
      [{ configuration: {}, extra: 1 }, 'body.extra is not a known field (expected one of: configuration, serverStatus, sources, version)'],
      [[], 'body must be an object, got an array'],
    ];
    for (const [payload, message] of cases) {
      const res = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: payload as object });
      expect(res.statusCode, message).toBe(400);
      expect(res.json()).toEqual({ message });
    }
    const bad = await app.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"configuration":' });
    expect(bad.statusCode).toBe(400);
    expect((await api.inject('/api/http/routers/r@kubernetes')).statusCode).toBe(200);
    expect((await app.inject({ url: '/internal/v1/providers/kubernetes', headers: auth })).json<{ version: string }>().version).toBe('v1');
  });

  it('GET on the file provider shows its last error', async () => {
    const { app, store } = setup((p) => (p === 'file' ? 'dynamic.yaml is not valid YAML' : undefined));
    expect((await app.inject({ url: '/internal/v1/providers/file', headers: auth })).json()).toEqual({ message: 'provider "file" has no snapshot: dynamic.yaml is not valid YAML' });
    store.set('file', { configuration: {}, version: 'abc' });
    expect((await app.inject({ url: '/internal/v1/providers/file', headers: auth })).json()).toMatchObject({ provider: 'file', version: 'abc', lastError: 'dynamic.yaml is not valid YAML' });
  });
});

describe('internal endpoint: invalid UTF-8 in a snapshot line path', () => {
  // A path's canonical JSON can be longer than its bytes as written (each byte of invalid UTF-8
  // decodes to U+FFFD); the decoder's shortcut must not read past the body for it.
  const bad = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]);
  const line = (last: string) => Buffer.concat([Buffer.from('["configuration","http","routers",'), Buffer.from('"'), bad, Buffer.from(`",${last}]\t{}`)]);

  it('answers such a body on the internal endpoint as before (400 naming the path, not a 500)', async () => {
    const store = storeWith({});
    const app = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
    registerInternalRoutes(app, { store, token: 't' });
    const body = Buffer.concat([Buffer.from('["version"]\t"v1"\n'), line('""')]);
    const res = await app.inject({
      method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: body,
      headers: { authorization: 'Bearer t', 'content-type': SNAPSHOT_LINES_MEDIA_TYPE },
    });
    // The record's bad field is named, as for any bad record, rather than a 500 internal server error.
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toBe(`configuration.http.routers[${JSON.stringify('\ufffd'.repeat(5))}][""] is not a known field (expected one of: entryPoints, middlewares, service, rule, parentRefs, ruleSyntax, priority, tls, observability)`);
  });
});
