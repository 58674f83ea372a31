/**
 * The operator as the chart deploys it against a real kube-apiserver, in the scenarios that need a
 * cluster to themselves: namespace selection (the chart's per-namespace Roles), IngressClass with
 * the DefaultIngressClass admission, leader election with two operators and a crash of the leader,
 * and a missing RBAC verb.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apply, applyChartRbac, applyCrds, create, get, namespace, remove, RELEASE_NAMESPACE, type KubeObject } from './chart-objects.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { condition, endpointSlice, ingress, ingressRoute, service } from './operator-fixtures.js';
import { record, records, startOperator, startServe, until, untilGone, untilRecord, type OperatorProcess, type ServeProcess } from './portico-processes.js';

let cp: ControlPlane;
let serve: ServeProcess;
const operators: OperatorProcess[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
  await applyCrds(cp);
  for (const ns of ['team-a', 'team-b']) await create(cp, namespace(ns));
  for (const ns of ['default', 'team-a', 'team-b']) {
    await create(cp, service('whoami', ns));
    await create(cp, endpointSlice('whoami', [['10.0.0.1', true]], ns));
  }
  serve = await startServe();
});

afterEach(async () => {
  for (const op of operators.splice(0)) await op.stop();
});

afterAll(async () => {
  for (const op of operators) await op.stop();
  await serve?.dispose();
  await cp?.stop();
});

const leasePath = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'portico-operator', namespace: RELEASE_NAMESPACE } };

async function operator(extraArgs: string[] = [], chartValues: string[] = []): Promise<OperatorProcess> {
  const op = await startOperator({ kubeconfig: cp.kubeconfig('operator'), serve, extraArgs, chartValues });
  operators.push(op);
  return op;
}

/** Replaces the chart's RBAC by the one rendered with `values` (the release is upgraded). */
async function chartRbac(values: string[] = []): Promise<void> {
  for (const kind of ['ClusterRoleBinding', 'ClusterRole']) {
    await remove(cp, { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: 'portico-operator' } });
  }
  for (const ns of ['team-a', 'team-b']) {
    await remove(cp, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'portico-operator', namespace: ns } });
  }
  await applyChartRbac(cp, values);
}

describe('namespaces', () => {
  it('with operator.namespaces, reads only those namespaces through the chart\'s Roles there', async () => {
    await chartRbac(['operator.namespaces={team-a}']);
    // The chart grants no cluster-wide read of Ingresses any more: only the Role in team-a.
    const clusterWide = await cp.call('GET', '/apis/networking.k8s.io/v1/ingresses', undefined, cp.operatorToken);
    expect(clusterWide.status).toBe(403);
    await create(cp, ingress('web', 'a.test', { namespace: 'team-a' }));
    await create(cp, ingress('web', 'b.test', { namespace: 'team-b' }));
    const op = await operator([], ['operator.namespaces={team-a}']);
    await untilRecord(serve, 'http/routers', 'team-a-web-a-test@kubernetes');
    await until('ready', async () => (await op.readyz()).status === 200);
    expect(await record(serve, 'http/routers', 'team-b-web-b-test@kubernetes')).toBeUndefined();
    expect(op.logged('list/watch failed')).toEqual([]);
  });

  it('with the label selector of the chart, reads only the labelled routing objects', async () => {
    await chartRbac();
    await create(cp, { ...ingress('labelled', 'l.test'), metadata: { name: 'labelled', namespace: 'default', labels: { 'portico.dev/expose': 'true' } } });
    await create(cp, ingress('unlabelled', 'u.test'));
    const op = await operator([], ['operator.labelSelector=portico.dev/expose in (true\\,yes)']);
    await untilRecord(serve, 'http/routers', 'default-labelled-l-test@kubernetes');
    await until('ready', async () => (await op.readyz()).status === 200);
    expect(await record(serve, 'http/routers', 'default-unlabelled-u-test@kubernetes')).toBeUndefined();
  });
});

