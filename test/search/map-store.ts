import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import type { BulkItem } from '../../src/search/engine/document-writes.js';
import type { DocumentStore, StoredDoc, StoredIndex } from '../../src/search/store/document-store.js';

/**
 * A DocumentStore in Maps, for service tests that need no SQLite: it keeps exactly what it is told
 * to (so memory tests see what the service keeps), re-writing a document moves it to the end (as
 * SQLite's rowid order does), and `saveSnapshot` stands for a clean close.
 */
export class MapStore implements DocumentStore {
  private readonly metas = new Map<string, StoredIndex>();
  private readonly docs = new Map<string, Map<string, StoredDoc>>();
  private snapshotSource: (() => Buffer | undefined) | undefined;
  snapshot: Buffer | undefined;

  listIndices(): StoredIndex[] {
    return [...this.metas.values()];
  }
  putIndex(meta: StoredIndex): void {
    this.metas.set(meta.name, meta);
    this.docs.set(meta.name, new Map());
  }
  updateMappings(name: string, mappings: unknown): void {
    const m = this.metas.get(name);
    if (m !== undefined) this.metas.set(name, { ...m, mappings });
  }
  deleteIndex(name: string): void {
    this.metas.delete(name);
    this.docs.delete(name);
  }
  scanDocs(index: string, each: (doc: StoredDoc) => void): void {
    for (const d of this.docs.get(index)?.values() ?? []) each(d);
  }
  getDoc(index: string, id: string): StoredDoc | undefined {
    return this.docs.get(index)?.get(id);
  }
  putDoc(index: string, doc: StoredDoc): void {
    const m = this.docs.get(index);
    m?.delete(doc.id);
    m?.set(doc.id, doc);
  }
  deleteDoc(index: string, id: string): void {
    this.docs.get(index)?.delete(id);
  }
  transaction<T>(fn: () => T): T {
    return fn();
  }
  close(): void {}
  loadSnapshot(): Buffer | undefined {
    return this.snapshot;
  }
  setSnapshotSource(source: () => Buffer | undefined): void {
    this.snapshotSource = source;
  }
  /** What a clean close would save. */
  saveSnapshot(): void {
    this.snapshot = this.snapshotSource?.();
  }
  /** Another store with the same indices and documents (and no snapshot source). */
  copy(): MapStore {
    const c = new MapStore();
    for (const [k, v] of this.metas) c.metas.set(k, v);
    for (const [k, v] of this.docs) c.docs.set(k, new Map(v));
    c.snapshot = this.snapshot;
    return c;
  }
}

/**
 * A service on `store` whose `_bulk` appends postings document by document instead of batching
 * them per request: the reference the batched `_bulk` must equal, in the indices it leaves and in
 * the memory it holds.
 */
export function unbatchedService(store: MapStore): SearchService {
  const s = new SearchService(store, () => 0);
  s.load();
  const raw = s as unknown as { transaction<T>(fn: () => T, interim: boolean): T; bulkItem(a: BulkAction | Error): BulkItem };
  (s as unknown as { bulkEach: SearchService['bulkEach'] }).bulkEach = (actions, each) => {
    raw.transaction(() => {
      for (const a of actions) each(raw.bulkItem(a));
    }, true);
  };
  return s;
}
