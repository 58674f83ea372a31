import type { IndexState } from './index-state.js';

/**
 * What each index has served since it was created or loaded (ES's indexing and search statistics
 * in `_stats` and `_nodes/stats`): counted where the service does the work, kept in memory, reset
 * by a restart as ES's are. Keyed by the index state, so a deleted or re-created index starts
 * from zero, as a new ES index does.
 */

export interface IndexCounters {
  indexTotal: number;
  indexTimeMs: number;
  deleteTotal: number;
  deleteTimeMs: number;
  /** Writes that failed (a version conflict, a document that does not parse). */
  indexFailed: number;
  queryTotal: number;
  queryTimeMs: number;
  /** Searches that fetched at least one hit (ES counts a fetch phase per shard that returned hits). */
  fetchTotal: number;
  fetchTimeMs: number;
  scrollTotal: number;
}

function zero(): IndexCounters {
  return { indexTotal: 0, indexTimeMs: 0, deleteTotal: 0, deleteTimeMs: 0, indexFailed: 0, queryTotal: 0, queryTimeMs: 0, fetchTotal: 0, fetchTimeMs: 0, scrollTotal: 0 };
}

export class IndexUsage {
  private readonly byState = new WeakMap<IndexState, IndexCounters>();

  /** The counters of `state`'s index (a shard counts into its index's, as ES sums its shards' in `_stats`). */
  of(state: IndexState): IndexCounters {
    const index = state.shards[0] as IndexState;
    let c = this.byState.get(index);
    if (c === undefined) {
      c = zero();
      this.byState.set(index, c);
    }
    return c;
  }

  /** A search (or count) ran on `state`, taking `ms`; `fetched`: it returned hits. */
  searched(state: IndexState, ms: number, fetched: boolean): void {
    const c = this.of(state);
    c.queryTotal++;
    c.queryTimeMs += ms;
    if (fetched) c.fetchTotal++;
  }

  /** `n` writes of one kind on `state` that took `ms` together. */
  wrote(state: IndexState, kind: 'index' | 'delete' | 'failed', n: number, ms: number): void {
    const c = this.of(state);
    if (kind === 'index') {
      c.indexTotal += n;
      c.indexTimeMs += ms;
    } else if (kind === 'delete') {
      c.deleteTotal += n;
      c.deleteTimeMs += ms;
    } else c.indexFailed += n;
  }

  /** The sum over `states` (a node's or `_all`'s figures). */
  total(states: readonly IndexState[]): IndexCounters {
    const t = zero();
    for (const s of states) {
      const c = this.of(s);
      for (const k of Object.keys(t) as (keyof IndexCounters)[]) t[k] += c[k];
    }
    return t;
  }
}
