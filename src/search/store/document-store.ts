import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { SqliteWriter } from './sqlite-writer.js';
import { CACHE_KIB, NEXT_SEQ_NO_KEY } from './sqlite-worker.js';

/** The index snapshot's head: generation (8 bytes), mark (4), SHA-256 of the data (32). */
const SNAPSHOT_MARK = Buffer.from('PSC1');
const SNAPSHOT_HEAD = 8 + 4 + 32;

/** What is stored about an index: everything needed to rebuild it at start. */
export interface StoredIndex {
  readonly name: string;
  readonly uuid: string;
  readonly createdMs: number;
  readonly settings: Record<string, unknown>;
  readonly mappings: unknown;
  /**
   * The next sequence number as last stored with a delete (see DocumentStore.recordSeqNo);
   * undefined when none was (a store written before it was kept).
   */
  readonly nextSeqNo?: number;
}

export interface StoredDoc {
  readonly id: string;
  readonly version: number;
  readonly seqNo: number;
  /** The `_source` exactly as the client sent it (JSON text). */
  readonly source: string;
  /** The custom routing it was written with (`?routing=`, a bulk item's `routing`); absent without one. */
  readonly routing?: string;
}

/**
 * Where a source's UTF-8 bytes lie in a larger buffer (a `_bulk` body): `source` is exactly
 * bytes.toString('utf8', start, end). Lets the store hand the body's bytes to its writer once
 * instead of each source as a string.
 */
export interface SourceSpan {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
}

/** See DocumentStore.openTransaction. */
export interface OpenTransaction {
  /** Runs `fn` in the transaction (opening another if one was committed in between); throws when that commit failed. */
  run<T>(fn: () => T): T;
  /** Commits what the runs wrote and is not committed yet; throws when the commit failed (here or in another transaction). */
  commit(): void;
  /**
   * `commit` without blocking the thread while the store makes the writes durable (when the store
   * can; otherwise `commit`). The writes stay readable (getDoc) until they are; any other
   * transaction waits for it first.
   */
  commitAsync?(): Promise<void>;
  /** Drops what the runs wrote and is not committed yet (interim and earlier commits stay). */
  rollback(): void;
}

/**
 * Where documents live. The in-memory index is derived from it at start; writes reach it before a
 * request is acknowledged. One embedded implementation (SQLite); a shared backend could replace it.
 */
export interface DocumentStore {
  listIndices(): StoredIndex[];
  putIndex(meta: StoredIndex): void;
  updateMappings(name: string, mappings: unknown): void;
  deleteIndex(name: string): void;
  /** Calls `each` with every document of an index in write order (oldest first). */
  scanDocs(index: string, each: (doc: StoredDoc) => void): void;
  getDoc(index: string, id: string): StoredDoc | undefined;
  /** The stored source of a document, as `getDoc(index, id)?.source` (without reading the rest of it). */
  getSource?(index: string, id: string): string | undefined;
  /**
   * Runs `fn`, whose reads (getDoc, getSource) see one snapshot of the store and share one read
   * transaction rather than opening one each (the `_source` of a page of hits).
   */
  reading?<T>(fn: () => T): T;
  /** `within`: where `doc.source` lies, as UTF-8, in a larger buffer, if it does (a hint; may be ignored). */
  putDoc(index: string, doc: StoredDoc, within?: SourceSpan): void;
  deleteDoc(index: string, id: string): void;
  /**
   * Keeps, with the transaction, that `seqNo` was handed out in `index` to an operation that left
   * no stored document carrying it (a delete): a rebuild from the documents alone would hand it
   * out again. listIndices answers the largest + 1 as `nextSeqNo`.
   */
  recordSeqNo?(index: string, seqNo: number): void;
  /**
   * Runs `fn` in one transaction: all of its writes are durable when it returns, or none are.
   * With `interimCommits`, the store may commit the writes in parts as they go (a `_bulk`, which is
   * not atomic in ES either): all are still durable when it returns, but when it throws some may be
   * stored; the caller must then rebuild what it derived from them from the store. Ignored inside
   * another transaction.
   */
  transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T;
  /**
   * A transaction that stays open between its runs (a `_bulk` applied in slices, with other
   * requests served between them): its writes are readable (getDoc) before they are committed, and
   * any other transaction commits it first (then its next run opens another). `commit` makes every
   * write of its runs durable. Stores without it are written slice by slice with `transaction`.
   */
  openTransaction?(options?: { readonly interimCommits?: boolean }): OpenTransaction;
  close(): void;
  /**
   * The in-memory index saved by the last close, when nothing was written since (so that a restart
   * need not rebuild the index from every document); undefined otherwise.
   */
  loadSnapshot?(): Buffer | undefined;
  /** What close() saves for loadSnapshot (nothing when the source returns undefined). */
  setSnapshotSource?(source: () => Buffer | undefined): void;
  /** The UTF-8 bytes an index's committed documents (ids and sources) take in the store. */
  storedBytes?(index: string): number;
  /** The bytes the store's files take on disk (database, write-ahead log, index snapshot). */
  diskBytes?(): number;
}

