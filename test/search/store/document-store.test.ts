import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDocumentStore, type StoredDoc } from '../../../src/search/store/document-store.js';
import { CACHE_KIB } from '../../../src/search/store/sqlite-worker.js';

const doc = (id: string, version = 1, seqNo = 0): StoredDoc => ({ id, version, seqNo, source: `{"id":"${id}","v":${version}}` });

describe('SQLite document store (writes on a worker thread)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-store-'));
    store = new SqliteDocumentStore(dir, 'async');
    store.putIndex({ name: 'i', uuid: 'u', createdMs: 1, settings: {}, mappings: {} });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reopen = (): SqliteDocumentStore => {
    store.close();
    store = new SqliteDocumentStore(dir, 'async');
    return store;
  };

  it("keeps each connection's page cache at SQLite's default 2 MiB, not better-sqlite3's 16 MiB", () => {
    const db = (store as unknown as { db: { pragma(sql: string, o: { simple: true }): unknown } }).db;
    expect(db.pragma('cache_size', { simple: true })).toBe(-CACHE_KIB);
    expect(CACHE_KIB).toBe(2048);
  });

  it('saves the index snapshot with a checksum: damage is detected, named and never loaded', () => {
    const data = Buffer.from('the service data of a snapshot, '.repeat(100));
    store.setSnapshotSource(() => data);
    expect(reopen().loadSnapshot()).toEqual(data);
    const file = join(dir, 'index.snapshot');
    const bytes = readFileSync(file);
    // One changed byte of the data, then one of the checksum.
    for (const at of [bytes.length - 7, 20]) {
      const damaged = Buffer.from(bytes);
      damaged[at] = (damaged[at] as number) ^ 0x01;
      writeFileSync(file, damaged);
      expect(() => reopen().loadSnapshot()).toThrow(`${file} is damaged (its content does not match its SHA-256 checksum) and was not loaded`);
    }
    // An older Portico's snapshot (generation, then the data) is ignored, not misread.
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 8), data]));
    expect(reopen().loadSnapshot()).toBeUndefined();
  });

  it('a transaction reads its own writes and they are stored when it returns', () => {
    store.transaction(() => {
      store.putDoc('i', doc('a'));
      expect(store.getDoc('i', 'a')).toEqual(doc('a'));
      store.putDoc('i', doc('a', 2, 1));
      store.putDoc('i', doc('b', 1, 2));
      store.deleteDoc('i', 'b');
      expect(store.getDoc('i', 'a')?.version).toBe(2);
      expect(store.getDoc('i', 'b')).toBeUndefined();
    });
    expect(store.getDoc('i', 'a')).toEqual(doc('a', 2, 1));
    expect(reopen().getDoc('i', 'a')).toEqual(doc('a', 2, 1));
    expect(store.getDoc('i', 'b')).toBeUndefined();
    expect(store.listIndices().map((x) => x.name)).toEqual(['i']);
  });

  it('reads back writes given as spans of a body, in write order with deletes and text writes between them', () => {
    const body = Buffer.from('{"x":1}\n{"x":2}\n{"é":3}\n');
    const span = (start: number, end: number) => ({ bytes: body, start, end });
    const put = (id: string, version: number, seqNo: number, start: number, end: number): void =>
      store.putDoc('i', { id, version, seqNo, source: body.toString('utf8', start, end) }, span(start, end));
    store.transaction(() => {
      put('a', 1, 0, 0, 7);
      put('b', 1, 1, 8, 15);
      put('a', 2, 2, 16, 24);
      store.deleteDoc('i', 'b');
      put('b', 2, 3, 8, 15);
      store.putDoc('i', doc('c', 1, 4));
      put('c', 2, 5, 0, 7);
      expect(store.getDoc('i', 'a')).toEqual({ id: 'a', version: 2, seqNo: 2, source: '{"é":3}' });
      expect(store.getDoc('i', 'b')).toEqual({ id: 'b', version: 2, seqNo: 3, source: '{"x":2}' });
      expect(store.getDoc('i', 'c')).toEqual({ id: 'c', version: 2, seqNo: 5, source: '{"x":1}' });
      store.deleteDoc('i', 'c');
      expect(store.getDoc('i', 'c')).toBeUndefined();
    });
    expect(reopen().getDoc('i', 'a')).toEqual({ id: 'a', version: 2, seqNo: 2, source: '{"é":3}' });
    expect(store.getDoc('i', 'b')).toEqual({ id: 'b', version: 2, seqNo: 3, source: '{"x":2}' });
    expect(store.getDoc('i', 'c')).toBeUndefined();
  });

  it('getSource answers what getDoc(...).source does: committed, written as a span and not yet committed, deleted, absent', () => {
    const body = Buffer.from('{"x":1}\n{"y":2}\n');
    store.putDoc('i', doc('a'));
    const open = store.openTransaction({ interimCommits: true });
    open.run(() => {
      store.putDoc('i', { id: 'b', version: 1, seqNo: 1, source: '{"y":2}' }, { bytes: body, start: 8, end: 15 });
      store.putDoc('i', doc('c', 1, 2));
      store.deleteDoc('i', 'a');
    });
    for (const id of ['a', 'b', 'c', 'none']) expect(store.getSource('i', id)).toBe(store.getDoc('i', id)?.source);
    expect(store.getSource('i', 'b')).toBe('{"y":2}');
    expect(store.getSource('i', 'a')).toBeUndefined();
    open.commit();
    for (const id of ['a', 'b', 'c', 'none']) expect(store.getSource('i', id)).toBe(store.getDoc('i', id)?.source);
    expect(store.getSource('other', 'b')).toBeUndefined();
  });

  it('reading: its reads share one snapshot, it nests, and it ends its read transaction also when it throws', () => {
    store.putDoc('i', doc('a'));
    const seen = store.reading(() => {
      const first = store.getSource('i', 'a');
      // A commit by the writer after the snapshot began is not seen inside it...
      store.putDoc('i', doc('a', 2, 1));
      return [first, store.reading(() => store.getDoc('i', 'a')?.source)];
    });
    expect(seen).toEqual([doc('a').source, doc('a').source]);
    // ...and is seen after it.
    expect(store.getSource('i', 'a')).toBe(doc('a', 2, 1).source);
    expect(() => store.reading(() => {
      store.getSource('i', 'a');
      throw new Error('render failed');
    })).toThrow('render failed');
    store.putDoc('i', doc('a', 3, 2));
    expect(store.getSource('i', 'a')).toBe(doc('a', 3, 2).source);
  });

  it('stores nothing of a transaction that throws', () => {
    store.putDoc('i', doc('kept'));
    expect(() =>
      store.transaction(() => {
        for (let n = 0; n < 2500; n++) store.putDoc('i', doc(`x${n}`)); // more than one chunk reaches the worker
        store.deleteDoc('i', 'kept');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.getDoc('i', 'x0')).toBeUndefined();
    expect(store.getDoc('i', 'kept')).toEqual(doc('kept'));
    const ids: string[] = [];
    reopen().scanDocs('i', (d) => ids.push(d.id));
    expect(ids).toEqual(['kept']);
  });

  it('fails the whole transaction when SQLite refuses a write, and keeps working afterwards', () => {
    expect(() =>
      store.transaction(() => {
        store.putDoc('i', doc('ok'));
        store.putDoc('i', { ...doc('bad'), id: null as unknown as string }); // NOT NULL
      }),
    ).toThrow(/document store write failed/);
    expect(store.getDoc('i', 'ok')).toBeUndefined();
    store.putDoc('i', doc('after'));
    expect(reopen().getDoc('i', 'after')).toEqual(doc('after'));
    expect(store.getDoc('i', 'ok')).toBeUndefined();
  });

  it('stores sources of any text, also an empty one and one with the chunk separator', () => {
    const odd = ['', '{"a":"\u0001"}', 'x\u0001y', '{"b":"é\u{1f600}"}'];
    store.transaction(() => odd.forEach((source, n) => store.putDoc('i', { id: `o${n}`, version: 1, seqNo: n, source })));
    reopen();
    odd.forEach((source, n) => expect(store.getDoc('i', `o${n}`)?.source).toBe(source));
  });

  it('stores sources given as byte spans of larger buffers, mixed with plain ones, across chunks and buffers', () => {
    const texts = [Buffer.from('  {"a":1}\n{"b":"é\u{1f600}"}\n'), Buffer.from('x{"c":"\u0001"}y')];
    const spans = [
      { bytes: texts[0] as Buffer, start: 2, end: 9, source: '{"a":1}' },
      { bytes: texts[0] as Buffer, start: 10, end: 24, source: '{"b":"é\u{1f600}"}' },
      { bytes: texts[1] as Buffer, start: 1, end: 10, source: '{"c":"\u0001"}' },
    ];
    for (const s of spans) expect(s.bytes.toString('utf8', s.start, s.end)).toBe(s.source);
    store.transaction(() => {
      for (let n = 0; n < 450; n++) {
        const s = spans[n % 3] as (typeof spans)[number];
        store.putDoc('i', { id: `s${n}`, version: 1, seqNo: n, source: s.source }, s);
        if (n % 7 === 0) store.putDoc('i', doc(`p${n}`, 1, n));
      }
    });
    reopen();
    for (let n = 0; n < 450; n++) expect(store.getDoc('i', `s${n}`)?.source).toBe(spans[n % 3]?.source);
    expect(store.getDoc('i', 'p7')).toEqual(doc('p7', 1, 7));
    expect(() =>
      store.transaction(() => {
        store.putDoc('i', { id: 'gone', version: 1, seqNo: 1, source: '{"a":1}' }, spans[0]);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    // The same text as the rolled-back transaction's: the worker forgot it, so it must be sent again.
    store.putDoc('i', { id: 'next', version: 1, seqNo: 2, source: '{"b":"é\u{1f600}"}' }, spans[1]);
    reopen();
    expect(store.getDoc('i', 'gone')).toBeUndefined();
    expect(store.getDoc('i', 'next')?.source).toBe('{"b":"é\u{1f600}"}');
  });

  it('with interim commits, stores everything when the transaction returns and keeps the committed parts when it throws', () => {
    store.transaction(() => {
      for (let n = 0; n < 2500; n++) store.putDoc('i', doc(`a${n}`));
    }, { interimCommits: true });
    expect(store.getDoc('i', 'a2499')).toEqual(doc('a2499'));
    expect(() =>
      store.transaction(() => {
        for (let n = 0; n < 2500; n++) store.putDoc('i', doc(`b${n}`));
        throw new Error('boom');
      }, { interimCommits: true }),
    ).toThrow('boom');
    const ids = new Set<string>();
    reopen().scanDocs('i', (d) => ids.add(d.id));
    expect([...ids].filter((id) => id.startsWith('a')).length).toBe(2500);
    // The first parts (1,000 writes each) were committed as they went, the tail was not.
    expect(ids.has('b0')).toBe(true);
    expect(ids.has('b2499')).toBe(false);
    // A transaction without the option is still all or nothing.
    expect(() =>
      store.transaction(() => {
        for (let n = 0; n < 2500; n++) store.putDoc('i', doc(`c${n}`));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(reopen().getDoc('i', 'c0')).toBeUndefined();
  });

  it('still checkpoints the WAL into the database file (after answering the commit)', async () => {
    const big = 'x'.repeat(10_000);
    const size = (): number => statSync(join(dir, 'documents.db')).size;
    const before = size();
    store.transaction(() => {
      for (let n = 0; n < 600; n++) store.putDoc('i', { id: `d${n}`, version: 1, seqNo: n, source: `{"t":"${big}"}` });
    });
    // The worker checkpoints after it has answered: wait for the database file to grow.
    for (let tries = 0; tries < 100 && size() <= before + 4_000_000; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(size()).toBeGreaterThan(before + 4_000_000);
    expect(reopen().getDoc('i', 'd599')?.source.length).toBe(big.length + 8);
  });

  it('keeps the WAL bounded under many small single-document writes and deletes (as SQLite\'s own 1,000-page checkpoint did)', async () => {
    // Each of these commits writes a few whole pages to the WAL for a few dozen bytes of source:
    // counting only source bytes towards the checkpoint let the WAL grow by ~13 KB per commit.
    const wal = (): number => {
      try {
        return statSync(join(dir, 'documents.db-wal')).size;
      } catch {
        return 0;
      }
    };
    for (let n = 0; n < 2000; n++) store.putDoc('i', doc(`d${n}`, 1, n));
    for (let n = 0; n < 2000; n++) store.deleteDoc('i', `d${n}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(wal()).toBeLessThan(12_000_000);
  });

  it('once it has given up on a writer that stopped answering, sends it nothing more to commit and saves no snapshot', async () => {
    // A writer stuck for STALL_LIMIT_MS (a disk that hangs) is declared broken while its thread
    // lives on: whatever later transactions still send it, interim commits would store after the
    // service has rebuilt its index, and a snapshot saved on close would then be trusted.
    store.putDoc('i', doc('before'));
    store.setSnapshotSource(() => Buffer.from('index'));
    (store as unknown as { writer: { broken: string } }).writer.broken = 'the document store writer stopped answering for 60 s';
    expect(() =>
      store.transaction(
        () => {
          for (let n = 0; n < 2500; n++) store.putDoc('i', doc(`late${n}`));
        },
        { interimCommits: true },
      ),
    ).toThrow(/stopped answering/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids: string[] = [];
    store.scanDocs('i', (d) => ids.push(d.id));
    expect(ids).toEqual(['before']);
    store.close();
    expect(existsSync(join(dir, 'index.snapshot'))).toBe(false);
    store = new SqliteDocumentStore(dir, 'async');
  });

  it('an open transaction committed with commitAsync: readable while it commits, stored when it resolves, and a transaction begun meanwhile waits for it', async () => {
    const open = store.openTransaction({ interimCommits: true });
    open.run(() => ['a', 'b'].forEach((id, n) => store.putDoc('i', doc(id, 1, n))));
    const committed = open.commitAsync?.();
    expect(committed).toBeInstanceOf(Promise);
    // Until it is durable the read connection may not see them: the pending writes answer.
    expect(store.getDoc('i', 'a')).toEqual(doc('a', 1, 0));
    // Another transaction now: it waits for that commit first, then stores its own.
    store.putDoc('i', doc('c', 1, 2));
    await committed;
    const ids: string[] = [];
    store.scanDocs('i', (d) => ids.push(d.id));
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(reopen().getDoc('i', 'b')).toEqual(doc('b', 1, 1));
  });

  it('a failed commitAsync rejects, stores nothing of its part, and fails the transaction that waited for it too', async () => {
    const open = store.openTransaction();
    open.run(() => {
      store.putDoc('i', doc('ok'));
      store.putDoc('i', { ...doc('bad'), id: null as unknown as string }); // NOT NULL, refused by the worker
    });
    const committed = (open.commitAsync?.() ?? Promise.resolve()).then(() => undefined, (e: unknown) => e);
    // A write begun before the answer was taken hears of the failure as well (each caller
    // rebuilds); when commitAsync took the answer first (it looks at once), the write is a
    // transaction of its own and is stored. Which one happens depends on the worker's speed.
    let nextHeard = false;
    try {
      store.putDoc('i', doc('next'));
    } catch (err) {
      expect(String(err)).toMatch(/document store write failed/);
      nextHeard = true;
    }
    expect(await committed).toBeInstanceOf(Error);
    expect(store.getDoc('i', 'ok')).toBeUndefined();
    // And the store goes on.
    store.putDoc('i', doc('after'));
    expect(reopen().getDoc('i', 'after')).toEqual(doc('after'));
    expect(reopen().getDoc('i', 'next')).toEqual(nextHeard ? undefined : doc('next'));
  });

  it('a commitAsync left alone resolves by itself (the answer is awaited, not drained)', async () => {
    const open = store.openTransaction();
    open.run(() => store.putDoc('i', doc('solo')));
    await open.commitAsync?.();
    // Read through the read connection: no pending write is left to answer it.
    expect((store as unknown as { pending: Map<string, unknown> }).pending.size).toBe(0);
    expect(store.getDoc('i', 'solo')).toEqual(doc('solo'));
  });

  it('scans in write order: a re-written document moves to the end', () => {
    store.transaction(() => ['a', 'b', 'c'].forEach((id, n) => store.putDoc('i', doc(id, 1, n))));
    store.putDoc('i', doc('a', 2, 3));
    const ids: string[] = [];
    store.scanDocs('i', (d) => ids.push(d.id));
    expect(ids).toEqual(['b', 'c', 'a']);
  });

  it('deleting an index removes its documents', () => {
    store.putDoc('i', doc('a'));
    store.deleteIndex('i');
    expect(store.getDoc('i', 'a')).toBeUndefined();
    expect(reopen().listIndices()).toEqual([]);
  });

  it('a writer thread that is gone fails every later write instead of blocking the server', async () => {
    store.putDoc('i', doc('before'));
    const worker = (store as unknown as { writer: { worker: { terminate(): Promise<number> } } }).writer.worker;
    await worker.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => store.putDoc('i', doc('lost'))).toThrow(/writer exited/);
    expect(() => store.putDoc('i', doc('lost-again'))).toThrow(/writer exited/);
    expect(store.getDoc('i', 'before')).toEqual(doc('before'));
    expect(store.getDoc('i', 'lost')).toBeUndefined();
  });
});
