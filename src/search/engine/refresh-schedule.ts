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
 * - `?refresh=wait_for` waits for the next refresh (a skipped one is not skipped while a write waits,
 *   as in ES); more than `index.max_refresh_listeners` (1000) waiting on an index force one, and
 *   those writes answer `forced_refresh: true`.
 * Timers are unref'd: they never keep the process up. Time is the monotonic clock.
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
}

export class RefreshSchedule {
  private readonly schedules = new Map<IndexState, Schedule>();

  /** @param now the wall clock the indices' creation times are in (search-idle counts from creation) */
  constructor(
    private readonly contexts: SearchContexts,
    private readonly now: () => number,
  ) {
    contexts.onDirty = (s) => this.arm(s);
    contexts.onDropped = (s) => this.forget(s);
  }

  private of(state: IndexState): Schedule {
    let s = this.schedules.get(state);
    if (s === undefined) {
      // A shard is searched "at its start" (ES sets lastSearcherAccess when it is created).
      const age = Math.max(0, this.now() - state.createdMs);
      s = { lastSearchMs: performance.now() - age, timer: undefined, pending: false, waiters: [] };
      this.schedules.set(state, s);
    }
    return s;
  }

  /** The first write since the last refresh: the next scheduled refresh is due in `refresh_interval`. */
  private arm(state: IndexState): void {
    const s = this.of(state);
    s.pending = false;
    this.startTimer(state, s);
  }

  private startTimer(state: IndexState, s: Schedule): void {
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    const every = state.settings.refreshIntervalMs;
    if (every < 0 || this.contexts.searcher(state) === undefined) return;
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

  /** Refreshes `state` now: its writes become visible, the writes waiting for it are answered. */
  refresh(state: IndexState, forced = false): void {
    const s = this.schedules.get(state);
    this.contexts.refreshed(state);
    if (s === undefined) return;
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = undefined;
    s.pending = false;
    for (const w of s.waiters.splice(0)) w(forced);
  }

  /**
   * Resolves once a refresh has made `state`'s writes so far visible: at once when nothing is
   * waiting to be shown; `true` when this wait forced the refresh (too many waiting).
   */
  waitFor(state: IndexState): Promise<boolean> {
    if (this.contexts.searcher(state) === undefined) return Promise.resolve(false);
    const s = this.of(state);
    if (s.waiters.length >= MAX_REFRESH_LISTENERS) {
      this.refresh(state);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      s.waiters.push(resolve);
      // A skipped (search-idle) refresh runs at the next tick again now that a write waits.
      if (s.pending && s.timer === undefined) {
        s.pending = false;
        this.startTimer(state, s);
      }
    });
  }

  /** The index's `refresh_interval` changed: the next scheduled refresh is due in the new one. */
  settingsChanged(state: IndexState): void {
    const s = this.schedules.get(state);
    if (s !== undefined) this.startTimer(state, s);
  }

  /** The index is gone (deleted, closed, reloaded): its writes waiting are answered, its timer stopped. */
  forget(state: IndexState): void {
    this.refresh(state);
    this.schedules.delete(state);
  }

  /** Stops every timer and answers every waiting write (the service is closing). */
  close(): void {
    for (const state of [...this.schedules.keys()]) this.forget(state);
  }
}
