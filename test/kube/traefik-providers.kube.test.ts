/**
 * The Kubernetes half of the management API's side-by-side with a real Traefik 3.7.13
 * (scripts/build-peers.sh traefik): one real kube-apiserver, the same Ingresses, Services,
 * EndpointSlices and Secrets for both, and each CRD object twice, in `traefik.io/v1alpha1` for
 * Traefik's `kubernetesingress` and `kubernetescrd` providers and in `portico.dev/v1alpha1` for
 * Portico's operator (docs/operator.md: the two groups coexist, the operator reads only its own
 * here). Both sides declare the same entry points; every `/api/*` list, record and `/api/rawdata`
 * is compared as the file-provider suite compares them (test/management/differential/compare.ts),
 * and each difference must be one listed, with its reason, in known-differences.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compare, side, type AllRecords } from '../management/differential/compare.js';
import { KUBERNETES_DIFFERENCES } from '../management/differential/known-differences.js';
import { startTraefik, traefikBinary, type Answer } from '../management/differential/peers.js';
import { KINDS, listQueries } from '../management/differential/requests.js';
import { apply, applyChartRbac, applyCrds, create, renderChart, type KubeObject } from './chart-objects.js';
import { freePort, startControlPlane, type ControlPlane } from './control-plane.js';
import { b64, crd, endpointSlice, ingress, service } from './operator-fixtures.js';
import { startOperator, startServe, until, type OperatorProcess, type ServeProcess } from './portico-processes.js';

let cp: ControlPlane;
let serve: ServeProcess;
let operator: OperatorProcess;
let traefik: ReturnType<typeof startTraefik> | undefined;
let traefikApi = '';
let dir = '';

/** List queries per kind (search, status, serviceName, middlewareName, sortBy, direction, paging), drawn as the file suite draws them. */
const QUERIES_PER_KIND = 8;

/** The Kubernetes objects both sides read (core and networking: one copy). */
function sharedObjects(): KubeObject[] {
  return [
    service('whoami'),
    endpointSlice('whoami', [['10.0.0.1', true], ['10.0.0.2', true]]),
    // Where Traefik drops things silently and Portico shows them (docs/operator.md): a pod that is
    // not ready, and an Ingress whose Service does not exist.
    service('halfready'),
    endpointSlice('halfready', [['10.0.3.1', true], ['10.0.3.2', false]]),
    ingress('half', 'half.test', { service: 'halfready' }),
    ingress('ghost', 'ghost.test', { service: 'ghost' }),
    // Load-balancer options from the Service's annotations, a TLS router and the default backend.
    {
      ...service('sticky'),
      metadata: {
        name: 'sticky', namespace: 'default',
        annotations: {
          'traefik.ingress.kubernetes.io/service.sticky.cookie': 'true', 'traefik.ingress.kubernetes.io/service.sticky.cookie.name': 'lb',
          'traefik.ingress.kubernetes.io/service.sticky.cookie.secure': 'true', 'traefik.ingress.kubernetes.io/service.passhostheader': 'false',
        },
      },
    },
    endpointSlice('sticky', [['10.0.4.1', true]]),
    ingress('cookie', 'cookie.test', { service: 'sticky', annotations: { 'traefik.ingress.kubernetes.io/router.tls': 'true' } }),
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'fallback', namespace: 'default' },
      spec: { defaultBackend: { service: { name: 'whoami', port: { name: 'http' } } } },
    },
    service('api', 'default', {
      ports: [{ name: 'http', port: 80, targetPort: 8080 }],
    }),
    { ...endpointSlice('api', [['10.0.1.1', true]]), metadata: { name: 'api-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'api' } } },
    service('tcpecho', 'default', { ports: [{ name: 'tcp', port: 9000, targetPort: 9000 }] }),
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'tcpecho-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'tcpecho' } },
      addressType: 'IPv4', ports: [{ name: 'tcp', port: 9000, protocol: 'TCP' }], endpoints: [{ addresses: ['10.0.2.1'], conditions: { ready: true } }],
    },
    // htpasswd's {SHA} of "secret" for user "admin".
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'Opaque', data: { users: b64('admin:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=') } },
    ingress('web', 'a.test'),
    {
      ...ingress('annotated', 'b.test', {
        service: 'api',
        annotations: {
          'traefik.ingress.kubernetes.io/router.entrypoints': 'web',
          'traefik.ingress.kubernetes.io/router.priority': '42',
          'traefik.ingress.kubernetes.io/router.middlewares': 'default-strip@kubernetescrd',
        },
      }),
    },
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'paths', namespace: 'default' },
      spec: {
        rules: [
          { host: 'c.test', http: { paths: [
            { path: '/exact', pathType: 'Exact', backend: { service: { name: 'whoami', port: { number: 80 } } } },
            { path: '/prefix', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } },
          ] } },
          { http: { paths: [{ path: '/any', pathType: 'ImplementationSpecific', backend: { service: { name: 'whoami', port: { name: 'http' } } } }] } },
        ],
      },
    },
  ];
}