/** A row of the docs table as the scan and get statements read it: id, version, seq_no, source, routing. */
type DocRow = [string, number, number, string, string | null];

function storedDoc(row: DocRow): StoredDoc {
  const doc = { id: row[0], version: row[1], seqNo: row[2], source: row[3] };
  return row[4] === null ? doc : { ...doc, routing: row[4] };
}

/**
 * Migrates a data directory written before documents kept their routing: the docs table gets a
 * nullable `routing` column (existing rows: NULL, no routing, which is what they were written
 * with). ALTER TABLE … ADD COLUMN only changes the schema, so it costs nothing per row.
 */
function addRoutingColumn(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(docs)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'routing')) db.exec('ALTER TABLE docs ADD COLUMN routing TEXT');
}

/** A pending write whose source is the bytes of a span (see SqliteDocumentStore.pending). */
interface PendingSpan {
  readonly id: string;
  readonly version: number;
  readonly seqNo: number;
  readonly within: SourceSpan;
}

/** How hard a commit is pushed to disk (see SqliteDocumentStore). */
export type Durability = 'request' | 'async';

/**
 * SQLite in WAL mode under `<data.dir>/search/documents.db`.
 *
 * Durability mirrors Elasticsearch's `index.translog.durability`: with `request` (the default, as
 * in ES) every acknowledged write has been fsynced (synchronous=FULL), so it survives a power cut;
 * with `async`, synchronous=NORMAL: a commit survives a crash or SIGTERM of the process (the WAL is
 * written before we answer) but the last commits may be lost if the machine itself goes down.
 * A bulk request is committed in parts of about 1,000 operations (see `transaction`), so the fsync
 * is paid once per part, not per document; a failed or interrupted bulk keeps the parts before.
 *
 * Write order is the table's rowid: INSERT OR REPLACE deletes the old row and inserts a new one
 * with rowid max+1, just as a re-indexed document gets a new Lucene doc id; loading in rowid order
 * rebuilds the same tie-break order. (A rowid is only reused after the row holding the maximum is
 * deleted, and the new row is still after every existing one, so AUTOINCREMENT is not needed.)
 *
 * Writes go through a second connection on a worker thread (see sqlite-writer.ts) so that storing
 * overlaps with indexing; this connection only reads. Every write belongs to a transaction (a write
 * outside `transaction` is one of its own), which returns once the worker has committed. Until then
 * the transaction's own writes are not visible to this connection, so `getDoc` answers them from
 * `pending` (a bulk may re-index or update a document it wrote itself).
 */
export class SqliteDocumentStore implements DocumentStore {
  private readonly db: Database.Database;
  private readonly stmts: {
    listIndices: Database.Statement;
    scan: Database.Statement;
    get: Database.Statement;
    getSource: Database.Statement;
    begin: Database.Statement;
    commit: Database.Statement;
    generation: Database.Statement;
    storedBytes: Database.Statement;
  };
  /** The files diskBytes counts. */
  private readonly files: readonly string[];
  private readonly writer: SqliteWriter;
  private readonly snapshotFile: string;
  private snapshotSource: (() => Buffer | undefined) | undefined;
  /**
   * Writes of the open transaction by index and id: the document, or null when deleted. A source
   * given as a span stays bytes here (decoded if read): keeping each source string until the end of
   * a bulk made the garbage collector copy and promote them all.
   */
  private readonly pending = new Map<string, Map<string, StoredDoc | PendingSpan | null>>();
  /**
   * Span writes of the open transaction not yet in `pending`, oldest first, as parallel arrays
   * (index, id, span, and version then seqNo in `logNumbers`); moved into `pending` by the first
   * read or any other write. Why: a bulk of new documents never reads its own writes back, and a
   * Map entry plus an object per document, kept to the end of the request, was work for the main
   * thread and for the garbage collector, which copied and promoted them all.
   */
  private logIndices: string[] = [];
  private logIds: string[] = [];
  private logSpans: SourceSpan[] = [];
  private logNumbers: number[] = [];
  private inTransaction = false;
  /**
   * The open transaction (openTransaction) between two of its runs, with the way to tell it that
   * another transaction's commit of its writes failed.
   */
  private suspended: { readonly fail: (err: unknown) => void } | undefined;

