import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/**
 * The write side of the SQLite document store, on a worker thread with its own connection.
 *
 * Why: storing documents was about a fifth of the CPU of a bulk request, all of it on the thread
 * that also tokenizes and indexes; the machine has two cores. Writes of a transaction are sent to
 * the worker in chunks while the main thread goes on indexing, so the two overlap, and `commit`
 * blocks the main thread (Atomics.wait) until the worker has committed, i.e. until the writes are
 * as durable as the connection's `synchronous` setting makes them. A transaction therefore still
 * returns only once its writes are stored. It is one SQLite transaction, all or nothing, unless it
 * allows interim commits (`interimCommits`, a `_bulk`): then it is committed in parts of about
 * 1,000 operations, and a failure or crash keeps the parts committed before.
 *
 * The worker runs a small CommonJS script (below) rather than a module file, so that it works the
 * same from the TypeScript sources (tests) and from the build; it loads better-sqlite3 from the path
 * resolved here.
 */

/** An operation: opcode then its arguments, flattened into one array per chunk. */
const PUT_DOC = 0; // idx, id, version, seqNo, source
const PUT_DOC_JOINED = 5; // idx, id, version, seqNo; the source is the next of the chunk's joined sources
const DELETE_DOC = 1; // idx, id
const PUT_INDEX = 2; // name, uuid, createdMs, settings JSON, mappings JSON
const UPDATE_MAPPINGS = 3; // mappings JSON, name
const DELETE_INDEX = 4; // name
const SET_BYTES = 6; // a SharedArrayBuffer and an offset: where the UTF-8 bytes later PUT_DOC_WITHIN operations of the transaction decode start
const PUT_DOC_WITHIN = 7; // idx, id, version, seqNo, start, end: the source is the bytes start..end, as UTF-8
const SET_IDX = 8; // idx: the index of later PUT_DOC_PACKED operations
/**
 * PUT_DOC_WITHIN of the index set by SET_IDX, with no arguments in the operation array: the next
 * (version, seqNo, start, end) of the chunk's `packed` numbers, and the next of its joined `ids`.
 * Why: serializing seven values per document for the worker cost the main thread microseconds per
 * document; a typed array and one string per chunk cost next to nothing.
 */
const PUT_DOC_PACKED = 9;
/**
 * idx, next: a sequence number below `next` was handed out to an operation that left no document
 * carrying it (a delete). The worker keeps the largest per index and stores it in the meta table
 * (key NEXT_SEQ_NO_KEY + idx) with the commit, so a rebuild never hands such a number out again.
 */
const NEXT_SEQ_NO = 10;
/** The meta table's key prefix for an index's stored next sequence number (see NEXT_SEQ_NO). */
export const NEXT_SEQ_NO_KEY = 'next_seq_no:';

/**
 * Separates the sources of a chunk, which travel as one string: cloning one long string for the
 * worker is a copy, whereas cloning hundreds of them cost the main thread about a tenth of a bulk.
 * Stored sources are JSON text, where U+0001 cannot occur unescaped; one that has it anyway goes
 * in the operation itself.
 */
const SOURCE_SEPARATOR = '\u0001';

/**
 * Operations sent to the worker at once while a transaction is open. Small enough that the worker
 * is never far behind (the commit waits for the last chunk), large enough that messages are few.
 */
const CHUNK_OPS = 200;

/**
 * How long a blocked commit waits without the worker finishing any chunk before it gives up. The
 * worker bumps a progress counter after every chunk, so only a worker that is gone (out of memory,
 * terminated) or stuck in one statement for this long trips it: the commit then fails instead of
 * freezing the server for good, and every later write fails at once.
 */
const STALL_LIMIT_MS = 60_000;
const WAIT_SLICE_MS = 1_000;

/**
 * Operations between the interim commits of a transaction that allows them (see `interimCommits`).
 * Why: a commit writes the transaction's pages to the WAL and fsyncs it, and the main thread waits
 * for that; committing as it goes leaves only the tail for the wait.
 */
const INTERIM_COMMIT_OPS = 5 * CHUNK_OPS;