describe('IngressClass and the DefaultIngressClass admission', () => {
  const ingressClass = (name: string, controller: string, isDefault: boolean): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass',
    metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': String(isDefault) } },
    spec: { controller },
  });
  /**
   * Waits until the DefaultIngressClass admission gives a new class-less Ingress `expected` (a dry
   * run, which stores nothing): the plugin reads IngressClasses from an informer, which sees a
   * change a moment after it is written (seconds on a busy machine).
   */
  const admissionDefaults = (expected: string | undefined) => until(`the admission's default class to be ${expected ?? 'none'}`, async () => {
    const res = await cp.call('POST', '/apis/networking.k8s.io/v1/namespaces/team-b/ingresses?dryRun=All', ingress('dry-run-probe', 'probe.test', { namespace: 'team-b' }));
    return res.status === 201 && res.body.spec.ingressClassName === expected;
  });

  it('serves what the default class admission makes of a new Ingress, following the class\'s controller', async () => {
    await chartRbac();
    await create(cp, ingressClass('portico', 'portico.dev/ingress-controller', true));
    await create(cp, ingressClass('nginx', 'k8s.io/ingress-nginx', false));
    await admissionDefaults('portico');
    const op = await operator();
    // The admission writes the default class into an Ingress created without one.
    const made = await create(cp, ingress('defaulted', 'd.test', { namespace: 'team-b' }));
    expect(made.spec.ingressClassName).toBe('portico');
    await untilRecord(serve, 'http/routers', 'team-b-defaulted-d-test@kubernetes');
    // The legacy annotation keeps the admission away: the Ingress stays class-less by spec.
    const annotated = await create(cp, ingress('annotated', 'n.test', { namespace: 'team-b', annotations: { 'kubernetes.io/ingress.class': 'nginx' } }));
    expect(annotated.spec.ingressClassName).toBeUndefined();
    // nginx's default: new Ingresses now belong to nginx and are not served.
    await apply(cp, ingressClass('portico', 'portico.dev/ingress-controller', false));
    await apply(cp, ingressClass('nginx', 'k8s.io/ingress-nginx', true));
    await admissionDefaults('nginx');
    const foreign = await create(cp, ingress('foreign', 'f.test', { namespace: 'team-b' }));
    expect(foreign.spec.ingressClassName).toBe('nginx');
    await create(cp, ingress('explicit', 'e.test', { namespace: 'team-b', className: 'portico' }));
    await untilRecord(serve, 'http/routers', 'team-b-explicit-e-test@kubernetes');
    expect(await record(serve, 'http/routers', 'team-b-foreign-f-test@kubernetes')).toBeUndefined();
    expect(await record(serve, 'http/routers', 'team-b-annotated-n-test@kubernetes')).toBeUndefined();
    await until('ready', async () => (await op.readyz()).status === 200);
  });

  it('with operator.ingressClass, serves only Ingresses of that class', async () => {
    await chartRbac();
    const op = await operator([], ['operator.ingressClass=portico']);
    await until('ready', async () => (await op.readyz()).status === 200);
    await untilRecord(serve, 'http/routers', 'team-b-explicit-e-test@kubernetes');
    await untilRecord(serve, 'http/routers', 'team-b-defaulted-d-test@kubernetes');
    expect(await record(serve, 'http/routers', 'team-b-foreign-f-test@kubernetes')).toBeUndefined();
    for (const name of ['defaulted', 'annotated', 'foreign', 'explicit']) await remove(cp, ingress(name, '', { namespace: 'team-b' }));
    await untilGone(serve, 'http/routers', 'team-b-explicit-e-test@kubernetes');
  });

  // Neither these Ingresses nor a default class any more, even when a test above failed half-way:
  // the next suites' Ingresses stay class-less.
  afterAll(async () => {
    for (const name of ['defaulted', 'annotated', 'foreign', 'explicit']) await remove(cp, ingress(name, '', { namespace: 'team-b' }));
    for (const name of ['portico', 'nginx']) await remove(cp, ingressClass(name, '', false));
    await admissionDefaults(undefined);
  });
});