  /**
   * @param log where the snapshot written at close is reported (`info`) or its failure (`warn`);
   *   silent when absent.
   */
  constructor(dir: string, durability: Durability = 'request', private readonly log?: Pick<Logger, 'info' | 'warn'>) {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'documents.db');
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`cache_size = -${CACHE_KIB}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS indices (
        name TEXT PRIMARY KEY, uuid TEXT NOT NULL, created_ms INTEGER NOT NULL,
        settings TEXT NOT NULL, mappings TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', 0);
      CREATE TABLE IF NOT EXISTS docs (
        seq INTEGER PRIMARY KEY, idx TEXT NOT NULL, id TEXT NOT NULL,
        version INTEGER NOT NULL, seq_no INTEGER NOT NULL, source TEXT NOT NULL,
        UNIQUE (idx, id));
    `);
    addRoutingColumn(this.db);
    this.stmts = {
      // A store written before next sequence numbers were kept has no such row: null.
      listIndices: this.db.prepare(
        `SELECT name, uuid, created_ms, settings, mappings, (SELECT value FROM meta WHERE key = '${NEXT_SEQ_NO_KEY}' || name) AS next_seq_no FROM indices ORDER BY name`,
      ),
      scan: this.db.prepare('SELECT id, version, seq_no, source, routing FROM docs WHERE idx = ? ORDER BY seq').raw(true),
      get: this.db.prepare('SELECT id, version, seq_no, source, routing FROM docs WHERE idx = ? AND id = ?').raw(true),
      getSource: this.db.prepare('SELECT source FROM docs WHERE idx = ? AND id = ?').pluck(true),
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      generation: this.db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck(true),
      // octet_length reads each row's header, not its text: no source is loaded.
      storedBytes: this.db.prepare('SELECT coalesce(sum(octet_length(id) + octet_length(source)), 0) FROM docs WHERE idx = ?').pluck(true),
    };
    this.files = [file, `${file}-wal`, join(dir, 'index.snapshot')];
    this.snapshotFile = join(dir, 'index.snapshot');
    this.writer = new SqliteWriter(file, durability === 'request' ? 'FULL' : 'NORMAL');
  }

  listIndices(): StoredIndex[] {
    type Row = { name: string; uuid: string; created_ms: number; settings: string; mappings: string; next_seq_no: number | null };
    return (this.stmts.listIndices.all() as Row[]).map((r) => ({
      name: r.name,
      uuid: r.uuid,
      createdMs: r.created_ms,
      settings: JSON.parse(r.settings) as Record<string, unknown>,
      mappings: JSON.parse(r.mappings) as unknown,
      ...(r.next_seq_no === null ? {} : { nextSeqNo: r.next_seq_no }),
    }));
  }

  putIndex(meta: StoredIndex): void {
    this.transaction(() => this.writer.putIndex(meta.name, meta.uuid, meta.createdMs, JSON.stringify(meta.settings), JSON.stringify(meta.mappings)));
  }

  updateMappings(name: string, mappings: unknown): void {
    this.transaction(() => this.writer.updateMappings(name, JSON.stringify(mappings)));
  }

  deleteIndex(name: string): void {
    this.transaction(() => {
      this.settleLog();
      this.writer.deleteIndex(name);
      this.pending.delete(name);
    });
  }

  scanDocs(index: string, each: (doc: StoredDoc) => void): void {
    for (const row of this.stmts.scan.iterate(index) as Iterable<DocRow>) each(storedDoc(row));
  }

  getDoc(index: string, id: string): StoredDoc | undefined {
    this.settleLog();
    const p = this.pending.get(index)?.get(id);
    if (p !== undefined) {
      if (p === null || !('within' in p)) return p ?? undefined;
      const b = p.within.bytes;
      return { id: p.id, version: p.version, seqNo: p.seqNo, source: Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', p.within.start, p.within.end) };
    }
    const row = this.stmts.get.get(index, id) as DocRow | undefined;
    return row === undefined ? undefined : storedDoc(row);
  }

  getSource(index: string, id: string): string | undefined {
    this.settleLog();
    const p = this.pending.get(index)?.get(id);
    if (p !== undefined) return p === null ? undefined : this.getDoc(index, id)?.source;
    return this.stmts.getSource.get(index, id) as string | undefined;
  }

  /**
   * Why: outside a transaction every statement on this connection opens and closes a read
   * transaction of its own (the WAL's shared lock and header checks), which was about half the CPU
   * of reading a page's ten sources (bench/README.md, "Search request cost").
   */
  reading<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.stmts.begin.run();
    try {
      return fn();
    } finally {
      this.stmts.commit.run();
    }
  }

  putDoc(index: string, doc: StoredDoc, within?: SourceSpan): void {
    // Inside a transaction (every document of a bulk) without the closure a transaction takes.
    if (this.inTransaction) this.putDocIn(index, doc, within);
    else this.transaction(() => this.putDocIn(index, doc, within));
  }

  private putDocIn(index: string, doc: StoredDoc, within: SourceSpan | undefined): void {
    // A routed document is rare: it takes the string path, so the span log needs no routing.
    if (within === undefined || doc.routing !== undefined) {
      this.writer.putDoc(index, doc.id, doc.version, doc.seqNo, doc.source);
      if (doc.routing !== undefined) this.writer.setRouting(index, doc.id, doc.routing);
      this.settleLog();
      this.pendingOf(index).set(doc.id, doc);
      return;
    }
    this.writer.putDocWithin(index, doc.id, doc.version, doc.seqNo, within.bytes, within.start, within.end);
    this.logIndices.push(index);
    this.logIds.push(doc.id);
    this.logSpans.push(within);
    this.logNumbers.push(doc.version, doc.seqNo);
  }

  /** Moves the logged span writes into `pending`, in write order (see logIndices). */
  private settleLog(): void {
    const ids = this.logIds;
    if (ids.length === 0) return;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      const within = this.logSpans[i] as SourceSpan;
      this.pendingOf(this.logIndices[i] as string).set(id, { id, version: this.logNumbers[2 * i] as number, seqNo: this.logNumbers[2 * i + 1] as number, within });
    }
    this.clearLog();
  }

  private clearLog(): void {
    this.logIndices = [];
    this.logIds = [];
    this.logSpans = [];
    this.logNumbers = [];
  }

  deleteDoc(index: string, id: string): void {
    this.transaction(() => {
      this.settleLog();
      this.writer.deleteDoc(index, id);
      this.pendingOf(index).set(id, null);
    });
  }

  recordSeqNo(index: string, seqNo: number): void {
    this.transaction(() => this.writer.nextSeqNo(index, seqNo + 1));
  }

  private pendingOf(index: string): Map<string, StoredDoc | PendingSpan | null> {
    let m = this.pending.get(index);
    if (m === undefined) {
      m = new Map();
      this.pending.set(index, m);
    }
    return m;
  }

  transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T {
    if (this.inTransaction) return fn();
    this.settleCommit();
    this.commitSuspended();
    this.inTransaction = true;
    this.writer.interimCommits = options?.interimCommits ?? false;
    try {
      let result: T;
      try {
        result = fn();
      } catch (e) {
        this.writer.rollback();
        throw e;
      }
      this.writer.commit();
      return result;
    } finally {
      this.inTransaction = false;
      this.pending.clear();
      if (this.logIds.length > 0) this.clearLog();
    }
  }

  openTransaction(options?: { readonly interimCommits?: boolean }): OpenTransaction {
    let failure: unknown;
    const owner = { fail: (err: unknown) => (failure = err) };
    const ended = (): void => {
      this.suspended = undefined;
      this.pending.clear();
      if (this.logIds.length > 0) this.clearLog();
    };
    return {
      run: <T>(fn: () => T): T => {
        if (failure !== undefined) throw failure;
        if (this.inTransaction) throw new Error('an open transaction cannot run inside another transaction');
        if (this.suspended !== owner) {
          this.settleCommit();
          this.commitSuspended();
          this.writer.interimCommits = options?.interimCommits ?? false;
        }
        this.suspended = undefined;
        this.inTransaction = true;
        try {
          const result = fn();
          this.suspended = owner;
          return result;
        } catch (e) {
          this.writer.rollback();
          ended();
          throw e;
        } finally {
          this.inTransaction = false;
        }
      },
      commit: () => {
        if (this.suspended === owner) {
          try {
            this.writer.commit();
          } finally {
            ended();
          }
        }
        if (failure !== undefined) throw failure;
      },
      commitAsync: async () => {
        if (this.suspended === owner) {
          // Unsuspended at once: another transaction must not commit these writes (it waits for
          // this commit instead, see drainCommit); `pending` answers reads until they are durable.
          this.suspended = undefined;
          const pending = this.writer.commitAsync((err) => {
            ended();
            if (err !== undefined) failure ??= err;
          });
          await pending.catch(() => undefined);
        }
        if (failure !== undefined) throw failure;
      },
      rollback: () => {
        if (this.suspended !== owner) return;
        try {
          this.writer.rollback();
        } finally {
          ended();
        }
      },
    };
  }

  /**
   * Waits for an open transaction's commitAsync still under way before another transaction
   * starts; a failed one fails this caller too, as commitSuspended does (each rebuilds its index
   * from the store).
   */
  private settleCommit(): void {
    const err = this.writer.drainCommit();
    if (err !== undefined) throw err;
  }

  /**
   * Commits the open transaction between its runs, if there is one, before another transaction
   * starts; a failed commit fails that open transaction and this caller too (each rebuilds its
   * index from the store).
   */
  private commitSuspended(): void {
    const owner = this.suspended;
    if (owner === undefined) return;
    this.suspended = undefined;
    try {
      this.writer.commit();
    } catch (e) {
      owner.fail(e);
      throw e;
    } finally {
      this.pending.clear();
      if (this.logIds.length > 0) this.clearLog();
    }
  }

  storedBytes(index: string): number {
    return Number(this.stmts.storedBytes.get(index));
  }

  diskBytes(): number {
    let n = 0;
    for (const f of this.files) if (existsSync(f)) n += statSync(f).size;
    return n;
  }

  /** The generation: the number of commits so far (see the writer). */
  private generation(): number {
    return Number(this.stmts.generation.get());
  }

  /**
   * The snapshot file is the generation it was taken at (8 bytes, little-endian double), a mark
   * (`PSC1`) and the SHA-256 of the service's data (32 bytes), followed by that data. It is only an
   * accelerator: SQLite stays the source of truth, and a snapshot from another generation (a write
   * after it, or a crash before a newer one) or without the mark (an older Portico's) is ignored.
   * A snapshot whose data does not match its checksum is damaged: it throws, naming the file, and
   * is never loaded (the caller rebuilds from the documents).
   */
  loadSnapshot(): Buffer | undefined {
    if (!existsSync(this.snapshotFile)) return undefined;
    const file = readFileSync(this.snapshotFile);
    if (file.length < SNAPSHOT_HEAD || file.readDoubleLE(0) !== this.generation() || !file.subarray(8, 12).equals(SNAPSHOT_MARK)) return undefined;
    const data = file.subarray(SNAPSHOT_HEAD);
    if (!createHash('sha256').update(data).digest().equals(file.subarray(12, SNAPSHOT_HEAD))) {
      throw new Error(`${this.snapshotFile} is damaged (its content does not match its SHA-256 checksum) and was not loaded`);
    }
    return data;
  }

  setSnapshotSource(source: () => Buffer | undefined): void {
    this.snapshotSource = source;
  }

  close(): void {
    if (!this.db.open) return;
    // An open transaction between its runs (none once every request has finished) is committed.
    try {
      this.commitSuspended();
    } catch {
      // Its request has failed; the writer's state decides the snapshot below.
    }
    // A failed writer may have committed writes the in-memory index never saw (it was rebuilt when
    // the write failed): a snapshot of it must not be trusted at the next start.
    const writerFailed = this.writer.failed;
    this.writer.close();
    if (writerFailed) rmSync(this.snapshotFile, { force: true });
    else if (this.snapshotSource !== undefined) {
      const started = performance.now();
      try {
        const data = this.snapshotSource();
        if (data === undefined) throw new Error('no consistent index to save');
        const header = Buffer.alloc(SNAPSHOT_HEAD);
        header.writeDoubleLE(this.generation(), 0);
        SNAPSHOT_MARK.copy(header, 8);
        createHash('sha256').update(data).digest().copy(header, 12);
        const tmp = `${this.snapshotFile}.tmp`;
        const fd = openSync(tmp, 'w');
        try {
          writeSync(fd, header);
          for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
        renameSync(tmp, this.snapshotFile);
        this.log?.info({ file: this.snapshotFile, bytes: data.length + SNAPSHOT_HEAD, ms: Math.round(performance.now() - started) }, 'index snapshot written');
      } catch (err) {
        // Without a snapshot the next start rebuilds the index from the documents.
        rmSync(this.snapshotFile, { force: true });
        this.log?.warn({ file: this.snapshotFile, error: (err as Error).message }, 'index snapshot not written; the next start rebuilds the indices from the stored documents');
      }
    }
    this.db.close();
  }
}
