import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode } from '../../config/start-up-errors.js';
import { PersistenceError } from '../errors.js';
import type { Group, StoredFamily } from './group.js';
import { groupingKeyId } from './grouping-key.js';
import type { HistogramValue, Label, Metric, MetricFamily, MetricType, NativeBuckets } from '../model.js';

/**
 * Version of the persistence file format; bump on any incompatible change. Version 2 adds a
 * SHA-256 of the groups' text, so that damage (a changed digit) is detected, never loaded; it also
 * keeps a histogram's integer and float counts apart (`sampleCount` and `sampleCountFloat`, a
 * bucket's `cumulativeCount` and `cumulativeCountFloat`) and adds its native buckets (`native`) and
 * `createdTimestamp`. Version 1 files (no checksum; one count, the float one when it was above 0)
 * are read too, a count that is not an integer becoming the float count.
 */
export const PERSISTENCE_FORMAT_VERSION = 2;
/**
 * Version 3 is version 2 with the write-ahead log's sequence number it holds (`walSeq`, covered by
 * the checksum): written only when the WAL is on (write-ahead-log.ts), as its checkpoint.
 */
const CHECKPOINT_FORMAT_VERSION = 3;
const READABLE_VERSIONS = new Set([1, 2, 3]);
const FORMAT_NAME = 'portico-pushgateway';
/** The head of a version 2 file, up to the groups' text: `{"format":…,"version":2,"sha256":"<hex>","groups":`. */
const CHECKED_HEAD = /^\{"format":"portico-pushgateway","version":2,"sha256":"([0-9a-f]{64})","groups":/;
/** The head of a version 3 file: version 2's with the WAL sequence number before the checksum. */
const CHECKPOINT_HEAD = /^\{"format":"portico-pushgateway","version":3,"walSeq":(\d{1,16}),"sha256":"([0-9a-f]{64})","groups":/;

/** A persistence file whose checksum does not match its content. */
export class DamagedFileError extends Error {
  override readonly name = 'DamagedFileError';
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface FileGroup {
  labels: Label[];
  pushTimeSeconds: number;
  pushFailureTimeSeconds: number;
  expiresAtMs?: number;
  families: { pushedAtMs: number; family: MetricFamily }[];
}

interface FileContent {
  format: string;
  version: number;
  groups: FileGroup[];
}

// JSON has no NaN or ±Inf, which pushed samples may hold: they are written as {"$num":"NaN"}.
// No object of the format has a "$num" key otherwise, so the reviver cannot mistake anything.
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return { $num: Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf' };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && '$num' in value) {
    const v = (value as { $num: unknown }).$num;
    if (v === 'NaN') return NaN;
    if (v === '+Inf') return Infinity;
    if (v === '-Inf') return -Infinity;
    throw new Error(`unknown special number ${JSON.stringify(v)}`);
  }
  return value;
}

/**
 * Serializes groups to the persistence file's text: the groups' JSON, after a head with its
 * checksum; with `walSeq`, a checkpoint of the write-ahead log (version 3).
 */
export function encodeGroups(groups: readonly Group[], walSeq?: number): string {
  const body = JSON.stringify(
    groups.map((g) => ({
      labels: [...g.labels],
      pushTimeSeconds: g.pushTimeSeconds,
      pushFailureTimeSeconds: g.pushFailureTimeSeconds,
      ...(g.expiresAtMs !== undefined ? { expiresAtMs: g.expiresAtMs } : {}),
      families: [...g.families.values()].map((s) => ({ pushedAtMs: s.pushedAtMs, family: s.family })),
    })),
    replacer,
  );
  if (walSeq !== undefined) {
    return `{"format":"${FORMAT_NAME}","version":${CHECKPOINT_FORMAT_VERSION},"walSeq":${walSeq},"sha256":"${sha256(`${walSeq}\n${body}`)}","groups":${body}}`;
  }
  return `{"format":"${FORMAT_NAME}","version":${PERSISTENCE_FORMAT_VERSION},"sha256":"${sha256(body)}","groups":${body}}`;
}

/** The write-ahead log's sequence number a checkpoint holds (0 for a file without one). */
export function walSeqOf(text: string): number {
  const head = CHECKPOINT_HEAD.exec(text);
  return head === null ? 0 : Number(head[1]);
}

/** Throws a DamagedFileError when a version 2 text's checksum does not match its groups. */
function checkSum(text: string): void {
  const checkpoint = CHECKPOINT_HEAD.exec(text);
  if (checkpoint !== null) {
    if (!text.endsWith('}') || sha256(`${checkpoint[1]}\n${text.slice(checkpoint[0].length, -1)}`) !== checkpoint[2]) {
      throw new DamagedFileError('its content does not match its SHA-256 checksum');
    }
    return;
  }
  if (/^\s*\{\s*"format"\s*:\s*"portico-pushgateway"\s*,\s*"version"\s*:\s*3\b/.test(text)) throw new DamagedFileError('its head is damaged (no checksum where version 3 has one)');
  const head = CHECKED_HEAD.exec(text);
  if (head === null) {
    if (/^\s*\{\s*"format"\s*:\s*"portico-pushgateway"\s*,\s*"version"\s*:\s*2\b/.test(text)) throw new DamagedFileError('its head is damaged (no checksum where version 2 has one)');
    return;
  }
  if (!text.endsWith('}') || sha256(text.slice(head[0].length, -1)) !== head[1]) {
    throw new DamagedFileError('its content does not match its SHA-256 checksum');
  }
}

function isLabelList(v: unknown): v is Label[] {
  return Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length === 2 && typeof l[0] === 'string' && typeof l[1] === 'string');
}

const TYPES = new Set(['counter', 'gauge', 'untyped', 'summary', 'histogram']);

const isNumber = (v: unknown): v is number => typeof v === 'number';

function isPairList(v: unknown, a: string, b: string): boolean {
  return Array.isArray(v) && v.every((p) => p !== null && typeof p === 'object' && isNumber((p as Record<string, unknown>)[a]) && isNumber((p as Record<string, unknown>)[b]));
}

const isOptionalNumber = (v: unknown): boolean => v === undefined || isNumber(v);
const isNumberList = (v: unknown): boolean => Array.isArray(v) && v.every(isNumber);

function isNative(n: NativeBuckets): boolean {
  return (
    n !== null &&
    typeof n === 'object' &&
    [n.schema, n.zeroThreshold, n.zeroCount, n.zeroCountFloat].every(isOptionalNumber) &&
    isPairList(n.negativeSpans, 'offset', 'length') &&
    isPairList(n.positiveSpans, 'offset', 'length') &&
    [n.negativeDeltas, n.negativeCounts, n.positiveDeltas, n.positiveCounts].every(isNumberList)
  );
}

/** A version 1 histogram: one count per place, the float one when it was above 0. */
function fromVersion1(h: HistogramValue): HistogramValue {
  const whole = (n: number): boolean => Number.isInteger(n) && n >= 0;
  return {
    sampleCount: whole(h.sampleCount) ? h.sampleCount : 0,
    sampleSum: h.sampleSum,
    buckets: h.buckets.map((b) => (whole(b.cumulativeCount) ? b : { upperBound: b.upperBound, cumulativeCount: 0, cumulativeCountFloat: b.cumulativeCount })),
    ...(!whole(h.sampleCount) && { sampleCountFloat: h.sampleCount }),
  };
}

// Every number the encoders will format is checked, so that a damaged file stops start-up
// instead of failing every scrape afterwards.
function hasValueOfType(type: MetricType, m: Metric): boolean {
  if (type === 'summary') {
    const v = m.summary;
    return v !== null && typeof v === 'object' && isNumber(v.sampleCount) && isNumber(v.sampleSum) && isPairList(v.quantiles, 'quantile', 'value');
  }
  if (type === 'histogram') {
    const v = m.histogram;
    return (
      v !== null &&
      typeof v === 'object' &&
      isNumber(v.sampleCount) &&
      isNumber(v.sampleSum) &&
      isPairList(v.buckets, 'upperBound', 'cumulativeCount') &&
      v.buckets.every((b) => isOptionalNumber(b.cumulativeCountFloat)) &&
      isOptionalNumber(v.sampleCountFloat) &&
      (v.native === undefined || isNative(v.native)) &&
      (v.createdTimestamp === undefined || (v.createdTimestamp !== null && isNumber(v.createdTimestamp.seconds) && isNumber(v.createdTimestamp.nanos)))
    );
  }
  return isNumber(m.value);
}

function checkFamily(f: unknown, where: string, version: number): MetricFamily {
  const fam = f as MetricFamily;
  if (fam === null || typeof fam !== 'object' || typeof fam.name !== 'string' || !TYPES.has(fam.type) || !Array.isArray(fam.metrics)) {
    throw new Error(`${where}: not a metric family`);
  }
  if (fam.help !== undefined && typeof fam.help !== 'string') throw new Error(`${where}: help is not a string`);
  fam.metrics.forEach((m, i) => {
    if (m === null || typeof m !== 'object' || !isLabelList(m.labels)) throw new Error(`${where}, metric ${i}: bad labels`);
    if (!hasValueOfType(fam.type, m)) throw new Error(`${where}, metric ${i}: no ${fam.type} value`);
  });
  if (version === 1 && fam.type === 'histogram') {
    return { ...fam, metrics: fam.metrics.map((m) => ({ ...m, histogram: fromVersion1(m.histogram as HistogramValue) })) };
  }
  return fam;
}

/** Parses the persistence file's text; throws an Error saying what is wrong. */
export function decodeGroups(text: string): Group[] {
  checkSum(text);
  const doc = JSON.parse(text, reviver) as Partial<FileContent> | null;
  if (doc === null || typeof doc !== 'object' || doc.format !== FORMAT_NAME) throw new Error(`not a ${FORMAT_NAME} persistence file`);
  const version = doc.version;
  if (typeof version !== 'number' || !READABLE_VERSIONS.has(version)) {
    throw new Error(`unsupported format version ${String(version)} (this Portico reads ${[...READABLE_VERSIONS].join(' and ')})`);
  }
  if (!Array.isArray(doc.groups)) throw new Error('"groups" is not a list');
  // A repeated grouping key or family name cannot come from encodeGroups; taking the last one
  // would silently drop data (and leave the store's index and cache holding the first).
  const seen = new Map<string, number>();
  return doc.groups.map((g, gi): Group => {
    if (!isLabelList(g.labels) || typeof g.pushTimeSeconds !== 'number' || typeof g.pushFailureTimeSeconds !== 'number' || !Array.isArray(g.families)) {
      throw new Error(`group ${gi}: missing labels, push times or families`);
    }
    if (g.expiresAtMs !== undefined && typeof g.expiresAtMs !== 'number') throw new Error(`group ${gi}: expiresAtMs is not a number`);
    const id = groupingKeyId(g.labels);
    const twin = seen.get(id);
    if (twin !== undefined) throw new Error(`group ${gi} has the same grouping key as group ${twin}`);
    seen.set(id, gi);
    const families = new Map<string, StoredFamily>();
    g.families.forEach((s, fi) => {
      const family = checkFamily(s.family, `group ${gi}, family ${fi}`, version);
      if (families.has(family.name)) throw new Error(`group ${gi}, family ${fi}: family ${JSON.stringify(family.name)} appears twice`);
      families.set(family.name, { family, pushedAtMs: typeof s.pushedAtMs === 'number' ? s.pushedAtMs : 0 });
    });
    return {
      id,
      labels: g.labels,
      families,
      pushTimeSeconds: g.pushTimeSeconds,
      pushFailureTimeSeconds: g.pushFailureTimeSeconds,
      expiresAtMs: g.expiresAtMs,
    };
  });
}

/**
 * Reads the persistence file. A missing file is an empty store; anything else that prevents
 * reading it (permissions, corrupt content) throws a PersistenceError naming the file, so that
 * start-up stops instead of silently dropping or later overwriting the data.
 */
export async function loadGroups(file: string): Promise<Group[]> {
  return (await loadCheckpoint(file)).groups;
}

/** loadGroups, with the WAL sequence number the file holds (0 without one, or without a file). */
export async function loadCheckpoint(file: string): Promise<{ groups: Group[]; walSeq: number }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return { groups: [], walSeq: 0 };
    const reason = code !== '' ? code : (err as Error).message;
    throw new PersistenceError(`--persistence.file ${file} cannot be read (${reason}); make it a readable file, or choose another --persistence.file ("off" keeps pushes in memory only)`, { cause: err });
  }
  try {
    return { groups: decodeGroups(text), walSeq: walSeqOf(text) };
  } catch (err) {
    if (err instanceof DamagedFileError) {
      throw new PersistenceError(
        `--persistence.file ${file}: the persistence file is damaged (${err.message}) and was not loaded; move it away to start empty (keep it to investigate), or restore it from a backup`,
        { cause: err },
      );
    }
    throw new PersistenceError(
      `--persistence.file ${file}: the persistence file is corrupt (${(err as Error).message}); move it away to start empty, fix it, or choose another --persistence.file`,
      { cause: err },
    );
  }
}

/**
 * Replaces `file` atomically: the whole text goes to a temporary file in the same directory,
 * which is fsynced and then renamed over the old one, and the directory is fsynced so the rename
 * survives a power cut. write-file-atomic was used here first, but it issues a single write()
 * and ignores a short count, so a full disk or a file-size limit produced a truncated file that
 * then replaced the good one; FileHandle.writeFile writes until everything is written or fails.
 */
async function replaceFileAtomically(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

/** Writes the file atomically (see replaceFileAtomically). */
export async function saveGroups(file: string, groups: readonly Group[]): Promise<void> {
  // Encoded before the first await: the snapshot is the store at one instant.
  await saveText(file, encodeGroups(groups));
}

/** Writes encoded groups atomically (see replaceFileAtomically). */
export async function saveText(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await replaceFileAtomically(file, text);
}

export interface PersisterOptions {
  readonly file: string;
  /** Minimum time between two writes, in ms. */
  readonly intervalMs: number;
  /** Current groups to write. */
  readonly snapshot: () => readonly Group[];
  /** Writes the file in place of saveGroups (the write-ahead log's checkpoint). */
  readonly save?: () => Promise<void>;
  readonly onError: (err: unknown) => void;
  /** Called after the first successful write that follows a failed one. */
  readonly onRecovered?: () => void;
  /** Wall clock in ms. */
  readonly now: () => number;
}

/**
 * Writes the store at most once per interval after a change (Pushgateway's behaviour), and once
 * more on shutdown when something changed since the last write.
 */
export class Persister {
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private lastWriteMs = -Infinity;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  /** Whether the last write failed (a success after it is reported as a recovery). */
  private failing = false;

  constructor(private readonly opts: PersisterOptions) {}

  /** Notes a change and schedules a write. */
  markDirty(): void {
    this.dirty = true;
    if (this.timer !== undefined || this.closed) return;
    const wait = Math.max(0, this.lastWriteMs + this.opts.intervalMs - this.opts.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed write is retried an interval later: without a new change nothing else would
      // write the acknowledged data before shutdown.
      void this.flush().catch((err: unknown) => {
        this.opts.onError(err);
        this.markDirty();
      });
    }, wait);
    this.timer.unref();
  }

  /**
   * Writes now, without waiting for the interval (the write-ahead log outgrew its size limit);
   * a failure is reported and retried as the timer's write is.
   */
  writeSoon(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = true;
    void this.flush().catch((err: unknown) => {
      this.opts.onError(err);
      this.markDirty();
    });
  }

  /** Writes now if anything changed since the last write. */
  flush(): Promise<void> {
    this.writing = this.writing.catch(() => undefined).then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      this.lastWriteMs = this.opts.now();
      try {
        await (this.opts.save !== undefined ? this.opts.save() : saveGroups(this.opts.file, this.opts.snapshot()));
      } catch (err) {
        this.dirty = true;
        this.failing = true;
        throw err;
      }
      if (this.failing) {
        this.failing = false;
        this.opts.onRecovered?.();
      }
    });
    return this.writing;
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

/** The file's JSON conventions for any part of the model (special numbers included), for the Redis log. */
export { replacer as modelJsonReplacer, reviver as modelJsonReviver };
