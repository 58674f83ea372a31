/**
 * The in-memory store with a write-ahead log (write-ahead-log.ts): a push, a delete and a wipe are
 * applied in memory (which checks them), then logged, and answered once their record is durable.
 * A refused write logs nothing. The persistence file is the WAL's checkpoint: it names the last
 * record it holds, and the segments it covers are deleted after it is safely renamed.
 *
 * Replay uses each record's own time, so push_time_seconds and TTL expiries come out as they were;
 * records are replayed into a store without limits or consistency check (they were accepted once,
 * and a flag changed since must not drop them). Refused pushes' failure times are not logged: they
 * survive only through the checkpoint.
 *
 * When a record cannot be written (a full disk, EIO), the writes that were waiting for it answer
 * 500 and the store goes back to what the disk holds (checkpoint and WAL), so nothing visible was
 * never acknowledged for long; writes are refused while that reload runs.
 */
import { WalWriteError } from '../errors.js';
import type { Label } from '../model.js';
import type { CachedFormat, RenderedFamily } from './exposition-cache.js';
import type { Group, GroupStore, PushOutcome, PushRequest } from './group.js';
import { InMemoryGroupStore, type InMemoryGroupStoreOptions } from './group-store.js';
import { decodeOp, encodeOp, type StoreOp } from './op-log.js';
import { encodeGroups, loadCheckpoint, saveText } from './persistence.js';
import { readWal, WalWriter } from './write-ahead-log.js';
import { open } from 'node:fs/promises';

export interface DurableGroupStoreOptions extends InMemoryGroupStoreOptions {
  /** The persistence file (the checkpoint); segments sit beside it. */
  readonly file: string;
  /** Group commit window in ms (see WalWriterOptions.syncIntervalMs). */
  readonly syncIntervalMs: number;
  readonly now: () => number;
  /** A write failed (called for each; the caller rate-limits the log line). */
  readonly onWriteError: (err: unknown) => void;
  /**
   * Bytes the log may hold beyond the last checkpoint before `onLogFull` asks for another
   * (--persistence.wal-max-size); 0 or absent: never.
   */
  readonly maxLogBytes?: number;
  /** The log passed maxLogBytes: called once until the next checkpoint starts. */
  readonly onLogFull?: () => void;
}

/** What start-up found: groups in the checkpoint, records replayed, a torn tail cut. */
export interface Recovery {
  readonly checkpointGroups: number;
  readonly replayed: number;
  readonly tornBytes: number;
}

/** Applies one logged op to a store at its recorded time. */
export function replayOp(store: InMemoryGroupStore, op: StoreOp, timeMs: number): void {
  switch (op.kind) {
    case 'push':
      store.push({ grouping: op.grouping, families: op.families, replace: op.replace, nowMs: timeMs, ...(op.ttlMs !== undefined && { ttlMs: op.ttlMs }) });
      return;
    case 'delete':
      store.delete(op.grouping, timeMs);
      return;
    case 'wipe':
      store.wipe();
      return;
    default:
      store.expire(timeMs);
  }
}

export class DurableGroupStore implements GroupStore {
  private readonly mirror: InMemoryGroupStore;
  private wal: WalWriter | undefined;
  private reloading: Promise<void> | undefined;
  /** Whether onLogFull was called since the last checkpoint started. */
  private logFullSignalled = false;

  private constructor(private readonly opts: DurableGroupStoreOptions) {
    this.mirror = new InMemoryGroupStore(opts);
  }

  /** Loads the checkpoint, replays the WAL after it, cuts a torn tail; throws on damage. */
  static async open(opts: DurableGroupStoreOptions): Promise<{ store: DurableGroupStore; recovery: Recovery }> {
    const store = new DurableGroupStore(opts);
    const { recovery, lastSeq } = await store.recover();
    store.wal = new WalWriter({ file: opts.file, nextSeq: lastSeq + 1, syncIntervalMs: opts.syncIntervalMs });
    return { store, recovery };
  }

