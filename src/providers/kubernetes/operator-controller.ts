import type { Logger } from 'pino';
import { IngressStatusWriter, ingressEndpointEnabled, type IngressEndpoint } from './ingress-status.js';
import type { KubeApi } from './kube-client.js';
import { LeaderElector, type LeaseOptions } from './leader-election.js';
import { ObjectCache, watchedResources } from './object-cache.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import { SnapshotDelivery, type FetchLike } from './snapshot-delivery.js';
import { StatusWriter } from './status-writer.js';
import { translate } from './translate.js';
import { TranslationMemo } from './translation-memo.js';
import { CRD_PROVIDER, INGRESS_PROVIDER } from './naming.js';
import type { TranslateOptions, TranslationResult } from './translation-types.js';

/**
 * The operator's loop: reflectors fill the cache; every change marks the configuration dirty;
 * the reconciler translates the whole cache (a pure function) and hands both snapshots to the
 * delivery, which sends only what changed. Reconciles start at most once per `debounceMs`: a
 * change after a quiet period is translated at once (after the events already queued are in),
 * changes during a burst are batched into the next reconcile. The leader then writes CRD statuses
 * and events. Translation of the complete cache keeps the result independent of event order; it
 * is fast enough for tens of thousands of objects (see bench/operator-bench.ts).
 */

export interface ControllerOptions {
  readonly translate: TranslateOptions;
  /** Namespaces to watch; empty = all (one cluster-wide watch per resource). */
  readonly namespaces: readonly string[];
  readonly labelSelector: string;
  /** Label selector on Namespaces ('' = off): the Namespace watch uses it server-side. */
  readonly namespaceSelector: string;
  readonly traefikCrds: boolean;
  /**
   * Shortest time in ms between the starts of two reconciles. A change that comes later than
   * that after the last reconcile is not delayed; changes within it wait and are batched.
   */
  readonly debounceMs: number;
  /** Full re-translation and status check interval in ms (0 = off). */
  readonly resyncMs: number;
  /** How often in ms to ask the server which snapshot it holds (re-delivery after a restart). */
  readonly deliveryCheckMs: number;
  readonly serverUrl: string;
  /** null: no election, this process never writes status (or always, see `alwaysLeader`). */
  readonly lease: LeaseOptions | null;
  /** Without election: whether this single instance writes status and events. */
  readonly alwaysLeader: boolean;
  readonly identity: string;
  readonly reflector?: ReflectorOptions;
  /** Written to the served Ingresses' status by the leader; unset or empty: Ingress status untouched. */
  readonly ingressEndpoint?: IngressEndpoint;
}

export interface ControllerDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly now: () => number;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly fetch: FetchLike;
  readonly readToken: () => Promise<string>;
}

export class OperatorController {
  readonly cache: ObjectCache;
  private readonly delivery: SnapshotDelivery;
  private readonly elector: LeaderElector | null;
  private readonly statusWriter: StatusWriter;
  private readonly ingressStatus: IngressStatusWriter | undefined;
  private dirty = true;
  /** Which providers' inputs changed since the last reconcile (both at start). */
  private dirtyIngress = true;
  private dirtyCrd = true;
  private wake: (() => void) | undefined;
  private reconciles = 0;
  private statusPass: Promise<void> | undefined;
  private pendingStatus: TranslationResult | undefined;
  private firstSyncAt: number | undefined;
  /** When the last reconcile started (deps.now), for the rate limit; none yet at start. */
  private lastReconcileAt: number | undefined;
  private readonly memo = new TranslationMemo();
  private last: TranslationResult | undefined;

  constructor(private readonly options: ControllerOptions, private readonly deps: ControllerDeps, private readonly signal: AbortSignal) {
    this.cache = new ObjectCache((resourceId) => this.markDirty(resourceId));
    this.delivery = new SnapshotDelivery({ serverUrl: options.serverUrl }, { fetch: deps.fetch, readToken: deps.readToken, logger: deps.logger, sleep: deps.sleep }, signal);
    this.elector = options.lease ? new LeaderElector(options.lease, { api: deps.api, logger: deps.logger, now: deps.now, sleep: deps.sleep }) : null;
    this.elector?.onChange((leader) => {
      if (leader) this.markDirty(); // a new leader re-checks every status
    });
    this.statusWriter = new StatusWriter({ identity: options.identity }, {
      api: deps.api, logger: deps.logger, now: deps.now,
      current: (ref) => this.cache.get(`${ref.group}/${ref.plural}`, ref.namespace, ref.name),
    });
    const endpoint = options.ingressEndpoint;
    this.ingressStatus = endpoint && ingressEndpointEnabled(endpoint)
      ? new IngressStatusWriter(endpoint, {
        api: deps.api, logger: deps.logger, now: deps.now,
        current: (ref) => this.cache.get('ingresses', ref.namespace, ref.name),
        cachedService: (namespace, name) => this.cache.clusterIndex.service(namespace, name),
        watchesNamespace: (namespace) => options.namespaces.length === 0 || options.namespaces.includes(namespace),
      })
      : undefined;
  }

  /** `resourceId` narrows what must be re-sent; none means everything (resync, new leader). */
  private markDirty(resourceId?: string): void {
    this.dirty = true;
    if (resourceId === 'ingresses' || resourceId === 'ingressclasses') this.dirtyIngress = true;
    // Secrets are read by CRD middlewares only.
    else if (resourceId !== undefined && (resourceId.includes('/') || resourceId === 'secrets')) this.dirtyCrd = true;
    else {
      this.dirtyIngress = true;
      this.dirtyCrd = true;
    }
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.options.alwaysLeader;
  }