describe('leader election', () => {
  it('fails over to the second operator within the lease time when the leader is killed', async () => {
    await chartRbac();
    const a = await operator(['--operator.identity=replica-a']);
    await until('a leads', async () => (await get(cp, leasePath))?.spec?.holderIdentity === 'replica-a');
    const b = await operator(['--operator.identity=replica-b']);
    await until('b ready', async () => (await b.readyz()).status === 200);
    expect((await get(cp, leasePath))?.spec?.holderIdentity).toBe('replica-a');
    expect(b.logged('became leader')).toEqual([]);
    await a.kill();
    // The Lease is 15 s; b takes over once it expires, without a release from the dead leader.
    await until('b leads', async () => (await get(cp, leasePath))?.spec?.holderIdentity === 'replica-b', 40_000);
    const lease = await get(cp, leasePath);
    expect(lease?.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    // The new leader writes statuses; records still follow changes.
    await create(cp, ingressRoute('after-failover', 'Host(`af.test`'));
    await until('condition by b', async () => condition(await get(cp, ingressRoute('after-failover', '')), 'Accepted')?.reason === 'InvalidRule');
    await create(cp, ingress('after-failover', 'af.test'));
    await untilRecord(serve, 'http/routers', 'default-after-failover-af-test@kubernetes');
  }, 90_000);
});

describe('a missing RBAC verb', () => {
  it('is one clear error naming the verb and resource, keeps the operator unready, and heals when granted', async () => {
    await chartRbac();
    // The ClusterRole without watch on EndpointSlices.
    const role = await get(cp, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'portico-operator' } }) as KubeObject;
    const full = structuredClone(role.rules);
    role.rules = (role.rules as { resources: string[]; verbs: string[] }[]).map((r) => (r.resources.includes('endpointslices') ? { ...r, verbs: ['list'] } : r));
    await apply(cp, role);
    const op = await operator();
    const problem = await until('error line', () => op.logged('permission denied')[0]);
    expect(problem).toMatchObject({ level: 'error', verb: 'watch', resource: 'endpointslices.discovery.k8s.io' });
    const readyz = await until('unready naming it', async () => {
      const r = await op.readyz();
      return r.status === 503 && r.text.includes('watch endpointslices') ? r : undefined;
    });
    expect(readyz.text).toContain('system:serviceaccount:portico:portico');
    // Not a storm: over a few seconds of retries, still the one line.
    await new Promise((r) => setTimeout(r, 4000));
    expect(op.logged('permission denied')).toHaveLength(1);
    expect(op.logged('list/watch failed').length).toBeLessThanOrEqual(1);
    role.rules = full;
    await apply(cp, role);
    await until('ready once granted', async () => (await op.readyz()).status === 200, 60_000);
    expect(op.logged('permission granted')).toHaveLength(1);
  }, 90_000);

  const rbacObject = async (kind: string, name: string, namespace?: string) =>
    (await get(cp, { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name, ...(namespace ? { namespace } : {}) } })) as KubeObject;

  it('a refused status write is one error naming patch on the status subresource; the records still flow', async () => {
    await chartRbac();
    const role = await rbacObject('ClusterRole', 'portico-operator');
    role.rules = (role.rules as { apiGroups: string[]; resources: string[] }[]).filter((r) => !(r.apiGroups.includes('portico.dev') && r.resources.some((x) => x.endsWith('/status'))));
    await apply(cp, role);
    const op = await operator(['--operator.identity=status-less']);
    for (const n of [1, 2, 3]) await create(cp, ingressRoute(`unwritten-${n}`, `Host(\`u${n}.test\`)`));
    const line = await until('error line', () => op.logged('permission denied')[0]);
    expect(line).toMatchObject({ level: 'error', verb: 'patch', resource: 'ingressroutes.portico.dev/status', namespace: 'default' });
    await until('records delivered', async () => (await records(serve, 'http/routers')).filter((r) => String(r.name).startsWith('default-unwritten-')).length === 3);
    expect((await op.readyz()).status).toBe(200);
    expect(op.logged('permission denied')).toHaveLength(1);
    expect(op.logged('status update failed')).toEqual([]);
    expect(condition(await get(cp, ingressRoute('unwritten-1', '')), 'Accepted')).toBeUndefined();
  });

  it('a Lease that may not be created is one error naming it; granted, the replica leads and writes statuses', async () => {
    await chartRbac();
    await remove(cp, leasePath);
    const role = await rbacObject('Role', 'portico-leader-election', RELEASE_NAMESPACE);
    const verbs = structuredClone(role.rules);
    role.rules = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'] }];
    await apply(cp, role);
    await apply(cp, ingressRoute('lease-less', 'Host(`ll.test`)'));
    const op = await operator(['--operator.identity=lease-less']);
    const line = await until('error line', () => op.logged('permission denied')[0]);
    expect(line).toMatchObject({ level: 'error', verb: 'create', resource: 'leases.coordination.k8s.io', namespace: RELEASE_NAMESPACE });
    expect((await until('ready', async () => ((await op.readyz()).status === 200 ? 200 : undefined)))).toBe(200);
    await new Promise((r) => setTimeout(r, 3000));
    expect(op.logged('permission denied')).toHaveLength(1);
    expect(op.logged('lease update failed')).toEqual([]);
    role.rules = verbs;
    await apply(cp, role);
    await until('leads', async () => (await get(cp, leasePath))?.spec?.holderIdentity === 'lease-less');
    await until(`statuses written:\n${op.tail(15)}`, async () => condition(await get(cp, ingressRoute('lease-less', '')), 'Accepted')?.status === 'True');
  }, 60_000);

  it('a namespace selector the chart grants no Namespace read for is named, not retried loudly', async () => {
    await chartRbac();
    const op = await operator(['--operator.namespace-selector=portico=enabled']);
    const line = await until('error line', () => op.logged('permission denied')[0]);
    expect(line).toMatchObject({ verb: 'list', resource: 'namespaces' });
    const r = await until('unready', async () => {
      const x = await op.readyz();
      return x.status === 503 ? x : undefined;
    });
    expect(r.text).toContain('cannot list namespaces in all namespaces');
  });
});

