import { SearchError } from '../errors.js';
import type { IndexState } from './index-state.js';

/**
 * Per-shard failures of a search over several indices. ES runs the query phase on each shard on
 * its own (one shard per index here): when some shards fail and others answer, the search answers
 * 200 with the others' hits and lists the failed shards under `_shards.failures`
 * (allow_partial_search_results defaults to true); only when every shard fails is the request an
 * error ("all shards failed", 400, naming every failed shard).
 */
export class ShardFailures {
  /** ES's failure entries ({shard, index, node, reason}), in shard order. */
  readonly entries: Record<string, unknown>[] = [];
  private first: SearchError | undefined;

  /**
   * Wraps the work of one shard: a shard-level SearchError (search_phase_execution_exception) it
   * throws is recorded instead of failing the search; anything else propagates.
   */
  guard(run: (state: IndexState, shard: number) => void): (state: IndexState, shard: number) => void {
    return (state, shard) => {
      try {
        run(state, shard);
      } catch (e) {
        const failed = e instanceof SearchError && e.type === 'search_phase_execution_exception' ? e.cause_.meta?.failed_shards : undefined;
        if (!Array.isArray(failed)) throw e;
        this.first ??= e as SearchError;
        // The failed shard's own number (shard 0 of an index of one).
        for (const f of failed) this.entries.push({ ...(f as Record<string, unknown>), shard: state.shard });
      }
    };
  }

  get count(): number {
    return this.entries.length;
  }

  /** Throws "all shards failed" when none of `total` shards answered. */
  throwIfAllFailed(total: number): void {
    const first = this.first;
    if (first === undefined || this.entries.length < total) return;
    const grouped = groupFailures(this.entries);
    if (this.entries.length === 1 && grouped[0]?.shard === 0) throw first;
    throw new SearchError(first.status, { ...first.cause_, meta: { ...first.cause_.meta, failed_shards: grouped } }, first.rootCauses, first.headers);
  }

  /** The `_shards` section of the response. */
  shardsBody(total: number): Record<string, unknown> {
    const failed = this.entries.length;
    const body: Record<string, unknown> = { total, successful: total - failed, skipped: 0, failed };
    if (failed > 0) body.failures = groupFailures(this.entries);
    return body;
  }
}

/**
 * Failures listed as ES lists them (ExceptionsHelper.groupBy): one entry per index and cause (the
 * first shard's), however many of its shards failed so; `failed` still counts every shard.
 */
function groupFailures(entries: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = JSON.stringify([e.index, e.reason]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
