/**
 * One snapshot per provider, side by side (`file`, `kubernetes`, `kubernetescrd`, …, plus the
 * built-in `internal` one). Every change computes the new runtime view (incrementally: only the
 * records the change can reach, see runtime/incremental.ts) and swaps it in with one assignment,
 * so readers always see one consistent set of records and nothing half-applied.
 */
import { createHash } from 'node:crypto';
import type { ProviderSnapshot } from '../dynamic-config/configuration.js';
import { INTERNAL_PROVIDER, internalProviderInput } from './runtime/internal-records.js';
import type { EntryPointDef, ProviderInput, RuntimeOptions } from './runtime/runtime.js';
import { IncrementalRuntime } from './runtime/incremental.js';
import { RuntimeView } from './view/runtime-view.js';

export interface StoredSnapshot {
  readonly provider: string;
  readonly snapshot: ProviderSnapshot;
  readonly version: string;
  /** Milliseconds since the epoch when the snapshot was applied. */
  readonly receivedAt: number;
}

export interface RecordStoreOptions {
  readonly entryPoints: readonly EntryPointDef[];
  /** Wall clock in milliseconds (injected for tests). */
  readonly now: () => number;
  /** Providers configured statically (e.g. `file`), listed by `/api/overview` even before they deliver. */
  readonly staticProviders?: readonly string[];
  readonly runtime?: RuntimeOptions;
  /** Whether the built-in `internal` records are included (default true). */
  readonly internalRecords?: boolean;
  /**
   * Called after a change that recomputed at least {@link LARGE_CHANGE_RECORDS} records (its
   * garbage is the replaced records and the snapshot's parsed body: see src/http/heap-reclaim.ts).
   */
  readonly onLargeChange?: () => void;
}

/** Records a change recomputes from which it counts as large (onLargeChange). */
export const LARGE_CHANGE_RECORDS = 2_000;

// Traefik's overview lists the Go field names of the configured providers, in struct order.
const OVERVIEW_NAMES: readonly (readonly [string, string])[] = [
  ['docker', 'Docker'], ['swarm', 'Swarm'], ['file', 'File'], ['kubernetes', 'KubernetesIngress'],
  ['kubernetesingressnginx', 'KubernetesIngressNGINX'], ['kubernetescrd', 'KubernetesCRD'], ['kubernetesgateway', 'KubernetesGateway'],
  ['knative', 'Knative'], ['rest', 'Rest'], ['consulcatalog', 'ConsulCatalog'], ['nomad', 'Nomad'], ['ecs', 'Ecs'],
  ['consul', 'Consul'], ['etcd', 'Etcd'], ['zookeeper', 'ZooKeeper'], ['redis', 'Redis'], ['http', 'HTTP'],
];

/** `/api/overview`'s providers list for a set of provider names. */
export function overviewProviders(names: Iterable<string>): string[] {
  const set = new Set(names);
  set.delete(INTERNAL_PROVIDER);
  const out: string[] = [];
  for (const [name, goName] of OVERVIEW_NAMES) {
    if (set.delete(name)) out.push(goName);
  }
  for (const rest of [...set].sort()) out.push(`plugin-${rest}`);
  return out;
}

/** A short content hash, used as the version when a provider sends none. */
export function snapshotVersion(snapshot: ProviderSnapshot): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(snapshot.configuration));
  h.update('\0');
  h.update(JSON.stringify(snapshot.serverStatus ?? {}));
  return h.digest('hex').slice(0, 16);
}

export type ChangeListener = (view: RuntimeView) => void;

/**
 * How a snapshot differs from the one it replaces, line by line (snapshot lines, format 2): the
 * lines added and removed, relative to `basis`, the decoded value of the snapshot before. Used
 * only when `basis` is what the store holds for that provider (same configuration and server
 * status objects); otherwise the store finds the changes itself.
 */
export interface SnapshotChanges {
  readonly basis: { readonly configuration?: unknown; readonly serverStatus?: unknown };
  readonly added: readonly { readonly path: readonly string[] }[];
  readonly removed: readonly { readonly path: readonly string[] }[];
}

export class RecordStore {
  private readonly snapshots = new Map<string, StoredSnapshot>();
  private current: RuntimeView;
  private readonly listeners = new Set<ChangeListener>();
  /** The runtime kept between changes (an operator changes few records per snapshot). */
  private runtime: IncrementalRuntime;
  /** Built once: the same objects every time, so the incremental runtime sees them unchanged. */
  private readonly internalInput: ProviderInput | undefined;
  /** Each snapshot's runtime input, kept with it so that an unchanged provider is the same object. */
  private readonly inputs = new WeakMap<StoredSnapshot, ProviderInput>();

  constructor(private readonly options: RecordStoreOptions) {
    this.runtime = new IncrementalRuntime(options.entryPoints, options.runtime);
    this.internalInput = (options.internalRecords ?? true) ? internalProviderInput() : undefined;
    this.current = this.compute();
    // The graph of the built-in records only (a few): providers delivered after them then only
    // link their own records (see IncrementalRuntime.append), never rebuild it all.
    this.runtime.prepare();
  }

  /** Whether a rebuild of the incremental runtime's reference graph is already scheduled. */
  private preparing = false;

