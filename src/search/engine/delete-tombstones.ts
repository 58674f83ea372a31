import type { CurrentDoc } from '../requests/write-conditions.js';

/**
 * What an index remembers of its deleted documents: ES keeps a deleted document's version and
 * sequence number (a tombstone in its live version map) for `index.gc_deletes`, 60 s by default.
 * While one is kept, a write to that id sees a deleted document rather than none: an external
 * version not above the delete's is a conflict (out-of-order writes cannot resurrect what a newer
 * delete removed), and internal versions count on from the delete's (PUT v1, DELETE v2, PUT v3).
 *
 * Kept in memory only, as ES loses them on restart too (its translog aside). Bounded: past
 * `maxSize` the oldest are dropped early, which only narrows the window ES gives.
 */

/** ES's default `index.gc_deletes`, in milliseconds. */
export const GC_DELETES_MS = 60_000;
/** Tombstones kept per index at most (about 100 bytes each, plus the id). */
export const MAX_TOMBSTONES = 100_000;

/** The deleted document's version and sequence number (the delete's), and when it was deleted. */
export interface Tombstone extends CurrentDoc {
  /** When the delete happened, in epoch milliseconds. */
  readonly deletedMs: number;
}

export class DeleteTombstones {
  /** In delete order (a delete again moves its id to the end), so the oldest come first. */
  private readonly byId = new Map<string, Tombstone>();

  /**
   * @param ttlMs how long a tombstone counts, in milliseconds (default GC_DELETES_MS)
   * @param maxSize how many are kept at most (default MAX_TOMBSTONES)
   */
  constructor(
    private readonly ttlMs = GC_DELETES_MS,
    private readonly maxSize = MAX_TOMBSTONES,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The tombstone of `id` if it is younger than the expiry at `nowMs`. */
  get(id: string, nowMs: number): Tombstone | undefined {
    if (this.byId.size === 0) return undefined;
    const t = this.byId.get(id);
    if (t === undefined) return undefined;
    // As ES's resolveDocVersion: an expired tombstone is as if there were none.
    if (nowMs - t.deletedMs > this.ttlMs) {
      this.byId.delete(id);
      return undefined;
    }
    return t;
  }

  /** Records a delete of `id` (also of one that was not there: ES keeps its version too). */
  put(id: string, version: number, seqNo: number, nowMs: number): void {
    this.byId.delete(id);
    this.byId.set(id, { version, seqNo, deletedMs: nowMs });
    this.prune(nowMs);
  }

  /** Forgets `id`'s tombstone: the document exists again. */
  drop(id: string): void {
    if (this.byId.size > 0) this.byId.delete(id);
  }

  /** Drops the expired ones and any beyond maxSize, oldest first. */
  private prune(nowMs: number): void {
    for (const [id, t] of this.byId) {
      if (this.byId.size <= this.maxSize && nowMs - t.deletedMs <= this.ttlMs) break;
      this.byId.delete(id);
    }
  }
}