describe('chart values that change what is read', () => {
  it('operator.traefikCrds reads traefik.io objects too, with the chart granting them', async () => {
    await chartRbac(['operator.traefikCrds=true']);
    await applyTraefikCrds();
    const made = await cp.call('POST', '/apis/traefik.io/v1alpha1/namespaces/default/ingressroutes', {
      ...ingressRoute('from-traefik', 'Host(`t.test`)'), apiVersion: 'traefik.io/v1alpha1',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const op = await operator([], ['operator.traefikCrds=true']);
    await until('ready', async () => (await op.readyz()).status === 200);
    const r = await until('traefik.io router', async () => (await records(serve, 'http/routers')).find((x) => String(x.name).startsWith('default-from-traefik-')));
    expect(r.provider).toBe('kubernetescrd');
    await until('status written on the traefik.io object', async () => {
      const o = (await cp.call('GET', '/apis/traefik.io/v1alpha1/namespaces/default/ingressroutes/from-traefik')).body;
      return condition(o, 'Accepted')?.status === 'True';
    });
  });

  it('operator.allowExternalNameServices and allowCrossNamespace let those references through', async () => {
    await chartRbac(['operator.allowExternalNameServices=true', 'operator.allowCrossNamespace=true']);
    await create(cp, service('external', 'default', { type: 'ExternalName', externalName: 'example.org', ports: [{ name: 'http', port: 80 }] }));
    await create(cp, ingress('ext', 'ext.test', { service: 'external' }));
    await create(cp, { ...ingressRoute('cross', 'Host(`cross.test`)'), spec: { routes: [{ match: 'Host(`cross.test`)', kind: 'Rule', services: [{ name: 'whoami', namespace: 'team-a', port: 80 }] }] } });
    const op = await operator([], ['operator.allowExternalNameServices=true', 'operator.allowCrossNamespace=true']);
    await until('ready', async () => (await op.readyz()).status === 200);
    const svc = await untilRecord(serve, 'http/services', 'default-external-http@kubernetes');
    expect(svc.loadBalancer.servers).toEqual([{ url: 'http://example.org:80' }]);
    const cross = await until('cross router', async () => (await records(serve, 'http/routers')).find((x) => String(x.name).startsWith('default-cross-') && x.status === 'enabled'));
    expect(cross.provider).toBe('kubernetescrd');
  });
});

/** Portico's CRDs again under Traefik's group, as `traefik.io` installs them. */
async function applyTraefikCrds(): Promise<void> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const dir = new URL('../../crds/', import.meta.url).pathname;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
    const crdObj = parse(readFileSync(dir + f, 'utf8')) as KubeObject;
    crdObj.spec.group = 'traefik.io';
    crdObj.metadata = { name: `${crdObj.spec.names.plural}.traefik.io` };
    await apply(cp, crdObj);
  }
  await until('traefik.io served', async () => (await cp.call('GET', '/apis/traefik.io/v1alpha1/ingressroutes?limit=1')).status === 200 && (await cp.call('GET', '/apis/traefik.io/v1alpha1/traefikservices?limit=1')).status === 200, 30_000);
}
