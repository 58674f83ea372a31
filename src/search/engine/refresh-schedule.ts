import type { IndexState } from './index-state.js';
import type { SearchContexts } from './open-contexts.js';

/**
 * Elasticsearch's near-real-time model: searches (and counts, aggregations, scrolls and points in
 * time opened, by-query operations, `realtime=false` gets, the `_stats` document counts) see an
 * index as of its last refresh. The view they see is the searcher of open-contexts.ts, taken at the
 * first write after a refresh; a refresh drops it. This module decides when refreshes happen:
 * - every `index.refresh_interval` (1s by default; `-1`: only when asked), counted from the first
 *   write since the last refresh (ES's scheduler ticks whatever happens; nothing a client sees
 *   tells the two apart, and an index with no writes needs no timer);
 * - search-idle, as ES's IndexShard: when `refresh_interval` is not set explicitly and the index has
 *   had no search for `index.search.idle.after` (30s), a scheduled refresh is skipped and marked
 *   pending, and the next search refreshes first (ES makes it wait for the refresh it triggers);
 * - `?refresh=true` after a write, `POST _refresh`;
 * - `?refresh=wait_for` waits for the next refresh after the write (a skipped one is not skipped
 *   while a write waits, as in ES), also when the write changed nothing searches see (a delete that
 *   found nothing: ES's translog holds it, and the write waits for a refresh past its location);
 *   a write some refresh has shown since answers at once. More than `index.max_refresh_listeners`
 *   (1000) waiting on an index force one, and those writes answer `forced_refresh: true`.
 * An index of several shards is refreshed whole (ES refreshes each shard on its own timer, which
 * nothing a client sees tells apart): its schedule is its shard 0's, and a refresh shows the writes
 * of every shard. Timers are unref'd: they never keep the process up. Time is the monotonic clock.
 */

/** ES's `index.max_refresh_listeners` default. */
export const MAX_REFRESH_LISTENERS = 1000;

interface Schedule {
  /** When the last search of the index began (monotonic ms). */
  lastSearchMs: number;
  timer: NodeJS.Timeout | undefined;
  /** A scheduled refresh was skipped (search-idle): the next search refreshes first. */
  pending: boolean;
  /** Writes waiting for a refresh (`refresh=wait_for`): each is told whether it forced one. */
  readonly waiters: ((forced: boolean) => void)[];
  /** Refreshes so far (see generation). */
  generation: number;
}

export class RefreshSchedule {
  private readonly schedules = new Map<IndexState, Schedule>();
  /** Called after each refresh of an index (its searcher view dropped), before its waiting writes are answered. */
  onRefreshed: ((state: IndexState) => void) | undefined;
  /** Called when searches of an index see other documents (a refresh that showed writes) or the index is gone. */
  onViewChanged: ((state: IndexState) => void) | undefined;

  /** @param now the wall clock the indices' creation times are in (search-idle counts from creation) */
  constructor(
    private readonly contexts: SearchContexts,
    private readonly now: () => number,
  ) {
    contexts.onDirty = (s) => this.arm(s);
    contexts.onDropped = (s) => this.forget(s);
  }

  /** The schedule of `shard`'s index (its shard 0's). */
  private of(shard: IndexState): Schedule {
    const state = shard.shards[0] as IndexState;
    let s = this.schedules.get(state);
    if (s === undefined) {
      // A shard is searched "at its start" (ES sets lastSearcherAccess when it is created).
      const age = Math.max(0, this.now() - state.createdMs);
      s = { lastSearchMs: performance.now() - age, timer: undefined, pending: false, waiters: [], generation: 0 };
      this.schedules.set(state, s);
    }
    return s;
  }

  /** The first write to a shard since the last refresh: the next scheduled refresh is due in `refresh_interval`. */
  private arm(shard: IndexState): void {
    const s = this.of(shard);
    s.pending = false;
    this.startTimer(shard.shards[0] as IndexState, s);
  }

  private startTimer(state: IndexState, s: Schedule): void {
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    const every = state.settings.refreshIntervalMs;
    // Nothing to show and nobody waiting: no refresh is due.
    if (every < 0 || (!state.shards.some((shard) => this.contexts.searcher(shard) !== undefined) && s.waiters.length === 0)) return;
    s.timer = setTimeout(() => this.tick(state), every);
    s.timer.unref();
  }

  /** A scheduled refresh: skipped while the index is search-idle and no write waits for it. */
  private tick(state: IndexState): void {
    const s = this.of(state);
    s.timer = undefined;
    if (s.waiters.length === 0 && this.isSearchIdle(state, s)) {
      s.pending = true;
      return;
    }
    this.refresh(state);
  }

  private isSearchIdle(state: IndexState, s: Schedule): boolean {
    return !state.settings.refreshExplicit && performance.now() - s.lastSearchMs >= state.settings.searchIdleAfterMs;
  }

  /**
   * Before a search of `state` (or anything else that reads it as of its last refresh): a
   * search-idle index with a skipped refresh is refreshed first; the search marks it active.
   */
  beforeSearch(state: IndexState): void {
    const s = this.of(state);
    if (this.isSearchIdle(state, s) && s.pending) this.refresh(state);
    s.lastSearchMs = performance.now();
  }

  /** Refreshes `state`'s index now (every shard): its writes become visible, the writes waiting for it are answered. */
  refresh(state: IndexState, forced = false): void {
    const s = this.schedules.get(state.shards[0] as IndexState);
    for (const shard of state.shards) {
      if (this.contexts.refreshed(shard)) this.onViewChanged?.(shard);
      this.onRefreshed?.(shard);
    }
    if (s === undefined) return;
    s.generation++;
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    s.pending = false;
    for (const w of s.waiters.splice(0)) w(forced);
  }

  /** The refreshes of `state` so far: a write made at generation g is shown once it is past g. */
  generation(state: IndexState): number {
    return this.of(state).generation;
  }

  /**
   * Resolves once a refresh after generation `since` (that of the write, see generation; the
   * current one by default: the write was just made) has run: at once when one has; `true` when
   * this wait forced the refresh (too many waiting).
   */
  waitFor(state: IndexState, since = this.generation(state)): Promise<boolean> {
    const s = this.of(state);
    if (s.generation > since) return Promise.resolve(false);
    if (s.waiters.length >= MAX_REFRESH_LISTENERS) {
      this.refresh(state);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      s.waiters.push(resolve);
      // The next scheduled refresh is due now that a write waits: a skipped (search-idle) one runs
      // at the next tick again, and an index with nothing to show (a delete that found nothing) gets one.
      if (s.timer === undefined) {
        s.pending = false;
        this.startTimer(state, s);
      }
    });
  }

  /** The index's `refresh_interval` changed: the next scheduled refresh is due in the new one. */
  settingsChanged(state: IndexState): void {
    const s = this.schedules.get(state.shards[0] as IndexState);
    if (s !== undefined) this.startTimer(state.shards[0] as IndexState, s);
  }

  /** The index is gone (deleted, closed, reloaded; told once per shard): its writes waiting are answered, its timer stopped. */
  forget(state: IndexState): void {
    this.refresh(state);
    for (const shard of state.shards) this.onViewChanged?.(shard);
    this.schedules.delete(state.shards[0] as IndexState);
  }

  /** Stops every timer and answers every waiting write (the service is closing). */
  close(): void {
    for (const state of [...this.schedules.keys()]) this.forget(state);
  }
}
