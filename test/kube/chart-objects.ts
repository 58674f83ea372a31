/**
 * Objects in a real control plane for the operator suites: the chart's rendered RBAC (so the
 * operator's identity has exactly the chart's permissions), Portico's CRDs (waited for until
 * Established and served), and create / apply / delete of any kind the suites use, as the admin.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ensureHelm } from '../../scripts/helm-tool.js';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import type { ControlPlane } from './control-plane.js';

const ROOT = resolve(import.meta.dirname, '../..');

export type KubeObject = Record<string, any> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind

/** The release the suites render: `helm template portico charts/portico --namespace portico`. */
export const RELEASE_NAMESPACE = 'portico';

/** `helm template portico charts/portico --namespace portico [--set v ...]`, as objects. */
export function renderChart(values: readonly string[] = []): KubeObject[] {
  const helm = ensureHelm(process.env);
  const args = ['template', 'portico', join(ROOT, 'charts/portico'), '--namespace', RELEASE_NAMESPACE, ...values.flatMap((v) => ['--set', v])];
  const out = spawnSync(helm, args, { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`helm ${args.join(' ')} failed: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as KubeObject | null).filter((d): d is KubeObject => d !== null);
}

/** Plural and scope of every kind the suites create. */
const KINDS: Record<string, { plural: string; namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  Service: { plural: 'services', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  Event: { plural: 'events', namespaced: true },
  EndpointSlice: { plural: 'endpointslices', namespaced: true },
  Ingress: { plural: 'ingresses', namespaced: true },
  IngressClass: { plural: 'ingressclasses', namespaced: false },
  Lease: { plural: 'leases', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  IngressRoute: { plural: 'ingressroutes', namespaced: true },
  IngressRouteTCP: { plural: 'ingressroutetcps', namespaced: true },
  IngressRouteUDP: { plural: 'ingressrouteudps', namespaced: true },
  Middleware: { plural: 'middlewares', namespaced: true },
  MiddlewareTCP: { plural: 'middlewaretcps', namespaced: true },
  TraefikService: { plural: 'traefikservices', namespaced: true },
};

/** The collection path of a kind (`/api/v1/namespaces/default/services`). */
export function collectionPath(apiVersion: string, kind: string, namespace?: string): string {
  const k = KINDS[kind];
  if (k === undefined) throw new Error(`the suites know no kind ${kind}: add it to KINDS`);
  const base = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
  return k.namespaced ? `${base}/namespaces/${namespace ?? 'default'}/${k.plural}` : `${base}/${k.plural}`;
}

/** The object's own path. */
export function objectPath(o: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  return `${collectionPath(o.apiVersion, o.kind, o.metadata.namespace)}/${encodeURIComponent(o.metadata.name)}`;
}

function describe(res: { status: number; body: any }): string { // eslint-disable-line @typescript-eslint/no-explicit-any -- a Status or an object
  return `${res.status} ${typeof res.body === 'object' && res.body !== null ? (res.body.message ?? JSON.stringify(res.body)) : String(res.body)}`;
}

/** Creates the object as the admin; fails on anything but 201. Returns the stored object. */
export async function create(cp: ControlPlane, o: KubeObject): Promise<KubeObject> {
  const res = await cp.call('POST', collectionPath(o.apiVersion, o.kind, o.metadata.namespace), o);
  if (res.status !== 201) throw new Error(`create ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${describe(res)}`);
  return res.body as KubeObject;
}

/** Creates the object, or replaces its spec (and labels, annotations, data) when it exists. */
export async function apply(cp: ControlPlane, o: KubeObject): Promise<KubeObject> {
  // A stored object read back may be applied again: what the server sets is not sent on create.
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, managedFields: _mf, ...metadata } = o.metadata;
  const created = await cp.call('POST', collectionPath(o.apiVersion, o.kind, o.metadata.namespace), { ...o, metadata });
  if (created.status === 201) return created.body as KubeObject;
  if (created.status !== 409) throw new Error(`create ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${describe(created)}`);
  const current = await cp.call('GET', objectPath(o));
  if (current.status !== 200) throw new Error(`get ${o.kind} ${o.metadata.name}: ${describe(current)}`);
  const next = { ...current.body, ...o, metadata: { ...current.body.metadata, ...metadata, resourceVersion: current.body.metadata.resourceVersion } };
  // An update keeps status (it goes through /status), so nothing of the old status is lost.
  delete next.status;
  const res = await cp.call('PUT', objectPath(o), next);
  if (res.status !== 200) throw new Error(`update ${o.kind} ${o.metadata.name}: ${describe(res)}`);
  return res.body as KubeObject;
}

/** Deletes the object; a missing object is fine. */
export async function remove(cp: ControlPlane, o: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<void> {
  const res = await cp.call('DELETE', objectPath(o));
  if (res.status !== 200 && res.status !== 202 && res.status !== 404) throw new Error(`delete ${o.kind} ${o.metadata.name}: ${describe(res)}`);
}

/** The stored object, or undefined on 404. */
export async function get(cp: ControlPlane, o: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<KubeObject | undefined> {
  const res = await cp.call('GET', objectPath(o));
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`get ${o.kind} ${o.metadata.name}: ${describe(res)}`);
  return res.body as KubeObject;
}

export function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

/** The chart's RBAC kinds: what `applyChartRbac` takes from the rendered chart. */
const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/**
 * Renders the chart (`values` as `--set` expressions) and creates its ServiceAccount, ClusterRole,
 * ClusterRoleBinding, Roles and RoleBindings as the admin, after the release namespace and any
 * namespace a Role lives in, so that the operator identity (`system:serviceaccount:portico:portico`,
 * `cp.operatorToken`) has exactly the chart's permissions. Returns the objects created.
 */
export async function applyChartRbac(cp: ControlPlane, values: readonly string[] = []): Promise<KubeObject[]> {
  const rbac = renderChart(values).filter((d) => RBAC_KINDS.has(d.kind));
  const namespaces = new Set([RELEASE_NAMESPACE, ...rbac.map((d) => d.metadata.namespace).filter((n): n is string => n !== undefined)]);
  for (const ns of namespaces) {
    const res = await cp.call('POST', '/api/v1/namespaces', namespace(ns));
    if (res.status !== 201 && res.status !== 409) throw new Error(`create namespace ${ns}: ${describe(res)}`);
  }
  for (const o of rbac) await apply(cp, o);
  return rbac;
}

/** Creates every CRD in crds/ and waits until each is Established and its objects are served. */
export async function applyCrds(cp: ControlPlane): Promise<void> {
  const dir = join(ROOT, 'crds');
  const crds = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as KubeObject | null))
    .filter((d): d is KubeObject => d !== null);
  for (const crd of crds) await apply(cp, crd);
  for (const crd of crds) {
    await eventually(async () => {
      const got = await cp.call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      const conditions = (got.body?.status?.conditions ?? []) as { type: string; status: string }[];
      return conditions.some((c) => c.type === 'Established' && c.status === 'True');
    }, 30_000, `${crd.metadata.name} Established`, 100);
    // Discovery may lag Established for a moment: wait until the collection answers.
    const { group, names, versions } = crd.spec as { group: string; names: { plural: string }; versions: { name: string }[] };
    const version = versions[0]?.name ?? 'v1alpha1';
    await eventually(async () => (await cp.call('GET', `/apis/${group}/${version}/${names.plural}?limit=1`)).status === 200, 30_000, `${names.plural} served`, 100);
  }
}
