/**
 * The group store that replicas of the push gateway share (`--pushgateway.store=redis://…`).
 *
 * Every write (push, refused push, delete, wipe, TTL tick) is appended to one shared log
 * (op-log.ts) and every replica applies the log, in its order, to a local InMemoryGroupStore
 * (its mirror), which serves the scrapes, the JSON API and the console. The in-memory store is
 * deterministic, and each entry carries its time from the log's clock, so every replica holds
 * the same groups once it has applied the same entries: the consistency check (types and help
 * across groups) is the one of a single gateway receiving the writes in the log's order, a
 * refused push is refused by every replica alike, and a write is atomic because it is one entry.
 *
 * A replica answers a write only after applying the log up to its own entry, so it answers with
 * that entry's outcome. While the log is unreachable, writes fail with 503 and nothing is
 * written; reads serve the mirror, whose age storeStalenessSeconds tells.
 */
import { StoreUnavailableError } from '../errors.js';
import type { Label } from '../model.js';
import type { CachedFormat, RenderedFamily } from './exposition-cache.js';
import type { EscapingScheme } from '../exposition/name-escaping.js';
import type { Group, GroupStore, PushOutcome, PushRequest } from './group.js';
import { InMemoryGroupStore, type InMemoryGroupStoreOptions } from './group-store.js';
import { decodeOp, encodeOp, type LogEntry, type LogSnapshot, type OpLog, type StoreOp } from './op-log.js';
import { decodeGroups, encodeGroups } from './persistence.js';

export interface ReplicatedGroupStoreOptions extends Omit<InMemoryGroupStoreOptions, 'onChange'> {
  readonly log: OpLog;
  /** This replica's name, unique among the replicas (nonces of its entries start with it). */
  readonly replica: string;
  /** Local wall clock in ms (for the staleness metric only; entries carry the log's time). */
  readonly now: () => number;
  /** A snapshot is stored every this many entries, and older entries trimmed (default 1000). */
  readonly snapshotEvery?: number;
  /** Reads told the log was unreachable (once per outage) and when it works again. */
  readonly onUnreachable?: (err: unknown) => void;
  readonly onRecovered?: () => void;
}

type Outcome = { readonly ok: PushOutcome | boolean | undefined } | { readonly err: unknown };

/** Entries read per request while catching up. */
const READ_BATCH = 1000;

export class ReplicatedGroupStore implements GroupStore {
  private readonly mirror: InMemoryGroupStore;
  private readonly log: OpLog;
  private readonly snapshotEvery: number;
  /** Sequence number of the last applied entry, and the log's time there. */
  private applied = 0;
  private logTimeMs = 0;
  /** Nonces of this replica's writes awaiting their outcome, and the outcomes found. */
  private readonly pending = new Set<string>();
  private readonly outcomes = new Map<string, Outcome>();
  private written = 0;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  /** Local time of the last exchange with the log that brought this replica up to date. */
  private currentAtMs: number | undefined;
  private readonly startedAtMs: number;
  private failing = false;
  /** Whether some applied push had a TTL (only then do ticks get appended). */
  private ttlSeen = false;
  private ticking = false;
  private readonly ownPrefix: string;

  constructor(private readonly opts: ReplicatedGroupStoreOptions) {
    this.log = opts.log;
    this.mirror = new InMemoryGroupStore(opts);
    this.snapshotEvery = opts.snapshotEvery ?? 1000;
    this.startedAtMs = opts.now();
    this.ownPrefix = `${opts.replica}:`;
    // A hint only: while the log is unreachable the poll (and the reconnection) catches up.
    this.log.onAppended(() => {
      if (this.log.connected) void this.sync().catch(() => undefined);
    });
  }

  /** Whether the replica has read the shared state at least once (until then it serves nothing). */
  get ready(): boolean {
    return this.currentAtMs !== undefined;
  }

  get replica(): string {
    return this.opts.replica;
  }

  /** Whether the log answers now. */
  get up(): boolean {
    return this.log.connected && !this.failing;
  }

  /** Seconds since this replica last knew it held the shared state (since start-up before that). */
  stalenessSeconds(): number {
    return Math.max(0, this.opts.now() - (this.currentAtMs ?? this.startedAtMs)) / 1000;
  }

  /** Sequence number of the last entry applied here. */
  get appliedSeq(): number {
    return this.applied;
  }

