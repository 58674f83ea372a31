import type { EndpointSlice, KubeObject, ObjectMeta } from '../client/kube-objects.js';

/**
 * What the cache keeps of an object, cut at decode time so full objects never live long: the
 * operator holds tens of thousands of them, and every field kept is paid for as long as the
 * object is cached (and again when a watch event replaces it).
 *
 * Kept: `metadata` fields the translation, status writers and change detection read (name,
 * namespace, uid, resourceVersion, generation, labels, annotations, deletionTimestamp), `spec`,
 * `status` (status writers compare against it), and the other top-level fields some kinds have
 * instead of a spec (EndpointSlice `endpoints`/`ports`/`addressType`, Secret `type`/`data`).
 * Dropped: `managedFields` (often larger than the object), `ownerReferences`, `finalizers`,
 * `creationTimestamp`, `generateName`, the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation (a full copy of the object), and of EndpointSlice endpoints everything but
 * `addresses` and `conditions` (targetRef, nodeName, zone, hints are never read).
 *
 * The kept objects are built with the same property order each time, so V8 gives them shared
 * shapes; deleting properties instead would turn each one into a slower, larger dictionary.
 */

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function slimMeta(md: ObjectMeta | undefined): ObjectMeta | undefined {
  if (md === undefined || md === null || typeof md !== 'object') return md;
  let annotations = md.annotations;
  if (annotations && typeof annotations === 'object' && annotations[LAST_APPLIED] !== undefined) {
    annotations = { ...annotations };
    delete annotations[LAST_APPLIED];
  }
  const out: ObjectMeta = {
    name: md.name,
    namespace: md.namespace,
    uid: md.uid,
    resourceVersion: md.resourceVersion,
    generation: md.generation,
    labels: md.labels,
    annotations,
  };
  if (md.deletionTimestamp !== undefined) out.deletionTimestamp = md.deletionTimestamp;
  return out;
}

function slimEndpoints(endpoints: unknown): unknown {
  if (!Array.isArray(endpoints)) return endpoints;
  return endpoints.map((ep: unknown) => {
    if (ep === null || typeof ep !== 'object') return ep;
    const e = ep as { addresses?: unknown; conditions?: unknown };
    return { addresses: e.addresses, conditions: e.conditions };
  });
}

/** The cached form of `obj` (a new object; `obj` itself is left as it was). */
export function slim(obj: KubeObject): KubeObject {
  if (obj === null || typeof obj !== 'object') return obj;
  if (obj.kind === 'EndpointSlice') return slimSlice(obj as EndpointSlice);
  return { ...obj, metadata: slimMeta(obj.metadata) };
}

/**
 * The cached form of an EndpointSlice, whatever its `kind` says: a new object whose `endpoints`
 * array and entries are new too (so their parts may be replaced by the caller).
 */
export function slimSlice(obj: EndpointSlice): EndpointSlice {
  if (obj === null || typeof obj !== 'object') return obj;
  return { ...obj, metadata: slimMeta(obj.metadata), endpoints: slimEndpoints(obj.endpoints) as EndpointSlice['endpoints'] };
}
