import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { DocumentStore, StoredDoc, StoredIndex } from '../../src/search/document-store.js';
import { SearchService } from '../../src/search/search-service.js';

/** A store in a Map: keeps exactly what it is told to, so that the test sees what the service keeps. */
class MapStore implements DocumentStore {
  private readonly metas = new Map<string, StoredIndex>();
  private readonly docs = new Map<string, Map<string, StoredDoc>>();
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
}

describe('search service memory', () => {
  it('keeps nothing of a big document once it is deleted (the reused ParsedDoc and the repeat checks hold no values)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const service = new SearchService(new MapStore(), Date.now);
    service.load();
    service.indexDoc('i', 'small', { body: 'a small document', tags: ['x', 'y'] }, '{"body":"a small document","tags":["x","y"]}', 'index');
    const held = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = held();
    ((): void => {
      // 10 MB of text (two distinct words) in a field, as JSON.parse makes it.
      const raw = `{"body":"${'alpha beta '.repeat(1_000_000)}"}`;
      service.indexDoc('i', 'big', JSON.parse(raw), raw, 'index');
    })();
    service.deleteDoc('i', 'big');
    expect(held() - before).toBeLessThan(4_000_000);
  });
});
