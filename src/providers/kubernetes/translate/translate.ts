import { CRD_KINDS, type CrdKind } from './crd/kinds.js';
import { translateCrds, type CrdRecorder } from './crd/translator.js';
import type { ClusterView } from './shared/endpoints-resolver.js';
import { translateIngresses, type IngressRecorder } from './ingress/translator.js';
import type { EndpointSlice, Ingress, IngressClass, KubeObject, Secret, Service } from '../client/kube-objects.js';
import { SERVICE_NAME_LABEL } from '../client/kube-objects.js';
import { matchesLabels, parseLabelSelector } from './shared/label-selector.js';
import { compareKeys } from './shared/naming.js';
import type { TranslationMemo } from './shared/translation-memo.js';
import { ConfigBuilder, type ObjectRef, type TranslateOptions, type TranslationResult } from './shared/translation-types.js';

/** Everything the informers hold, as plain objects: the input of the pure translation. */
export interface CacheSnapshot {
  readonly ingresses: readonly Ingress[];
  readonly ingressClasses: readonly IngressClass[];
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly crds: Readonly<Record<CrdKind, readonly KubeObject[]>>;
  /** Namespace objects; read only with a namespace selector. */
  readonly namespaces?: readonly KubeObject[];
  /** Secrets (middleware credentials); read unless `readSecrets` is off. */
  readonly secrets?: readonly Secret[];
}

/** A CacheSnapshot whose lists are still being filled (by the object cache or from loose objects). */
export interface CacheSnapshotLists {
  readonly ingresses: Ingress[];
  readonly ingressClasses: IngressClass[];
  readonly services: Service[];
  readonly endpointSlices: EndpointSlice[];
  readonly crds: Record<CrdKind, KubeObject[]>;
  readonly namespaces: KubeObject[];
  readonly secrets: Secret[];
}

export function emptyCacheSnapshot(): CacheSnapshotLists {
  const crds = Object.fromEntries(CRD_KINDS.map((k) => [k.kind, []])) as unknown as Record<CrdKind, KubeObject[]>;
  return { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], crds, namespaces: [], secrets: [] };
}

