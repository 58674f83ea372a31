import { CRD_KINDS, CRD_VERSION, PORTICO_GROUP, TRAEFIK_GROUP, type CrdKind } from '../translate/crd/kinds.js';
import { ClusterIndex } from './cluster-index.js';
import { SERVICE_NAME_LABEL, type EndpointSlice, type KubeObject, type Secret, type Service } from '../client/kube-objects.js';
import { slim, slimSlice } from './object-slimming.js';
import { slimSecret } from '../translate/shared/secret-credentials.js';
import type { ResourceType, ReflectorSink } from './reflector.js';
import { emptyCacheSnapshot, type CacheSnapshot } from '../translate/translate.js';

/**
 * Secret types that never hold middleware credentials, left out server-side: Helm release Secrets
 * (up to 1 MiB each, one per release revision), certificates and tokens are most of a cluster's
 * Secrets, and the operator should neither transfer nor hold them.
 */
export const SKIPPED_SECRET_TYPES: readonly string[] = [
  'helm.sh/release.v1', 'kubernetes.io/tls', 'kubernetes.io/service-account-token', 'kubernetes.io/dockerconfigjson',
  'kubernetes.io/dockercfg', 'bootstrap.kubernetes.io/token',
];
const SECRET_FIELD_SELECTOR = SKIPPED_SECRET_TYPES.map((t) => `type!=${t}`).join(',');

/**
 * What the operator watches: Ingress inputs, Secrets (middleware credentials, unless `secrets` is
 * false), then the CRDs of Portico (and Traefik, by flag). The chart's RBAC is derived from this.
 */