  /** Records the last change recomputed (-1: all of them); for logs. */
  get lastRecomputed(): number {
    return this.runtime.lastRecomputed;
  }

  /** The records being served now; a new object after every change. */
  get view(): RuntimeView {
    return this.current;
  }

  get entryPoints(): readonly EntryPointDef[] {
    return this.options.entryPoints;
  }

  /**
   * Replaces one provider's whole snapshot and applies it.
   * @param options.incremental the provider re-sends mostly unchanged records as the same objects
   *   (format 2, snapshot lines): prepare for applying its next snapshot incrementally. Without it
   *   (the file provider, format 1 bodies, whose records are all new objects) nothing is prepared
   *   and a replacement costs one computation from scratch.
   * @param options.othersInFlight other such snapshots are being received: a preparation that
   *   rebuilds the whole graph is left to the last of them (the next would make it void); one
   *   that only links a new provider's records is not
   */
  set(
    provider: string, snapshot: ProviderSnapshot,
    options: { readonly incremental?: boolean; readonly othersInFlight?: boolean; readonly changes?: SnapshotChanges | undefined } = {},
  ): StoredSnapshot {
    const stored: StoredSnapshot = {
      provider,
      snapshot,
      version: snapshot.version !== undefined && snapshot.version !== '' ? snapshot.version : snapshotVersion(snapshot),
      receivedAt: this.options.now(),
    };
    const previous = this.snapshots.get(provider);
    this.snapshots.set(provider, stored);
    const { changes } = options;
    const hinted = changes !== undefined && previous !== undefined && previous.snapshot.configuration === changes.basis.configuration
      && previous.snapshot.serverStatus === changes.basis.serverStatus;
    let view: RuntimeView;
    try {
      view = this.compute(hinted ? { provider, previous, changes } : undefined);
    } catch (err) {
      // Keep the previous state if the runtime cannot be computed: nothing is half-applied.
      if (previous) this.snapshots.set(provider, previous);
      else this.snapshots.delete(provider);
      // The incremental state may hold part of the failed attempt: start it afresh.
      this.runtime = new IncrementalRuntime(this.options.entryPoints, this.options.runtime);
      throw err;
    }
    this.publish(view);
    this.afterChange(view);
    if (options.incremental === true && (options.othersInFlight !== true || this.runtime.prepareLinksOnly)) this.schedulePrepare();
    return stored;
  }

  get(provider: string): StoredSnapshot | undefined {
    return this.snapshots.get(provider);
  }

  providers(): string[] {
    return [...this.snapshots.keys()].sort();
  }

  /** Removes a provider's snapshot; false when it had none. */
  delete(provider: string): boolean {
    if (!this.snapshots.delete(provider)) return false;
    const view = this.compute();
    this.publish(view);
    this.afterChange(view);
    return true;
  }

  /** Tells onLargeChange of a change that recomputed many records (all of them: -1). */
  private afterChange(view: RuntimeView): void {
    if (this.options.onLargeChange === undefined) return;
    const recomputed = this.runtime.lastRecomputed;
    if ((recomputed < 0 ? view.recordCount() : recomputed) >= LARGE_CHANGE_RECORDS) this.options.onLargeChange();
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Swaps the view in (one assignment: readers see the old or the new one), then tells listeners. */
  private publish(view: RuntimeView): void {
    this.current = view;
    for (const l of this.listeners) {
      try {
        l(view);
      } catch {
        // A listener's failure must not undo an applied snapshot.
      }
    }
  }

  /**
   * After a computation from scratch, rebuilds the incremental runtime's reference graph once the
   * current request is answered, so that the next small change is incremental without paying for
   * it on the request path.
   */
  private schedulePrepare(): void {
    if (this.preparing || !this.runtime.needsPrepare) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      this.runtime.prepare();
    }).unref();
  }

  private inputOf(s: StoredSnapshot): ProviderInput {
    let input = this.inputs.get(s);
    if (input === undefined) {
      input = { provider: s.provider, configuration: s.snapshot.configuration };
      if (s.snapshot.serverStatus) input = { ...input, serverStatus: s.snapshot.serverStatus };
      this.inputs.set(s, input);
    }
    return input;
  }

  private compute(hint?: { provider: string; previous: StoredSnapshot; changes: SnapshotChanges }): RuntimeView {
    const inputs: ProviderInput[] = [];
    if (this.internalInput !== undefined) inputs.push(this.internalInput);
    for (const s of this.snapshots.values()) inputs.push(this.inputOf(s));
    const current = hint === undefined ? undefined : this.snapshots.get(hint.provider);
    const rt = this.runtime.compute(inputs, hint === undefined || current === undefined ? undefined : {
      previous: this.inputOf(hint.previous), next: this.inputOf(current), added: hint.changes.added, removed: hint.changes.removed,
    });
    const names = new Set([...(this.options.staticProviders ?? []), ...this.snapshots.keys()]);
    // Read before the constructor assigns it, so the first view has no previous one.
    return new RuntimeView(rt, this.options.entryPoints, overviewProviders(names), this.current as RuntimeView | undefined, this.runtime.lastChanges);
  }
}