  private async recover(): Promise<{ recovery: Recovery; lastSeq: number }> {
    const { groups, walSeq } = await loadCheckpoint(this.opts.file);
    const wal = await readWal(this.opts.file, walSeq);
    const scratch = new InMemoryGroupStore({ ...this.opts, checkConsistency: false, limits: undefined, onChange: undefined });
    scratch.load(groups);
    let t = 0;
    for (const r of wal.records) {
      t = Math.max(t, r.timeMs);
      replayOp(scratch, decodeOp(r.op), r.timeMs);
    }
    this.mirror.load(scratch.groups(t));
    const tail = wal.tail;
    const tornBytes = tail === undefined ? 0 : tail.size - tail.goodSize;
    if (tail !== undefined && tornBytes > 0) {
      const h = await open(tail.path, 'r+');
      try {
        await h.truncate(tail.goodSize);
        await h.sync();
      } finally {
        await h.close();
      }
    }
    return { recovery: { checkpointGroups: groups.length, replayed: wal.records.length, tornBytes }, lastSeq: wal.lastSeq };
  }

  private async log(op: StoreOp, timeMs: number): Promise<void> {
    try {
      const wal = this.wal as WalWriter;
      const durable = wal.append(encodeOp(op), timeMs);
      this.checkLogSize(wal);
      await durable;
    } catch (err) {
      this.opts.onWriteError(err);
      this.reloading ??= this.recover()
        .then(() => undefined, (e: unknown) => this.opts.onWriteError(e))
        .finally(() => (this.reloading = undefined));
      throw new WalWriteError((err as NodeJS.ErrnoException).code ?? 'the disk refused it', { cause: err });
    }
  }

  /** Asks for a checkpoint once the log outgrows --persistence.wal-max-size (once per checkpoint). */
  private checkLogSize(wal: WalWriter): void {
    const max = this.opts.maxLogBytes ?? 0;
    if (max <= 0 || this.logFullSignalled || wal.uncoveredBytes < max) return;
    this.logFullSignalled = true;
    this.opts.onLogFull?.();
  }

  private refuseWhileReloading(): void {
    if (this.reloading !== undefined) throw new WalWriteError('the store is being restored from disk after a failed write');
  }

  async push(req: PushRequest): Promise<PushOutcome> {
    this.refuseWhileReloading();
    const outcome = this.mirror.push(req);
    await this.log({ kind: 'push', grouping: req.grouping, families: req.families, replace: req.replace, ...(req.ttlMs !== undefined && { ttlMs: req.ttlMs }) }, req.nowMs);
    return outcome;
  }

  recordFailure(grouping: readonly Label[], nowMs: number, ttlMs?: number): void {
    this.mirror.recordFailure(grouping, nowMs, ttlMs);
  }

  async delete(grouping: readonly Label[], nowMs: number): Promise<boolean> {
    this.refuseWhileReloading();
    if (!this.mirror.delete(grouping, nowMs)) return false;
    await this.log({ kind: 'delete', grouping }, nowMs);
    return true;
  }

  async wipe(): Promise<void> {
    this.refuseWhileReloading();
    this.mirror.wipe();
    await this.log({ kind: 'wipe' }, this.opts.now());
  }

  /**
   * Writes the checkpoint: the groups and the last record's number at one instant, written once
   * every record up to it is durable; then the segments it covers are deleted.
   */
  async checkpoint(): Promise<void> {
    const wal = this.wal as WalWriter;
    const seq = wal.lastSeq;
    const text = encodeGroups(this.mirror.groups(this.opts.now()), seq);
    wal.rotate();
    this.logFullSignalled = false;
    await wal.barrier();
    await saveText(this.opts.file, text);
    await wal.dropCovered(seq);
  }

  expire(nowMs: number): number {
    return this.mirror.expire(nowMs);
  }

  groups(nowMs: number): readonly Group[] {
    return this.mirror.groups(nowMs);
  }

  get(grouping: readonly Label[], nowMs: number): Group | undefined {
    return this.mirror.get(grouping, nowMs);
  }

  rendered(nowMs: number, format?: CachedFormat): RenderedFamily[] {
    return this.mirror.rendered(nowMs, format);
  }

  families(nowMs: number): ReturnType<GroupStore['families']> {
    return this.mirror.families(nowMs);
  }

  inconsistency(): string | undefined {
    return this.mirror.inconsistency();
  }

  load(groups: readonly Group[]): void {
    this.mirror.load(groups);
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
    await this.wal?.close();
  }
}