export function watchedResources(options: { readonly traefikCrds: boolean; readonly namespaceSelector?: string; readonly secrets?: boolean }): ResourceType[] {
  const out: ResourceType[] = [
    ...(options.namespaceSelector ? [{ id: 'namespaces', group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false }] : []),
    { id: 'ingresses', group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true },
    { id: 'ingressclasses', group: 'networking.k8s.io', version: 'v1', plural: 'ingressclasses', kind: 'IngressClass', namespaced: false },
    { id: 'services', group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true },
    { id: 'endpointslices', group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
    ...(options.secrets !== false
      ? [{ id: 'secrets', group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, fieldSelector: SECRET_FIELD_SELECTOR }]
      : []),
  ];
  const groups = options.traefikCrds ? [PORTICO_GROUP, TRAEFIK_GROUP] : [PORTICO_GROUP];
  for (const group of groups) {
    for (const k of CRD_KINDS) {
      out.push({ id: `${group}/${k.plural}`, group, version: CRD_VERSION, plural: k.plural, kind: k.kind, namespaced: true });
    }
  }
  return out;
}

/** Same spec generation, labels and annotations: only status (or bookkeeping) moved. */
function statusOnlyChange(old: KubeObject, next: KubeObject): boolean {
  const a = old.metadata ?? {};
  const b = next.metadata ?? {};
  return a.generation !== undefined && a.generation === b.generation && a.uid === b.uid &&
    JSON.stringify(a.labels ?? {}) === JSON.stringify(b.labels ?? {}) &&
    JSON.stringify(a.annotations ?? {}) === JSON.stringify(b.annotations ?? {});
}

const MAX_SHARED_PARTS = 10_000;

function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/**
 * The informers' store: one map per reflector (a resource in one namespace, or cluster-wide),
 * a synced flag per reflector, and a change callback that feeds the reconcile queue.
 */
export class ObjectCache {
  private readonly stores = new Map<string, { type: ResourceType; objects: Map<string, KubeObject> }>();
  /** The object maps of each resource id (one per namespace watched, or one cluster-wide). */
  private readonly byResource = new Map<string, Map<string, KubeObject>[]>();
  private readonly unsynced = new Set<string>();
  private version = 0;
  /** Slice parts shared between equal slices, by their JSON (see shareSliceParts). */
  private readonly sharedParts = new Map<string, unknown>();
  /** Services and EndpointSlices as the translation reads them, maintained change by change. */
  readonly clusterIndex = new ClusterIndex();

  /**
   * `onChange` receives the resource id and object key (`ns/name`) of every change ('' once a
   * resource is first listed) and, for an EndpointSlice, the `ns/name` of the Services it
   * belonged to before and after the change.
   */
  constructor(private readonly onChange: (resourceId: string, key: string, services?: readonly string[]) => void) {}

  /** A sink for one reflector; `scope` is its namespace or '' for cluster-wide. */
  sink(type: ResourceType, scope: string): ReflectorSink {
    const id = `${type.id}@${scope}`;
    const objects = new Map<string, KubeObject>();
    this.stores.set(id, { type, objects });
    const maps = this.byResource.get(type.id);
    if (maps) maps.push(objects);
    else this.byResource.set(type.id, [objects]);
    this.unsynced.add(id);
    const index = this.clusterIndex;
    // CRD objects and Ingresses get status written by the leader; those writes alone change no record.
    const hasStatus = type.group === PORTICO_GROUP || type.group === TRAEFIK_GROUP || type.id === 'ingresses';
    const isSecret = type.id === 'secrets';
    const indexUpsert = type.id === 'services' ? (o: KubeObject) => index.upsertService(o as Service)
      : type.id === 'endpointslices' ? (o: KubeObject) => index.upsertSlice(o as EndpointSlice)
        : isSecret ? (o: KubeObject) => index.upsertSecret(o as Secret) : undefined;
    const indexRemove = type.id === 'services' ? (o: KubeObject) => index.removeService(o)
      : type.id === 'endpointslices' ? (o: KubeObject) => index.removeSlice(o)
        : isSecret ? (o: KubeObject) => index.removeSecret(o) : undefined;
    // An EndpointSlice change concerns the Service(s) it is labelled with, before and after.
    const owners = type.id === 'endpointslices'
      ? (...objs: (KubeObject | undefined)[]) => [...new Set(objs.flatMap((o) => {
        const svc = o?.metadata?.labels?.[SERVICE_NAME_LABEL];
        return svc === undefined ? [] : [`${o?.metadata?.namespace ?? ''}/${svc}`];
      }))]
      : undefined;
    // Objects are slimmed as they are decoded; Secrets are cut down further (memory, and data
    // never read is never held); EndpointSlices share their port lists and endpoint conditions
    // with equal ones.
    const intake = isSecret ? (o: KubeObject) => slimSecret(slim(o) as Secret)
      : type.id === 'endpointslices' ? (o: KubeObject) => this.shareSliceParts(slimSlice(o as EndpointSlice))
        : slim;
    return {
      intake,
      replace: (listed) => {
        // Before this reflector's first list is in, its objects are reported all at once by
        // `listed()` (a full translation follows): noting each of them (for 20,000 EndpointSlices,
        // each one's Services too) was work and garbage for nothing. Nothing to drop either.
        if (this.unsynced.has(id) && objects.size === 0) {
          for (const item of listed) {
            objects.set(keyOf(item), item);
            indexUpsert?.(item);
          }
          this.version++;
          return;
        }
        const seen = new Set<string>();
        for (const item of listed) {
          const key = keyOf(item);
          seen.add(key);
          const old = objects.get(key);
          if (old?.metadata?.resourceVersion !== undefined && old.metadata.resourceVersion === item.metadata?.resourceVersion) continue;
          objects.set(key, item);
          indexUpsert?.(item);
          this.changed(type.id, key, owners?.(old, item));
        }
        if (objects.size === seen.size) return;
        for (const [key, old] of [...objects]) {
          if (!seen.has(key)) {
            objects.delete(key);
            indexRemove?.(old);
            this.changed(type.id, key, owners?.(old));
          }
        }
      },
      upsert: (obj) => {
        const key = keyOf(obj);
        const old = objects.get(key);
        // A status-only update (the leader's own condition writes) changes no record: keep the
        // new status and resourceVersion for the next status comparison, but share the old spec,
        // labels and annotations (equal by the check) so the event's copies die young instead of
        // each first sync's thousands of status writes moving a second copy of every object into
        // the old generation; and do not rebuild the snapshot for it.
        if (old && hasStatus && statusOnlyChange(old, obj)) {
          const md = obj.metadata ?? {};
          objects.set(key, { ...obj, metadata: { ...md, labels: old.metadata?.labels, annotations: old.metadata?.annotations }, spec: old.spec });
          return;
        }
        objects.set(key, obj);
        indexUpsert?.(obj);
        this.changed(type.id, key, owners?.(old, obj));
      },
      remove: (obj) => {
        const key = keyOf(obj);
        const old = objects.get(key);
        if (old && objects.delete(key)) {
          indexRemove?.(old);
          this.changed(type.id, key, owners?.(old));
        }
      },
      listed: () => {
        if (this.unsynced.delete(id)) this.changed(type.id, '');
      },
    };
  }

  /**
   * `slice` (made by slimSlice: this cache's own, endpoints included) with its `ports` and each endpoint's `conditions`
   * replaced by an equal value seen before (cached objects are immutable, so they can be shared):
   * tens of thousands of slices carry a handful of distinct port lists and three or four distinct
   * condition sets. Replaced in place: copying the slice and its endpoints again made as many
   * objects as the slimming itself, garbage once the list was in.
   */
  private shareSliceParts(slice: EndpointSlice): EndpointSlice {
    if (slice.ports !== undefined) slice.ports = this.shared(slice.ports);
    if (Array.isArray(slice.endpoints)) {
      for (const e of slice.endpoints) if (e !== null && typeof e === 'object' && e.conditions !== undefined) e.conditions = this.shared(e.conditions);
    }
    return slice;
  }

  private shared<T>(value: T): T {
    if (value === undefined || value === null || typeof value !== 'object') return value;
    const key = JSON.stringify(value);
    const known = this.sharedParts.get(key);
    if (known !== undefined) return known as T;
    // Bounded: an unusual cluster with many distinct values just shares fewer of them.
    if (this.sharedParts.size < MAX_SHARED_PARTS) this.sharedParts.set(key, value);
    return value;
  }

  private changed(resourceId: string, key: string, services?: readonly string[]): void {
    this.version++;
    this.onChange(resourceId, key, services);
  }

  /** Increases on every change; lets the reconciler skip work when nothing moved. */
  get changeCount(): number {
    return this.version;
  }

  /** The reflectors still waiting for their first list, as `resource@namespace` ('' = all namespaces). */
  unsyncedResources(): string[] {
    return [...this.unsynced].sort();
  }

  /** True once every reflector has completed its first list. */
  get synced(): boolean {
    return this.unsynced.size === 0;
  }

  get(resourceId: string, namespace: string, name: string): KubeObject | undefined {
    const maps = this.byResource.get(resourceId);
    if (!maps) return undefined;
    const key = `${namespace}/${name}`;
    for (const objects of maps) {
      const o = objects.get(key);
      if (o) return o;
    }
    return undefined;
  }

  /** The cached objects as the translation's input. */
  snapshot(): CacheSnapshot {
    const snap = emptyCacheSnapshot();
    for (const { type, objects } of this.stores.values()) {
      let target: KubeObject[];
      switch (type.id) {
        case 'secrets': target = snap.secrets; break;
        case 'ingresses': target = snap.ingresses; break;
        case 'ingressclasses': target = snap.ingressClasses; break;
        case 'services': target = snap.services; break;
        case 'endpointslices': target = snap.endpointSlices; break;
        case 'namespaces': target = snap.namespaces; break;
        default: target = snap.crds[type.kind as CrdKind];
      }
      for (const o of objects.values()) target.push(o);
    }
    return snap;
  }

  /** Object counts per resource id (for logs and the bench). */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const { type, objects } of this.stores.values()) out[type.id] = (out[type.id] ?? 0) + objects.size;
    return out;
  }
}
