/**
 * The Helm chart installed into a real kube-apiserver with helm itself: with default values, with
 * every optional feature on (the Prometheus Operator's ServiceMonitor CRD installed first), upgraded
 * and uninstalled. Every object is read back from the server and compared with what the chart
 * rendered; the operator's identity is checked against the server's own RBAC authorizer, and the
 * operator itself runs as that identity with the Deployment's args; and
 * deliberately broken copies of the chart show that the server, not a client-side check, refuses
 * them. Helm 4 applies objects server-side by default; the suite says --server-side=true anyway,
 * because only server-side apply makes the server refuse an unknown field (a client-side apply
 * stores the object without it and warns, as one test shows).
 *
 * No kubelet and no controller-manager run: Deployments never become ready (never `--wait`), and
 * the PersistentVolumeClaim protection finalizer is never removed.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { watchedResources } from '../../src/providers/kubernetes/watch/object-cache.js';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { OPERATOR_USER, startControlPlane, type ControlPlane } from './control-plane.js';
import { ApiPaths, applyDryRun, createWorkload, helmFor, parseObjects, runOperatorAsDeployed, serviceMonitorCrdFile, storedDifferences, type Helm, type KubeObject } from './helm-support.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHART = join(ROOT, 'charts/portico');
const ALL_FEATURES = join(ROOT, 'test/fixtures/chart/values-all-features.yaml');
/** Always server-side apply, whatever the default of this helm or the method of a release's last revision. */
const SSA = '--server-side=true';
/** The release whose ServiceAccount is the control plane's operator identity (system:serviceaccount:portico:portico). */
const DEFAULT_RELEASE = { fullname: 'portico', namespace: 'portico' };

let cp: ControlPlane;
let helm: Helm;
let paths: ApiPaths;
let scratch: string;

beforeAll(async () => {
  cp = await startControlPlane();
  helm = helmFor(cp);
  paths = new ApiPaths(cp);
  scratch = mkdtempSync(join(tmpdir(), 'portico-helm-charts-'));
});

afterAll(async () => {
  helm?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await cp?.stop();
});

async function stored(obj: KubeObject, namespace: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- objects of every kind
  return cp.call('GET', await paths.of(obj, namespace));
}

function releaseStatus(release: string, namespace: string): { status: string; version: number } {
  const status = JSON.parse(helm.ok(['status', release, '--namespace', namespace, '--output', 'json'])) as { version: number; info: { status: string } };
  return { status: status.info.status, version: status.version };
}

const kindsOf = (objects: KubeObject[]) => objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();

