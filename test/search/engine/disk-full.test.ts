import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { SearchError } from '../../../src/search/errors.js';
import { parseBulk } from '../../../src/search/requests/bulk.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';

/**
 * A store whose next transaction fails as SQLite does on a full disk: the writes are rolled back
 * and the writer passes on SQLITE_FULL's text. (A real full disk, a 3 MB tmpfs as the data
 * directory, gives the same text; see docs/search.md.)
 */
class FullDiskStore extends SqliteDocumentStore {
  full = false;
  override transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T {
    return super.transaction(() => {
      const result = fn();
      if (this.full) throw new Error('document store write failed: database or disk is full');
      return result;
    }, options);
  }
}

/**
 * The writer's next commit (blocking or not: a sliced `_bulk` commits with commitAsync) fails as
 * SQLite's on a full disk: rolled back, SQLITE_FULL's text.
 */
function failNextCommit(store: SqliteDocumentStore): void {
  const writer = (store as unknown as { writer: { commit(): void; commitAsync(settled: (err: Error | undefined) => void): Promise<void>; rollback(): void } }).writer;
  const { commit, commitAsync } = writer;
  const restore = (): void => {
    writer.commit = commit;
    writer.commitAsync = commitAsync;
  };
  const full = (): Error => {
    restore();
    writer.rollback();
    return new Error('document store write failed: database or disk is full');
  };
  writer.commit = () => {
    throw full();
  };
  writer.commitAsync = (settled) => {
    const err = full();
    settled(err);
    return Promise.reject(err);
  };
}

const body = (from: number, n: number): string => {
  let out = '';
  for (let k = from; k < from + n; k++) out += `{"index":{"_id":"${k}"}}\n{"title":"doc ${k}"}\n`;
  return out;
};

function refusal(fn: () => unknown): SearchError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SearchError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('search writes on a full disk', () => {
  let dir: string;
  let store: FullDiskStore;
  let service: SearchService;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-disk-full-'));
    store = new FullDiskStore(dir, 'async');
    service = new SearchService(store, Date.now);
    service.load();
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 429 cluster_block_exception as Elasticsearch past its flood stage, and keeps what was acknowledged', () => {
    service.bulk(parseBulk(body(0, 20), 'i'));
    store.full = true;
    const bulk = refusal(() => service.bulk(parseBulk(body(20, 30), 'i')));
    expect(bulk.status).toBe(429);
    expect(bulk.toBody()).toEqual({
      error: {
        root_cause: [{ type: 'cluster_block_exception', reason: 'blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];' }],
        type: 'cluster_block_exception',
        reason: 'blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];',
      },
      status: 429,
    });
    expect(refusal(() => service.indexDoc('i', '0', { title: 'changed' }, '{"title":"changed"}', 'index')).status).toBe(429);
    expect(refusal(() => service.deleteDoc('i', '1')).status).toBe(429);
    // Every acknowledged document is there, unchanged; nothing of the refused writes is.
    expect(service.get('i').index.liveCount).toBe(20);
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(stored).toBe(20);
    expect(store.getDoc('i', '0')?.source).toBe('{"title":"doc 0"}');
    expect(store.getDoc('i', '20')).toBeUndefined();
    // Room again: writes go on, versions where the acknowledged ones left them.
    store.full = false;
    expect(service.indexDoc('i', '0', { title: 'changed' }, '{"title":"changed"}', 'index')).toMatchObject({ result: 'updated', version: 2 });
  });

  it('a _bulk applied in slices (one open transaction) answers the same 429 when its commit finds the disk full', async () => {
    service.bulk(parseBulk(body(0, 20), 'i'));
    failNextCommit(store);
    const refused = await service.bulkEachSliced(parseBulk(body(20, 30), 'i'), () => undefined, 0).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(SearchError);
    expect((refused as SearchError).status).toBe(429);
    expect(service.get('i').index.liveCount).toBe(20);
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(stored).toBe(20);
  });

  it('refuses index creation as OpenSearch with its create-index block, and the other index metadata writes as 429; nothing changes', async () => {
    service.bulk(parseBulk(body(0, 5), 'i'));
    const mappingBefore = service.get('i').mappings.toJSON();
    store.full = true;
    const created = refusal(() => service.createIndex('fresh', { mappings: { properties: { t: { type: 'keyword' } } } }));
    expect(created.status).toBe(403);
    expect(created.toBody()).toEqual({
      error: {
        root_cause: [{ type: 'index_create_block_exception', reason: 'blocked by: [FORBIDDEN/10/cluster create-index blocked (api)];' }],
        type: 'index_create_block_exception',
        reason: 'blocked by: [FORBIDDEN/10/cluster create-index blocked (api)];',
      },
      status: 403,
    });
    // An index created by a document write (auto-creation) is refused the same way.
    expect(refusal(() => service.indexDoc('auto', '1', { t: 'x' }, '{"t":"x"}', 'index')).status).toBe(403);
    const mapped = refusal(() => service.putMapping('i', { properties: { extra: { type: 'keyword' } } }));
    expect([mapped.status, mapped.type]).toEqual([429, 'cluster_block_exception']);
    expect(refusal(() => service.setClosed('i', true)).status).toBe(429);
    // A sliced bulk into a new index (created inside its open transaction): its commit fails, and
    // the index is not there either.
    store.full = false;
    failNextCommit(store);
    const sliced = await service.bulkEachSliced(parseBulk(body(0, 3), 'bulk-new'), () => undefined, 0).then(() => undefined, (e: unknown) => e);
    expect((sliced as SearchError).status).toBe(429);
    // Nothing changed, in memory or in the store.
    for (const name of ['fresh', 'auto', 'bulk-new']) expect(service.exists(name)).toBe(false);
    expect(store.listIndices().map((m) => m.name)).toEqual(['i']);
    expect(service.get('i').mappings.toJSON()).toEqual(mappingBefore);
    expect(service.get('i').settings.closed).toBe(false);
    expect(store.listIndices()[0]?.mappings).toEqual(mappingBefore);
    // Room again: the same requests succeed.
    store.full = false;
    service.createIndex('fresh', undefined);
    service.putMapping('i', { properties: { extra: { type: 'keyword' } } });
    expect(store.listIndices().map((m) => m.name)).toEqual(['fresh', 'i']);
  });

  it('leaves other failures a 500', () => {
    store.full = false;
    const plain = new (class extends SqliteDocumentStore {
      override transaction<T>(): T {
        throw new Error('document store write failed: disk I/O error');
      }
    })(join(dir, 'other'), 'async');
    const other = new SearchService(plain, Date.now);
    other.load();
    try {
      expect(() => other.bulk(parseBulk(body(0, 1), 'j'))).toThrow('disk I/O error');
    } finally {
      plain.close();
    }
  });
});
