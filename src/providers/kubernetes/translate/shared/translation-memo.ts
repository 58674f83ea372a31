import type { ClusterView, MemoEntry } from './endpoints-resolver.js';
import type { EndpointSlice, KubeObject, Secret, Service } from '../../client/kube-objects.js';

/**
 * Per-object translation results kept between translations. Cached objects are never mutated (a
 * change arrives as a new object), so an object whose own instance and whose every Service and
 * EndpointSlice list read during its translation are the same instances as before translates to
 * the same fragment: the fragment is reused and only the cheap merge runs again. With 10,000
 * routing objects, a one-object change then costs milliseconds instead of a full translation.
 * The result is identical with or without a memo; it is purely a cache.
 */

interface Dependency {
  readonly namespace: string;
  readonly name: string;
  readonly service: Service | undefined;
  readonly slices: readonly EndpointSlice[];
}

interface SecretDependency {
  readonly namespace: string;
  readonly name: string;
  readonly secret: Secret | undefined;
}

export interface MemoSlot<T> {
  readonly object: unknown;
  readonly context: unknown;
  readonly deps: readonly Dependency[];
  readonly secretDeps: readonly SecretDependency[];
  readonly value: T;
}

/** A view that records which Services (and their slices) a translation read. */
export class TrackingView implements ClusterView {
  readonly deps: Dependency[] = [];
  readonly secretDeps: SecretDependency[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly inner: ClusterView) {}

  get memo(): Map<string, MemoEntry> | undefined {
    return this.inner.memo;
  }

  private track(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.deps.push({ namespace, name, service: this.inner.service(namespace, name), slices: this.inner.endpointSlices(namespace, name) });
  }

  service(namespace: string, name: string): Service | undefined {
    this.track(namespace, name);
    return this.inner.service(namespace, name);
  }

  endpointSlices(namespace: string, serviceName: string): readonly EndpointSlice[] {
    this.track(namespace, serviceName);
    return this.inner.endpointSlices(namespace, serviceName);
  }

  secret(namespace: string, name: string): Secret | undefined {
    const secret = this.inner.secret?.(namespace, name);
    if (!this.secretDeps.some((d) => d.namespace === namespace && d.name === name)) this.secretDeps.push({ namespace, name, secret });
    return secret;
  }
}

export class TranslationMemo {
  private slots = new Map<string, MemoSlot<unknown>>();
  private next = new Map<string, MemoSlot<unknown>>();
  hits = 0;
  misses = 0;

  private scopes: readonly string[] = [];

  /**
   * Starts a translation of the parts whose keys start with one of `scopes` (all by default):
   * their slots not used by it are dropped at `finish()`; other parts' slots are kept as they are.
   */
  begin(scopes: readonly string[] = ['']): void {
    this.scopes = scopes;
    this.next = new Map();
    this.hits = 0;
    this.misses = 0;
  }

  finish(): void {
    for (const [key, slot] of this.slots) {
      if (!this.next.has(key) && !this.scopes.some((scope) => key.startsWith(scope))) this.next.set(key, slot);
    }
    this.slots = this.next;
  }

  /**
   * The value for `key`, reused when `object` and `context` are the same instances and every
   * dependency still resolves to the same instances in `view`; else computed with a tracking view.
   */
  get<T>(key: string, object: KubeObject, context: unknown, view: ClusterView, compute: (view: ClusterView) => T): T {
    return this.getVersioned(key, object, context, view, compute);
  }

  /**
   * Like `get`, keyed by a version token instead of the object instance: CRD objects use
   * `uid/generation`, so a status update (which the leader itself causes) keeps the fragment.
   */
  getVersioned<T>(key: string, version: unknown, context: unknown, view: ClusterView, compute: (view: ClusterView) => T): T {
    return this.lookup(this.next, key, version, context, view, compute);
  }

  /**
   * Between translations (after `finish()`): the value for `key` as `getVersioned` gives it,
   * kept for the next translation without dropping any other slot. For the incremental path,
   * which re-translates only the objects a change touched.
   */
  refresh<T>(key: string, version: unknown, context: unknown, view: ClusterView, compute: (view: ClusterView) => T): T {
    return this.lookup(this.slots, key, version, context, view, compute);
  }

  /** The slot kept for `key` (its value and the Services and Secrets it read), if any. */
  peek(key: string): MemoSlot<unknown> | undefined {
    return this.slots.get(key);
  }

  /** Forgets `key` (its object is gone or no longer translated). */
  drop(key: string): void {
    this.slots.delete(key);
  }

  private lookup<T>(target: Map<string, MemoSlot<unknown>>, key: string, version: unknown, context: unknown, view: ClusterView, compute: (view: ClusterView) => T): T {
    const object = version;
    const slot = this.slots.get(key);
    if (slot && slot.object === object && slot.context === context &&
      slot.deps.every((d) => view.service(d.namespace, d.name) === d.service && view.endpointSlices(d.namespace, d.name) === d.slices) &&
      slot.secretDeps.every((d) => view.secret?.(d.namespace, d.name) === d.secret)) {
      target.set(key, slot);
      this.hits++;
      return slot.value as T;
    }
    const tracking = new TrackingView(view);
    const value = compute(tracking);
    target.set(key, { object, context, deps: tracking.deps, secretDeps: tracking.secretDeps, value });
    this.misses++;
    return value;
  }
}