  /** null when ready; otherwise what the operator still waits for. */
  notReadyReason(): string | null {
    // Naming what is missing points at the cause, typically RBAC (e.g. no list on secrets).
    if (!this.cache.synced) return `waiting for the first list of ${this.cache.unsyncedResources().join(', ')}`;
    if (this.reconciles === 0) return 'waiting for the first translation';
    if (!this.delivery.settled) return `waiting for the first delivery to ${this.options.serverUrl}`;
    return null;
  }

  /** Runs until the signal aborts. */
  async run(): Promise<void> {
    const { deps, options, signal } = this;
    const tasks: Promise<void>[] = [];
    const scopes = options.namespaces.length > 0 ? options.namespaces : [''];
    for (const type of watchedResources({ traefikCrds: options.traefikCrds, namespaceSelector: options.namespaceSelector, secrets: options.translate.readSecrets })) {
      // Label selectors apply to the routing objects, never to Services, EndpointSlices or Secrets.
      const routing = !['services', 'endpointslices', 'ingressclasses', 'namespaces', 'secrets'].includes(type.id);
      const selector = type.id === 'namespaces' ? options.namespaceSelector : routing ? options.labelSelector : '';
      const reflectorOptions: ReflectorOptions = { ...options.reflector, ...(selector ? { labelSelector: selector } : {}) };
      for (const scope of type.namespaced ? scopes : ['']) {
        const reflector = new Reflector(type, scope === '' ? undefined : scope, this.cache.sink(type, scope), deps, reflectorOptions);
        tasks.push(reflector.run(signal));
      }
    }
    if (this.elector) tasks.push(this.elector.run(signal));
    tasks.push(this.every(options.deliveryCheckMs, () => this.delivery.check()));
    if (options.resyncMs > 0) {
      tasks.push(this.every(options.resyncMs, async () => {
        deps.logger.debug('resync');
        this.markDirty();
      }));
    }
    tasks.push(this.reconcileLoop());
    await Promise.all(tasks);
  }

  private async every(ms: number, fn: () => Promise<void>): Promise<void> {
    while (!this.signal.aborted) {
      await this.deps.sleep(ms, this.signal);
      if (!this.signal.aborted) await fn();
    }
  }

  private async reconcileLoop(): Promise<void> {
    const { signal } = this;
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    while (!signal.aborted) {
      if (!this.dirty) await Promise.race([new Promise<void>((resolve) => { this.wake = resolve; }), aborted]);
      if (signal.aborted) break;
      // A zero sleep still lets the events that arrived together (one watch chunk) land first.
      const since = this.lastReconcileAt === undefined ? Infinity : this.deps.now() - this.lastReconcileAt;
      await this.deps.sleep(Math.max(0, Math.min(this.options.debounceMs, this.options.debounceMs - since)), signal);
      if (signal.aborted) break;
      this.dirty = false;
      if (!this.cache.synced) continue;
      try {
        this.reconcile();
      } catch (err) {
        // translate() confines object errors; this is a bug, and the next change retries.
        this.deps.logger.error({ err }, 'reconcile failed');
      }
    }
  }

  private reconcile(): void {
    const started = performance.now();
    this.lastReconcileAt = this.deps.now();
    // Only the providers whose inputs changed are translated again; the other is reused.
    const ingress = this.dirtyIngress;
    const crd = this.dirtyCrd;
    this.dirtyIngress = false;
    this.dirtyCrd = false;
    const result = translate(this.cache.snapshot(), this.options.translate, this.cache.clusterIndex, this.memo, { ingress, crd, previous: this.last });
    this.last = result;
    this.cache.clusterIndex.prune();
    const ms = Math.round(performance.now() - started);
    this.reconciles++;
    if (this.firstSyncAt === undefined) {
      this.firstSyncAt = this.deps.now();
      this.deps.logger.info({ objects: this.cache.counts(), translateMs: ms }, 'first full sync translated');
    } else {
      this.deps.logger.debug({ translateMs: ms, reused: this.memo.hits, translated: this.memo.misses }, 'reconciled');
    }
    if (ingress) void this.delivery.deliver(INGRESS_PROVIDER, result.kubernetes);
    if (crd) void this.delivery.deliver(CRD_PROVIDER, result.kubernetescrd);
    if (this.isLeader) this.writeStatus(result);
  }

  /** One status pass at a time; a newer result waiting replaces an older one. */
  private writeStatus(result: TranslationResult): void {
    if (this.statusPass) {
      this.pendingStatus = result;
      return;
    }
    this.statusPass = (async () => {
      // Records first: statuses wait until the snapshots are on the server (bounded wait), so a
      // first sync's thousands of status writes do not delay the records users are waiting for.
      for (let i = 0; i < 600 && !this.delivery.settled && !this.signal.aborted; i++) await this.deps.sleep(50, this.signal);
      let next: TranslationResult | undefined = this.pendingStatus ?? result;
      while (next && !this.signal.aborted && this.isLeader) {
        const current: TranslationResult = next;
        this.pendingStatus = undefined;
        const written = await this.statusWriter.writeStatuses(current.statuses);
        const events = await this.statusWriter.recordEvents(current.events);
        const ingresses = (await this.ingressStatus?.write(current.servedIngresses ?? [])) ?? 0;
        if (written + events + ingresses > 0) this.deps.logger.debug({ statuses: written, events, ingresses }, 'status written');
        next = this.pendingStatus;
      }
    })().finally(() => {
      this.statusPass = undefined;
    });
  }
}
