import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorCommandFlags } from '../../../src/flag-groups.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { runOperator } from '../../../src/providers/kubernetes/run-operator.js';
import type { FakeKubeApiServer, Obj } from '../../support/fake-kube-apiserver.js';
import { eventually, type FakeInternalEndpoint } from './fake-internal-endpoint.js';
import { InProcessOperators } from './operator-harness.js';

// The operator in-process against the fake API server: Secrets behind basicAuth middlewares,
// Ingress status from the ingress endpoint options, and the reference options as flags.

const b64 = (s: string) => Buffer.from(s).toString('base64');
const sha = (s: string) => createHash('sha1').update(s).digest('base64');

const svc: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'whoami', namespace: 'default' }, spec: { clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80 }] } };
const slice: Obj = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { name: 'whoami-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'whoami' } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
};
const external: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'example.org', ports: [{ name: 'http', port: 80 }] } };

function ingress(name: string, host: string, service = 'whoami'): Obj {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: 'default' },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }] } }] },
  };
}

function basicAuthSecret(password: string): Obj {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'kubernetes.io/basic-auth',
    data: { username: b64('admin'), password: b64(password) },
  };
}

const authMiddleware: Obj = { apiVersion: 'portico.dev/v1alpha1', kind: 'Middleware', metadata: { name: 'auth', namespace: 'default' }, spec: { basicAuth: { secret: 'users', realm: 'portico' } } };