/** The CRD objects, in one group: created once in `traefik.io` and once in `portico.dev`. */
function crdObjects(group: string): KubeObject[] {
  const objects = [
    crd('Middleware', 'strip', { stripPrefix: { prefixes: ['/api'] } }),
    crd('Middleware', 'headers', { headers: { customRequestHeaders: { 'X-Side': 'both' } } }),
    crd('Middleware', 'auth', { basicAuth: { secret: 'users', realm: 'kube' } }),
    crd('Middleware', 'chain', { chain: { middlewares: [{ name: 'strip' }, { name: 'headers' }] } }),
    crd('Middleware', 'redirect', { redirectScheme: { scheme: 'https', permanent: true } }),
    crd('Middleware', 'limit', { rateLimit: { average: 100, burst: 50 } }),
    crd('Middleware', 'allow', { ipAllowList: { sourceRange: ['10.0.0.0/8', '192.0.2.1'] } }),
    crd('Middleware', 'prefix', { addPrefix: { prefix: '/v1' } }),
    crd('Middleware', 'retry', { retry: { attempts: 3, initialInterval: '100ms' } }),
    crd('Middleware', 'oops', { errors: { status: ['500-599'], query: '/{status}.html', service: { name: 'api', port: 80 } } }),
    crd('Middleware', 'fwd', { forwardAuth: { address: 'http://auth.example/check', trustForwardHeader: true, authResponseHeaders: ['X-User'] } }),
    crd('MiddlewareTCP', 'inflight', { inFlightConn: { amount: 10 } }),
    crd('MiddlewareTCP', 'tcpallow', { ipAllowList: { sourceRange: ['10.0.0.0/8'] } }),
    crd('TraefikService', 'hrw', { highestRandomWeight: { services: [{ name: 'whoami', port: 80, weight: 1 }, { name: 'api', port: 80, weight: 1 }] } }),
    crd('TraefikService', 'split', { weighted: { services: [{ name: 'whoami', port: 80, weight: 3 }, { name: 'api', port: 80, weight: 1 }] } }),
    crd('TraefikService', 'mirror', { mirroring: { name: 'whoami', port: 80, mirrors: [{ name: 'api', port: 80, percent: 10 }] } }),
    crd('IngressRoute', 'shop', {
      entryPoints: ['web'],
      routes: [
        { match: 'Host(`shop.test`)', kind: 'Rule', middlewares: [{ name: 'headers' }, { name: 'auth' }], services: [{ name: 'whoami', port: 80 }] },
        { match: 'Host(`shop.test`) && PathPrefix(`/api`)', kind: 'Rule', priority: 100, middlewares: [{ name: 'chain' }], services: [{ name: 'whoami', port: 80 }, { name: 'api', port: 80, weight: 2 }] },
        { match: 'Host(`split.test`)', kind: 'Rule', services: [{ name: 'split', kind: 'TraefikService' }] },
        { match: 'Host(`mirror.test`)', kind: 'Rule', services: [{ name: 'mirror', kind: 'TraefikService' }] },
        { match: 'Host(`hrw.test`)', kind: 'Rule', services: [{ name: 'hrw', kind: 'TraefikService' }] },
        {
          match: 'Host(`mw.test`)', kind: 'Rule', priority: 7,
          middlewares: [{ name: 'redirect' }, { name: 'limit' }, { name: 'allow' }, { name: 'prefix' }, { name: 'retry' }, { name: 'oops' }, { name: 'fwd' }],
          services: [{ name: 'sticky', port: 80, sticky: { cookie: { name: 'c', httpOnly: true } }, passHostHeader: false }],
        },
      ],
    }),
    crd('IngressRoute', 'secure', {
      entryPoints: ['websecure'],
      routes: [{ match: 'Host(`secure.test`)', kind: 'Rule', services: [{ name: 'api', port: 80 }] }],
      tls: {},
    }),
    crd('IngressRouteTCP', 'db', { entryPoints: ['tcpep'], routes: [{ match: 'HostSNI(`*`)', middlewares: [{ name: 'inflight' }], services: [{ name: 'tcpecho', port: 9000 }] }] }),
    crd('IngressRouteTCP', 'sni', {
      entryPoints: ['websecure'],
      routes: [{ match: 'HostSNI(`db.test`)', middlewares: [{ name: 'tcpallow' }], services: [{ name: 'tcpecho', port: 9000, weight: 2 }, { name: 'whoami', port: 80, weight: 1 }] }],
      tls: { passthrough: true },
    }),
    crd('IngressRouteUDP', 'dns', { entryPoints: ['udpep'], routes: [{ services: [{ name: 'tcpecho', port: 9000 }] }] }),
    crd('IngressRouteUDP', 'dns2', { entryPoints: ['udpep'], routes: [{ services: [{ name: 'tcpecho', port: 9000, weight: 1 }, { name: 'whoami', port: 80, weight: 2 }] }] }),
  ];
  return objects.map((o) => ({ ...o, apiVersion: `${group}/v1alpha1` }));
}

