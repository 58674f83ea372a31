import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { YOUNG_GENERATION_FLAG, youngGenerationKeptSmall } from '../../http/young-generation.js';
import {
  DELETE_DOC, DELETE_INDEX, NEXT_SEQ_NO, PUT_DOC, PUT_DOC_JOINED, PUT_DOC_PACKED, PUT_DOC_WITHIN, PUT_INDEX, SET_BYTES, SET_IDX, SET_ROUTING, SOURCE_SEPARATOR, UPDATE_MAPPINGS, WORKER_SOURCE,
} from './sqlite-worker.js';

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
 * The worker runs a small CommonJS script (sqlite-worker.ts) rather than a module file, so that it works the
 * same from the TypeScript sources (tests) and from the build; it loads better-sqlite3 from the path
 * resolved here.
 */

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

/** Atomics.waitAsync (Node 16 and later; typed in TypeScript's ES2024 lib, newer than the project's). */
type WaitAsync = (a: Int32Array, index: number, value: number, timeoutMs: number) =>
  { readonly async: false; readonly value: 'not-equal' | 'timed-out' } | { readonly async: true; readonly value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync.bind(Atomics);

/**
 * Operations between the interim commits of a transaction that allows them (see `interimCommits`).
 * Why: a commit writes the transaction's pages to the WAL and fsyncs it, and the main thread waits
 * for that; committing as it goes leaves only the tail for the wait.
 */
const INTERIM_COMMIT_OPS = 5 * CHUNK_OPS;

/** How long the constructor waits for the worker to set V8's young generation flag again (it goes on regardless). */
const YOUNG_GENERATION_WAIT_MS = 5_000;

/** The write connection; every method but `put*`/`delete*` blocks until the worker has answered. */
export class SqliteWriter {
  private readonly worker: Worker;
  /**
   * [0]: set to 1 with each answer; [1]: chunks the worker has finished (its heartbeat); [2]: set
   * to 1 once the worker has set V8's young generation flag again (see the constructor).
   */
  private readonly flag = new Int32Array(new SharedArrayBuffer(12));
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
  /**
   * The commit commitAsync sent and whose answer has not been taken yet: `drain` takes it at once
   * (blocking), as every other call must before it sends anything that waits for an answer (the
   * answers come back in order, on one flag).
   */
  private committing: { readonly drain: () => Error | undefined } | undefined;
  /** Why the worker can no longer be used (it exited or stopped answering); every call then fails. */
  private broken: string | undefined;

  /** `synchronous`: SQLite's synchronous pragma for the write connection (FULL or NORMAL). */
  constructor(file: string, synchronous: 'FULL' | 'NORMAL') {
    const { port1, port2 } = new MessageChannel();
    this.reply = port1;
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, synchronous, sqlite, flag: this.flag.buffer, reply: port2, youngGenerationFlag: youngGenerationKeptSmall() ? YOUNG_GENERATION_FLAG : undefined },
      transferList: [port2],
    });
    this.worker.on('exit', (code) => {
      if (!this.closed) this.broken ??= `the document store writer exited (code ${code})`;
    });
    // Making the worker's heap reset V8's young generation growth factor, which the worker sets
    // again first thing: until then this thread's young generation would grow under the index
    // load and the warm-up that follow (to 4 MiB semi-spaces, kept for good), so it waits for that.
    if (youngGenerationKeptSmall()) Atomics.wait(this.flag, 2, 0, YOUNG_GENERATION_WAIT_MS);
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

  /** Sets the routing of the document the transaction just put (INSERT OR REPLACE leaves it NULL). */
  setRouting(idx: string, id: string, routing: string): void {
    this.ops.push(SET_ROUTING, idx, id, routing);
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
    // The worker may still read the shared memory for a commit under way (commitAsync).
    this.drainCommit();
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

  /**
   * `commit` without blocking the thread: the answer is awaited with Atomics.waitAsync, so the
   * event loop serves other requests while the worker commits (and fsyncs). Why: the final commit
   * of a `_bulk` waited 12 ms (p50) to 26 ms (p99) for the worker with the loop blocked, a stall
   * every search behind the bulk paid. `settled` runs, synchronously, where the answer is taken:
   * here, or in the next call that needs the worker's attention (drainCommit), which blocks until
   * it comes. Writes of a new transaction may be sent meanwhile (the worker runs them after the
   * commit, in order).
   */
  commitAsync(settled: (err: Error | undefined) => void): Promise<void> {
    this.drainCommit();
    try {
      this.flush();
    } finally {
      this.endTransaction();
    }
    this.throwIfBroken();
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ t: 'commit' });
    return new Promise<void>((resolve, reject) => {
      let taken = false;
      const take = (): Error | undefined => {
        taken = true;
        this.committing = undefined;
        let err: Error | undefined;
        try {
          this.takeAnswer();
        } catch (e) {
          err = e as Error;
        }
        settled(err);
        if (err === undefined) resolve();
        else reject(err);
        return err;
      };
      this.committing = {
        drain: () => {
          if (taken) return undefined;
          try {
            this.awaitAnswer();
          } catch (e) {
            taken = true;
            this.committing = undefined;
            settled(e as Error);
            reject(e as Error);
            return e as Error;
          }
          return take();
        },
      };
      void this.pollAnswer(() => taken, () => void take(), (e) => {
        if (taken) return;
        taken = true;
        this.committing = undefined;
        settled(e);
        reject(e);
      });
    });
  }

  /** Waits without blocking for the answer flag (see awaitAnswer for the stall limit), then `take`s it. */
  private async pollAnswer(taken: () => boolean, take: () => void, fail: (err: Error) => void): Promise<void> {
    const stalled = this.stallWatch();
    while (!taken()) {
      if (Atomics.load(this.flag, 0) !== 0) return take();
      const w = waitAsync(this.flag, 0, 0, WAIT_SLICE_MS);
      const outcome = w.async ? await w.value : w.value;
      if (taken()) return;
      if (Atomics.load(this.flag, 0) !== 0) return take();
      if (outcome === 'timed-out' && stalled()) return fail(new Error(this.broken));
    }
  }

  /**
   * For one wait for an answer: called after each wait slice that timed out, true once the worker
   * has finished no chunk (its progress counter, flag[1]) for STALL_LIMIT_MS, marking the store broken.
   */
  private stallWatch(): () => boolean {
    let progress = Atomics.load(this.flag, 1);
    let idleMs = 0;
    return () => {
      const now = Atomics.load(this.flag, 1);
      if (now !== progress) {
        progress = now;
        idleMs = 0;
        return false;
      }
      idleMs += WAIT_SLICE_MS;
      if (idleMs < STALL_LIMIT_MS) return false;
      this.broken = `the document store writer stopped answering for ${STALL_LIMIT_MS / 1000} s`;
      return true;
    };
  }

  /**
   * Takes the answer of a commitAsync still under way, blocking until it comes (see `committing`);
   * the error when that commit failed (its own promise rejects with it too).
   */
  drainCommit(): Error | undefined {
    return this.committing?.drain();
  }

  /** Drops everything written since the last commit or rollback (interim commits stay). */
  rollback(): void {
    this.drainCommit();
    this.clearChunk();
    this.endTransaction();
    this.call('rollback');
  }

  close(): void {
    if (this.closed) return;
    // A commit under way is waited for (its caller hears how it went).
    this.drainCommit();
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
    this.drainCommit();
    this.throwIfBroken();
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ t });
    this.awaitAnswer();
    this.takeAnswer();
  }

  /** Reads the answer the flag announced; throws when it is a refusal. */
  private takeAnswer(): void {
    const answer = receiveMessageOnPort(this.reply)?.message as { ok: boolean; message?: string } | undefined;
    if (answer === undefined) throw new Error('the document store writer did not answer');
    if (!answer.ok) throw new Error(`document store write failed: ${answer.message ?? 'unknown error'}`);
  }

  /**
   * Blocks until the worker answers, as long as it keeps finishing chunks (see STALL_LIMIT_MS).
   * A wake-up is not an answer: the worker stores its answer flag and then notifies, so the notify
   * of the previous answer can land after this call has reset the flag and begun to wait. Only the
   * flag says the answer is there.
   */
  private awaitAnswer(): void {
    const stalled = this.stallWatch();
    for (;;) {
      const woke = Atomics.wait(this.flag, 0, 0, WAIT_SLICE_MS);
      if (Atomics.load(this.flag, 0) !== 0) return;
      if (woke === 'timed-out' && stalled()) throw new Error(this.broken);
    }
  }
}