/**
 * Bytes of documents committed before the worker checkpoints the WAL into the database (SQLite's
 * own automatic checkpoint is off for the write connection). Why: the automatic checkpoint runs
 * inside the COMMIT that crosses 1,000 pages, so a bulk's commit waited for it (more than half of
 * the wait); the worker now does it after it has answered, while the main thread goes on. About
 * SQLite's default of 1,000 pages of 4 KiB.
 */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/**
 * What a commit and a delete count towards CHECKPOINT_BYTES besides the sources: the WAL receives
 * whole 4 KiB pages, at least the generation's page and a page of the table and of its (idx, id)
 * index per commit, and a share of such pages per deleted row. Why: counting sources alone let the
 * WAL of small single-document writes or deletes grow by about 13 KB per commit without bound.
 */
const COMMIT_BYTES = 3 * 4096;
const DELETE_BYTES = 256;

const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const reply = workerData.reply;
let db;
let stmts;
let openError;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.file);
  db.pragma('synchronous = ' + workerData.synchronous);
  db.pragma('wal_autocheckpoint = 0');
  stmts = [
    db.prepare('INSERT OR REPLACE INTO docs (idx, id, version, seq_no, source) VALUES (?, ?, ?, ?, ?)'),
    db.prepare('DELETE FROM docs WHERE idx = ? AND id = ?'),
    db.prepare('INSERT OR REPLACE INTO indices (name, uuid, created_ms, settings, mappings) VALUES (?, ?, ?, ?, ?)'),
    db.prepare('UPDATE indices SET mappings = ? WHERE name = ?'),
    db.prepare('DELETE FROM docs WHERE idx = ?'),
    db.prepare('DELETE FROM indices WHERE name = ?'),
    db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'generation'"),
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)'),
    db.prepare('DELETE FROM meta WHERE key = ?'),
  ];
} catch (e) {
  openError = e;
}
let inTxn = false;
let failure;
let bytes = Buffer.alloc(0);
/** Bytes of documents written by the open transaction, and committed since the last checkpoint. */
let txnBytes = 0;
let uncheckpointed = 0;
/** Per index, the largest NEXT_SEQ_NO of the open transaction (stored by commit). */
const nextSeqNos = new Map();
function done(ok, message) {
  reply.postMessage({ ok, message });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}
