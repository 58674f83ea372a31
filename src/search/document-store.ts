import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** What is stored about an index: everything needed to rebuild it at start. */
export interface StoredIndex {
  readonly name: string;
  readonly uuid: string;
  readonly createdMs: number;
  readonly settings: Record<string, unknown>;
  readonly mappings: unknown;
}

export interface StoredDoc {
  readonly id: string;
  readonly version: number;
  readonly seqNo: number;
  /** The `_source` exactly as the client sent it (JSON text). */
  readonly source: string;
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
  putDoc(index: string, doc: StoredDoc): void;
  deleteDoc(index: string, id: string): void;
  /** Runs `fn` in one transaction: all of its writes are durable when it returns, or none are. */
  transaction<T>(fn: () => T): T;
  close(): void;
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
 * A bulk request is one transaction, so the fsync is paid once per request, not per document.
 *
 * Write order is the table's rowid: INSERT OR REPLACE deletes the old row and inserts a new one
 * with rowid max+1, just as a re-indexed document gets a new Lucene doc id; loading in rowid order
 * rebuilds the same tie-break order. (A rowid is only reused after the row holding the maximum is
 * deleted, and the new row is still after every existing one, so AUTOINCREMENT is not needed.)
 */
export class SqliteDocumentStore implements DocumentStore {
  private readonly db: Database.Database;
  private readonly stmts: {
    listIndices: Database.Statement;
    putIndex: Database.Statement;
    updateMappings: Database.Statement;
    deleteIndex: Database.Statement;
    deleteIndexDocs: Database.Statement;
    scan: Database.Statement;
    get: Database.Statement;
    put: Database.Statement;
    del: Database.Statement;
  };

  constructor(dir: string, durability: Durability = 'request') {
    mkdirSync(dir, { recursive: true });
    this.db = new Database(join(dir, 'documents.db'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${durability === 'request' ? 'FULL' : 'NORMAL'}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS indices (
        name TEXT PRIMARY KEY, uuid TEXT NOT NULL, created_ms INTEGER NOT NULL,
        settings TEXT NOT NULL, mappings TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS docs (
        seq INTEGER PRIMARY KEY, idx TEXT NOT NULL, id TEXT NOT NULL,
        version INTEGER NOT NULL, seq_no INTEGER NOT NULL, source TEXT NOT NULL,
        UNIQUE (idx, id));
    `);
    this.stmts = {
      listIndices: this.db.prepare('SELECT name, uuid, created_ms, settings, mappings FROM indices ORDER BY name'),
      putIndex: this.db.prepare('INSERT OR REPLACE INTO indices (name, uuid, created_ms, settings, mappings) VALUES (?, ?, ?, ?, ?)'),
      updateMappings: this.db.prepare('UPDATE indices SET mappings = ? WHERE name = ?'),
      deleteIndex: this.db.prepare('DELETE FROM indices WHERE name = ?'),
      deleteIndexDocs: this.db.prepare('DELETE FROM docs WHERE idx = ?'),
      scan: this.db.prepare('SELECT id, version, seq_no, source FROM docs WHERE idx = ? ORDER BY seq').raw(true),
      get: this.db.prepare('SELECT id, version, seq_no, source FROM docs WHERE idx = ? AND id = ?').raw(true),
      put: this.db.prepare('INSERT OR REPLACE INTO docs (idx, id, version, seq_no, source) VALUES (?, ?, ?, ?, ?)'),
      del: this.db.prepare('DELETE FROM docs WHERE idx = ? AND id = ?'),
    };
  }

  listIndices(): StoredIndex[] {
    return (this.stmts.listIndices.all() as { name: string; uuid: string; created_ms: number; settings: string; mappings: string }[]).map((r) => ({
      name: r.name,
      uuid: r.uuid,
      createdMs: r.created_ms,
      settings: JSON.parse(r.settings) as Record<string, unknown>,
      mappings: JSON.parse(r.mappings) as unknown,
    }));
  }

  putIndex(meta: StoredIndex): void {
    this.stmts.putIndex.run(meta.name, meta.uuid, meta.createdMs, JSON.stringify(meta.settings), JSON.stringify(meta.mappings));
  }

  updateMappings(name: string, mappings: unknown): void {
    this.stmts.updateMappings.run(JSON.stringify(mappings), name);
  }

  deleteIndex(name: string): void {
    this.transaction(() => {
      this.stmts.deleteIndexDocs.run(name);
      this.stmts.deleteIndex.run(name);
    });
  }

  scanDocs(index: string, each: (doc: StoredDoc) => void): void {
    for (const row of this.stmts.scan.iterate(index) as Iterable<[string, number, number, string]>) {
      each({ id: row[0], version: row[1], seqNo: row[2], source: row[3] });
    }
  }

  getDoc(index: string, id: string): StoredDoc | undefined {
    const row = this.stmts.get.get(index, id) as [string, number, number, string] | undefined;
    return row === undefined ? undefined : { id: row[0], version: row[1], seqNo: row[2], source: row[3] };
  }

  putDoc(index: string, doc: StoredDoc): void {
    this.stmts.put.run(index, doc.id, doc.version, doc.seqNo, doc.source);
  }

  deleteDoc(index: string, id: string): void {
    this.stmts.del.run(index, id);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
