import { errors, type SearchError } from '../errors.js';

/** SQLite's SQLITE_FULL text (as the store's writer passes it on) or the file system's ENOSPC. */
export function isDiskFull(e: unknown): boolean {
  return e instanceof Error && ((e as NodeJS.ErrnoException).code === 'ENOSPC' || /database or disk is full|no space left on device/i.test(e.message));
}

/**
 * Runs a store write of index metadata (create, mappings, close/open, delete) and turns a full
 * disk into the node's answer: creating an index gets what OpenSearch answers once its disk
 * monitor has blocked index creation (403 index_create_block_exception), anything else the 429
 * cluster_block_exception of other writes. Why here and not in each route: the store's write
 * throws before the registry changes anything in memory, so the refusal changes nothing, and a
 * plain Error would reach the client as a 500.
 */
export function storeMetadataWrite<T>(fn: () => T, creating = false): T {
  try {
    return fn();
  } catch (e) {
    if (!isDiskFull(e)) throw e;
    const refusal: SearchError = creating ? errors.createIndexBlocked() : errors.diskFull();
    refusal.cause = e;
    throw refusal;
  }
}
