/**
 * The fake API server (test/support/fake-kube-apiserver.ts) against the real one, request for
 * request: every behaviour the operator suites found the fake getting wrong is asked of both, and
 * both must answer alike. The fake stays for fast, deterministic fault injection; this suite keeps
 * it honest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKubeApiServer } from '../support/fake-kube-apiserver.js';
import { applyCrds } from './chart-objects.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { b64, endpointSlice, ingress, ingressRoute, service } from './operator-fixtures.js';

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind
interface Target {
  readonly name: string;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
}

let cp: ControlPlane;
let fake: FakeKubeApiServer;
const targets: Target[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
  await applyCrds(cp);
  fake = new FakeKubeApiServer();
  await fake.start();
  targets.push({ name: 'real', call: (m, p, b) => cp.call(m, p, b) });
  targets.push({
    name: 'fake',
    call: async (method, path, body) => {
      const res = await fetch(fake.url + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body: parsed };
    },
  });
});

afterAll(async () => {
  await fake?.close();
  await cp?.stop();
});

const INGRESSES = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const ROUTES = '/apis/portico.dev/v1alpha1/namespaces/default/ingressroutes';
const SERVICES = '/api/v1/namespaces/default/services';
const SECRETS = '/api/v1/namespaces/default/secrets';

/** Runs `check` against the real server and the fake, each under its own name. */
function both(title: string, check: (t: Target) => Promise<void>): void {
  it(title, async () => {
    for (const t of targets) {
      try {
        await check(t);
      } catch (err) {
        throw new Error(`${t.name} server: ${(err as Error).message}`, { cause: err });
      }
    }
  });
}