  /**
   * Brings the mirror up to date with the log: entries after the applied one, or the snapshot
   * when those were trimmed, or a reseed when the log lost its data. Concurrent calls share one run.
   */
  sync(): Promise<void> {
    if (this.syncing !== undefined) {
      this.syncAgain = true;
      return this.syncing;
    }
    const run = async (): Promise<void> => {
      try {
        do {
          this.syncAgain = false;
          await this.catchUp();
        } while (this.syncAgain);
        this.noteSuccess();
      } catch (err) {
        this.noteFailure(err);
        throw err;
      } finally {
        this.syncing = undefined;
      }
    };
    this.syncing = run();
    return this.syncing;
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const { lastSeq, entries } = await this.log.read(this.applied, READ_BATCH);
      if (lastSeq < this.applied) {
        await this.reseed();
        continue;
      }
      if (!this.apply(entries) || (entries.length === 0 && lastSeq > this.applied)) {
        await this.loadSnapshot();
        continue;
      }
      if (entries.length < READ_BATCH) return;
    }
  }

  private async loadSnapshot(): Promise<void> {
    const snap = await this.log.snapshot();
    if (snap === undefined || snap.seq < this.applied) throw new Error(`the shared log misses entries after ${this.applied} and holds no snapshot after them`);
    this.mirror.load(decodeGroups(snap.text));
    this.applied = snap.seq;
    this.logTimeMs = snap.timeMs;
    this.ttlSeen = this.mirror.groups(this.logTimeMs).some((g) => g.expiresAtMs !== undefined);
  }

  /** The backend lost its data (a Redis restarted without persistence): it starts again from this replica's state. */
  private async reseed(): Promise<void> {
    await this.log.reseed(this.snapshotNow());
  }

  private snapshotNow(): LogSnapshot {
    return { seq: this.applied, timeMs: this.logTimeMs, text: encodeGroups(this.mirror.groups(this.logTimeMs)) };
  }

  /** Applies entries in order; false at a gap (entries trimmed: the snapshot is needed). */
  private apply(entries: readonly LogEntry[]): boolean {
    for (const e of entries) {
      if (e.seq <= this.applied) continue;
      if (e.seq !== this.applied + 1) return false;
      this.logTimeMs = Math.max(this.logTimeMs, e.timeMs);
      const outcome = this.run(decodeOp(e.op), this.logTimeMs);
      this.applied = e.seq;
      if (this.pending.has(e.nonce)) this.outcomes.set(e.nonce, outcome);
      if (e.seq % this.snapshotEvery === 0 && e.nonce.startsWith(this.ownPrefix)) this.saveSnapshot();
    }
    return true;
  }

  private run(op: StoreOp, nowMs: number): Outcome {
    const m = this.mirror;
    try {
      switch (op.kind) {
        case 'push':
          if (op.ttlMs !== undefined && op.ttlMs > 0) this.ttlSeen = true;
          return { ok: m.push({ grouping: op.grouping, families: op.families, replace: op.replace, nowMs, ttlMs: op.ttlMs }) };
        case 'failure':
          if (op.ttlMs !== undefined && op.ttlMs > 0) this.ttlSeen = true;
          m.recordFailure(op.grouping, nowMs, op.ttlMs);
          return { ok: undefined };
        case 'delete':
          return { ok: m.delete(op.grouping, nowMs) };
        case 'wipe':
          m.wipe();
          return { ok: undefined };
        case 'tick':
          m.expire(nowMs);
          return { ok: undefined };
      }
    } catch (err) {
      return { err };
    }
  }

  /** Stores the state at the entry just applied (one replica per `snapshotEvery` entries: the one that wrote it). */
  private saveSnapshot(): void {
    const snap = this.snapshotNow();
    this.log.saveSnapshot(snap, snap.seq - this.snapshotEvery).catch((err: unknown) => this.noteFailure(err));
  }

  private noteSuccess(): void {
    this.currentAtMs = this.opts.now();
    if (this.failing) {
      this.failing = false;
      this.opts.onRecovered?.();
    }
  }

  private noteFailure(err: unknown): void {
    if (!this.failing) this.opts.onUnreachable?.(err);
    this.failing = true;
  }

  /** Appends `op` and applies the log up to it; returns its outcome (or throws the error it met). */
  private async write(op: StoreOp): Promise<PushOutcome | boolean | undefined> {
    if (!this.log.connected) throw new StoreUnavailableError('the shared store (Redis) is unreachable');
    const nonce = `${this.opts.replica}:${++this.written}`;
    const text = encodeOp(op);
    this.pending.add(nonce);
    try {
      let entries = await this.appendOrUnavailable(text, nonce);
      if (entries === 'behind') {
        await this.sync().catch(() => undefined);
        entries = await this.appendOrUnavailable(text, nonce);
        if (entries === 'behind') throw new StoreUnavailableError('the shared store (Redis) lost its data and is being filled again');
      }
      if (!this.apply(entries)) await this.sync().catch(() => undefined);
      else this.noteSuccess();
      const outcome = this.outcomes.get(nonce);
      if (outcome === undefined) throw new StoreUnavailableError('the shared store (Redis) took the write but this replica could not read it back');
      if ('err' in outcome) throw outcome.err;
      return outcome.ok;
    } finally {
      this.pending.delete(nonce);
      this.outcomes.delete(nonce);
    }
  }

  private async appendOrUnavailable(text: string, nonce: string, dueAtMs?: number): Promise<readonly LogEntry[] | 'behind'> {
    try {
      return await this.log.append(text, nonce, this.applied, dueAtMs);
    } catch (err) {
      this.noteFailure(err);
      throw new StoreUnavailableError('the shared store (Redis) is unreachable', { cause: err });
    }
  }

  async push(req: PushRequest): Promise<PushOutcome> {
    const op: StoreOp = { kind: 'push', grouping: req.grouping, families: req.families, replace: req.replace, ...(req.ttlMs !== undefined && { ttlMs: req.ttlMs }) };
    return (await this.write(op)) as PushOutcome;
  }

  async recordFailure(grouping: readonly Label[], _nowMs: number, ttlMs?: number): Promise<void> {
    await this.write({ kind: 'failure', grouping, ...(ttlMs !== undefined && { ttlMs }) });
  }

  async delete(grouping: readonly Label[]): Promise<boolean> {
    return (await this.write({ kind: 'delete', grouping })) as boolean;
  }

  async wipe(): Promise<void> {
    await this.write({ kind: 'wipe' });
  }

  /**
   * TTLs run on the log's clock: when a group's expiry is due, a tick entry moves that clock on
   * for every replica (several replicas may append one; a tick that finds nothing due is harmless).
   * Returns 0: the groups leave when the tick is applied.
   */
  expire(): number {
    if (!this.ttlSeen || this.ticking || !this.log.connected) return 0;
    let due = Infinity;
    for (const g of this.mirror.groups(this.logTimeMs)) if (g.expiresAtMs !== undefined && g.expiresAtMs < due) due = g.expiresAtMs;
    if (due === Infinity) return 0;
    this.ticking = true;
    const nonce = `${this.opts.replica}:tick`;
    this.appendOrUnavailable(encodeOp({ kind: 'tick' }), nonce, due)
      .then((entries) => (entries === 'behind' || !this.apply(entries) ? this.sync() : undefined))
      .catch(() => undefined)
      .finally(() => (this.ticking = false));
    return 0;
  }

  groups(): readonly Group[] {
    return this.mirror.groups(this.logTimeMs);
  }

  get(grouping: readonly Label[]): Group | undefined {
    return this.mirror.get(grouping, this.logTimeMs);
  }

  rendered(_nowMs: number, format?: CachedFormat, escaping?: EscapingScheme): RenderedFamily[] {
    return this.mirror.rendered(this.logTimeMs, format, escaping);
  }

  families(): ReturnType<GroupStore['families']> {
    return this.mirror.families(this.logTimeMs);
  }

  inconsistency(): string | undefined {
    return this.mirror.inconsistency();
  }

  /** The shared log is the only source: loading a persistence file into one replica is refused. */
  load(): void {
    throw new Error('the Redis store is loaded from Redis, not from a persistence file');
  }

  get changeCount(): number {
    return this.mirror.changeCount;
  }

  get groupCount(): number {
    return this.mirror.groupCount;
  }

  get seriesCount(): number {
    return this.mirror.seriesCount;
  }

  async close(): Promise<void> {
    await this.log.close();
  }
}