async function createNamespace(name: string): Promise<void> {
  const res = await cp.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function established(crdName: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- a CRD as the server returns it
  return eventually(async () => {
    const got = await cp.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`);
    const conditions = (got.body?.status?.conditions ?? []) as { type: string; status: string }[];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True') ? got.body : undefined;
  }, 30_000, `${crdName} Established`, 100);
}

/**
 * After `helm uninstall`: each object is gone, or (a PersistentVolumeClaim) marked for deletion and
 * held only by the protection finalizer that the controller-manager, absent here, would clear.
 */
async function expectRemoved(objects: KubeObject[], namespace: string): Promise<void> {
  for (const obj of objects) {
    const res = await stored(obj, namespace);
    if (res.status === 404) continue;
    expect(res.status, `${obj.kind}/${obj.metadata.name}`).toBe(200);
    expect(res.body.metadata.deletionTimestamp, `${obj.kind}/${obj.metadata.name} is still there`).toBeDefined();
    expect(res.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  }
}

interface Access {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The server's RBAC authorizer, asked for the holder of `token`. */
async function selfCan(token: string, access: Access): Promise<boolean> {
  const res = await cp.call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: access },
  }, token);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.status.allowed === true;
}

/** The server's RBAC authorizer, asked by the admin for a ServiceAccount the token file does not hold. */
async function serviceAccountCan(namespace: string, name: string, access: Access): Promise<boolean> {
  const res = await cp.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: `system:serviceaccount:${namespace}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
      resourceAttributes: access,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.status.allowed === true;
}

/** A copy of the chart with one template edited; the edit must apply. */
function brokenChart(name: string, template: string, from: string, to: string): string {
  const dir = join(scratch, name);
  cpSync(CHART, dir, { recursive: true });
  const file = join(dir, 'templates', template);
  const text = readFileSync(file, 'utf8');
  expect(text, `${template} contains the text to break`).toContain(from);
  writeFileSync(file, text.replace(from, to));
  return dir;
}

const UNKNOWN_FIELD = ['  revisionHistoryLimit: 3\n', '  revisionHistoryLimit: 3\n  bogusField: 1\n'] as const;

describe('helm install with default values', () => {
  const DEFAULT_OBJECTS = [
    'ClusterRole//portico-operator',
    'ClusterRoleBinding//portico-operator',
    'Deployment/portico/portico',
    'PersistentVolumeClaim/portico/portico',
    'Role/portico/portico-leader-election',
    'RoleBinding/portico/portico-leader-election',
    'Secret/portico/portico-internal-token',
    'Service/portico/portico',
    'ServiceAccount/portico/portico',
  ];

  it('installs release portico in namespace portico (revision 1), without a ServiceMonitor where the cluster serves none', () => {
    helm.ok(['install', 'portico', CHART, '--namespace', 'portico', '--create-namespace', SSA]);
    expect(releaseStatus('portico', 'portico')).toEqual({ status: 'deployed', version: 1 });
    expect(kindsOf(helm.manifest('portico', 'portico'))).toEqual(DEFAULT_OBJECTS);
  });

  it('every rendered object is readable from the API server with its kind, name, labels and Helm ownership', async () => {
    for (const obj of helm.manifest('portico', 'portico')) {
      const res = await stored(obj, 'portico');
      expect(res.status, `${obj.kind}/${obj.metadata.name}`).toBe(200);
      expect(res.body.kind).toBe(obj.kind);
      expect(res.body.metadata.name).toBe(obj.metadata.name);
      expect(res.body.metadata.labels['app.kubernetes.io/instance']).toBe('portico');
      expect(res.body.metadata.labels['app.kubernetes.io/managed-by']).toBe('Helm');
      expect(res.body.metadata.annotations).toMatchObject({ 'meta.helm.sh/release-name': 'portico', 'meta.helm.sh/release-namespace': 'portico' });
    }
  });

  it('the server stored every field as the chart rendered it: nothing dropped, pruned or changed', async () => {
    const differences: string[] = [];
    for (const obj of helm.manifest('portico', 'portico')) differences.push(...storedDifferences(obj, (await stored(obj, 'portico')).body));
    expect(differences).toEqual([]);
  });

  it('helm applied every object server-side (field manager "helm", operation Apply)', async () => {
    for (const obj of helm.manifest('portico', 'portico')) {
      const managers = ((await stored(obj, 'portico')).body.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}:${m.operation}`);
      expect(managers, `${obj.kind}/${obj.metadata.name}`).toContain('helm:Apply');
      expect(managers.filter((m) => m.startsWith('helm:'))).toEqual(['helm:Apply']);
    }
  });

  it("the chart's CRDs (charts/portico/crds) are Established with structural schemas and their kinds are served", async () => {
    const crds = readdirSync(join(CHART, 'crds')).filter((f) => f.endsWith('.yaml')).flatMap((f) => parseObjects(readFileSync(join(CHART, 'crds', f), 'utf8')));
    expect(crds).toHaveLength(6);
    for (const crd of crds) {
      const got = await established(crd.metadata.name);
      expect(got.status.conditions.map((c: { type: string }) => c.type)).not.toContain('NonStructuralSchema');
      const { group, names } = got.spec as { group: string; names: { plural: string } };
      // Established is not yet served: for about a second after it the server answers
      // 429 "storage is (re)initializing" with retryAfterSeconds 1 (the operator's reflectors retry).
      await eventually(async () => (await cp.call('GET', `/apis/${group}/v1alpha1/namespaces/portico/${names.plural}`)).status === 200, 10_000, `${names.plural} served`, 100);
    }
  });
});

describe("the chart's RBAC, as the operator's identity (system:serviceaccount:portico:portico)", () => {
  it('may list and watch every resource the operator reflects, in every namespace, and write what it writes', async () => {
    const token = cp.operatorToken;
    for (const r of watchedResources({ traefikCrds: false })) {
      for (const verb of ['list', 'watch']) expect(await selfCan(token, { verb, group: r.group, resource: r.plural }), `${verb} ${r.group}/${r.plural}`).toBe(true);
      // A real list, cluster-wide, as the reflector makes it.
      const list = await cp.call('GET', `${r.group === '' ? '/api' : `/apis/${r.group}`}/${r.version}/${r.plural}?limit=1`, undefined, token);
      expect(list.status, `list ${r.plural}`).toBe(200);
      if (r.group === 'portico.dev') {
        expect(await selfCan(token, { verb: 'patch', group: r.group, resource: r.plural, subresource: 'status', namespace: 'default' }), `${r.plural}/status`).toBe(true);
      }
    }
    expect(await selfCan(token, { verb: 'patch', group: 'networking.k8s.io', resource: 'ingresses', subresource: 'status', namespace: 'default' })).toBe(true);
    expect(await selfCan(token, { verb: 'create', group: '', resource: 'events', namespace: 'default' })).toBe(true);
    for (const verb of ['get', 'create', 'update']) expect(await selfCan(token, { verb, group: 'coordination.k8s.io', resource: 'leases', namespace: 'portico' }), `${verb} leases`).toBe(true);
    // The Service whose address goes to the Ingresses' status (operator.ingressEndpoint, on by default).
    expect((await cp.call('GET', '/api/v1/namespaces/portico/services?fieldSelector=metadata.name%3Dportico', undefined, token)).status).toBe(200);
  });

  it('is refused (403, naming it) what the operator must not do', async () => {
    const token = cp.operatorToken;
    const refused = [
      await cp.call('DELETE', '/apis/apps/v1/namespaces/portico/deployments/portico', undefined, token),
      // Reflectors list and watch: not even the release's own Secret can be read by name.
      await cp.call('GET', '/api/v1/namespaces/portico/secrets/portico-internal-token', undefined, token),
      await cp.call('POST', '/api/v1/namespaces/portico/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }, token),
      await cp.call('GET', '/api/v1/pods', undefined, token),
      // Status only: the spec of an Ingress is not the operator's to change.
      await cp.call('PATCH', '/apis/networking.k8s.io/v1/namespaces/default/ingresses/x', { spec: {} }, token),
      await cp.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x.example.com' } }, token),
    ];
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.message).toContain(OPERATOR_USER);
    }
    // The Lease lives in the release namespace only; no ConfigMap, no Ingress spec.
    expect(await selfCan(token, { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: 'default' })).toBe(false);
    expect(await selfCan(token, { verb: 'update', group: 'networking.k8s.io', resource: 'ingresses', namespace: 'default' })).toBe(false);
    expect(await selfCan(token, { verb: 'list', group: '', resource: 'configmaps' })).toBe(false);
  });
});

describe('the operator itself, as the chart runs it', () => {
  it("syncs, leads, delivers and writes status with only the chart's RBAC, started with the Deployment's own args", async () => {
    await createWorkload(cp);
    const args = await runOperatorAsDeployed(cp, paths, DEFAULT_RELEASE, 'helm-suite-1', scratch);
    expect(args).toContain('--operator.read-secrets=true');
  });
});

describe('helm upgrade', () => {
  it('changes values: revision 2, the change is on the server objects, and the generated internal token is kept', async () => {
    const tokenSecret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'portico-internal-token', namespace: 'portico' } };
    const before = (await stored(tokenSecret, 'portico')).body.data.token as string;
    expect(before).toMatch(/^[A-Za-z0-9+/=]{64}$/);

    helm.ok(['upgrade', 'portico', CHART, '--namespace', 'portico', SSA, '--reuse-values', '--set', 'server.logLevel=debug', '--set', 'operator.readSecrets=false']);
    expect(releaseStatus('portico', 'portico')).toEqual({ status: 'deployed', version: 2 });

    const deployment = (await stored({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'portico' } }, 'portico')).body;
    expect(deployment.metadata.generation).toBe(2);
    const args = Object.fromEntries((deployment.spec.template.spec.containers as { name: string; args: string[] }[]).map((c) => [c.name, c.args]));
    expect(args['server']).toContain('--log.level=debug');
    expect(args['operator']).toContain('--operator.read-secrets=false');

    const role = (await stored({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'portico-operator' } }, 'portico')).body;
    expect((role.rules as { resources: string[] }[]).flatMap((r) => r.resources)).not.toContain('secrets');
    // The chart's lookup read the Secret from the server and kept the token.
    expect((await stored(tokenSecret, 'portico')).body.data.token).toBe(before);
    const differences: string[] = [];
    for (const obj of helm.manifest('portico', 'portico')) differences.push(...storedDifferences(obj, (await stored(obj, 'portico')).body));
    expect(differences).toEqual([]);
  });

  it('the narrower RBAC takes effect, and the operator started with the new args asks for no Secret', async () => {
    await eventually(async () => (await cp.call('GET', '/api/v1/secrets?limit=1', undefined, cp.operatorToken)).status === 403, 10_000, 'Secrets refused', 100);
    expect(await selfCan(cp.operatorToken, { verb: 'watch', group: '', resource: 'secrets', namespace: 'default' })).toBe(false);
    const args = await runOperatorAsDeployed(cp, paths, DEFAULT_RELEASE, 'helm-suite-2', scratch);
    expect(args).toContain('--operator.read-secrets=false');
  });
});

describe('helm upgrade between value variants: server-side apply drops what a revision no longer sets', () => {
  const NS = 'variants';
  const sameObject = (a: KubeObject, b: KubeObject) => a.kind === b.kind && a.metadata.name === b.metadata.name && (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '');
  let previous: KubeObject[] = [];

  async function deployment(): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- a Deployment as the server returns it
    return (await stored({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'variants-portico' } }, NS)).body;
  }
  const volume = (d: { spec: { template: { spec: { volumes: { name: string }[] } } } }, name: string) => d.spec.template.spec.volumes.find((v) => v.name === name);

  /** Upgrades, then checks the new revision is stored as rendered and what it dropped is gone. */
  async function upgrade(args: string[], revision: number): Promise<KubeObject[]> {
    helm.ok(['upgrade', 'variants', CHART, '--namespace', NS, SSA, ...args]);
    expect(releaseStatus('variants', NS)).toEqual({ status: 'deployed', version: revision });
    const now = helm.manifest('variants', NS);
    const differences: string[] = [];
    for (const obj of now) differences.push(...storedDifferences(obj, (await stored(obj, NS)).body));
    expect(differences).toEqual([]);
    const dropped = previous.filter((p) => !now.some((n) => sameObject(n, p)));
    await expectRemoved(dropped, NS);
    // No controller-manager runs: finish a dropped claim's deletion as its protection controller would (no pod uses it).
    for (const claim of dropped.filter((o) => o.kind === 'PersistentVolumeClaim')) {
      const res = await cp.call('PATCH', `/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim.metadata.name}`, { metadata: { finalizers: null } });
      expect([200, 404]).toContain(res.status);
    }
    previous = now;
    return now;
  }

  it('installs with default values', () => {
    helm.ok(['install', 'variants', CHART, '--namespace', NS, '--create-namespace', SSA]);
    previous = helm.manifest('variants', NS);
    expect(previous.map((o) => o.kind)).toContain('PersistentVolumeClaim');
  });

  it('no persistence (emptyDir), a LoadBalancer Service, a budget by minAvailable, a fixed ingress endpoint IP', async () => {
    const objects = await upgrade([
      '--set', 'persistence.enabled=false', '--set', 'service.type=LoadBalancer', '--set', 'podDisruptionBudget.enabled=true',
      '--set-json', 'podDisruptionBudget.minAvailable=1', '--set-json', 'podDisruptionBudget.maxUnavailable=null',
      '--set', 'operator.ingressEndpoint.ip=192.0.2.10',
    ], 2);
    expect(objects.map((o) => o.kind)).not.toContain('PersistentVolumeClaim');
    // The data volume changed source: the claim is gone from it, not merged beside the emptyDir.
    expect(volume(await deployment(), 'data')).toEqual({ name: 'data', emptyDir: { sizeLimit: '1Gi' } });
    const pdb = (await stored(only(objects, 'PodDisruptionBudget'), NS)).body;
    expect(pdb.spec.minAvailable).toBe(1);
    expect(pdb.spec).not.toHaveProperty('maxUnavailable');
    const service = (await stored(only(objects, 'Service'), NS)).body;
    expect(service.spec.type).toBe('LoadBalancer');
    for (const port of service.spec.ports as { nodePort?: number }[]) expect(port.nodePort).toBeGreaterThanOrEqual(30000);
  });

  it('no operator sidecar, RBAC or ServiceAccount; an existing claim and internal token Secret', async () => {
    const objects = await upgrade([
      '--set', 'operator.enabled=false', '--set', 'rbac.create=false', '--set', 'serviceAccount.create=false',
      '--set', 'persistence.existingClaim=data-claim', '--set', 'internalToken.existingSecret=my-token',
    ], 3);
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'Service']);
    const d = await deployment();
    expect((d.spec.template.spec.containers as { name: string }[]).map((c) => c.name)).toEqual(['server']);
    expect(d.spec.template.spec.serviceAccountName).toBe('default');
    expect(volume(d, 'data')).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-claim' } });
    expect(volume(d, 'kube-api-access')).toBeUndefined();
    expect(volume(d, 'internal-token')).toMatchObject({ secret: { secretName: 'my-token' } });
  });

  it('back to the defaults with --reset-values: every object of the first revision again, as rendered', async () => {
    const first = helm.manifest('variants', NS, 1);
    const objects = await upgrade(['--reset-values'], 4);
    expect(kindsOf(objects)).toEqual(kindsOf(first));
    expect(volume(await deployment(), 'data')).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'variants-portico' } });
    const claim = (await stored(only(objects, 'PersistentVolumeClaim'), NS)).body;
    expect(claim.metadata.deletionTimestamp).toBeUndefined();
    helm.ok(['uninstall', 'variants', '--namespace', NS]);
    await expectRemoved(objects, NS);
  });
});

describe('an upgrade the server refuses', () => {
  const NS = 'claims';
  const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claims-portico' } };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'claims-portico' } };
  const serverArgs = async () => ((await stored(deployment, NS)).body.spec.template.spec.containers as { name: string; args: string[] }[]).find((c) => c.name === 'server')?.args;

  it("the chart refuses to change the existing claim's access modes or class before anything is applied", async () => {
    helm.ok(['install', 'claims', CHART, '--namespace', NS, '--create-namespace', SSA]);
    const refusals = [
      ['persistence.accessModes={ReadWriteOncePod}', 'persistence.accessModes: the claim claims/claims-portico exists with ["ReadWriteOnce"], and a claim\'s access modes cannot change (asked: ["ReadWriteOncePod"])'],
      ['persistence.storageClass=fast-ssd', 'persistence.storageClass: the claim claims/claims-portico exists with class "", and a claim\'s class cannot change (asked: "fast-ssd")'],
    ] as const;
    for (const [set, message] of refusals) {
      const result = helm.run(['upgrade', 'claims', CHART, '--namespace', NS, SSA, '--reuse-values', '--set', set, '--set', 'server.logLevel=debug']);
      expect(result.status, set).not.toBe(0);
      expect(result.stderr).toContain(message);
      expect(releaseStatus('claims', NS)).toEqual({ status: 'deployed', version: 1 });
    }
    expect(await serverArgs()).toContain('--log.level=info');
    // The server agrees: the same change applied to the claim directly is refused.
    const rendered = only(helm.manifest('claims', NS), 'PersistentVolumeClaim');
    const changed = { ...rendered, spec: { ...(rendered['spec'] as object), accessModes: ['ReadWriteOncePod'] } };
    const direct = await applyDryRun(cp, await paths.of(changed, NS), changed);
    expect(direct.status).toBe(422);
    expect(direct.message).toContain('spec is immutable after creation');
  });

  it('a size change the server refuses fails the upgrade, but helm has already applied the other objects', async () => {
    const before = (await stored(claim, NS)).body;
    const result = helm.run(['upgrade', 'claims', CHART, '--namespace', NS, SSA, '--reuse-values', '--set', 'persistence.size=2Gi', '--set', 'server.logLevel=debug']);
    expect(result.status).not.toBe(0);
    // Growing needs a bound claim whose StorageClass allows expansion; here no volume is ever provisioned.
    expect(result.stderr).toMatch(/PersistentVolumeClaim "claims-portico" is invalid: spec: Forbidden: spec is immutable after creation/);
    expect(releaseStatus('claims', NS)).toEqual({ status: 'failed', version: 2 });
    expect((await stored(claim, NS)).body.spec).toEqual(before.spec);
    // Helm applies every object and reports the refusals at the end: the Deployment has the new args.
    expect(await serverArgs()).toContain('--log.level=debug');
  });

  it('helm rollback to the last good revision brings the other objects back', async () => {
    helm.ok(['rollback', 'claims', '1', '--namespace', NS]);
    expect(releaseStatus('claims', NS)).toEqual({ status: 'deployed', version: 3 });
    expect(await serverArgs()).toContain('--log.level=info');
    helm.ok(['uninstall', 'claims', '--namespace', NS]);
  });
});

describe('helm install with every optional feature on', () => {
  const NS = 'full';
  const SA = 'full-portico';

  it("the Prometheus Operator's ServiceMonitor CRD (from its Go module) is accepted and Established", async () => {
    const crd = parseYaml(readFileSync(serviceMonitorCrdFile(), 'utf8')) as KubeObject;
    expect(crd.metadata.name).toBe('servicemonitors.monitoring.coreos.com');
    const res = await cp.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(res.status, JSON.stringify(res.body?.message)).toBe(201);
    await established(crd.metadata.name);
  });

  it('installs values-all-features.yaml; the capability check finds the ServiceMonitor API on the real server', async () => {
    // The namespaces the values point at: watched (apps, web), the published Service's (edge), the ServiceMonitor's.
    for (const ns of ['apps', 'web', 'edge', 'monitoring']) await createNamespace(ns);
    helm.ok(['install', 'full', CHART, '--namespace', NS, '--create-namespace', SSA, '--values', ALL_FEATURES, '--set', 'serviceMonitor.skipCapabilityCheck=false']);
    expect(releaseStatus('full', NS)).toEqual({ status: 'deployed', version: 1 });
    expect(kindsOf(helm.manifest('full', NS))).toEqual([
      'ClusterRole//full-portico-operator',
      'ClusterRoleBinding//full-portico-operator',
      'Deployment/full/full-portico',
      'NetworkPolicy/full/full-portico',
      'PersistentVolumeClaim/full/full-portico',
      'PodDisruptionBudget/full/full-portico',
      'Role/apps/full-portico-operator',
      'Role/edge/full-portico-published-service',
      'Role/full/full-portico-leader-election',
      'Role/web/full-portico-operator',
      'RoleBinding/apps/full-portico-operator',
      'RoleBinding/edge/full-portico-published-service',
      'RoleBinding/full/full-portico-leader-election',
      'RoleBinding/web/full-portico-operator',
      'Secret/full/full-portico-internal-token',
      'Secret/full/full-portico-management-users',
      'Secret/full/full-portico-pushgateway-users',
      'Secret/full/full-portico-search-users',
      'Service/full/full-portico',
      'ServiceAccount/full/full-portico',
      'ServiceMonitor/monitoring/full-portico',
    ]);
  });

  it('every object is on the server as rendered, including the ServiceMonitor (not pruned by its CRD schema)', async () => {
    const differences: string[] = [];
    for (const obj of helm.manifest('full', NS)) {
      const res = await stored(obj, NS);
      expect(res.status, `${obj.kind}/${obj.metadata.name}`).toBe(200);
      differences.push(...storedDifferences(obj, res.body));
    }
    expect(differences).toEqual([]);
    // What the server allocated or validated itself: the asked node ports, the claim's class and mode.
    const service = (await stored({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'full-portico' } }, NS)).body;
    expect((service.spec.ports as { name: string; nodePort: number }[]).map((p) => `${p.name}:${p.nodePort}`).slice(0, 2)).toEqual(['http-api:30080', 'pushgateway:30091']);
    expect(service.spec.ports[2].nodePort).toBeGreaterThanOrEqual(30000);
    const pvc = (await stored({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'full-portico' } }, NS)).body;
    expect(pvc.spec).toMatchObject({ storageClassName: 'fast-ssd', accessModes: ['ReadWriteOncePod'] });
  });

  it('RBAC scoped to the watched namespaces: Secrets in apps and web only, the published Service by name only', async () => {
    const secrets = (namespace?: string) => serviceAccountCan(NS, SA, { verb: 'list', group: '', resource: 'secrets', ...(namespace ? { namespace } : {}) });
    expect(await secrets('apps')).toBe(true);
    expect(await secrets('web')).toBe(true);
    expect(await secrets('default')).toBe(false);
    expect(await secrets()).toBe(false);
    expect(await serviceAccountCan(NS, SA, { verb: 'list', group: 'traefik.io', resource: 'ingressroutes', namespace: 'apps' })).toBe(true);
    expect(await serviceAccountCan(NS, SA, { verb: 'get', group: '', resource: 'services', namespace: 'edge', name: 'ingress-lb' })).toBe(true);
    expect(await serviceAccountCan(NS, SA, { verb: 'get', group: '', resource: 'services', namespace: 'edge', name: 'other' })).toBe(false);
    expect(await serviceAccountCan(NS, SA, { verb: 'list', group: 'networking.k8s.io', resource: 'ingressclasses' })).toBe(true);
    expect(await serviceAccountCan(NS, SA, { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: NS })).toBe(true);
  });

  it('helm uninstall removes every object of the release, in every namespace and cluster-wide; the CRDs stay', async () => {
    const objects = helm.manifest('full', NS);
    helm.ok(['uninstall', 'full', '--namespace', NS]);
    await expectRemoved(objects, NS);
    expect(helm.ok(['list', '--namespace', NS, '--short']).trim()).toBe('');
    const releaseSecrets = await cp.call('GET', `/api/v1/namespaces/${NS}/secrets?labelSelector=owner%3Dhelm`);
    expect(releaseSecrets.body.items).toEqual([]);
    expect((await cp.call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ingressroutes.portico.dev')).status).toBe(200);
  });
});

describe('the server, not a client-side check, refuses a broken chart', () => {
  it('an unknown field in a template fails helm install with the API server\'s own refusal naming the field', async () => {
    const chart = brokenChart('unknown-field', 'deployment.yaml', ...UNKNOWN_FIELD);
    // Helm's own OpenAPI check off: whatever refuses the chart is the server.
    const result = helm.run(['install', 'bad', chart, '--namespace', 'broken-field', '--create-namespace', SSA, '--disable-openapi-validation']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('.spec.bogusField: field not declared in schema');
    // The same object applied straight to the server, without helm: the same refusal.
    const rendered = parseObjects(helm.ok(['template', 'bad', chart, '--namespace', 'broken-field']));
    const deployment = only(rendered, 'Deployment');
    const direct = await applyDryRun(cp, await paths.of(deployment, 'broken-field'), deployment);
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(direct.message).toContain('.spec.bogusField: field not declared in schema');
    expect((await cp.call('GET', '/apis/apps/v1/namespaces/broken-field/deployments/bad-portico')).status).toBe(404);
    // A failed install is not rolled back: what came before the Deployment stays until uninstalled.
    expect(releaseStatus('bad', 'broken-field').status).toBe('failed');
    expect((await stored(only(rendered, 'ClusterRole'), 'broken-field')).status).toBe(200);
    helm.ok(['uninstall', 'bad', '--namespace', 'broken-field']);
    await expectRemoved(rendered, 'broken-field');
  });

  it('a template the server\'s validation refuses (selector not matching the pod labels) fails; uninstall clears what was created before it', async () => {
    const chart = brokenChart('selector', 'deployment.yaml', 'matchLabels:\n      {{- include "portico.selectorLabels" . | nindent 6 }}', 'matchLabels:\n        app: not-the-pod');
    const result = helm.run(['install', 'bad', chart, '--namespace', 'broken-selector', '--create-namespace', SSA]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Deployment.apps "bad-portico" is invalid: .*`selector` does not match template `labels`/);
    expect(releaseStatus('bad', 'broken-selector').status).toBe('failed');
    // A failed install is not rolled back: the objects the server accepted stay until uninstalled.
    const rendered = parseObjects(helm.ok(['template', 'bad', chart, '--namespace', 'broken-selector']));
    expect((await stored(only(rendered, 'Service'), 'broken-selector')).status).toBe(200);
    helm.ok(['uninstall', 'bad', '--namespace', 'broken-selector']);
    await expectRemoved(rendered, 'broken-selector');
  });

  it('a client-side apply (--server-side=false, what Helm 3 did) only warns about the unknown field and stores the object without it', async () => {
    const chart = brokenChart('unknown-field-csa', 'deployment.yaml', ...UNKNOWN_FIELD);
    const result = helm.run(['install', 'csa', chart, '--namespace', 'client-side', '--create-namespace', '--server-side=false']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('unknown field \\"spec.bogusField\\"');
    const deployment = (await cp.call('GET', '/apis/apps/v1/namespaces/client-side/deployments/csa-portico')).body;
    expect(deployment.spec).not.toHaveProperty('bogusField');
    helm.ok(['uninstall', 'csa', '--namespace', 'client-side']);
  });

  it("helm's --dry-run=server does not send the objects to the server: the broken chart passes it and nothing is created", async () => {
    const chart = brokenChart('unknown-field-dry-run', 'deployment.yaml', ...UNKNOWN_FIELD);
    const result = helm.run(['install', 'dry', chart, '--namespace', 'dry-run', '--create-namespace', SSA, '--dry-run=server']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('bogusField: 1');
    expect((await cp.call('GET', '/api/v1/namespaces/dry-run')).status).toBe(404);
  });
});

describe('helm uninstall of the default release', () => {
  it('removes every object of both revisions, the ClusterRole and binding included; the namespace stays', async () => {
    const objects = [...helm.manifest('portico', 'portico', 1), ...helm.manifest('portico', 'portico', 2)];
    helm.ok(['uninstall', 'portico', '--namespace', 'portico']);
    await expectRemoved(objects, 'portico');
    expect(helm.ok(['list', '--all-namespaces', '--short']).trim()).toBe('');
    expect((await cp.call('GET', '/api/v1/namespaces/portico')).status).toBe(200);
  });
});

function only(objects: KubeObject[], kind: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as KubeObject;
}
