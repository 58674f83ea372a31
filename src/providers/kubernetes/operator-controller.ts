import { AccessProblems } from './client/access-problems.js';
import { ConnectionProblems } from './client/connection-problems.js';
import { IngressStatusWriter, ingressEndpointEnabled, type IngressEndpoint } from './status/ingress-status.js';
import { LeaderElector, type LeaseDeps, type LeaseOptions } from './client/leader-election.js';
import { ObjectCache, watchedResources } from './watch/object-cache.js';
import { Reflector, type ReflectorOptions } from './watch/reflector.js';
import { SnapshotDelivery, type FetchLike } from './deliver/snapshot-delivery.js';
import { StatusWriter } from './status/status-writer.js';
import { emptyChangeSet, noteChange, type ChangeSet } from './translate/change-set.js';
import { IncrementalTranslation, type ProviderUpdate, type StatusInput } from './translate/incremental.js';
import { CRD_PROVIDER, INGRESS_PROVIDER } from './translate/shared/naming.js';
import type { TranslateOptions } from './translate/shared/translation-types.js';


/** How long after a full translation's snapshots are sent its dependency index is built (ms). */
const LINK_DELAY_MS = 50;
/**
 * The operator's loop: reflectors fill the cache; every change is noted (which objects, which
 * Services and Secrets); the reconciler translates what changed (translate/incremental.ts:
 * the touched objects only, or the whole cache when a change needs it, with the same result
 * either way) and hands the changed providers' snapshots to the delivery. A change is translated
 * at once (after the events already queued are in) unless a delivery is under way: then changes
 * wait for it to end, at most `debounceMs` after the last reconcile started, and are batched into
 * one reconcile, so a burst costs one PUT per delivery time rather than one per event. The leader
 * then writes CRD statuses and events.
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
   * Longest wait in ms (after the last reconcile started) for changes that come while a delivery
   * is under way; they are batched. A change while no delivery is under way is not delayed.
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

/** What the controller is given: the lease's dependencies (passed on to it) and its own. */
export interface ControllerDeps extends LeaseDeps {
  readonly random: () => number;
  readonly fetch: FetchLike;
  readonly readToken: () => Promise<string>;
  /** Called once, when the first full sync's snapshots are on the server. */
  readonly onSynced?: () => void;
}

export class OperatorController {
  readonly cache: ObjectCache;
  /** Refusals of the API server (RBAC), each logged once; a refused read keeps the operator unready. */
  readonly access: AccessProblems;
  /** The API server not answering, logged once per backoff step for every reflector. */
  private readonly connection: ConnectionProblems;
  private readonly delivery: SnapshotDelivery;
  private readonly elector: LeaderElector | null;
  private readonly statusWriter: StatusWriter;
  private readonly ingressStatus: IngressStatusWriter | undefined;
  private dirty = true;
  /** What changed since the last reconcile (everything at start). */
  private changes: ChangeSet = emptyChangeSet(true);
  private wake: (() => void) | undefined;
  private reconciles = 0;
  private statusPass: Promise<void> | undefined;
  private pendingStatus = false;
  private firstSyncAt: number | undefined;
  private syncReported = false;
  /** When the last reconcile started (deps.now), bounding the wait for a delivery under way; none yet at start. */
  private lastReconcileAt: number | undefined;
  private readonly translation: IncrementalTranslation;

  constructor(private readonly options: ControllerOptions, private readonly deps: ControllerDeps, private readonly signal: AbortSignal) {
    this.access = new AccessProblems(deps.logger);
    this.connection = new ConnectionProblems(deps.logger, deps.api.serverUrl ?? 'the API server');
    this.cache = new ObjectCache((resourceId, key, services) => this.markDirty(resourceId, key, services));
    this.translation = new IncrementalTranslation(options.translate, this.cache);
    this.delivery = new SnapshotDelivery({ serverUrl: options.serverUrl }, { fetch: deps.fetch, readToken: deps.readToken, logger: deps.logger, sleep: deps.sleep }, signal);
    this.elector = options.lease ? new LeaderElector(options.lease, { api: deps.api, logger: deps.logger, now: deps.now, sleep: deps.sleep, access: this.access }) : null;
    this.elector?.onChange((leader) => {
      if (leader) this.markDirty(); // a new leader re-checks every status
    });
    this.statusWriter = new StatusWriter({ identity: options.identity }, {
      api: deps.api, logger: deps.logger, now: deps.now, access: this.access,
      current: (ref) => this.cache.get(`${ref.group}/${ref.plural}`, ref.namespace, ref.name),
      yieldTo: () => this.recordsFirst(),
    });
    const endpoint = options.ingressEndpoint;
    this.ingressStatus = endpoint && ingressEndpointEnabled(endpoint)
      ? new IngressStatusWriter(endpoint, {
        api: deps.api, logger: deps.logger, now: deps.now, access: this.access,
        current: (ref) => this.cache.get('ingresses', ref.namespace, ref.name),
        cachedService: (namespace, name) => this.cache.clusterIndex.service(namespace, name),
        watchesNamespace: (namespace) => options.namespaces.length === 0 || options.namespaces.includes(namespace),
      })
      : undefined;
  }

