/**
 * The shared log of writes that replicas of the push gateway apply in one order (see
 * replicated-store.ts): what an entry holds, how it is written as text, and what a log backend
 * (Redis, or a fake in the tests) must provide. Pure: no client library here.
 */
import type { Label, MetricFamily } from '../model.js';
import { modelJsonReplacer, modelJsonReviver } from './persistence.js';

/** One write, as every replica replays it. Its time comes from the log, never from a replica's clock. */
export type StoreOp =
  | { readonly kind: 'push'; readonly grouping: readonly Label[]; readonly families: readonly MetricFamily[]; readonly replace: boolean; readonly ttlMs?: number }
  | { readonly kind: 'failure'; readonly grouping: readonly Label[]; readonly ttlMs?: number }
  | { readonly kind: 'delete'; readonly grouping: readonly Label[] }
  | { readonly kind: 'wipe' }
  /** Moves the log's clock on, so that every replica drops the groups whose TTL ran out. */
  | { readonly kind: 'tick' };

/** An entry of the log: sequence numbers are 1, 2, 3... without gaps (a gap means entries were trimmed). */
export interface LogEntry {
  readonly seq: number;
  /** Milliseconds since the epoch, by the log's clock (never going back). */
  readonly timeMs: number;
  /** Who appended it: `<replica>:<n>`, so that the replica can find the outcome of its own write. */
  readonly nonce: string;
  /** The op as encodeOp wrote it. */
  readonly op: string;
}

/** The whole state at one sequence number (the persistence file's text), from which a replica starts. */
export interface LogSnapshot {
  readonly seq: number;
  /** The log's clock at `seq`. */
  readonly timeMs: number;
  readonly text: string;
}

/** What the log answers to a read: its last sequence number and the entries after the one asked for. */
export interface LogRead {
  readonly lastSeq: number;
  readonly entries: readonly LogEntry[];
}

/**
 * A shared, ordered, trimmed log. Every method either completes atomically on the backend or
 * throws (the backend is unreachable): nothing is half-written.
 */
export interface OpLog {
  /**
   * Appends `op` and returns the entries after `afterSeq` up to and including the new one.
   * Returns 'behind' without appending when the log's last sequence number is below `afterSeq`
   * (the backend lost its data: see reseed).
   * @param dueAtMs only append when the log's clock has reached it (ticks); else return [].
   */
  append(op: string, nonce: string, afterSeq: number, dueAtMs?: number): Promise<readonly LogEntry[] | 'behind'>;
  /** Up to `max` entries after `afterSeq`. */
  read(afterSeq: number, max: number): Promise<LogRead>;
  snapshot(): Promise<LogSnapshot | undefined>;
  /** Stores a snapshot if it is newer than the stored one, and trims entries up to `trimThrough`. */
  saveSnapshot(snapshot: LogSnapshot, trimThrough: number): Promise<void>;
  /**
   * After the backend lost its data: makes `snapshot` the whole log (its sequence number and
   * clock go on from there), unless the log already holds as much. Returns whether it did.
   */
  reseed(snapshot: LogSnapshot): Promise<boolean>;
  /** Calls `listener` when another replica appended (a hint: the poll catches what it misses). */
  onAppended(listener: () => void): void;
  /** Whether the backend is reachable now. */
  readonly connected: boolean;
  close(): Promise<void>;
}

export function encodeOp(op: StoreOp): string {
  return JSON.stringify(op, modelJsonReplacer);
}

export function decodeOp(text: string): StoreOp {
  const op = JSON.parse(text, modelJsonReviver) as StoreOp | null;
  if (op === null || typeof op !== 'object' || !['push', 'failure', 'delete', 'wipe', 'tick'].includes(op.kind)) {
    throw new Error(`not a push gateway store op: ${text.slice(0, 80)}`);
  }
  return op;
}
