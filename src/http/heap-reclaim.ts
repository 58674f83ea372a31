/**
 * Giving the memory of a burst's garbage back soon after the burst.
 *
 * Some work makes a lot of garbage at once and then stops: a management snapshot of 10,000
 * routers is a few MB of JSON parsed into objects, and the records of the generation it replaces;
 * the first `/api/rawdata` of a view joins every record's text into one body. V8 sizes its old
 * generation as a multiple (up to about four) of what was live at its last full collection, and
 * its memory reducer gives the rest back only after several seconds of low allocation: the
 * management benchmark read 218-231 MB resident right after six such snapshots where 40 MB were
 * live, and the memory came back within 60-150 s (bench/README.md, issue 25).
 *
 * So, when such a burst ends, one full collection runs once nothing else made garbage for a short
 * quiet time. It is one pause per burst, taken after the burst's answers were sent, instead of a
 * resident size several times the live data until V8 gets to it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Runs one full, blocking garbage collection. */
export type CollectGarbage = () => void;

let v8Gc: CollectGarbage | undefined;

/**
 * V8's full collection. Node has no API for it without `--expose-gc`; setting that flag at run
 * time gives the `gc` function to contexts created afterwards, so one is created to take it and the
 * flag is cleared again at once (no other context gets `gc`, the main one never had it).
 */
export function v8FullCollection(): CollectGarbage {
  if (v8Gc === undefined) {
    const exposed = (globalThis as { gc?: CollectGarbage }).gc;
    if (typeof exposed === 'function') {
      v8Gc = () => exposed();
    } else {
      setFlagsFromString('--expose-gc');
      try {
        const gc = runInNewContext('gc') as CollectGarbage;
        v8Gc = () => gc();
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  return v8Gc;
}

export interface HeapReclaimerOptions {
  /** The collection; default: V8's full collection. */
  readonly collect?: CollectGarbage;
  /** How long no other burst may begin or end before the collection runs; default 100 ms. */
  readonly quietMs?: number;
  /** Told how long each collection held the thread (for a debug log). */
  readonly onCollected?: (ms: number) => void;
}

/**
 * Runs one collection after a burst of garbage, once `quietMs` passed with no other burst
 * beginning or ending. A burst that begins meanwhile (`busy`) puts it off: collecting while a
 * request's parsed body is still held would find that garbage live.
 */
export class HeapReclaimer {
  private timer: NodeJS.Timeout | undefined;
  private readonly collect: CollectGarbage;
  private readonly quietMs: number;
  /** Collections run so far (tests and logs). */
  collections = 0;

  constructor(private readonly options: HeapReclaimerOptions = {}) {
    this.collect = options.collect ?? v8FullCollection();
    this.quietMs = options.quietMs ?? 100;
  }

  /** Work that makes garbage has begun: no collection until it ends. */
  busy(): void {
    this.cancel();
  }

  /** A burst that left much garbage has ended: collect once `quietMs` pass without another. */
  afterBurst(): void {
    this.cancel();
    this.timer = setTimeout(() => this.run(), this.quietMs);
    // A pending collection never keeps the process alive.
    this.timer.unref();
  }

  /** Whether a collection is waiting for its quiet time. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  close(): void {
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    const started = performance.now();
    this.collect();
    this.collections++;
    this.options.onCollected?.(performance.now() - started);
  }
}
