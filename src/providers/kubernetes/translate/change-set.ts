/**
 * What changed in the cache since the last translation, as the object cache reports it: which
 * routing objects (by resource and `ns/name`), which things they read (a Service with its
 * EndpointSlices, a Secret), or everything. The incremental translation re-translates from it.
 */

/** What changed since the last translation. */
export interface ChangeSet {
  /** Translate both providers from scratch (first sync, resync, new leader). */
  full: boolean;
  /** Changed objects: resource id (`ingresses`, `portico.dev/ingressroutes`, …) → `ns/name` keys. */
  readonly objects: Map<string, Set<string>>;
  /** Changed things objects read: `svc|ns/name` (a Service or its EndpointSlices), `sec|ns/name`. */
  readonly deps: Set<string>;
}

export function emptyChangeSet(full = false): ChangeSet {
  return { full, objects: new Map(), deps: new Set() };
}

/**
 * Notes one change as the object cache reports it (see ObjectCache): no resource or no key means
 * everything (resync, new leader, a resource's first list).
 */
export function noteChange(changes: ChangeSet, resourceId?: string, key?: string, services?: readonly string[]): void {
  if (resourceId === undefined || key === undefined || key === '') {
    changes.full = true;
    return;
  }
  if (resourceId === 'services') changes.deps.add(`svc|${key}`);
  else if (resourceId === 'endpointslices') for (const s of services ?? []) changes.deps.add(`svc|${s}`);
  else if (resourceId === 'secrets') changes.deps.add(`sec|${key}`);
  else {
    let keys = changes.objects.get(resourceId);
    if (!keys) changes.objects.set(resourceId, (keys = new Set()));
    keys.add(key);
  }
}
