/**
 * The write-ahead log of the in-memory store (durable-store.ts): every acknowledged write is a
 * record in a segment file beside the persistence file, made durable (fdatasync) before the push
 * is answered. Writes that arrive together share one write() and one fdatasync (group commit).
 *
 * A segment is `<persistence file>.wal-<first sequence number, 16 digits>`; a record is a 4-byte
 * little-endian payload length, the payload's CRC-32 (4 bytes) and the payload,
 * `<seq> <time ms> <op JSON>`. The checkpoint (the persistence file, which names the last sequence
 * number it holds) makes the segments before it useless, and they are deleted.
 *
 * Reading a segment: a record cut short, or a bad last record, at the end of the newest segment is
 * the torn tail of a crash (its push was never acknowledged) and is cut; a bad record anywhere
 * else is damage, and start-up stops naming the file and the offset, as etcd and PostgreSQL do,
 * rather than silently dropping acknowledged writes that follow it.
 */
import { mkdir, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';

const HEADER = 8;
/** No record is this large (a push body is at most --push.max-body-size, 16 MiB by default, decoded). */
const MAX_RECORD = 1 << 30;

export interface WalRecord {
  readonly seq: number;
  readonly timeMs: number;
  readonly op: string;
}

/** A record that is not a torn tail: the WAL cannot be trusted past it. */
export class WalDamageError extends Error {
  override readonly name = 'WalDamageError';
  constructor(
    readonly file: string,
    readonly offset: number,
    reason: string,
  ) {
    super(`write-ahead log ${file} is damaged at byte ${offset} (${reason})`);
  }
}

export function encodeRecord(r: WalRecord): Buffer {
  const payload = Buffer.from(`${r.seq} ${r.timeMs} ${r.op}`, 'utf8');
  const head = Buffer.allocUnsafe(HEADER);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([head, payload]);
}

function decodePayload(p: Buffer): WalRecord | undefined {
  const text = p.toString('utf8');
  const m = /^(\d+) (\d+) /.exec(text);
  if (m === null) return undefined;
  return { seq: Number(m[1]), timeMs: Number(m[2]), op: text.slice(m[0].length) };
}

export interface ScannedSegment {
  readonly records: WalRecord[];
  /** Bytes of whole, good records from the start: where a torn tail begins. */
  readonly goodSize: number;
}

const allZero = (b: Buffer, from: number): boolean => b.subarray(from).every((x) => x === 0);

/**
 * Reads the records of one segment. `last`: the newest segment, where a torn tail is cut; in any
 * other segment every byte must belong to a good record.
 */
export function scanSegment(buf: Buffer, file: string, last: boolean): ScannedSegment {
  const records: WalRecord[] = [];
  let at = 0;
  while (at < buf.length) {
    const torn = (reason: string): ScannedSegment => {
      if (last) return { records, goodSize: at };
      throw new WalDamageError(file, at, reason);
    };
    if (buf.length - at < HEADER) return torn('a record header cut short');
    const len = buf.readUInt32LE(at);
    const end = at + HEADER + len;
    if (len === 0 && allZero(buf, at)) return torn('zeros after the last record');
    if (len > MAX_RECORD) return torn(`a record length of ${len} bytes`);
    if (end > buf.length) return torn('a record cut short');
    const payload = buf.subarray(at + HEADER, end);
    const record = crc32(payload) === buf.readUInt32LE(at + 4) ? decodePayload(payload) : undefined;
    if (record === undefined) {
      // The last record of the newest segment may be a torn write; before others it is damage.
      if (end === buf.length || allZero(buf, end)) return torn('a bad last record');
      throw new WalDamageError(file, at, 'a record whose CRC-32 does not match, followed by more records');
    }
    records.push(record);
    at = end;
  }
  return { records, goodSize: at };
}

const segmentPrefix = (file: string): string => `${basename(file)}.wal-`;
export const segmentPath = (file: string, firstSeq: number): string => join(dirname(file), `${segmentPrefix(file)}${String(firstSeq).padStart(16, '0')}`);

/** The segments of `file`'s WAL, oldest first, with the first sequence number each may hold. */
export async function listSegments(file: string): Promise<{ path: string; firstSeq: number }[]> {
  const prefix = segmentPrefix(file);
  let names: string[];
  try {
    // Regular files only: the writer creates nothing else.
    names = (await readdir(dirname(file), { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && /^\d{16}$/.test(n.slice(prefix.length)))
    .map((n) => ({ path: join(dirname(file), n), firstSeq: Number(n.slice(prefix.length)) }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

export interface ReadWal {
  /** Records after `afterSeq`, in order. */
  readonly records: WalRecord[];
  /** The highest sequence number found (afterSeq when none is higher). */
  readonly lastSeq: number;
  /** The newest segment and the size of its good part (its torn tail starts there). */
  readonly tail?: { readonly path: string; readonly goodSize: number; readonly size: number };
}

/** Reads every segment of `file`'s WAL; throws WalDamageError on damage. */
export async function readWal(file: string, afterSeq: number): Promise<ReadWal> {
  const segments = await listSegments(file);
  const records: WalRecord[] = [];
  let lastSeq = afterSeq;
  let prev = 0;
  let tail: ReadWal['tail'];
  for (const [i, s] of segments.entries()) {
    const buf = await readFile(s.path);
    const scanned = scanSegment(buf, s.path, i === segments.length - 1);
    let offset = 0;
    for (const r of scanned.records) {
      if (r.seq <= prev) throw new WalDamageError(s.path, offset, `sequence number ${r.seq} after ${prev}`);
      prev = r.seq;
      offset += encodeRecord(r).length;
      if (r.seq > afterSeq) records.push(r);
      lastSeq = Math.max(lastSeq, r.seq);
    }
    if (i === segments.length - 1) tail = { path: s.path, goodSize: scanned.goodSize, size: buf.length };
  }
  return { records, lastSeq, ...(tail !== undefined && { tail }) };
}

interface Pending {
  readonly buf: Buffer;
  readonly seq: number;
  /** First sequence number of the segment the record goes to. */
  readonly segment: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export interface WalWriterOptions {
  /** The persistence file; segments sit beside it. */
  readonly file: string;
  /** Sequence number of the first record to append. */
  readonly nextSeq: number;
  /** How long the first write of a batch waits for others to share its fdatasync, in ms (0: the next turn of the event loop). */
  readonly syncIntervalMs: number;
}

/**
 * Appends records with group commit. A failed batch (a full disk, EIO) rejects its records and
 * every record queued after it, and the segment is cut back to its last good size before the next
 * write, so a failed write never leaves garbage between good records.
 */
export class WalWriter {
  private nextSeq: number;
  private segment: number;
  private handle: FileHandle | undefined;
  private openSegment = -1;
  private size = 0;
  private cutNeeded = false;
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private last: Promise<void> = Promise.resolve();
  /** Bytes of the records appended since the last rotate(), durable or not (see uncoveredBytes). */
  private sinceRotate = 0;

  constructor(private readonly opts: WalWriterOptions) {
    this.nextSeq = opts.nextSeq;
    this.segment = opts.nextSeq;
  }

  /** The sequence number of the last record appended (durable or not). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Appends a record; the promise settles when it is durable (or its write failed). */
  append(op: string, timeMs: number): Promise<void> {
    const seq = this.nextSeq++;
    const buf = encodeRecord({ seq, timeMs, op });
    this.sinceRotate += buf.length;
    const done = new Promise<void>((resolve, reject) => this.queue.push({ buf, seq, segment: this.segment, resolve, reject }));
    this.last = done;
    this.schedule();
    return done;
  }

  /** Settles when every record appended so far is durable; rejects if one of them failed. */
  barrier(): Promise<void> {
    return this.last;
  }

  /** Records appended from now on go to a new segment (the checkpoint covers the older ones). */
  rotate(): void {
    this.segment = this.nextSeq;
    this.sinceRotate = 0;
  }

  /**
   * Bytes of the records appended since the last rotate(): what the log holds beyond the segments
   * the next checkpoint covers (the size trigger of a checkpoint, --persistence.wal-max-size).
   */
  get uncoveredBytes(): number {
    return this.sinceRotate;
  }

  private schedule(): void {
    if (this.flushing !== undefined || this.timer !== undefined) return;
    const run = (): void => {
      this.timer = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.queue.length > 0) this.schedule();
      });
    };
    this.timer = this.opts.syncIntervalMs > 0 ? setTimeout(run, this.opts.syncIntervalMs) : setImmediate(run);
  }

  private async switchTo(segment: number): Promise<void> {
    if (this.handle !== undefined && this.openSegment === segment) return;
    await this.handle?.close();
    this.handle = undefined;
    const dir = dirname(this.opts.file);
    await mkdir(dir, { recursive: true });
    // 'a+' would ignore positions; 'w' starts the segment empty (a failed one is rewritten whole).
    this.handle = await open(segmentPath(this.opts.file, segment), 'w', 0o600);
    this.openSegment = segment;
    this.size = 0;
    this.cutNeeded = false;
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }

  private async flush(): Promise<void> {
    const first = this.queue[0];
    if (first === undefined) return;
    let n = 0;
    while (n < this.queue.length && this.queue[n]?.segment === first.segment) n++;
    const batch = this.queue.slice(0, n);
    this.queue = this.queue.slice(n);
    try {
      await this.switchTo(first.segment);
      const h = this.handle as FileHandle;
      if (this.cutNeeded) {
        await h.truncate(this.size);
        this.cutNeeded = false;
      }
      const buf = batch.length === 1 ? first.buf : Buffer.concat(batch.map((p) => p.buf));
      this.cutNeeded = true;
      let written = 0;
      while (written < buf.length) written += (await h.write(buf, written, buf.length - written, this.size + written)).bytesWritten;
      await h.datasync();
      this.size += buf.length;
      this.cutNeeded = false;
      for (const p of batch) p.resolve();
    } catch (err) {
      this.fail([...batch, ...this.queue], err);
      this.queue = [];
    }
  }

  private fail(rejected: readonly Pending[], err: unknown): void {
    // The records after the failed ones were applied in memory after them: the store goes back to
    // the disk's state, so none of them may be written later. Their numbers are given out again.
    const lowest = rejected.reduce((m, p) => Math.min(m, p.seq), Infinity);
    if (lowest !== Infinity) this.nextSeq = lowest;
    if (this.segment > this.nextSeq) this.segment = this.nextSeq;
    for (const p of rejected) p.reject(err);
  }

  /**
   * Deletes the segments whose every record is at most `seq` (covered by a checkpoint): those
   * before the segment that records after `seq` go to (rotate() was called at `seq`).
   */
  async dropCovered(seq: number): Promise<void> {
    for (const s of await listSegments(this.opts.file)) {
      if (s.firstSeq > seq || s.firstSeq >= this.segment) break;
      await unlink(s.path);
    }
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    while (this.flushing !== undefined || this.queue.length > 0) await (this.flushing ?? this.flush());
    await this.handle?.close();
    this.handle = undefined;
  }
}
