import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeKubeApiServer, Obj } from '../../support/fake-kube-apiserver.js';
import { eventually, type FakeInternalEndpoint } from './fake-internal-endpoint.js';
import { InProcessOperators } from './operator-harness.js';

// The whole operator in-process (runOperator, real HTTP both ways) against the fake API server
// and a stand-in for the server's internal endpoint.

const svc: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'whoami', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } };
const slice: Obj = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: 'whoami-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'whoami' } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
};
function ingress(name: string, host: string): Obj {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: 'default' },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'whoami', port: { name: 'http' } } } }] } }] },
  };
}
function route(name: string, match: string): Obj {
  return { apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name, namespace: 'default' }, spec: { routes: [{ match, services: [{ name: 'whoami', port: 80 }] }] } };
}

describe('operator against the fake API server', () => {
  const ops = new InProcessOperators();
  let kube: FakeKubeApiServer;
  let endpoint: FakeInternalEndpoint;
  const running = ops.running;

  beforeEach(async () => {
    await ops.setUp('portico-operator-');
    ({ kube, endpoint } = ops);
  });

  afterEach(() => ops.tearDown());

  const start = (extra: string[] = []) => ops.start(extra, { health: true });

  const routers = (provider: string) => endpoint.snapshots.get(provider)?.configuration.http?.routers ?? {};

  it('delivers Ingress and CRD records, follows changes and deletes, and is ready after the first sync', async () => {
    kube.applyAll([svc, slice, ingress('web', 'a.test'), route('test.route', 'Host(`foo.com`) && PathPrefix(`/bar`)')]);
    const { port } = start();
    const health = await port;
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 'ingress router');
    await eventually(() => routers('kubernetescrd')['default-test-route-6b204d94623b3df4370c'], 20_000, 'crd router');
    expect(endpoint.snapshots.get('kubernetes')?.serverStatus).toEqual({ 'default-whoami-http': { 'http://10.0.0.1:8080': 'UP' } });
    await eventually(async () => (await fetch(`http://127.0.0.1:${health}/readyz`)).status === 200, 20_000, 'ready');
    expect((await fetch(`http://127.0.0.1:${health}/healthz`)).status).toBe(200);

    kube.apply(ingress('web', 'b.test'));
    await eventually(() => routers('kubernetes')['default-web-b-test'] && !routers('kubernetes')['default-web-a-test'], 20_000, 'renamed router');
    kube.apply({ ...slice, endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false } }, { addresses: ['10.0.0.2'], conditions: { ready: true } }] });
    await eventually(() => endpoint.snapshots.get('kubernetes')?.serverStatus?.['default-whoami-http']?.['http://10.0.0.1:8080'] === 'DOWN', 20_000, 'DOWN status');
    kube.remove('portico.dev/v1alpha1', 'IngressRoute', 'default', 'test.route');
    await eventually(() => Object.keys(routers('kubernetescrd')).length === 0, 20_000, 'crd router deleted');
  });

  it('writes status conditions and events as leader, and keeps good records next to bad objects', async () => {
    kube.applyAll([svc, slice, route('good', 'Host(`good.test`)'), route('bad', 'Host(`bad.test`'),
      { ...route('refs', 'Host(`refs.test`)'), spec: { routes: [{ match: 'Host(`refs.test`)', middlewares: [{ name: 'ghost' }], services: [{ name: 'whoami', port: 80 }] }] } }]);
    start(['--operator.leader-election', 'true', '--operator.lease-namespace', 'default', '--operator.identity', 'replica-a']);
    const conditions = (name: string) => (kube.get('portico.dev/v1alpha1', 'IngressRoute', 'default', name)?.status?.conditions ?? []) as Obj[];
    await eventually(() => conditions('good').length === 2, 20_000, 'status on good');
    expect(conditions('good').map((c) => `${c.type}=${c.status}`)).toEqual(['Accepted=True', 'ResolvedRefs=True']);
    await eventually(() => conditions('bad')[0]?.reason === 'InvalidRule', 20_000, 'status on bad');
    await eventually(() => conditions('refs')[1]?.reason === 'MiddlewareNotFound', 20_000, 'status on refs');
    expect(conditions('bad')[0]?.observedGeneration).toBe(1);
    await eventually(() => kube.list('v1', 'Event').some((e) => e.involvedObject?.name === 'bad' && e.reason === 'InvalidRule' && e.type === 'Warning'), 20_000, 'event');
    await eventually(() => Object.keys(routers('kubernetescrd')).some((k) => k.startsWith('default-good-')), 20_000, 'good records delivered');
    expect(kube.get('coordination.k8s.io/v1', 'Lease', 'default', 'portico-operator')?.spec?.holderIdentity).toBe('replica-a');
    // Statuses are not rewritten when nothing changed.
    const patches = kube.count('PATCH IngressRoute/status');
    await new Promise((r) => setTimeout(r, 300));
    expect(kube.count('PATCH IngressRoute/status')).toBe(patches);
  });

  it('elects one leader among two replicas; only it writes status', async () => {
    kube.applyAll([svc, slice, route('good', 'Host(`good.test`)')]);
    start(['--operator.leader-election', 'true', '--operator.lease-namespace', 'default', '--operator.identity', 'replica-a']);
    await eventually(() => kube.get('coordination.k8s.io/v1', 'Lease', 'default', 'portico-operator')?.spec?.holderIdentity, 20_000, 'lease');
    start(['--operator.leader-election', 'true', '--operator.lease-namespace', 'default', '--operator.identity', 'replica-b']);
    await new Promise((r) => setTimeout(r, 500));
    expect(kube.get('coordination.k8s.io/v1', 'Lease', 'default', 'portico-operator')?.spec?.holderIdentity).toBe('replica-a');
    // The leader stops and releases the Lease: the other one takes over.
    const first = running.shift();
    first?.controller.abort();
    await first?.done;
    await eventually(() => kube.get('coordination.k8s.io/v1', 'Lease', 'default', 'portico-operator')?.spec?.holderIdentity === 'replica-b', 20_000, 'takeover');
  });

  it('delivers a change at once when no delivery is under way, and batches a burst made during one', async () => {
    kube.applyAll([svc, slice, ingress('web', 'a.test')]);
    // A debounce far longer than the waits below: a change must not wait for it when nothing is sent.
    start(['--operator.debounce', '4s']);
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 'first sync');
    kube.apply(ingress('web', 'b.test'));
    await eventually(() => routers('kubernetes')['default-web-b-test'], 20_000, 'a lone change');
    kube.apply(ingress('web', 'c.test'));
    await eventually(() => routers('kubernetes')['default-web-c-test'], 20_000, 'a second change right after');

    // While a PUT is under way (a slow server), changes wait and go out together.
    endpoint.putDelayMs = 150;
    const before = endpoint.puts;
    for (let i = 0; i < 30; i++) {
      kube.apply(ingress('web', `burst-${i}.test`));
      await new Promise((r) => setTimeout(r, 10));
    }
    await eventually(() => routers('kubernetes')['default-web-burst-29-test'], 10_000, 'the burst');
    expect(endpoint.puts - before).toBeLessThan(15);
  });

  it('re-delivers to a restarted server and retries a failing one', async () => {
    kube.applyAll([svc, slice, ingress('web', 'a.test')]);
    endpoint.failNext(3);
    start();
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 'delivery after failures');
    endpoint.forget();
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 're-delivery');
  });

  it('survives watches killed mid-stream, 410 Gone and an API server restart', async () => {
    kube.applyAll([svc, slice, ingress('web', 'a.test')]);
    start();
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 'first delivery');
    kube.killWatches();
    kube.apply(ingress('two', 'two.test'));
    await eventually(() => routers('kubernetes')['default-two-two-test'], 20_000, 'after kill');
    kube.compact();
    kube.expireWatches();
    kube.apply(ingress('three', 'three.test'));
    await eventually(() => routers('kubernetes')['default-three-three-test'], 20_000, 'after 410');
    await kube.restart({ downMs: 200, compact: true });
    kube.remove('networking.k8s.io/v1', 'Ingress', 'default', 'two');
    await eventually(() => !routers('kubernetes')['default-two-two-test'], 8000, 'after restart');
  });

  it('reads only namespaces matching the namespace selector, and follows relabelling', async () => {
    const ns = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    const otherSvc = { ...svc, metadata: { name: 'whoami', namespace: 'other' } };
    kube.applyAll([ns('default', { portico: 'enabled' }), ns('other'), svc, slice, otherSvc, ingress('web', 'a.test'), { ...ingress('web', 'b.test'), metadata: { name: 'web', namespace: 'other' } }]);
    start(['--operator.namespace-selector', 'portico=enabled']);
    await eventually(() => routers('kubernetes')['default-web-a-test'], 20_000, 'selected namespace');
    expect(routers('kubernetes')['other-web-b-test']).toBeUndefined();
    kube.apply(ns('other', { portico: 'enabled' }));
    await eventually(() => routers('kubernetes')['other-web-b-test'], 20_000, 'relabelled namespace');
  });
});