function run(ops, joined, count, packed, idsJoined, idCount) {
  const sources = count === 0 ? [] : joined.split('\\u0001');
  const ids = idCount === 0 ? [] : idsJoined.split('\\u0001');
  let next = 0;
  let p = 0;
  let nextId = 0;
  let idx = '';
  if (!inTxn) {
    db.exec('BEGIN IMMEDIATE');
    inTxn = true;
  }
  let i = 0;
  while (i < ops.length) {
    switch (ops[i]) {
      case ${PUT_DOC}: stmts[0].run(ops[i + 1], ops[i + 2], ops[i + 3], ops[i + 4], ops[i + 5]); txnBytes += ops[i + 5].length; i += 6; break;
      case ${PUT_DOC_JOINED}: txnBytes += sources[next].length; stmts[0].run(ops[i + 1], ops[i + 2], ops[i + 3], ops[i + 4], sources[next++]); i += 5; break;
      case ${DELETE_DOC}: stmts[1].run(ops[i + 1], ops[i + 2]); txnBytes += ${DELETE_BYTES}; i += 3; break;
      case ${PUT_INDEX}: stmts[2].run(ops[i + 1], ops[i + 2], ops[i + 3], ops[i + 4], ops[i + 5]); i += 6; break;
      case ${UPDATE_MAPPINGS}: stmts[3].run(ops[i + 1], ops[i + 2]); i += 3; break;
      case ${DELETE_INDEX}: stmts[4].run(ops[i + 1]); stmts[5].run(ops[i + 1]); stmts[8].run('${NEXT_SEQ_NO_KEY}' + ops[i + 1]); nextSeqNos.delete(ops[i + 1]); txnBytes += ${CHECKPOINT_BYTES}; i += 2; break;
      case ${NEXT_SEQ_NO}: if (!(nextSeqNos.get(ops[i + 1]) >= ops[i + 2])) nextSeqNos.set(ops[i + 1], ops[i + 2]); i += 3; break;
      case ${SET_BYTES}: bytes = Buffer.from(ops[i + 1], ops[i + 2]); i += 3; break;
      case ${PUT_DOC_WITHIN}: stmts[0].run(ops[i + 1], ops[i + 2], ops[i + 3], ops[i + 4], bytes.toString('utf8', ops[i + 5], ops[i + 6])); txnBytes += ops[i + 6] - ops[i + 5]; i += 7; break;
      case ${SET_IDX}: idx = ops[i + 1]; i += 2; break;
      case ${PUT_DOC_PACKED}: stmts[0].run(idx, ids[nextId++], packed[p], packed[p + 1], bytes.toString('utf8', packed[p + 2], packed[p + 3])); txnBytes += packed[p + 3] - packed[p + 2]; p += 4; i += 1; break;
      default: throw new Error('unknown store operation ' + ops[i]);
    }
  }
}
function commit() {
  for (const [idx, next] of nextSeqNos) stmts[7].run('${NEXT_SEQ_NO_KEY}' + idx, next);
  nextSeqNos.clear();
  // Every commit moves the generation on: a saved index snapshot is only good for its own.
  stmts[6].run();
  db.exec('COMMIT');
  inTxn = false;
  uncheckpointed += txnBytes + ${COMMIT_BYTES};
  txnBytes = 0;
}
function end(sql) {
  const err = openError || failure;
  failure = undefined;
  bytes = Buffer.alloc(0);
  try {
    if (inTxn && err === undefined && sql === 'COMMIT') commit();
    else if (inTxn && db.inTransaction) db.exec('ROLLBACK');
  } catch (e) {
    if (sql === 'COMMIT' && db.inTransaction) db.exec('ROLLBACK');
    inTxn = false;
    txnBytes = 0;
    nextSeqNos.clear();
    return done(false, String(e && e.message));
  }
  inTxn = false;
  txnBytes = 0;
  nextSeqNos.clear();
  if (err !== undefined && sql === 'COMMIT') return done(false, String(err && err.message));
  done(true);
  if (uncheckpointed >= ${CHECKPOINT_BYTES}) {
    uncheckpointed = 0;
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Only housekeeping: the WAL keeps the data, and the next checkpoint catches up.
    }
  }
}
parentPort.on('message', (m) => {
  try {
    if (m.t === 'ops') {
      if (openError === undefined && failure === undefined) {
        run(m.ops, m.sources, m.count, m.packed, m.ids, m.idCount);
        // An interim commit: a failure here fails the transaction's final commit as any other.
        if (m.commit && inTxn) commit();
      }
      Atomics.add(flag, 1, 1);
    } else if (m.t === 'commit') end('COMMIT');
    else if (m.t === 'rollback') end('ROLLBACK');
    else if (m.t === 'close') {
      try {
        if (db !== undefined) {
          if (db.inTransaction) db.exec('ROLLBACK');
          db.close();
        }
      } finally {
        done(true);
      }
    }
  } catch (e) {
    if (m.t === 'ops') failure = e;
    else done(false, String(e && e.message));
  }
});
`;

/** The write connection; every method but `put*`/`delete*` blocks until the worker has answered. */
export class SqliteWriter {
  private readonly worker: Worker;
  /** [0]: set to 1 with each answer; [1]: chunks the worker has finished (its heartbeat). */
  private readonly flag = new Int32Array(new SharedArrayBuffer(8));
  private readonly reply: MessagePort;
  private ops: unknown[] = [];
  private sources: string[] = [];
  private opCount = 0;
  /** PUT_DOC_PACKED arguments of the chunk being built: (version, seqNo, start, end) each, and the ids. */
  private packed = new Float64Array(4 * CHUNK_OPS);
  private packedCount = 0;
  private ids: string[] = [];
  /** The index last set with SET_IDX in the chunk being built. */
  private idx: string | undefined;
  /** The bytes last sent with SET_BYTES in the open transaction (the worker holds them until the end). */
  private bytes: Uint8Array | undefined;
  /** Where each of the open transaction's byte sources was copied to, as SET_BYTES arguments. */
  private readonly copies = new Map<Uint8Array, [SharedArrayBuffer, number]>();
  /**
   * Shared memory the bytes are copied into, reused by every transaction, and how much of it the
   * open transaction uses. The worker is done with it when a transaction ends (commit and rollback
   * wait for its answer); one buffer the size of the largest body kept RSS flat, where a new one per
   * bulk left several waiting for the worker's garbage collector.
   */
  private shared = new Uint8Array(new SharedArrayBuffer(0));
  private sharedUsed = 0;
  /**
   * Whether the open transaction may be committed in parts as it goes (every INTERIM_COMMIT_OPS
   * operations). Its final commit still returns only once everything is stored, but when it fails
   * (or the transaction is rolled back) the parts committed before stay: whoever derived state from
   * the writes must then rebuild it from the store. Reset when the transaction ends.
   */
  interimCommits = false;
  /** Operations sent since the last (interim) commit. */
  private sinceCommit = 0;
  private closed = false;
  /** Why the worker can no longer be used (it exited or stopped answering); every call then fails. */
  private broken: string | undefined;

  /** `synchronous`: SQLite's synchronous pragma for the write connection (FULL or NORMAL). */
  constructor(file: string, synchronous: 'FULL' | 'NORMAL') {
    const { port1, port2 } = new MessageChannel();
    this.reply = port1;
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, synchronous, sqlite, flag: this.flag.buffer, reply: port2 },
      transferList: [port2],
    });
    this.worker.on('exit', (code) => {
      if (!this.closed) this.broken ??= `the document store writer exited (code ${code})`;
    });
    // Neither the worker nor its port keeps the process alive; close() ends it.
    this.worker.unref();
    this.reply.unref();
  }

  putDoc(idx: string, id: string, version: number, seqNo: number, source: string): void {
    if (source.includes(SOURCE_SEPARATOR)) this.ops.push(PUT_DOC, idx, id, version, seqNo, source);
    else {
      this.ops.push(PUT_DOC_JOINED, idx, id, version, seqNo);
      this.sources.push(source);
    }
    this.added();
  }

  /**
   * putDoc with the source given as the UTF-8 bytes start..end of `bytes`. Why: cloning each source
   * string for the worker cost the main thread about a sixth of a bulk, and cloning the whole body
   * as one string still cost it about 35 ms per 5,000-document bulk (a two-byte string as soon as
   * one character is not ASCII). The body's bytes are copied once per transaction into shared
   * memory instead (a memcpy), and the worker decodes the sources it stores.
   */
  putDocWithin(idx: string, id: string, version: number, seqNo: number, bytes: Uint8Array, start: number, end: number): void {
    // A worker given up on may still be reading the shared bytes of its last transaction.
    this.throwIfBroken();
    if (bytes !== this.bytes) {
      this.ops.push(SET_BYTES, ...this.sharedCopy(bytes));
      this.bytes = bytes;
    }
    if (id.includes(SOURCE_SEPARATOR)) this.ops.push(PUT_DOC_WITHIN, idx, id, version, seqNo, start, end);
    else {
      if (idx !== this.idx) {
        this.ops.push(SET_IDX, idx);
        this.idx = idx;
      }
      this.ops.push(PUT_DOC_PACKED);
      const p = 4 * this.packedCount++;
      const packed = this.packed;
      packed[p] = version;
      packed[p + 1] = seqNo;
      packed[p + 2] = start;
      packed[p + 3] = end;
      this.ids.push(id);
    }
    this.added();
  }

  /**
   * Where `bytes` are in shared memory: copied after what the open transaction already copied
   * there, into a new buffer (by whole MiB) when they do not fit; the old one lives on until the
   * worker drops it at the end of the transaction.
   */
  private sharedCopy(bytes: Uint8Array): [SharedArrayBuffer, number] {
    let at = this.copies.get(bytes);
    if (at === undefined) {
      if (this.shared.length - this.sharedUsed < bytes.length) {
        this.shared = new Uint8Array(new SharedArrayBuffer(Math.ceil(bytes.length / 1048576) * 1048576));
        this.sharedUsed = 0;
      }
      this.shared.set(bytes, this.sharedUsed);
      at = [this.shared.buffer as SharedArrayBuffer, this.sharedUsed];
      this.sharedUsed += bytes.length;
      this.copies.set(bytes, at);
    }
    return at;
  }

  /** Forgets the open transaction's byte sources (the worker no longer reads them) and its interim commits. */
  private endTransaction(): void {
    this.interimCommits = false;
    this.sinceCommit = 0;
    this.bytes = undefined;
    this.copies.clear();
    this.sharedUsed = 0;
  }

  deleteDoc(idx: string, id: string): void {
    this.ops.push(DELETE_DOC, idx, id);
    this.added();
  }

  /** Stores, with the transaction, that sequence numbers below `next` were handed out in `idx` (see NEXT_SEQ_NO). */
  nextSeqNo(idx: string, next: number): void {
    this.ops.push(NEXT_SEQ_NO, idx, next);
    this.added();
  }

  putIndex(name: string, uuid: string, createdMs: number, settings: string, mappings: string): void {
    this.ops.push(PUT_INDEX, name, uuid, createdMs, settings, mappings);
    this.added();
  }

  updateMappings(name: string, mappings: string): void {
    this.ops.push(UPDATE_MAPPINGS, mappings, name);
    this.added();
  }

  deleteIndex(name: string): void {
    this.ops.push(DELETE_INDEX, name);
    this.added();
  }

  private added(): void {
    if (++this.opCount >= CHUNK_OPS) this.flush();
  }

  private flush(): void {
    if (this.ops.length === 0) return;
    if (this.broken !== undefined) {
      // A worker given up on (see STALL_LIMIT_MS) may live on: it must not store, let alone
      // commit in parts, writes the caller is told have failed.
      this.clearChunk();
      this.throwIfBroken();
    }
    // Copied with the message, not transferred: the first ArrayBuffer a process detaches makes V8
    // throw away every optimized function that reads a typed array (it may then assume no buffer is
    // ever detached), the whole indexing path among them, and compile them again with checks; the
    // copy is a few kilobytes a chunk (see warmup.ts).
    const packed = this.packed.slice(0, 4 * this.packedCount);
    this.sinceCommit += this.opCount;
    const commit = this.interimCommits && this.sinceCommit >= INTERIM_COMMIT_OPS;
    if (commit) this.sinceCommit = 0;
    this.worker.postMessage(
      { t: 'ops', ops: this.ops, sources: this.sources.join(SOURCE_SEPARATOR), count: this.sources.length, packed, ids: this.ids.join(SOURCE_SEPARATOR), idCount: this.ids.length, commit },
    );
    this.clearChunk();
  }

  private clearChunk(): void {
    this.ops = [];
    this.sources = [];
    this.opCount = 0;
    this.packedCount = 0;
    this.ids = [];
    this.idx = undefined;
  }

  /**
   * Commits everything written since the last commit or rollback; throws when SQLite refused it
   * (then nothing was stored, but for the parts `interimCommits` let the worker commit before).
   */
  commit(): void {
    try {
      this.flush();
    } finally {
      this.endTransaction();
    }
    this.call('commit');
  }

  /** Drops everything written since the last commit or rollback (interim commits stay). */
  rollback(): void {
    this.clearChunk();
    this.endTransaction();
    this.call('rollback');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ops = [];
    try {
      if (this.broken === undefined) this.call('close');
    } finally {
      void this.worker.terminate();
    }
    this.reply.close();
  }

  /**
   * Whether the worker exited or was given up on: it may then have committed, or still commit,
   * writes whose transaction failed here (so an index derived from the writes may lag the store).
   */
  get failed(): boolean {
    return this.broken !== undefined;
  }

  private throwIfBroken(): void {
    if (this.broken !== undefined) throw new Error(this.broken);
  }

  private call(t: string): void {
    this.throwIfBroken();
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ t });
    this.awaitAnswer();
    const answer = receiveMessageOnPort(this.reply)?.message as { ok: boolean; message?: string } | undefined;
    if (answer === undefined) throw new Error('the document store writer did not answer');
    if (!answer.ok) throw new Error(`document store write failed: ${answer.message ?? 'unknown error'}`);
  }

  /** Blocks until the worker answers, as long as it keeps finishing chunks (see STALL_LIMIT_MS). */
  private awaitAnswer(): void {
    let progress = Atomics.load(this.flag, 1);
    let idleMs = 0;
    while (Atomics.wait(this.flag, 0, 0, WAIT_SLICE_MS) === 'timed-out') {
      const now = Atomics.load(this.flag, 1);
      if (now !== progress) {
        progress = now;
        idleMs = 0;
        continue;
      }
      idleMs += WAIT_SLICE_MS;
      if (idleMs >= STALL_LIMIT_MS) {
        this.broken = `the document store writer stopped answering for ${STALL_LIMIT_MS / 1000} s`;
        throw new Error(this.broken);
      }
    }
  }
}
