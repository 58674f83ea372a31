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
 * view of an index's last refresh (refresh-schedule.ts) does not stop a compaction, but a swap
 * would show the writes the view hides (the copy holds them, renumbered), and ES's merges never
 * refresh: a compaction whose copy is ready while the index has unrefreshed writes waits (parked)
 * and swaps right after the next refresh (`refreshed`), before any later write. While it waits, the
 * writes go on: every FOLLOW_ORDS of them (`written`) wake it for slices that copy them too, so
 * that the swap, which cannot be sliced, copies only the last few (a copy parked for a refresh
 * interval of writes made its swap copy all of them: 35-365 ms at 6,000 documents a second, the
 * longest stall searches saw during re-index bulks, bench/search-stall-probe.ts). With
 * `refresh_interval: -1` and no refresh it waits as long, as ES's searcher keeps the segments a
 * merge dropped. Only compactNow (the snapshot at shutdown, tests) refreshes the index first.
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
  /** Writes that wake a parked compaction to copy them (default FOLLOW_ORDS). */
  readonly followOrds?: number;
}

export const DEFAULT_RECLAIM_POLICY: ReclaimPolicy = { minDead: 1000, deadShare: 0.25, sliceMs: 4 };

/**
 * Ordinals written to the index of a parked compaction (one waiting for a refresh) that wake it to
 * copy them. Fewer make more, smaller rounds, each a scan of every term's record and a copy of
 * every list its writes grew, a few postings each: the copy's work per document rises, and with it
 * the bulks' (bench/search-stall-probe.ts during re-index bulks at 5,000-8,000 documents a second:
 * 100-120 µs of bulk slice a document following every 128, 76-92 following every 1,024, 90-103
 * not following). More leave more for the swap (~0.015 ms a document): swap p50 / max 8-9 / 17-25
 * ms at 1,024, 18 / 25 at 4,096, 25-35 / 32-97 not following.
 */
export const FOLLOW_ORDS = 1024;

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
  /** Whether `state` has writes its last refresh does not show (a compaction's copy holds them: it waits). */
  unrefreshed?(state: IndexState): boolean;
  /**
   * Before compactNow swaps its copy in: what still reads the old ordinals without pinning the
   * index (the view of its last refresh, open-contexts.ts) must let go of them (a refresh).
   */
  beforeSwap?(state: IndexState): void;
}

/** A compaction under way: CPU time spent in its slices so far, and the longest slice. */
interface Run {
  readonly compaction: IndexCompaction;
  ms: number;
  longestMs: number;
  /** Its copy was complete once (it waits for a refresh): its slices follow the writes (IndexCompaction.step). */
  ready?: boolean;
}

export class IndexReclaimer {
  private readonly running = new Map<IndexState, Run>();
  /** Compactions whose copy is ready and up to date, waiting for a refresh of their index or more writes (see above). */
  private readonly parked = new Map<IndexState, Run>();
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
    const parked = this.parked.get(state);
    if (parked !== undefined) this.follow(state, parked);
    if (this.stopped || this.isRunning(state) || !this.due(state) || !this.host.isCurrent(state) || this.host.isPinned(state)) return;
    if (state.index.compacting || state.index.isBatching) return;
    this.running.set(state, { compaction: new IndexCompaction(state.index, this.policy.catchUpOrds), ms: 0, longestMs: 0 });
    this.wake();
  }

  /** Whether a compaction of `state` is under way. */
  isRunning(state: IndexState): boolean {
    return this.running.has(state) || this.parked.has(state);
  }

  /**
   * Writes were made (a slice of a `_bulk`): the parked compactions of the indices written copy
   * them once there are FOLLOW_ORDS (see above).
   */
  written(): void {
    for (const [state, run] of this.parked) this.follow(state, run);
  }

  private follow(state: IndexState, run: Run): void {
    if (this.stopped || run.compaction.behind < (this.policy.followOrds ?? FOLLOW_ORDS)) return;
    this.parked.delete(state);
    this.running.set(state, run);
    this.wake();
  }

  /**
   * `state` was just refreshed: a compaction waiting for that (parked, or following writes) swaps
   * its copy in now (none of its writes is hidden any more), unless the index went away or is
   * pinned (dropped), or is batching a `_bulk`'s postings (it runs its slices again, and waits again
   * if that bulk's writes are unrefreshed).
   */
  refreshed(state: IndexState): void {
    const following = this.running.get(state);
    const run = this.parked.get(state) ?? (following?.ready === true ? following : undefined);
    if (run === undefined) return;
    this.parked.delete(state);
    this.running.delete(state);
    if (this.stopped || !this.host.isCurrent(state) || this.host.isPinned(state)) run.compaction.abandon();
    else if (state.index.isBatching) {
      this.running.set(state, run);
      this.wake();
    } else this.finish(state, run, performance.now());
  }

  /** Ordinals written since the copy of `state`'s compaction last caught up (what its swap would copy now); undefined when none runs. */
  behind(state: IndexState): number | undefined {
    return (this.running.get(state) ?? this.parked.get(state))?.compaction.behind;
  }

  /**
   * Compacts `state` now, to the end (the snapshot written at shutdown: a snapshot proportional to
   * the live documents; tests). Not when it is pinned, batching or holds nothing to reclaim.
   */
  compactNow(state: IndexState): void {
    // Twice at most: a compaction under way (one that waited for a refresh especially) keeps what
    // was retired while it ran as tombstones, which a second one drops.
    for (let round = 0; round < 2; round++) {
      const run = this.running.get(state) ?? this.parked.get(state);
      if (run === undefined && (state.index.deadCount === 0 || state.index.compacting)) return;
      if (!this.host.isCurrent(state) || this.host.isPinned(state) || state.index.isBatching) return;
      this.running.delete(state);
      this.parked.delete(state);
      this.host.beforeSwap?.(state);
      this.finish(state, run ?? { compaction: new IndexCompaction(state.index, this.policy.catchUpOrds), ms: 0, longestMs: 0 }, performance.now());
    }
  }

  /** Drops every compaction under way and starts no more (the service is closing). */
  stop(): void {
    this.stopped = true;
    for (const { compaction } of [...this.running.values(), ...this.parked.values()]) compaction.abandon();
    this.running.clear();
    this.parked.clear();
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
    } else if (!state.index.isBatching && run.compaction.step(started + this.policy.sliceMs, run.ready === true)) {
      this.running.delete(state);
      // The copy holds writes the last refresh does not show: it waits for the next refresh.
      if (this.host.unrefreshed?.(state) === true) {
        const ms = performance.now() - started;
        run.ms += ms;
        run.longestMs = Math.max(run.longestMs, ms);
        run.ready = true;
        this.parked.set(state, run);
      } else this.finish(state, run, started);
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
    compaction.finish();
    compaction.renumber(state.versions);
    compaction.renumber(state.seqNos);
    // The query memos were keyed by the old posting stores (and a fresh start beats stale tables).
    state.arena.forgetMemos();
    const ms = performance.now() - started;
    this.host.reclaimed?.(state, compaction.dropped, run.ms + ms, Math.max(run.longestMs, ms));
    // Documents retired while it ran stay in the copy as tombstones: enough of them start the next,
    // in a later turn (its start sizes a copy of every term's record: not in the swap's turn).
    this.schedule(() => this.check(state));
  }
}
