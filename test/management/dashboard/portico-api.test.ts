import { describe, expect, it } from 'vitest';
import { validateProviderSnapshot, SnapshotValidationError } from '../../../src/dynamic-config/validation.js';
import { kubectlCommand } from '../../../src/management/dashboard/portico-api.js';
import { createManagementApi } from '../../../src/management/app.js';
import { IpAllowList } from '../../../src/http/ip-allow-list.js';
import { apiFor, silentLogger, storeWith } from '../helpers.js';

function setup() {
  const store = storeWith({
    file: { http: { routers: { plain: { entryPoints: ['web'], rule: 'Path(`/p`)', service: 's' } }, services: { s: { loadBalancer: { servers: [] } } } } },
  });
  store.set('kubernetescrd', {
    configuration: {
      http: {
        routers: {
          'default-a-1': { entryPoints: ['web'], rule: 'Host(`a.test`)', service: 'default-s-80' },
          'team-b-2': { entryPoints: ['websecure'], rule: 'Host(`b.test`)', service: 'default-s-80' },
        },
        services: { 'default-s-80': { loadBalancer: { servers: [{ url: 'http://10.0.0.1:80' }] } } },
      },
    },
    sources: {
      http: {
        routers: {
          'default-a-1': { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: 'a' },
          'team-b-2': { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'team-b', name: 'b' },
        },
      },
    },
  });
  return { store, app: apiFor(store) };
}

describe('Portico dashboard endpoints', () => {
  it('serves each record\'s source with its kubectl command, and leaves the Traefik records as they were', async () => {
    const { app } = setup();
    const all = await app.inject('/api/portico/sources');
    expect(all.statusCode).toBe(200);
    expect(all.json().http.routers['team-b-2@kubernetescrd']).toEqual({
      apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'team-b', name: 'b', provider: 'kubernetescrd',
      kubectl: 'kubectl get ingressroute.portico.dev b -n team-b -o yaml',
    });
    const one = await app.inject('/api/portico/sources/http/routers/default-a-1@kubernetescrd');
    expect(one.json().name).toBe('a');
    const none = await app.inject('/api/portico/sources/http/routers/plain@file');
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ message: 'no source known for http router "plain@file"' });
    expect((await app.inject('/api/portico/sources/udp/middlewares/x')).statusCode).toBe(404);
    const traefik = await app.inject('/api/http/routers/default-a-1@kubernetescrd');
    expect(traefik.body).not.toContain('IngressRoute');
    expect(Object.keys(traefik.json())).not.toContain('source');
    // Other paths below /api/portico/ stay Traefik's 404.
    const unknown = await app.inject('/api/portico/nothing');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toBe('404 page not found\n');
  });

  it('lists with namespace and entry point filters, paging with X-Next-Page and refusing bad pages', async () => {
    const { app } = setup();
    const ns = await app.inject('/api/portico/records/http/routers?namespace=team-b');
    expect(ns.json().map((r: { name: string }) => r.name)).toEqual(['team-b-2@kubernetescrd']);
    expect(ns.headers['x-total-count']).toBe('1');
    const ep = await app.inject('/api/portico/records/http/routers?entryPoint=web&per_page=1&page=2&direction=desc');
    // web routers, descending by name: plain@file, default-a-1@kubernetescrd → page 2 of 1 is the second.
    expect(ep.json().map((r: { name: string }) => r.name)).toEqual(['default-a-1@kubernetescrd']);
    expect(ep.headers['x-next-page']).toBe('1');
    const first = await app.inject('/api/portico/records/http/routers?entryPoint=web&per_page=1');
    expect(first.headers['x-next-page']).toBe('2');
    const status = await app.inject('/api/portico/records/http/routers?status=DISABLED');
    expect(status.json()).toEqual([]);
    const bad = await app.inject('/api/portico/records/http/routers?page=0');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ message: 'page must be a positive integer, got "0"' });
    const past = await app.inject('/api/portico/records/http/routers?namespace=team-b&page=2');
    expect(past.statusCode).toBe(400);
    expect((await app.inject('/api/portico/records/udp/middlewares')).statusCode).toBe(404);
  });

  it('answers the change counter with an ETag, 304 until a snapshot is applied', async () => {
    const { app, store } = setup();
    const first = await app.inject('/api/portico/changes');
    const etag = first.headers.etag as string;
    expect(first.json()).toEqual({ generation: 0 });
    expect((await app.inject({ url: '/api/portico/changes', headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    store.set('kubernetescrd', { configuration: {} });
    const after = await app.inject({ url: '/api/portico/changes', headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ generation: 1 });
    expect(after.headers.etag).not.toBe(etag);
    expect((await app.inject('/api/portico/sources')).json()).toEqual({});
  });

  it('sits behind the same IP allow-list as the API', async () => {
    const { store } = setup();
    const app = createManagementApi({ store, logger: silentLogger, startDate: 0, allowList: new IpAllowList(['10.0.0.0/8']) });
    for (const url of ['/api/portico/sources', '/api/portico/changes', '/api/portico/records/http/routers', '/dashboard/app.js']) {
      expect((await app.inject({ url, remoteAddress: '127.0.0.1' })).statusCode, url).toBe(403);
      expect((await app.inject({ url, remoteAddress: '10.1.2.3' })).statusCode, url).toBe(200);
    }
  });

  it('writes kubectl commands for core and grouped kinds, quoting what a shell would split', () => {
    expect(kubectlCommand({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'web', name: 'site' }))
      .toBe('kubectl get ingress.networking.k8s.io site -n web -o yaml');
    expect(kubectlCommand({ apiVersion: 'v1', kind: 'Service', namespace: 'a b', name: "it's" }))
      .toBe(`kubectl get service 'it'\\''s' -n 'a b' -o yaml`);
    expect(kubectlCommand({ kind: 'TLSStore', name: 'default' })).toBe('kubectl get tlsstore default -o yaml');
  });
});

describe('snapshot sources validation', () => {
  it('accepts sources laid out as the configuration and refuses a bad one naming it', () => {
    const ok = validateProviderSnapshot({ configuration: {}, sources: { http: { routers: { r: { kind: 'Ingress', name: 'x', namespace: 'n' } } } } });
    expect(ok.sources?.http?.routers?.r?.name).toBe('x');
    expect(() => validateProviderSnapshot({ configuration: {}, sources: { http: { routers: { r: { kind: 'Ingress' } } } } }))
      .toThrow(new SnapshotValidationError('sources.http.routers.r.name is required (a non-empty string)'));
    expect(() => validateProviderSnapshot({ configuration: {}, sources: { http: { routers: { r: { kind: 'I', name: 'x', uid: 1 } } } } }))
      .toThrow(/sources\.http\.routers\.r\.uid must be a string, got number 1/);
    expect(() => validateProviderSnapshot({ configuration: {}, sources: { http: { routers: { r: { kind: 'I', name: 'x', generation: '1' } } } } }))
      .toThrow(/sources\.http\.routers\.r\.generation is not a known field/);
    const full = validateProviderSnapshot({ configuration: {}, sources: { tcp: { routers: { r: { kind: 'IngressRouteTCP', name: 'x', uid: 'u-1', resourceVersion: '42' } } } } });
    expect(full.sources?.tcp?.routers?.r).toEqual({ kind: 'IngressRouteTCP', name: 'x', uid: 'u-1', resourceVersion: '42' });
    expect(() => validateProviderSnapshot({ configuration: {}, sources: { sctp: {} } })).toThrow(/sources\.sctp is not a known field/);
  });
});