describe('the fake API server answers as the real one', () => {
  both('a create drops the status of an Ingress and of a CRD object (status subresource)', async (t) => {
    const ing = await t.call('POST', INGRESSES, { ...ingress('created-with-status', 'a.test'), status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }] } } });
    expect(ing.status).toBe(201);
    expect(ing.body.status?.loadBalancer?.ingress).toBeUndefined();
    const route = await t.call('POST', ROUTES, { ...ingressRoute('created-with-status', 'Host(`a.test`)'), status: { conditions: [{ type: 'Accepted', status: 'True' }] } });
    expect(route.status).toBe(201);
    expect(route.body.status?.conditions).toBeUndefined();
  });

  both('a write that changes nothing keeps the resourceVersion', async (t) => {
    const made = await t.call('POST', ROUTES, ingressRoute('no-op', 'Host(`n.test`)'));
    const again = await t.call('PUT', `${ROUTES}/no-op`, made.body);
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(made.body.metadata.resourceVersion);
    const conditions = [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
    const first = await t.call('PATCH', `${ROUTES}/no-op/status`, { status: { conditions } });
    expect(first.body.metadata.resourceVersion).not.toBe(made.body.metadata.resourceVersion);
    const second = await t.call('PATCH', `${ROUTES}/no-op/status`, { status: { conditions } });
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  both('status.conditions is a map keyed by type: a duplicate type is refused', async (t) => {
    await t.call('POST', ROUTES, ingressRoute('dup', 'Host(`d.test`)'));
    const res = await t.call('PATCH', `${ROUTES}/dup/status`, { status: { conditions: [{ type: 'Accepted', status: 'True' }, { type: 'Accepted', status: 'False' }] } });
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toContain('status.conditions[1]');
    expect(res.body.message).toContain('Duplicate value');
  });

  both('an Ingress load balancer port without a protocol is kept, with protocol ""', async (t) => {
    await t.call('POST', INGRESSES, ingress('lb-port', 'p.test'));
    const res = await t.call('PATCH', `${INGRESSES}/lb-port/status`, { status: { loadBalancer: { ingress: [{ ip: '198.51.100.1', ports: [{ port: 80 }] }] } } });
    expect(res.status).toBe(200);
    expect(res.body.status.loadBalancer.ingress).toEqual([{ ip: '198.51.100.1', ports: [{ port: 80, protocol: '' }] }]);
  });

  both('a load balancer status is kept only on a LoadBalancer Service, and cluster IPs come from 10.96.0.0/16', async (t) => {
    await t.call('POST', SERVICES, service('plain'));
    const lb = { status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }] } } };
    const refused = await t.call('PATCH', `${SERVICES}/plain/status`, lb);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('status.loadBalancer.ingress');
    await t.call('POST', SERVICES, service('balanced', 'default', { type: 'LoadBalancer' }));
    expect((await t.call('PATCH', `${SERVICES}/balanced/status`, lb)).status).toBe(200);
    const outside = await t.call('POST', SERVICES, service('outside', 'default', { clusterIP: '10.0.0.10' }));
    expect(outside.status).toBe(422);
    expect(outside.body.message).toContain('failed to allocate IP 10.0.0.10: the provided network does not match the current range');
    expect((await t.call('POST', SERVICES, service('inside', 'default', { clusterIP: '10.96.0.10' }))).status).toBe(201);
  });

  both('Secret types are validated', async (t) => {
    const secret = (name: string, type: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type, data });
    expect((await t.call('POST', SECRETS, secret('no-user', 'kubernetes.io/basic-auth', {}))).status).toBe(422);
    expect((await t.call('POST', SECRETS, secret('half-cert', 'kubernetes.io/tls', { 'tls.crt': b64('C') }))).status).toBe(422);
    expect((await t.call('POST', SECRETS, secret('user-only', 'kubernetes.io/basic-auth', { username: b64('u') }))).status).toBe(201);
  });

  both('the DefaultIngressClass admission names the default class in a new Ingress without one', async (t) => {
    const cls = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: `default-${t.name}`, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'portico.dev/ingress-controller' } };
    expect((await t.call('POST', '/apis/networking.k8s.io/v1/ingressclasses', cls)).status).toBe(201);
    // The real admission reads IngressClasses through an informer: on a loaded machine its cache
    // once lagged the create. Probe Ingresses (deleted at once) until it names the class, 30 s at most.
    for (let i = 0, deadline = Date.now() + 30_000; ; i++) {
      const probe = await t.call('POST', INGRESSES, ingress(`probe-${i}-${t.name}`, 'd.test'));
      await t.call('DELETE', `${INGRESSES}/probe-${i}-${t.name}`);
      if (probe.body.spec.ingressClassName !== undefined || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const plain = await t.call('POST', INGRESSES, ingress(`defaulted-${t.name}`, 'd.test'));
    expect(plain.body.spec.ingressClassName).toBe(`default-${t.name}`);
    const annotated = await t.call('POST', INGRESSES, ingress(`annotated-${t.name}`, 'd.test', { annotations: { 'kubernetes.io/ingress.class': 'nginx' } }));
    expect(annotated.body.spec.ingressClassName).toBeUndefined();
    await t.call('DELETE', `/apis/networking.k8s.io/v1/ingressclasses/default-${t.name}`);
  });

  both('field selectors are per resource: type on Secrets only', async (t) => {
    expect((await t.call('GET', `${SECRETS}?fieldSelector=${encodeURIComponent('type!=kubernetes.io/tls')}`)).status).toBe(200);
    const services = await t.call('GET', `${SERVICES}?fieldSelector=type%3DClusterIP`);
    expect(services.status).toBe(400);
    expect(services.body.message).toContain('field label not supported: type');
    expect((await t.call('GET', `${SERVICES}?fieldSelector=metadata.name%3Dplain`)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['plain']);
  });

  both('label selectors follow the real grammar', async (t) => {
    for (const ok of ['a in (x,y)', '!a', 'a notin (x),b', 'app.kubernetes.io/name=web', 'a!=b']) {
      expect((await t.call('GET', `${SERVICES}?labelSelector=${encodeURIComponent(ok)}`)).status, ok).toBe(200);
    }
    for (const bad of ['a in x', 'a==b==c', '-a=b']) {
      expect((await t.call('GET', `${SERVICES}?labelSelector=${encodeURIComponent(bad)}`)).status, bad).toBe(400);
    }
  });

  both('lists carry managedFields and, on an unfiltered page, remainingItemCount', async (t) => {
    for (const n of ['s1', 's2', 's3']) await t.call('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', endpointSlice('whoami', [['10.0.0.1', true]], 'default', n));
    const page = await t.call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?limit=1');
    expect(page.body.metadata.continue).toBeTruthy();
    expect(page.body.metadata.remainingItemCount).toBe(2);
    expect(page.body.items[0].metadata.managedFields?.length).toBeGreaterThan(0);
    const filtered = await t.call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?limit=1&labelSelector=kubernetes.io%2Fservice-name%3Dwhoami');
    expect(filtered.body.metadata.remainingItemCount).toBeUndefined();
  });
});

describe('refusals', () => {
  it('words a 403 as RBAC does, naming the user, verb, resource and scope', async () => {
    const real = await cp.call('GET', '/apis/discovery.k8s.io/v1/endpointslices?watch=true', undefined, cp.operatorToken);
    fake.failNext(1, 403);
    const res = await fetch(`${fake.url}/apis/discovery.k8s.io/v1/endpointslices?watch=true`);
    const body = (await res.json()) as { reason: string; message: string; code: number };
    expect(real.status).toBe(403);
    expect(res.status).toBe(403);
    expect({ reason: body.reason, message: body.message, code: body.code }).toEqual({ reason: real.body.reason, message: real.body.message, code: real.body.code });
    const realNs = await cp.call('GET', '/api/v1/namespaces/default/secrets', undefined, cp.operatorToken);
    fake.failNext(1, 403);
    const fakeNs = (await (await fetch(`${fake.url}/api/v1/namespaces/default/secrets`)).json()) as { message: string };
    expect(fakeNs.message).toBe(realNs.body.message);
  });

  it('answers an unknown token with 401 Unauthorized', async () => {
    const real = await cp.call('GET', '/api/v1/services', undefined, 'not-a-token');
    const strict = new FakeKubeApiServer({ authorization: 'Bearer right' });
    await strict.start();
    try {
      const res = await fetch(`${strict.url}/api/v1/services`, { headers: { authorization: 'Bearer not-a-token' } });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBe(real.status);
      expect({ reason: body.reason, message: body.message }).toEqual({ reason: real.body.reason, message: real.body.message });
    } finally {
      await strict.close();
    }
  });
});