  /** What changed (see noteChange); nothing named means everything (resync, new leader). */
  private markDirty(resourceId?: string, key?: string, services?: readonly string[]): void {
    this.dirty = true;
    noteChange(this.changes, resourceId, key, services);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /**
   * Resolves once no change waits to be translated and no snapshot is being sent, or after at most
   * 250 ms (a server that is down must not stop status writes).
   */
  private async recordsFirst(): Promise<void> {
    for (let waited = 0; waited < 250 && !this.signal.aborted && (this.dirty || !this.delivery.idle); waited += 5) {
      await this.deps.sleep(5, this.signal);
    }
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.options.alwaysLeader;
  }

  /** null when ready; otherwise what the operator still waits for. */
  notReadyReason(): string | null {
    // A refused read names the verb and resource; the records may miss what it would have read.
    const refused = this.access.readProblem();
    if (refused !== null) return refused;
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
        const reflector = new Reflector(type, scope === '' ? undefined : scope, this.cache.sink(type, scope), { ...deps, access: this.access, connection: this.connection }, reflectorOptions);
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
      await this.deps.sleep(0, signal);
      // While a PUT is under way, changes wait for it (bounded) and go out together in the next.
      if (this.lastReconcileAt !== undefined) {
        const deadline = this.lastReconcileAt + this.options.debounceMs;
        while (!signal.aborted && !this.delivery.idle && this.deps.now() < deadline) {
          await Promise.race([this.delivery.whenIdle(), this.deps.sleep(Math.max(1, deadline - this.deps.now()), signal)]);
        }
      }
      if (signal.aborted) break;
      this.dirty = false;
      if (!this.cache.synced) continue;
      try {
        this.reconcile();
      } catch (err) {
        // translate() confines object errors; this is a bug. The next change retries from scratch
        // (the incremental state may be half-updated).
        this.changes.full = true;
        this.deps.logger.error({ err }, 'reconcile failed');
      }
    }
  }

  private reconcile(): void {
    const started = performance.now();
    this.lastReconcileAt = this.deps.now();
    const changes = this.changes;
    this.changes = emptyChangeSet();
    const outcome = this.translation.update(changes);
    // After every reconcile, not only full ones: with the resync off, incremental reconciles are
    // all there is, and the memo would keep the servers of every Service ever resolved.
    this.cache.clusterIndex.prune();
    const ms = Math.round(performance.now() - started);
    this.reconciles++;
    if (this.firstSyncAt === undefined) {
      this.firstSyncAt = this.deps.now();
      this.deps.logger.info({ objects: this.cache.counts(), translateMs: ms }, 'first full sync translated');
    } else {
      const { hits, misses } = this.translation.memoStats;
      this.deps.logger.debug({ translateMs: ms, full: outcome.full, objects: outcome.objects, reused: hits, translated: misses }, 'reconciled');
    }
    const send = (provider: string, update: ProviderUpdate) => this.delivery.deliver(provider, 'body' in update ? update.body : update.snapshot);
    const sent: Promise<void>[] = [];
    if (outcome.kubernetes) sent.push(send(INGRESS_PROVIDER, outcome.kubernetes));
    if (outcome.kubernetescrd) sent.push(send(CRD_PROVIDER, outcome.kubernetescrd));
    // The dependency index a full translation leaves unbuilt is built while the server applies
    // the snapshots just sent: a moment later, so that their bodies are first handed to the
    // socket, and before the answer, when the next change would otherwise wait behind it.
    if (outcome.full) setTimeout(() => this.translation.linkAll(), LINK_DELAY_MS).unref();
    if (!this.syncReported) {
      void Promise.all(sent).then(() => {
        if (this.syncReported || !this.delivery.settled) return;
        this.syncReported = true;
        this.deps.onSynced?.();
      });
    }
    // Also without a record change: Ingress status follows the published Service.
    if (this.isLeader) this.writeStatus();
  }

  /**
   * One status pass at a time; a request during a pass makes one more pass after it, with the
   * newest translation's statuses (read when the pass starts, not per reconcile).
   */
  private writeStatus(): void {
    if (this.statusPass) {
      this.pendingStatus = true;
      return;
    }
    this.statusPass = (async () => {
      // Records first: statuses wait until the snapshots are on the server (bounded wait), so a
      // first sync's thousands of status writes do not delay the records users are waiting for.
      for (let i = 0; i < 600 && !this.delivery.settled && !this.signal.aborted; i++) await this.deps.sleep(50, this.signal);
      let again = true;
      while (again && !this.signal.aborted && this.isLeader) {
        this.pendingStatus = false;
        const current: StatusInput = this.translation.statusInput();
        const written = await this.statusWriter.writeStatuses(current.statuses);
        const events = await this.statusWriter.recordEvents(current.events);
        const ingresses = (await this.ingressStatus?.write(current.servedIngresses ?? [])) ?? 0;
        if (written + events + ingresses > 0) this.deps.logger.debug({ statuses: written, events, ingresses }, 'status written');
        again = this.pendingStatus;
      }
    })().finally(() => {
      this.statusPass = undefined;
    });
  }
}