/**
 * Traefik's CRD provider watches ten kinds and waits for all of them: Portico's six CRDs in
 * Traefik's group, plus the four kinds Portico does not read (their schema does not matter here).
 */
async function applyTraefikCrds(): Promise<void> {
  const crdDir = new URL('../../crds/', import.meta.url).pathname;
  const crds: KubeObject[] = readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).map((f) => {
    const c = parse(readFileSync(join(crdDir, f), 'utf8')) as KubeObject;
    return { ...c, metadata: { name: `${c.spec.names.plural as string}.traefik.io` }, spec: { ...c.spec, group: 'traefik.io' } };
  });
  for (const [kind, plural] of [['ServersTransport', 'serverstransports'], ['ServersTransportTCP', 'serverstransporttcps'], ['TLSOption', 'tlsoptions'], ['TLSStore', 'tlsstores']]) {
    crds.push({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.traefik.io` },
      spec: {
        group: 'traefik.io', scope: 'Namespaced', names: { kind, plural, singular: kind?.toLowerCase(), listKind: `${kind}List` },
        versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
  }
  for (const c of crds) await apply(cp, c);
  for (const c of crds) {
    await until(`${c.metadata.name} served`, async () => (await cp.call('GET', `/apis/traefik.io/v1alpha1/${c.spec.names.plural as string}?limit=1`)).status === 200, 30_000);
  }
}

async function get(base: string, path: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.text(), nextPage: res.headers.get('x-next-page'), contentType: res.headers.get('content-type') };
}

beforeAll(async () => {
  const bin = traefikBinary();
  cp = await startControlPlane();
  await applyChartRbac(cp);
  await applyCrds(cp);
  await applyTraefikCrds();
  const chartService = renderChart().find((d) => d.kind === 'Service');
  if (!chartService) throw new Error('the chart renders no Service');
  await create(cp, chartService);
  for (const o of [...sharedObjects(), ...crdObjects('traefik.io'), ...crdObjects('portico.dev')]) await create(cp, o);

  const [web, websecure, tcpep, udpep, api] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const entryPoints = { web: `127.0.0.1:${web}`, websecure: `127.0.0.1:${websecure}`, tcpep: `127.0.0.1:${tcpep}`, udpep: `127.0.0.1:${udpep}/udp` };
  dir = mkdtempSync(join(tmpdir(), 'portico-traefik-kube-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, cp.ca);
  // Traefik talks to the API server as the admin, with the endpoint, token and CA its providers take.
  const kube = (provider: string) => [
    `--providers.${provider}.endpoint=${cp.server}`, `--providers.${provider}.token=${cp.adminToken}`, `--providers.${provider}.certAuthFilePath=${caFile}`,
  ];
  traefik = startTraefik(bin, [
    `--entryPoints.web.address=${entryPoints.web}`, '--entryPoints.web.asDefault=true',
    `--entryPoints.websecure.address=${entryPoints.websecure}`, '--entryPoints.websecure.asDefault=true',
    // Portico's routers that name no entry point take every TCP entry point of --management.entry-points
    // (it has no asDefault), so every TCP entry point is a default one on Traefik's side too.
    `--entryPoints.tcpep.address=${entryPoints.tcpep}`, '--entryPoints.tcpep.asDefault=true', `--entryPoints.udpep.address=${entryPoints.udpep}`,
    `--entryPoints.traefik.address=127.0.0.1:${api}`, '--api.insecure=true', '--api.dashboard=true',
    ...kube('kubernetesingress'), ...kube('kubernetescrd'), '--providers.providersThrottleDuration=0s',
    '--global.checkNewVersion=false', '--global.sendAnonymousUsage=false', '--log.level=ERROR',
  ]);
  traefikApi = `http://127.0.0.1:${api}`;
  serve = await startServe(['--management.entry-points', Object.entries(entryPoints).map(([k, v]) => `${k}=${v}`).join(',')]);
  operator = await startOperator({ kubeconfig: cp.kubeconfig('operator'), serve });
  // The operator is ready once its first snapshots are delivered; then both sides have read
  // everything once each shows both providers' records and their lists stop changing.
  await until('operator ready', async () => (await operator.readyz()).status === 200, 90_000);
  let last = '';
  let same = 0;
  await until('both sides settled on the same record names', async () => {
    if (traefik?.proc.exitCode !== null) throw new Error(`traefik exited: ${traefik?.output()}`);
    const names = await Promise.all(KINDS.map(async (k) => {
      const [t, p] = await Promise.all([get(traefikApi, `/api/${k}?per_page=1000`), get(serve.api, `/api/${k}?per_page=1000`)]);
      return `${t.body.length}:${p.body.length}`;
    }));
    const now = names.join('|');
    same = now === last ? same + 1 : 0;
    last = now;
    const both = await Promise.all([get(traefikApi, '/api/http/routers'), get(serve.api, '/api/http/routers')]);
    return same >= 10 && both.every((r) => r.status === 200 && r.body.includes('@kubernetescrd"') && r.body.includes('@kubernetes"'));
  }, 90_000);
}, 300_000);

afterAll(async () => {
  await operator?.stop();
  await serve?.dispose();
  if (traefik && traefik.proc.exitCode === null) {
    const exited = new Promise((r) => traefik?.proc.once('exit', r));
    traefik.proc.kill('SIGTERM');
    await exited;
  }
  await cp?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('the Kubernetes providers against a live Traefik on the same API server', () => {
  it('serves the records Traefik serves for the same objects, differences listed', async () => {
    const t0 = JSON.parse((await get(traefikApi, '/api/entrypoints/traefik')).body) as { address: string };
    const traefikAddress = t0.address;
    const porticoAddress = 'portico-has-no-traefik-entry-point';
    const paths = ['/api/rawdata', '/api/overview'];
    const all = new Map<string, AllRecords>();
    const byName = (a: Answer, own: string) => new Map((side(a, own).body as { name: string }[]).map((r) => [r.name, r] as const));
    for (const kind of KINDS) {
      const [t, p] = await Promise.all([get(traefikApi, `/api/${kind}?per_page=1000`), get(serve.api, `/api/${kind}?per_page=1000`)]);
      all.set(kind, { traefik: byName(t, traefikAddress), portico: byName(p, porticoAddress) });
      paths.push(`/api/${kind}`);
      const names = new Set([...(all.get(kind)?.traefik.keys() ?? []), ...(all.get(kind)?.portico.keys() ?? [])]);
      for (const name of [...names].sort()) if (!name.endsWith('@internal')) paths.push(`/api/${kind}/${encodeURIComponent(name)}`);
      const listed = [...(all.get(kind)?.traefik.values() ?? [])] as { service?: string; middlewares?: string[] }[];
      const recs = { names: [...names], services: listed.flatMap((r) => (r.service === undefined ? [] : [r.service])), middlewares: listed.flatMap((r) => r.middlewares ?? []) };
      for (const q of listQueries(kind, recs, QUERIES_PER_KIND, 25 + KINDS.indexOf(kind))) if (q !== '') paths.push(`/api/${kind}?${q}`);
    }
    const verdicts: string[] = [];
    const known = new Map<string, number>();
    let equal = 0;
    for (const path of paths) {
      const [t, p] = await Promise.all([get(traefikApi, path), get(serve.api, path)]);
      const v = compare(path, t, p, traefikAddress, porticoAddress, all.get(path.slice('/api/'.length)));
      if (v.kind === 'equal' || v.kind === 'random') {
        equal++;
        continue;
      }
      const id = KUBERNETES_DIFFERENCES.find((d) => d.matches(path, v.where))?.id ?? (v.kind === 'known' ? v.id : undefined);
      if (id !== undefined) known.set(id, (known.get(id) ?? 0) + 1);
      else verdicts.push(`${path}: ${v.where}`);
    }
    console.log(`kubernetes side-by-side: ${paths.length} answers compared, ${equal} equal, ` +
      `${paths.length - equal - verdicts.length} explained (${[...known].map(([id, n]) => `${id}: ${n}`).join(', ')}), ${verdicts.length} unexplained`);
    expect(verdicts, verdicts.join('\n')).toEqual([]);
    // Something real was compared: both providers' records of every protocol.
    const names = [...(all.get('http/routers')?.traefik.keys() ?? [])];
    expect(names.filter((n) => n.endsWith('@kubernetes')).length).toBeGreaterThanOrEqual(4);
    expect(names.filter((n) => n.endsWith('@kubernetescrd')).length).toBeGreaterThanOrEqual(5);
    expect(all.get('tcp/routers')?.traefik.size).toBeGreaterThanOrEqual(1);
    expect(all.get('udp/routers')?.traefik.size).toBeGreaterThanOrEqual(1);
    expect(equal).toBeGreaterThan(0);
    for (const d of KUBERNETES_DIFFERENCES) expect(d.reason.length, d.id).toBeGreaterThan(20);
  });
});
