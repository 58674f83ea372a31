/**
 * Objects for the suites against a real API server, written through ControlPlane.call: Portico's
 * CRDs installed from crds/, Ingresses and IngressRoutes with the router names the operator gives
 * them, retries for the answers a real server gives while it (or a new CRD) is starting, and a
 * bounded-parallel writer for thousands of objects.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import type { ControlPlane } from './control-plane.js';
import type { Json, PorticoPair } from './portico-pair.js';

const CRD_DIR = resolve(import.meta.dirname, '../../crds');

export const INGRESSES = '/apis/networking.k8s.io/v1/namespaces';
export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export function crdManifests(): Json[] {
  return readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(CRD_DIR, f), 'utf8')).map((d) => d.toJS() as Json | null))
    .filter((m): m is Json => m !== null);
}

/**
 * A write that must succeed, retried (for up to 30 s) on what a real server answers while it or a
 * new CRD is starting: 404 for a CRD's objects before its handler is there, 429 while a new watch
 * cache initialises, 5xx, and refused connections. `ok` lists the statuses that count as done.
 */
export async function send(cp: ControlPlane, method: string, path: string, body?: unknown, ok: readonly number[] = [200, 201]): Promise<Json> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await cp.call(method, path, body).catch((err: unknown) => ({ status: 0, body: String(err) }));
    if (ok.includes(res.status)) return res.body as Json;
    const retry = res.status === 0 || res.status === 404 || res.status === 429 || res.status >= 500;
    if (!retry || Date.now() > deadline) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function parallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Creates Portico's CRDs (an existing one is left as it is) and waits until each is Established. */
export async function installCrds(cp: ControlPlane): Promise<void> {
  for (const crd of crdManifests()) {
    await send(cp, 'POST', CRDS, crd, [201, 409]);
    await eventually(async () => {
      const got = await cp.call('GET', `${CRDS}/${crd.metadata.name as string}`);
      return ((got.body?.status?.conditions ?? []) as Json[]).some((c) => c.type === 'Established' && c.status === 'True');
    }, 30_000, `${crd.metadata.name as string} Established`, 100);
  }
}

/** Deletes a CRD and waits until it is gone (the server deletes its objects first). */
export async function deleteCrd(cp: ControlPlane, name: string): Promise<void> {
  await send(cp, 'DELETE', `${CRDS}/${name}`, undefined, [200, 202, 404]);
  await eventually(async () => (await cp.call('GET', `${CRDS}/${name}`)).status === 404, 60_000, `${name} deleted`, 100);
}

export function namespace(name: string): Json {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** A Service `web` with port `http` 80 and one EndpointSlice of two ready endpoints. */
export function backend(ns: string): { service: Json; slice: Json } {
  return {
    service: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    slice: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: ns, labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }],
      endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }, { addresses: ['10.1.0.2'], conditions: { ready: true } }],
    },
  };
}

/** Creates `ns` with the Service and EndpointSlice of `backend`. */
export async function createNamespaceWithBackend(cp: ControlPlane, ns: string): Promise<void> {
  await send(cp, 'POST', '/api/v1/namespaces', namespace(ns), [201, 409]);
  const { service, slice } = backend(ns);
  await send(cp, 'POST', `/api/v1/namespaces/${ns}/services`, service, [201, 409]);
  await send(cp, 'POST', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, slice, [201, 409]);
}

export function ingress(ns: string, name: string, host: string): Json {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: ns },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }] },
  };
}

export function ingressRoute(ns: string, name: string, host: string): Json {
  return {
    apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name, namespace: ns },
    spec: { entryPoints: ['web'], routes: [{ match: `Host(\`${host}\`)`, kind: 'Rule', services: [{ name: 'web', port: 80 }] }] },
  };
}

export const ingressesPath = (ns: string) => `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`;
export const routesPath = (ns: string) => `/apis/portico.dev/v1alpha1/namespaces/${ns}/ingressroutes`;

/** The router an Ingress rule `host` + `/` becomes (Traefik's Normalize of ns-name-host/). */
export function ingressRouter(ns: string, name: string, host: string): string {
  return `${`${ns}-${name}-${host}`.replace(/[^A-Za-z0-9]+/g, '-')}@kubernetes`;
}

/** The router an IngressRoute's one route `Host(host)` becomes (ns-name-hex20 of the match). */
export function routeRouter(ns: string, name: string, host: string): string {
  const hash = createHash('sha256').update(`Host(\`${host}\`)`).digest('hex').slice(0, 20);
  return `${`${ns}-${name}`.replace(/[^A-Za-z0-9]+/g, '-')}-${hash}@kubernetescrd`;
}

/** The names of the routers of the Kubernetes providers in the management API's `/api/rawdata`. */
export async function kubeRouters(pair: PorticoPair): Promise<string[]> {
  const { body } = await pair.get('/api/rawdata');
  return Object.keys((body.routers ?? {}) as Json).filter((n) => n.endsWith('@kubernetes') || n.endsWith('@kubernetescrd')).sort();
}

/** Polls until the routers of the Kubernetes providers are exactly `expected` (sorted), within `timeoutMs`. */
export async function routersBecome(pair: PorticoPair, expected: readonly string[], timeoutMs: number, what: string): Promise<void> {
  const want = [...expected].sort();
  let seen: string[] = [];
  await eventually(async () => {
    seen = await kubeRouters(pair);
    return seen.length === want.length && seen.every((n, i) => n === want[i]);
  }, timeoutMs, `${what}: routers ${JSON.stringify(want).slice(0, 400)}`, 50).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; last seen ${JSON.stringify(seen).slice(0, 600)}`, { cause: err });
  });
}
