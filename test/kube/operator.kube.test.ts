/**
 * The operator as the chart deploys it, against a real kube-apiserver: its identity is the chart's
 * ServiceAccount with exactly the chart's rendered RBAC, it talks TLS with a kubeconfig, runs with
 * the Deployment's flags (leader election in the release namespace, the chart's Service published
 * to Ingress status), and delivers to a running `portico serve`. The scenarios of the operator's
 * fake-server suites (test/providers/kubernetes/operator*.int.test.ts, test/e2e/operator-e2e.test.ts),
 * each checked in the management API and in the objects the server stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, applyChartRbac, applyCrds, create, get, remove, renderChart, RELEASE_NAMESPACE, type KubeObject } from './chart-objects.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { b64, condition, crd, endpointSlice, ingress, ingressRoute, service, sha } from './operator-fixtures.js';
import {
  apiGet, rawdata, record, records, startOperator, startServe, until, untilGone, untilRecord, type OperatorProcess, type ServeProcess,
} from './portico-processes.js';

let cp: ControlPlane;
let serve: ServeProcess;
let operator: OperatorProcess;

const whoami = service('whoami');
const whoamiSlice = endpointSlice('whoami', [['10.0.0.1', true], ['10.0.0.2', false]]);

beforeAll(async () => {
  cp = await startControlPlane();
  await applyChartRbac(cp);
  await applyCrds(cp);
  // The chart's own Service: the Deployment publishes it to the Ingresses' status.
  const chartService = renderChart().find((d) => d.kind === 'Service');
  if (!chartService) throw new Error('the chart renders no Service');
  await create(cp, chartService);
  await create(cp, whoami);
  await create(cp, whoamiSlice);
  await create(cp, ingress('web', 'a.test'));
  serve = await startServe();
  operator = await startOperator({ kubeconfig: cp.kubeconfig('operator'), serve, extraArgs: ['--operator.identity=replica-a'] });
});

afterAll(async () => {
  await operator?.stop();
  await serve?.dispose();
  await cp?.stop();
});

const crdRouter = (prefix: string) => async () => (await records(serve, 'http/routers')).find((r) => r.name.startsWith(prefix) && r.provider === 'kubernetescrd');

describe('the operator with the chart\'s identity and flags', () => {
  it('turns an Ingress into Traefik-named records with server status, and becomes ready', async () => {
    const r = await untilRecord(serve, 'http/routers', 'default-web-a-test@kubernetes', (x) => x.status === 'enabled');
    expect(r).toMatchObject({ provider: 'kubernetes', service: 'default-whoami-http', rule: 'Host("a.test") && PathPrefix("/")' });
    const svc = await record(serve, 'http/services', 'default-whoami-http@kubernetes');
    expect(svc.loadBalancer.servers).toEqual([{ url: 'http://10.0.0.1:8080' }, { url: 'http://10.0.0.2:8080' }]);
    expect(svc.serverStatus).toEqual({ 'http://10.0.0.1:8080': 'UP', 'http://10.0.0.2:8080': 'DOWN' });
    const ready = await until('readyz 200', async () => ((await operator.readyz()).status === 200 ? true : undefined));
    expect(ready).toBe(true);
    // The operator's flags are the chart's: leader election on, in the release namespace.
    expect(operator.lines.find((l) => l.msg === 'operator started')).toMatchObject({ leaderElection: true, namespaces: 'all', traefikCrds: false });
  });

  it('holds the Lease in the release namespace under its identity', async () => {
    const lease = await until('lease', async () => (await get(cp, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'portico-operator', namespace: RELEASE_NAMESPACE } }))?.spec?.holderIdentity);
    expect(lease).toBe('replica-a');
  });

  it('follows EndpointSlices: a server going DOWN and UP, a new slice, and a deleted one', async () => {
    const status = async () => (await record(serve, 'http/services', 'default-whoami-http@kubernetes'))?.serverStatus;
    await apply(cp, endpointSlice('whoami', [['10.0.0.1', false], ['10.0.0.2', true]]));
    await until('10.0.0.1 DOWN', async () => (await status())?.['http://10.0.0.1:8080'] === 'DOWN');
    expect((await status())['http://10.0.0.2:8080']).toBe('UP');
    await create(cp, endpointSlice('whoami', [['10.0.1.1', true]], 'default', 'whoami-2'));
    await until('second slice', async () => (await status())?.['http://10.0.1.1:8080'] === 'UP');
    await remove(cp, endpointSlice('whoami', [], 'default', 'whoami-2'));
    await until('second slice gone', async () => (await status())?.['http://10.0.1.1:8080'] === undefined);
    await apply(cp, whoamiSlice);
    await until('back', async () => (await status())?.['http://10.0.0.1:8080'] === 'UP');
  });

  it('follows an Ingress through a host change and a delete', async () => {
    await create(cp, ingress('moving', 'm1.test'));
    await untilRecord(serve, 'http/routers', 'default-moving-m1-test@kubernetes');
    await apply(cp, ingress('moving', 'm2.test'));
    await untilRecord(serve, 'http/routers', 'default-moving-m2-test@kubernetes');
    await untilGone(serve, 'http/routers', 'default-moving-m1-test@kubernetes');
    await remove(cp, ingress('moving', ''));
    await untilGone(serve, 'http/routers', 'default-moving-m2-test@kubernetes');
  });

  it('shows a missing Service as a router error instead of dropping the router', async () => {
    await create(cp, ingress('ghost', 'ghost.test', { service: 'nothere' }));
    const r = await untilRecord(serve, 'http/routers', 'default-ghost-ghost-test@kubernetes');
    expect(r.status).toBe('disabled');
    expect(JSON.stringify(r.error)).toContain('does not exist');
  });

  it('turns an IngressRoute with a dotted name and its Middleware into records named as Traefik names them', async () => {
    await create(cp, ingressRoute('test.route', 'Host(`foo.com`) && PathPrefix(`/bar`)', { middlewares: [{ name: 'strip' }] }));
    await create(cp, crd('Middleware', 'strip', { stripPrefix: { prefixes: ['/bar'] } }));
    const r = await untilRecord(serve, 'http/routers', 'default-test-route-6b204d94623b3df4370c@kubernetescrd', (x) => x.status === 'enabled');
    expect(r).toMatchObject({ service: 'default-test-route-6b204d94623b3df4370c', middlewares: ['default-strip@kubernetescrd'], entryPoints: ['web'] });
    expect(await untilRecord(serve, 'http/middlewares', 'default-strip@kubernetescrd')).toMatchObject({ stripPrefix: { prefixes: ['/bar'] } });
    await remove(cp, ingressRoute('test.route', ''));
    await untilGone(serve, 'http/routers', 'default-test-route-6b204d94623b3df4370c@kubernetescrd');
  });

  it('turns IngressRouteTCP, IngressRouteUDP, MiddlewareTCP and TraefikService objects into records', async () => {
    await create(cp, crd('MiddlewareTCP', 'office-only', { ipAllowList: { sourceRange: ['192.0.2.0/24'] } }));
    await create(cp, crd('IngressRouteTCP', 'db', { entryPoints: ['postgres'], routes: [{ match: 'HostSNI(`*`)', middlewares: [{ name: 'office-only' }], services: [{ name: 'whoami', port: 80 }] }] }));
    await create(cp, crd('IngressRouteUDP', 'dns', { entryPoints: ['dns'], routes: [{ services: [{ name: 'whoami', port: 80 }] }] }));
    await create(cp, crd('TraefikService', 'split', { weighted: { services: [{ name: 'whoami', port: 80, weight: 3 }] } }));
    const raw = await until('tcp, udp and weighted records', async () => {
      const d = await rawdata(serve);
      const tcp = Object.keys(d.tcpRouters ?? {}).find((k) => k.startsWith('default-db-'));
      const udp = Object.keys(d.udpRouters ?? {}).find((k) => k.startsWith('default-dns-'));
      return tcp && udp && d.tcpMiddlewares?.['default-office-only@kubernetescrd'] && d.services?.['default-split@kubernetescrd'] ? d : undefined;
    });
    const tcpName = Object.keys(raw.tcpRouters).find((k) => k.startsWith('default-db-')) as string;
    const tcp = await record(serve, 'tcp/routers', tcpName);
    expect(tcp).toMatchObject({ rule: 'HostSNI(`*`)', entryPoints: ['postgres'], provider: 'kubernetescrd' });
    expect(tcp.middlewares.map((m: string) => m.replace(/@kubernetescrd$/, ''))).toEqual(['default-office-only']);
    expect(raw.tcpMiddlewares['default-office-only@kubernetescrd']).toMatchObject({ ipAllowList: { sourceRange: ['192.0.2.0/24'] } });
    expect(raw.services['default-split@kubernetescrd'].weighted.services).toEqual([{ name: 'default-whoami-80', weight: 3 }]);
  });

  it('names the object each of its records was made from (/api/portico/sources), uid and resourceVersion included', async () => {
    await create(cp, crd('Middleware', 'src-headers', { headers: { customRequestHeaders: { 'X-Src': 'yes' } } }));
    await create(cp, ingressRoute('sourced', 'Host(`sourced.test`)', { middlewares: [{ name: 'src-headers' }] }));
    const router = await until('sourced router', async () => (await records(serve, 'http/routers')).find((r) => r.name.startsWith('default-sourced-'))?.name as string | undefined);
    const sources = await until('its source', async () => {
      const s = await apiGet(serve, '/api/portico/sources');
      return s?.http?.routers?.[router] && s?.http?.middlewares?.['default-src-headers@kubernetescrd'] ? s : undefined;
    });
    const kinds = new Set<string>();
    let checked = 0;
    for (const [protocol, recordKinds] of [['http', ['routers', 'services', 'middlewares']], ['tcp', ['routers', 'services', 'middlewares']], ['udp', ['routers', 'services']]] as const) {
      for (const kind of recordKinds) {
        for (const r of await records(serve, `${protocol}/${kind}`)) {
          if (r.provider !== 'kubernetes' && r.provider !== 'kubernetescrd') continue;
          const s = sources[protocol]?.[kind]?.[r.name];
          expect(s, `${protocol} ${kind} ${r.name} has a source`).toBeDefined();
          // The object exists on the server under that name, with that uid; the resourceVersion is
          // the one the records were translated from (a later status write may have raised it).
          const obj = await get(cp, { apiVersion: s.apiVersion, kind: s.kind, metadata: { namespace: s.namespace, name: s.name } });
          expect(obj?.metadata?.uid, `${r.name}: ${JSON.stringify(s)}`).toBe(s.uid);
          expect(BigInt(s.resourceVersion)).toBeLessThanOrEqual(BigInt(obj?.metadata?.resourceVersion as string));
          const group = s.apiVersion.includes('/') ? `.${s.apiVersion.split('/')[0]}` : '';
          expect(s.kubectl).toBe(`kubectl get ${s.kind.toLowerCase()}${group} ${s.name} -n ${s.namespace} -o yaml`);
          expect(s.provider).toBe(r.provider);
          kinds.add(s.kind);
          checked++;
        }
      }
    }
    expect([...kinds].sort()).toEqual(['Ingress', 'IngressRoute', 'IngressRouteTCP', 'IngressRouteUDP', 'Middleware', 'MiddlewareTCP', 'TraefikService']);
    expect(checked).toBeGreaterThanOrEqual(12);
    const one = await apiGet(serve, `/api/portico/sources/http/routers/${encodeURIComponent(router)}`);
    expect(one).toMatchObject({ apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', namespace: 'default', name: 'sourced', provider: 'kubernetescrd' });
    expect((await apiGet(serve, '/api/portico/sources/http/services/default-whoami-http@kubernetes')).kind).toBe('Ingress');
    // The dashboard's namespace filter now has something to filter on.
    const page = await apiGet(serve, '/api/portico/records/http/routers?namespace=default&per_page=1000');
    expect(page.map((r: { name: string }) => r.name)).toContain(router);
    expect(await apiGet(serve, '/api/portico/records/http/routers?namespace=elsewhere')).toEqual([]);
  });

  it('writes Accepted and ResolvedRefs conditions that the real server keeps, and only when they change', async () => {
    await create(cp, ingressRoute('good', 'Host(`good.test`)'));
    await create(cp, ingressRoute('bad', 'Host(`bad.test`'));
    await create(cp, ingressRoute('refs', 'Host(`refs.test`)', { middlewares: [{ name: 'ghost' }] }));
    const obj = (name: string) => get(cp, ingressRoute(name, ''));
    const good = await until('status on good', async () => ((await obj('good'))?.status?.conditions?.length === 2 ? obj('good') : undefined));
    expect(good?.status?.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['Accepted=True', 'ResolvedRefs=True']);
    expect(condition(good, 'Accepted')).toMatchObject({ reason: 'Accepted', observedGeneration: 1 });
    const bad = await until('status on bad', async () => (condition(await obj('bad'), 'Accepted')?.reason === 'InvalidRule' ? obj('bad') : undefined));
    expect(condition(bad, 'Accepted')?.status).toBe('False');
    await until('status on refs', async () => condition(await obj('refs'), 'ResolvedRefs')?.reason === 'MiddlewareNotFound');
    // The invalid rule is still delivered, as Traefik shows it, next to the good one.
    await until('good router', crdRouter('default-good-'));
    // A spec change bumps the generation, and the conditions follow it.
    await apply(cp, ingressRoute('bad', 'Host(`fixed.test`)'));
    const fixed = await until('fixed', async () => (condition(await obj('bad'), 'Accepted')?.status === 'True' ? obj('bad') : undefined));
    expect(condition(fixed, 'Accepted')?.observedGeneration).toBe(2);
    // Nothing changes: the stored object keeps its resourceVersion across a resync of the same state.
    const rv = (await obj('good'))?.metadata.resourceVersion;
    await apply(cp, ingress('poke', 'poke.test'));
    await untilRecord(serve, 'http/routers', 'default-poke-poke-test@kubernetes');
    expect((await obj('good'))?.metadata.resourceVersion).toBe(rv);
  });

  it('records a Warning Event on an object it refuses, as the chart lets it', async () => {
    await create(cp, ingressRoute('broken', 'Host(`broken.test`'));
    const event = await until('event', async () => {
      const list = await cp.call('GET', '/api/v1/namespaces/default/events');
      return (list.body.items as KubeObject[]).find((e) => e.involvedObject?.name === 'broken' && e.reason === 'InvalidRule');
    });
    expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'IngressRoute', namespace: 'default' }, reportingComponent: 'portico.dev/operator', reportingInstance: 'replica-a' });
  });

  it('refuses an ExternalName backend (the chart keeps allowExternalNameServices off) with a router error', async () => {
    await create(cp, service('external', 'default', { type: 'ExternalName', externalName: 'example.org', ports: [{ name: 'http', port: 80 }] }));
    await create(cp, ingress('ext', 'ext.test', { service: 'external' }));
    const r = await untilRecord(serve, 'http/routers', 'default-ext-ext-test@kubernetes');
    expect(r.status).toBe('disabled');
    expect(await record(serve, 'http/services', 'default-external-http@kubernetes')).toBeUndefined();
  });

  it('resolves basicAuth users from a Secret and follows it through a change and a delete', async () => {
    const secret = (password: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'kubernetes.io/basic-auth', data: { username: b64('admin'), password: b64(password) } });
    await create(cp, secret('s3cret'));
    await create(cp, crd('Middleware', 'auth', { basicAuth: { secret: 'users', realm: 'portico' } }));
    const users = async () => (await record(serve, 'http/middlewares', 'default-auth@kubernetescrd'))?.basicAuth?.users?.[0];
    await until('users', async () => (await users()) === `admin:{SHA}${sha('s3cret')}`);
    await apply(cp, secret('changed'));
    await until('new password', async () => (await users()) === `admin:{SHA}${sha('changed')}`);
    await remove(cp, secret(''));
    await untilGone(serve, 'http/middlewares', 'default-auth@kubernetescrd');
    const mw = await until('SecretNotFound', async () => {
      const o = await get(cp, crd('Middleware', 'auth', {}));
      return condition(o, 'ResolvedRefs')?.reason === 'SecretNotFound' ? o : undefined;
    });
    expect(condition(mw, 'ResolvedRefs')?.message).toBe("secret 'default/users' not found");
    expect(JSON.stringify(mw.status)).not.toContain(b64('changed'));
  });

  it('resolves digestAuth users from an Opaque Secret, and never reads a TLS Secret as users', async () => {
    await create(cp, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'digest', namespace: 'default' }, type: 'Opaque', data: { users: b64('test:traefik:a2688e031edb4be6a3797f3882655c05\n') } });
    await create(cp, crd('Middleware', 'digest', { digestAuth: { secret: 'digest' } }));
    const mw = await untilRecord(serve, 'http/middlewares', 'default-digest@kubernetescrd');
    expect(mw.digestAuth.users).toEqual(['test:traefik:a2688e031edb4be6a3797f3882655c05']);
    // The real server validates Secret types: a TLS Secret needs both keys.
    const refused = await cp.call('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'half-cert' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C') } });
    expect(refused.status).toBe(422);
    await create(cp, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert', namespace: 'default' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C'), 'tls.key': b64('K') } });
    await create(cp, crd('Middleware', 'on-tls', { basicAuth: { secret: 'cert' } }));
    await until('TLS secret not read', async () => condition(await get(cp, crd('Middleware', 'on-tls', {})), 'ResolvedRefs')?.message === "secret 'default/cert' not found");
    expect(await record(serve, 'http/middlewares', 'default-on-tls@kubernetescrd')).toBeUndefined();
  });

  it('copies the chart Service\'s load balancer address to the Ingresses it serves, ports included', async () => {
    await create(cp, ingress('other-class', 'o.test', { annotations: { 'kubernetes.io/ingress.class': 'nginx' } }));
    // The real server keeps a load balancer status only on a LoadBalancer Service (values
    // service.type), which a cloud controller then gives an address.
    const typed = await cp.call('PATCH', `/api/v1/namespaces/${RELEASE_NAMESPACE}/services/portico`, { spec: { type: 'LoadBalancer' } });
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    const patched = await cp.call('PATCH', `/api/v1/namespaces/${RELEASE_NAMESPACE}/services/portico/status`, {
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.7', ports: [{ port: 80, protocol: 'TCP' }] }] } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const lb = async (name: string) => (await get(cp, ingress(name, '')))?.status?.loadBalancer?.ingress;
    const web = await until('web status', () => lb('web'));
    expect(web).toEqual([{ ip: '203.0.113.7', ports: [{ port: 80, protocol: 'TCP' }] }]);
    expect(await lb('other-class')).toBeUndefined();
    expect(operator.logged('Ingress status update failed')).toEqual([]);
  });

  it('drops the status an Ingress or a CRD object is created with (the status subresource)', async () => {
    const made = await create(cp, { ...ingress('with-status', 'ws.test', { service: 'nothere' }), status: { loadBalancer: { ingress: [{ ip: '198.51.100.9' }] } } });
    expect(made.status?.loadBalancer?.ingress).toBeUndefined();
    const route = await create(cp, { ...ingressRoute('with-status', 'Host(`ws.test`)'), status: { conditions: [{ type: 'Accepted', status: 'False', reason: 'Forged' }] } });
    expect(route.status).toBeUndefined();
    // The leader still writes its own conditions.
    await until('written', async () => condition(await get(cp, ingressRoute('with-status', '')), 'Accepted')?.reason === 'Accepted');
  });

  it('keeps every watch running without an error or a retry', () => {
    expect(operator.logged('list/watch failed')).toEqual([]);
    expect(operator.lines.filter((l) => (l.level ?? 0) >= 50).map((l) => l.msg)).toEqual([]);
  });

  it('re-delivers everything to a portico serve that restarts, even after a crash', async () => {
    await serve.kill();
    serve = await serve.restart();
    await untilRecord(serve, 'http/routers', 'default-web-a-test@kubernetes');
    await until('crd records too', crdRouter('default-good-'));
    expect(await record(serve, 'http/middlewares', 'default-strip@kubernetescrd')).toBeDefined();
  });
});
