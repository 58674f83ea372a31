/**
 * The worker thread of the SQLite writer (sqlite-writer.ts): the operations the main thread sends it
 * and the CommonJS script it runs, which applies them on its own connection.
 */

/** An operation: opcode then its arguments, flattened into one array per chunk. */
export const PUT_DOC = 0; // idx, id, version, seqNo, source
export const PUT_DOC_JOINED = 5; // idx, id, version, seqNo; the source is the next of the chunk's joined sources
export const DELETE_DOC = 1; // idx, id
export const PUT_INDEX = 2; // name, uuid, createdMs, settings JSON, mappings JSON
export const UPDATE_MAPPINGS = 3; // mappings JSON, name
export const DELETE_INDEX = 4; // name
export const SET_BYTES = 6; // a SharedArrayBuffer and an offset: where the UTF-8 bytes later PUT_DOC_WITHIN operations of the transaction decode start
export const PUT_DOC_WITHIN = 7; // idx, id, version, seqNo, start, end: the source is the bytes start..end, as UTF-8
export const SET_IDX = 8; // idx: the index of later PUT_DOC_PACKED operations
/**
 * PUT_DOC_WITHIN of the index set by SET_IDX, with no arguments in the operation array: the next
 * (version, seqNo, start, end) of the chunk's `packed` numbers, and the next of its joined `ids`.
 * Why: serializing seven values per document for the worker cost the main thread microseconds per
 * document; a typed array and one string per chunk cost next to nothing.
 */
export const PUT_DOC_PACKED = 9;
/**
 * idx, next: a sequence number below `next` was handed out to an operation that left no document
 * carrying it (a delete). The worker keeps the largest per index and stores it in the meta table
 * (key NEXT_SEQ_NO_KEY + idx) with the commit, so a rebuild never hands such a number out again.
 */
export const NEXT_SEQ_NO = 10;
/** idx, id, routing: the routing of a document put earlier in the transaction. */
export const SET_ROUTING = 11;
/** The meta table's key prefix for an index's stored next sequence number (see NEXT_SEQ_NO). */
export const NEXT_SEQ_NO_KEY = 'next_seq_no:';

/**
 * Separates the sources of a chunk, which travel as one string: cloning one long string for the
 * worker is a copy, whereas cloning hundreds of them cost the main thread about a tenth of a bulk.
 * Stored sources are JSON text, where U+0001 cannot occur unescaped; one that has it anyway goes
 * in the operation itself.
 */
export const SOURCE_SEPARATOR = '\u0001';

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
/**
 * Page cache of each connection, KiB (SQLite's own default). better-sqlite3 builds SQLite with
 * 16 MiB (SQLITE_DEFAULT_CACHE_SIZE=-16000), which the writer fills during any load larger than
 * that and keeps: 16 MiB of the server's resident memory per connection (issue 21). The writer
 * appends rows at the end of the table and inserts into the (idx, id) index, whose pages for a
 * corpus of 63,666 documents take 1.5 MB (dbstat); the reader's cache is dropped by every commit of
 * the writer anyway (WAL mode), and its pages come from the OS's page cache.
 */
export const CACHE_KIB = 2048;
const DELETE_BYTES = 256;

export const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
// Making this thread's heap reset V8's young generation growth factor (src/http/young-generation.ts):
// set again, and the constructor waiting for it told.
if (workerData.youngGenerationFlag !== undefined) {
  require('node:v8').setFlagsFromString(workerData.youngGenerationFlag);
  Atomics.store(flag, 2, 1);
  Atomics.notify(flag, 2);
}
const reply = workerData.reply;
let db;
let stmts;
let openError;
try {
  const Database = require(workerData.sqlite);
  db = new Database(workerData.file);
  db.pragma('synchronous = ' + workerData.synchronous);
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('cache_size = -${CACHE_KIB}');
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
    db.prepare('UPDATE docs SET routing = ? WHERE idx = ? AND id = ?'),
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
      case ${SET_ROUTING}: stmts[9].run(ops[i + 3], ops[i + 1], ops[i + 2]); i += 4; break;
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