/** Indexes Services and Secrets by `ns/name` and EndpointSlices by their Service. */
export function buildClusterView(services: readonly Service[], slices: readonly EndpointSlice[], secrets: readonly Secret[] = []): ClusterView {
  const secretIndex = new Map<string, Secret>();
  for (const s of secrets) secretIndex.set(`${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`, s);
  const svcIndex = new Map<string, Service>();
  for (const s of services) svcIndex.set(`${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`, s);
  const sliceIndex = new Map<string, EndpointSlice[]>();
  for (const s of slices) {
    const svc = s.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (svc === undefined) continue;
    const key = `${s.metadata?.namespace ?? ''}/${svc}`;
    const list = sliceIndex.get(key);
    if (list) list.push(s);
    else sliceIndex.set(key, [s]);
  }
  // A Service's slices in name order (ClusterIndex keeps them so too): the servers' order depends
  // on the slices alone, not on the order they were listed or changed in.
  for (const list of sliceIndex.values()) if (list.length > 1) list.sort((a, b) => compareKeys(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  return {
    service: (ns, name) => svcIndex.get(`${ns}/${name}`),
    endpointSlices: (ns, name) => sliceIndex.get(`${ns}/${name}`) ?? [],
    secret: (ns, name) => secretIndex.get(`${ns}/${name}`),
  };
}

/**
 * The whole translation: cached objects in, both providers' snapshots, CRD statuses and events out.
 * Pure and deterministic (objects are visited in sorted order), so it is tested with goldens and
 * can run in-process anywhere. `view` and `memo` only make repeated translations cheaper (an
 * incrementally maintained index and per-object fragments); the result is the same without them.
 */
/** Which providers to translate; a skipped one is taken from `previous`. */
export interface TranslateParts {
  readonly ingress: boolean;
  readonly crd: boolean;
  readonly previous?: TranslationResult;
  /** Told what became of each translated object (see incremental.ts). */
  readonly recordIngress?: IngressRecorder;
  readonly recordCrd?: CrdRecorder;
}

/**
 * Whether an object is read at all: its namespace is watched (and matches the namespace
 * selector) and its labels match the label selector. Namespace objects are read only with a
 * namespace selector.
 */
export function objectSelection(options: TranslateOptions, namespaceObjects: readonly KubeObject[] | undefined): (o: KubeObject) => boolean {
  const selector = parseLabelSelector(options.labelSelector);
  const namespaces = new Set(options.namespaces);
  let labelled: Set<string> | undefined;
  if (options.namespaceSelector !== '') {
    const nsSelector = parseLabelSelector(options.namespaceSelector);
    labelled = new Set((namespaceObjects ?? []).filter((n) => matchesLabels(nsSelector, n.metadata?.labels)).map((n) => n.metadata?.name ?? ''));
  }
  return (o) => {
    const ns = o.metadata?.namespace ?? '';
    return (namespaces.size === 0 || namespaces.has(ns)) && (labelled === undefined || labelled.has(ns)) && matchesLabels(selector, o.metadata?.labels);
  };
}

export function translate(
  cache: CacheSnapshot, options: TranslateOptions, view?: ClusterView, memo?: TranslationMemo, parts?: TranslateParts,
): TranslationResult {
  const previous = parts?.previous;
  const doIngress = !previous || parts.ingress;
  const doCrd = !previous || parts.crd;
  memo?.begin([...(doIngress ? ['ing|'] : []), ...(doCrd ? ['crd|'] : [])]);
  const isSelected = objectSelection(options, cache.namespaces);
  const selected = <T extends KubeObject>(objs: readonly T[]): T[] => objs.filter(isSelected);
  const clusterView = view ?? buildClusterView(cache.services, cache.endpointSlices, cache.secrets);

  let kubernetes = previous?.kubernetes;
  let ingressEvents = previous?.ingressEvents ?? [];
  let servedIngresses = previous?.servedIngresses ?? [];
  if (doIngress || !kubernetes) {
    const ingressOut = new ConfigBuilder();
    const served: ObjectRef[] = [];
    ingressEvents = translateIngresses(
      { ingresses: selected(cache.ingresses), ingressClasses: cache.ingressClasses, view: clusterView, ingressClass: options.ingressClass, policy: options },
      ingressOut,
      memo,
      served,
      parts?.recordIngress,
    );
    kubernetes = ingressOut.build();
    servedIngresses = served;
  }

  let kubernetescrd = previous?.kubernetescrd;
  let statuses = previous?.statuses ?? [];
  let crdEvents = previous?.crdEvents ?? [];
  if (doCrd || !kubernetescrd) {
    const crdOut = new ConfigBuilder();
    const crdObjects = Object.fromEntries(CRD_KINDS.map((k) => [k.kind, selected(cache.crds[k.kind])])) as unknown as Record<CrdKind, KubeObject[]>;
    const crd = translateCrds(
      {
        objects: crdObjects, view: clusterView, ingressClass: options.ingressClass, maxObjectBytes: options.maxObjectBytes, maxRoutes: options.maxRoutes,
        policy: options, readSecrets: options.readSecrets,
      },
      crdOut,
      memo,
      parts?.recordCrd,
    );
    kubernetescrd = crdOut.build();
    statuses = crd.statuses;
    crdEvents = crd.events;
  }
  memo?.finish();
  return { kubernetes, kubernetescrd, statuses, events: [...ingressEvents, ...crdEvents], ingressEvents, crdEvents, servedIngresses };
}

/** Sorts loose objects (a manifest, a fixture) into a cache snapshot by apiVersion and kind. */
export function cacheFromObjects(objects: readonly KubeObject[], crdGroups: readonly string[] = ['portico.dev', 'traefik.io']): CacheSnapshot {
  const snap = emptyCacheSnapshot();
  const { ingresses, ingressClasses, services, endpointSlices, namespaces, secrets, crds } = snap;
  for (const o of objects) {
    const group = (o.apiVersion ?? '').includes('/') ? (o.apiVersion ?? '').split('/')[0] : '';
    if (o.kind === 'Ingress' && group === 'networking.k8s.io') ingresses.push(o as Ingress);
    else if (o.kind === 'IngressClass' && group === 'networking.k8s.io') ingressClasses.push(o as IngressClass);
    else if (o.kind === 'Service' && group === '') services.push(o as Service);
    else if (o.kind === 'EndpointSlice' && group === 'discovery.k8s.io') endpointSlices.push(o as EndpointSlice);
    else if (o.kind === 'Namespace' && group === '') namespaces.push(o);
    else if (o.kind === 'Secret' && group === '') secrets.push(o as Secret);
    else if (crdGroups.includes(group ?? '') && CRD_KINDS.some((k) => k.kind === o.kind)) crds[o.kind as CrdKind].push(o);
  }
  return snap;
}
