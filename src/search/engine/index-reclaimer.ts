import { IndexCompaction } from '../index/index-compaction.js';
import type { IndexState } from './index-state.js';
import { nextTurn } from '../../http/work-turns.js';

/**
 * Reclaims what overwritten and deleted documents hold, in the background: when an index's retired
 * ordinals reach a share of its live documents, a compaction (index/index-compaction.ts) copies the
 * live ones in slices of at most `sliceMs`, each run from the event loop's check phase
 * (nextTurn: one slice of any job a turn), so requests are served between two slices; the last slice swaps the copy in and
 * renumbers the engine's per-ordinal versions and sequence numbers. As Lucene's merge policy lets
 * deletes accumulate to a share of a segment before merging it away, memory stays within a
 * constant factor of the live data whatever the number of re-indexing passes.
 *
 * Scrolls and points in time hold ordinals: an index they pin is not compacted (a compaction
 * under way is dropped when one opens), and its retired documents wait until the last of them is
 * closed or expires (`unpinned`), as Lucene keeps a merged-away segment for its open readers. The
 * view of an index's last refresh (refresh-schedule.ts) does not stop a compaction: the index is
 * refreshed right before the swap (beforeSwap), so a compaction shows pending writes early, which
 * only an index with a long or no `refresh_interval` and many overwrites can notice.
 */

/** When an index is compacted and how long a slice runs. */
export interface ReclaimPolicy {
  /** Retired ordinals needed before a compaction starts (default 1,000). */
  readonly minDead: number;
  /** ... and the least share of the live documents they must be (default 0.25). */
  readonly deadShare: number;
  /** Longest work between two yields to the event loop, in ms (default 4). */
  readonly sliceMs: number;
  /** Writes during a catch-up round below which finish copies the rest (default CATCH_UP_ORDS, see index-compaction.ts). */
  readonly catchUpOrds?: number;
}

export const DEFAULT_RECLAIM_POLICY: ReclaimPolicy = { minDead: 1000, deadShare: 0.25, sliceMs: 4 };

export interface ReclaimHost {
  /** Whether `state` is still the index of its name (a deleted or reloaded one is not compacted). */
  isCurrent(state: IndexState): boolean;
  /** Whether a scroll or point in time holds `state`. */
  isPinned(state: IndexState): boolean;
  /**
   * A compaction of `state` finished: `dropped` ordinals reclaimed in `ms` of slices, the longest
   * of which (the swap, usually) took `longestMs`.
   */
  reclaimed?(state: IndexState, dropped: number, ms: number, longestMs: number): void;
  /**
   * Right before a compaction swaps its copy in: what still reads the old ordinals without pinning
   * the index (the view of its last refresh, open-contexts.ts) must let go of them.
   */
  beforeSwap?(state: IndexState): void;
}

/** A compaction under way: CPU time spent in its slices so far, and the longest slice. */
interface Run {
  readonly compaction: IndexCompaction;
  ms: number;
  longestMs: number;
}

export class IndexReclaimer {
  private readonly running = new Map<IndexState, Run>();
  private scheduled = false;
  private stopped = false;

  /**
   * @param schedule runs a slice later (default nextTurn: a later turn of the event loop, after pending I/O, one slice of any job a turn)
   */
  constructor(
    private readonly host: ReclaimHost,
    private readonly policy: ReclaimPolicy = DEFAULT_RECLAIM_POLICY,
    private readonly schedule: (run: () => void) => void = (run) => void nextTurn().then(run),
  ) {}

  /** Whether `state` holds enough retired ordinals to be compacted. */
  due(state: IndexState): boolean {
    const dead = state.index.deadCount;
    return dead >= this.policy.minDead && dead >= state.index.liveCount * this.policy.deadShare;
  }

  /** After writes to `state` (or its last context closed): starts its compaction when due. */
  check(state: IndexState): void {
    if (this.stopped || this.running.has(state) || !this.due(state) || !this.host.isCurrent(state) || this.host.isPinned(state)) return;
    if (state.index.compacting || state.index.isBatching) return;
    this.running.set(state, { compaction: new IndexCompaction(state.index, this.policy.catchUpOrds), ms: 0, longestMs: 0 });
    this.wake();
  }

  /** Whether a compaction of `state` is under way. */
  isRunning(state: IndexState): boolean {
    return this.running.has(state);
  }

  /**
   * Compacts `state` now, to the end (the snapshot written at shutdown: a snapshot proportional to
   * the live documents; tests). Not when it is pinned, batching or holds nothing to reclaim.
   */
  compactNow(state: IndexState): void {
    const run = this.running.get(state);
    if (run === undefined && (state.index.deadCount === 0 || state.index.compacting)) return;
    if (!this.host.isCurrent(state) || this.host.isPinned(state) || state.index.isBatching) return;
    this.running.delete(state);
    this.finish(state, run ?? { compaction: new IndexCompaction(state.index, this.policy.catchUpOrds), ms: 0, longestMs: 0 }, performance.now());
  }

  /** Drops every compaction under way and starts no more (the service is closing). */
  stop(): void {
    this.stopped = true;
    for (const { compaction } of this.running.values()) compaction.abandon();
    this.running.clear();
  }

  private wake(): void {
    if (this.scheduled || this.running.size === 0) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      this.slice();
    });
  }

  /** One slice of work on the first compaction under way; schedules the next. */
  private slice(): void {
    const first = this.running.entries().next();
    if (first.done === true) return;
    const [state, run] = first.value;
    const started = performance.now();
    if (this.stopped || !this.host.isCurrent(state) || this.host.isPinned(state)) {
      run.compaction.abandon();
      this.running.delete(state);
    } else if (!state.index.isBatching && run.compaction.step(started + this.policy.sliceMs)) {
      this.running.delete(state);
      this.finish(state, run, started);
    } else {
      const ms = performance.now() - started;
      run.ms += ms;
      run.longestMs = Math.max(run.longestMs, ms);
      // Round robin: the next slice goes to the next index.
      this.running.delete(state);
      this.running.set(state, run);
    }
    this.wake();
  }

  private finish(state: IndexState, run: Run, started: number): void {
    const { compaction } = run;
    this.host.beforeSwap?.(state);
    compaction.finish();
    compaction.renumber(state.versions);
    compaction.renumber(state.seqNos);
    // The query memos were keyed by the old posting stores (and a fresh start beats stale tables).
    state.arena.forgetMemos();
    const ms = performance.now() - started;
    this.host.reclaimed?.(state, compaction.dropped, run.ms + ms, Math.max(run.longestMs, ms));
    // Documents retired while it ran stay in the copy as tombstones: enough of them start the next.
    this.check(state);
  }
}
