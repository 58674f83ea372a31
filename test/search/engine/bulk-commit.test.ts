import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBulk } from '../../../src/search/requests/bulk.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';
import { SearchService } from '../../../src/search/engine/search-service.js';

/** A store whose next transaction fails after its writes reached SQLite (as a failed final commit after interim ones). */
class FailingStore extends SqliteDocumentStore {
  failNext = false;
  private depth = 0;
  override transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T {
    this.depth++;
    let result: T;
    try {
      result = super.transaction(fn, options);
    } finally {
      this.depth--;
    }
    if (this.failNext && this.depth === 0) {
      this.failNext = false;
      throw new Error('commit failed');
    }
    return result;
  }
}

describe('bulk commits', () => {
  let dir: string;
  let store: FailingStore;
  let service: SearchService;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-bulk-'));
    store = new FailingStore(dir, 'async');
    service = new SearchService(store, Date.now);
    service.load();
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const body = (from: number, n: number): string => {
    let out = '';
    for (let k = from; k < from + n; k++) out += `{"index":{"_id":"${k}"}}\n{"title":"doc ${k}"}\n`;
    return out;
  };

  it('stores a bulk larger than an interim commit whole, with per-item results', () => {
    const items = service.bulk(parseBulk(body(0, 2600), 'i'));
    expect(items.filter((it) => 'outcome' in it && it.outcome.result === 'created')).toHaveLength(2600);
    expect(store.getDoc('i', '2599')?.source).toBe('{"title":"doc 2599"}');
  });

  it('re-indexes and updates a document it wrote itself in the same bulk (read back from the pending bytes)', () => {
    const text = '{"index":{"_id":"a"}}\n {"t":"é one"}\u00a0\n{"update":{"_id":"a"}}\n{"doc":{"n":2}}\n{"create":{"_id":"a"}}\n{"t":"x"}\n';
    const items = service.bulk(parseBulk(Buffer.from(text), 'i'));
    expect(items.map((it) => ('outcome' in it ? `${it.outcome.result}:${it.outcome.version}` : `error:${it.error.status}`))).toEqual(['created:1', 'updated:2', 'error:409']);
    expect(store.getDoc('i', 'a')?.source).toBe('{"t":"é one","n":2}');
  });

  it('after a failed bulk the in-memory index is rebuilt to match the store', () => {
    service.bulk(parseBulk(body(0, 10), 'i'));
    store.failNext = true;
    expect(() => service.bulk(parseBulk(body(10, 2600), 'i'))).toThrow('commit failed');
    // What the store kept (here: all of it) is what the index holds, versions and all.
    const state = service.get('i');
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(state.index.liveCount).toBe(stored);
    const again = service.bulk(parseBulk(body(2605, 1), 'i'));
    expect(again[0]).toMatchObject({ outcome: { result: 'updated', version: 2 } });
  });
});
