import type { Logger } from 'pino';

/**
 * What the search area says at the info level: what an operator wants to know and nothing per
 * request. Index creation and deletion, the indices loaded at start, large `_bulk` requests (one
 * summary line each) and, during a long load, a rate line at most every `rateIntervalMs`, so that
 * a load made of many small `_bulk` requests is visible too.
 */

export interface SearchActivityOptions {
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** Monotonic clock in ms (performance.now in the server). */
  readonly clock: () => number;
  /** A `_bulk` of at least this many operations gets its own summary line (default 1,000). */
  readonly bulkSummaryOps?: number;
  /** Least time between two rate lines during a load, in ms (default 10 s). */
  readonly rateIntervalMs?: number;
}

/** The counts of one `_bulk` request. */
export interface BulkCounts {
  readonly operations: number;
  readonly failed: number;
  readonly ms: number;
}

function perSecond(count: number, ms: number): number {
  return ms > 0 ? Math.round((count * 1000) / ms) : count;
}

export class SearchActivityLog {
  private readonly bulkSummaryOps: number;
  private readonly rateIntervalMs: number;
  /** Operations since the last rate line, and when that window started (undefined: no load running). */
  private windowOps = 0;
  private windowStart: number | undefined;
  private totalOps = 0;

  constructor(private readonly opts: SearchActivityOptions) {
    this.bulkSummaryOps = opts.bulkSummaryOps ?? 1000;
    this.rateIntervalMs = opts.rateIntervalMs ?? 10_000;
  }

  indexCreated(name: string, automatically: boolean): void {
    this.opts.logger.info({ index: name, automatically }, `index [${name}] created`);
  }

  indexDeleted(name: string): void {
    this.opts.logger.info({ index: name }, `index [${name}] deleted`);
  }

  /** The indices loaded at start, from the snapshot or rebuilt from the stored documents. */
  restored(from: 'snapshot' | 'documents', indices: number, documents: number, ms: number): void {
    this.opts.logger.info({ indices, documents, from, ms: Math.round(ms) }, `loaded ${indices} indices with ${documents} documents from the ${from === 'snapshot' ? 'index snapshot' : 'stored documents'}`);
  }

  /** A snapshot that could not be read: only a slower start, but one worth saying. */
  snapshotUnreadable(err: unknown): void {
    this.opts.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'the index snapshot could not be read; rebuilding the indices from the stored documents');
  }

  /** A write whose commit failed: the indices are reloaded from what the store holds. */
  writeFailed(err: unknown): void {
    this.opts.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'a write to the document store failed; reloading the indices from the stored documents');
  }

  /**
   * A compaction reclaimed `dropped` retired documents of `index`, which holds `live` documents,
   * in `ms` of slices, the longest (the swap, usually) `longestMs`.
   */
  reclaimed(index: string, dropped: number, live: number, ms: number, longestMs: number): void {
    this.opts.logger.info(
      { index, reclaimed: dropped, documents: live, ms: Math.round(ms), longestSliceMs: Math.round(longestMs) },
      `index [${index}]: reclaimed ${dropped} overwritten or deleted documents`,
    );
  }

  bulkDone(counts: BulkCounts): void {
    const now = this.opts.clock();
    if (counts.operations >= this.bulkSummaryOps) {
      this.opts.logger.info(
        { operations: counts.operations, failed: counts.failed, ms: Math.round(counts.ms), perSecond: perSecond(counts.operations, counts.ms) },
        `bulk of ${counts.operations} operations applied`,
      );
    }
    // A window left idle longer than the interval belongs to an earlier load: start a new one.
    if (this.windowStart === undefined || now - this.windowStart > 3 * this.rateIntervalMs) {
      this.windowStart = now - counts.ms;
      this.windowOps = 0;
    }
    this.windowOps += counts.operations;
    this.totalOps += counts.operations;
    const elapsed = now - this.windowStart;
    if (elapsed >= this.rateIntervalMs) {
      this.opts.logger.info(
        { operations: this.windowOps, seconds: Math.round(elapsed / 100) / 10, perSecond: perSecond(this.windowOps, elapsed), totalOperations: this.totalOps },
        `indexing: ${this.windowOps} bulk operations in the last ${Math.round(elapsed / 1000)} s`,
      );
      this.windowStart = now;
      this.windowOps = 0;
    }
  }
}