describe('operator: secrets, Ingress status and reference options', () => {
  const ops = new InProcessOperators();
  let kube: FakeKubeApiServer;
  let endpoint: FakeInternalEndpoint;
  let dir: string;

  beforeEach(async () => {
    await ops.setUp('portico-operator-refs-');
    ({ kube, endpoint, dir } = ops);
  });

  afterEach(() => ops.tearDown());

  const start = (extra: string[] = []): void => void ops.start(['--operator.leader-election', 'false', ...extra]);

  const http = (provider: string) => endpoint.snapshots.get(provider)?.configuration.http;
  const condition = (kind: string, name: string, type: string) =>
    ((kube.get('portico.dev/v1alpha1', kind, 'default', name)?.status?.conditions ?? []) as Obj[]).find((c) => c.type === type);

  it('resolves basicAuth users from a Secret and follows the Secret through changes and deletion', async () => {
    kube.applyAll([svc, slice, basicAuthSecret('s3cret'), authMiddleware]);
    start();
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth'], 20_000, 'middleware delivered');
    expect(http('kubernetescrd')?.middlewares?.['default-auth']).toEqual({ basicAuth: { users: [`admin:{SHA}${sha('s3cret')}`], realm: 'portico' } });
    await eventually(() => condition('Middleware', 'auth', 'ResolvedRefs')?.status === 'True', 20_000, 'ResolvedRefs=True');

    // A new password re-translates the middleware, though its own object did not change.
    kube.apply(basicAuthSecret('changed'));
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth']?.basicAuth?.users?.[0] === `admin:{SHA}${sha('changed')}`, 20_000, 'new users');

    // Without the Secret the middleware is not built, as in Traefik, and its status says why.
    kube.remove('v1', 'Secret', 'default', 'users');
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth'] === undefined, 20_000, 'middleware withdrawn');
    await eventually(() => condition('Middleware', 'auth', 'ResolvedRefs')?.reason === 'SecretNotFound', 20_000, 'SecretNotFound');
    expect(condition('Middleware', 'auth', 'ResolvedRefs')?.message).toBe("secret 'default/users' not found");
    const events = () => kube.list('v1', 'Event').filter((e) => e.involvedObject?.name === 'auth');
    await eventually(() => events().some((e) => e.reason === 'SecretNotFound'), 20_000, 'event');
    // Secret data never reaches events or conditions.
    expect(JSON.stringify([events(), kube.get('portico.dev/v1alpha1', 'Middleware', 'default', 'auth')?.status])).not.toContain(b64('changed'));

    kube.apply(basicAuthSecret('back'));
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth']?.basicAuth?.users?.[0] === `admin:{SHA}${sha('back')}`, 20_000, 'restored');
  });

  it('asks the API server for credential Secrets only: certificates and Helm releases never reach it', async () => {
    const tls: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cert', namespace: 'default' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C'), 'tls.key': b64('K') } };
    const release: Obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sh.helm.release.v1.app.v1', namespace: 'default' }, type: 'helm.sh/release.v1', data: { release: b64('x'.repeat(1000)) } };
    const onTls: Obj = { ...authMiddleware, metadata: { name: 'on-tls', namespace: 'default' }, spec: { basicAuth: { secret: 'cert' } } };
    kube.applyAll([svc, slice, tls, release, basicAuthSecret('s3cret'), authMiddleware, onTls]);
    start();
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth'], 20_000, 'middleware delivered');
    await eventually(() => condition('Middleware', 'on-tls', 'ResolvedRefs')?.message === "secret 'default/cert' not found", 20_000, 'TLS secret filtered out');
    expect(http('kubernetescrd')?.middlewares?.['default-on-tls']).toBeUndefined();
  });

  it('is not ready while Secrets cannot be listed (RBAC), and says so', async () => {
    kube.applyAll([svc, slice]);
    kube.failNext(1_000_000, 403, /\/secrets/);
    const { port } = ops.start(['--operator.leader-election', 'false'], { health: true });
    const health = await port;
    await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${health}/readyz`);
      return res.status === 503 && (await res.text()).includes('forbidden: cannot list secrets in all namespaces (secrets is forbidden: User');
    }, 5000, 'readyz names the refused verb and resource');
    kube.failNext(0);
    await eventually(async () => (await fetch(`http://127.0.0.1:${health}/readyz`)).status === 200, 10000, 'ready once Secrets can be listed');
  });

  it('with --operator.read-secrets=false never lists Secrets and shows the middleware without users', async () => {
    kube.applyAll([svc, slice, basicAuthSecret('s3cret'), authMiddleware]);
    start(['--operator.read-secrets=false']);
    await eventually(() => http('kubernetescrd')?.middlewares?.['default-auth'], 20_000, 'middleware delivered');
    expect(http('kubernetescrd')?.middlewares?.['default-auth']).toEqual({ basicAuth: { secret: 'users', realm: 'portico' } });
    await eventually(() => condition('Middleware', 'auth', 'ResolvedRefs')?.reason === 'SecretNotRead', 20_000, 'SecretNotRead');
    expect(kube.count('LIST Secret') + kube.count('WATCH Secret')).toBe(0);
  });

  it('writes the ingress endpoint IP to served Ingresses only, once', async () => {
    kube.applyAll([svc, slice, ingress('web', 'a.test'),
      { ...ingress('other-class', 'b.test'), metadata: { name: 'other-class', namespace: 'default', annotations: { 'kubernetes.io/ingress.class': 'nginx' } } }]);
    start(['--operator.ingress-endpoint.ip', '203.0.113.7', '--operator.ingress-endpoint.hostname', 'lb.example.com']);
    const lb = (name: string) => kube.get('networking.k8s.io/v1', 'Ingress', 'default', name)?.status?.loadBalancer?.ingress;
    await eventually(() => lb('web'), 20_000, 'ingress status');
    expect(lb('web')).toEqual([{ ip: '203.0.113.7', hostname: 'lb.example.com' }]);
    expect(lb('other-class')).toBeUndefined();
    const patches = kube.count('PATCH Ingress/status');
    kube.apply(ingress('web', 'c.test'));
    await eventually(() => http('kubernetes')?.routers?.['default-web-c-test'], 20_000, 'changed ingress delivered');
    await new Promise((r) => setTimeout(r, 200));
    expect(kube.count('PATCH Ingress/status')).toBe(patches);
  });

  it('copies the published Service\'s load balancer status once it has one, and follows it', async () => {
    const published: Obj = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'portico', namespace: 'portico' }, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.99', ports: [{ name: 'http', port: 80 }] } };
    kube.applyAll([svc, slice, published, ingress('web', 'a.test')]);
    start(['--operator.ingress-endpoint.published-service', 'portico/portico']);
    const lb = () => kube.get('networking.k8s.io/v1', 'Ingress', 'default', 'web')?.status?.loadBalancer?.ingress;
    await eventually(() => http('kubernetes')?.routers?.['default-web-a-test'], 20_000, 'ingress delivered');
    await new Promise((r) => setTimeout(r, 200));
    expect(lb()).toBeUndefined(); // no load balancer address yet (the cloud controller writes it)
    expect(kube.count('PATCH Ingress/status')).toBe(0);
    kube.apply({ ...published, status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }, { hostname: 'lb.example.net' }] } } });
    await eventually(() => lb()?.length === 2, 20_000, 'load balancer status');
    expect(lb()).toEqual([{ ip: '198.51.100.1' }, { hostname: 'lb.example.net' }]);
  });

  it('does not re-write a published address whose Service entry carries ipMode (Kubernetes 1.30+)', async () => {
    const published: Obj = {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'portico', namespace: 'portico' }, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.99' },
      status: { loadBalancer: { ingress: [{ ip: '198.51.100.1', ipMode: 'VIP' }] } },
    };
    kube.applyAll([svc, slice, published, ingress('web', 'a.test')]);
    start(['--operator.ingress-endpoint.published-service', 'portico/portico']);
    const lb = () => kube.get('networking.k8s.io/v1', 'Ingress', 'default', 'web')?.status?.loadBalancer?.ingress;
    await eventually(() => lb()?.[0]?.ip === '198.51.100.1', 20_000, 'load balancer status');
    expect(lb()).toEqual([{ ip: '198.51.100.1' }]);
    const patches = kube.count('PATCH Ingress/status');
    // Each change makes a status pass; the Ingress already shows the address, so none writes.
    kube.apply(ingress('web', 'c.test'));
    await eventually(() => http('kubernetes')?.routers?.['default-web-c-test'], 20_000, 'changed ingress delivered');
    kube.apply(ingress('web', 'd.test'));
    await eventually(() => http('kubernetes')?.routers?.['default-web-d-test'], 20_000, 'changed again');
    await new Promise((r) => setTimeout(r, 200));
    expect(kube.count('PATCH Ingress/status')).toBe(patches);
  });

  it('fetches a published Service outside the watched namespaces', async () => {
    const published: Obj = {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'portico', namespace: 'portico' }, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.99' },
      status: { loadBalancer: { ingress: [{ hostname: 'edge.example.com' }] } },
    };
    kube.applyAll([svc, slice, published, ingress('web', 'a.test')]);
    start(['--operator.namespaces', 'default', '--operator.ingress-endpoint.published-service', 'portico/portico']);
    await eventually(() => kube.get('networking.k8s.io/v1', 'Ingress', 'default', 'web')?.status?.loadBalancer?.ingress?.[0]?.hostname === 'edge.example.com', 20_000, 'fetched');
    expect(kube.count('GET Service')).toBeGreaterThan(0);
  });

  it('refuses a malformed published service at start', async () => {
    const config = loadConfig(operatorCommandFlags, {
      argv: ['--kubeconfig', join(dir, 'kubeconfig'), '--operator.ingress-endpoint.published-service', 'no-slash'], env: {}, readFile: () => '',
    });
    await expect(runOperator(config, { logger: pino({ level: 'silent' }), now: Date.now, signal: new AbortController().signal }))
      .rejects.toThrow("--operator.ingress-endpoint.published-service: invalid publishedService format (expected 'namespace/service' format): no-slash");
  });

  it('refuses ExternalName backends and cross-namespace references unless the flags allow them', async () => {
    const crossRoute: Obj = {
      apiVersion: 'portico.dev/v1alpha1', kind: 'IngressRoute', metadata: { name: 'cross', namespace: 'default' },
      spec: { routes: [{ match: 'Host(`cross.test`)', services: [{ name: 'web', namespace: 'other', port: 80 }] }] },
    };
    const otherSvc: Obj = { ...svc, metadata: { name: 'web', namespace: 'other' } };
    kube.applyAll([svc, slice, external, otherSvc, ingress('ext', 'ext.test', 'external'), crossRoute]);
    start();
    await eventually(() => http('kubernetes')?.routers?.['default-ext-ext-test'], 20_000, 'router kept');
    expect(http('kubernetes')?.services?.['default-external-80']).toBeUndefined();
    await eventually(() => condition('IngressRoute', 'cross', 'ResolvedRefs')?.reason === 'RefNotPermitted', 20_000, 'RefNotPermitted');
    expect(condition('IngressRoute', 'cross', 'ResolvedRefs')?.message).toBe('service other/web not in the parent resource namespace default');
    expect(Object.keys(http('kubernetescrd')?.routers ?? {})).toEqual([]);

    await ops.stopAll();
    endpoint.forget();
    start(['--operator.allow-external-name-services', '--operator.allow-cross-namespace']);
    await eventually(() => http('kubernetes')?.services?.['default-external-80'], 20_000, 'ExternalName allowed');
    expect(http('kubernetes')?.services?.['default-external-80']?.loadBalancer?.servers).toEqual([{ url: 'http://example.org:80' }]);
    await eventually(() => Object.keys(http('kubernetescrd')?.routers ?? {}).length === 1, 20_000, 'cross-namespace allowed');
  });
});
