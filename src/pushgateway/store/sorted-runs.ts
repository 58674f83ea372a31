/**
 * A sorted sequence kept as a list of short sorted runs, so that inserting or removing an item
 * moves at most one run's items (O(√n)-ish with a fixed run size, instead of O(n) for one array).
 * A family held by 200,000 groups would otherwise move up to 200,000 references on every push of
 * a new group. Iteration is in order; positions are (run, index) cursors found by a binary search.
 */

/** Where an item is or would be inserted. */
export interface Cursor {
  readonly run: number;
  readonly index: number;
}

/** Runs are split in two when they grow past this many items; merged away when emptied. */
const MAX_RUN = 512;

export class SortedRuns<T> implements Iterable<T> {
  private runs: T[][] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  first(): T | undefined {
    return this.runs[0]?.[0];
  }

  /**
   * The first position whose item does not sort before the key: `before(item)` is true for items
   * that sort before it. The items must be sorted so that `before` is true for a prefix.
   */
  lowerBound(before: (item: T) => boolean): Cursor {
    const runs = this.runs;
    let lo = 0;
    let hi = runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const run = runs[mid] as T[];
      if (before(run[run.length - 1] as T)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === runs.length) return { run: lo, index: 0 };
    const run = runs[lo] as T[];
    let a = 0;
    let b = run.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (before(run[mid] as T)) a = mid + 1;
      else b = mid;
    }
    return { run: lo, index: a };
  }

  /** The item at `at` (undefined at the end). */
  at(at: Cursor): T | undefined {
    return this.runs[at.run]?.[at.index];
  }

  /** The item just before `at` (undefined at the start). */
  before(at: Cursor): T | undefined {
    if (at.index > 0) return this.runs[at.run]?.[at.index - 1];
    const run = this.runs[at.run - 1];
    return run?.[run.length - 1];
  }

  /** Inserts `item` at `at` (a position from lowerBound, before any other change). */
  insert(at: Cursor, item: T): void {
    this.count++;
    let r = at.run;
    let index = at.index;
    if (r === this.runs.length) {
      // After the last item: appended to the last run, or a first run.
      if (r === 0) {
        this.runs.push([item]);
        return;
      }
      r--;
      index = (this.runs[r] as T[]).length;
    }
    const run = this.runs[r] as T[];
    run.splice(index, 0, item);
    if (run.length > MAX_RUN) this.runs.splice(r + 1, 0, run.splice(run.length >>> 1));
  }

  /** Removes `item` (compared by identity), searching from `from` onwards; false when it is not there. */
  remove(from: Cursor, item: T): boolean {
    for (let r = from.run, i = from.index; r < this.runs.length; r++, i = 0) {
      const run = this.runs[r] as T[];
      const k = run.indexOf(item, i);
      if (k < 0) continue;
      run.splice(k, 1);
      if (run.length === 0) this.runs.splice(r, 1);
      this.count--;
      return true;
    }
    return false;
  }

  /** The items from `from` onwards, in order. */
  *from(from: Cursor): IterableIterator<T> {
    for (let r = from.run, i = from.index; r < this.runs.length; r++, i = 0) {
      const run = this.runs[r] as T[];
      for (; i < run.length; i++) yield run[i] as T;
    }
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const run of this.runs) yield* run;
  }

  forEach(f: (item: T) => void): void {
    for (const run of this.runs) for (let i = 0; i < run.length; i++) f(run[i] as T);
  }

  some(test: (item: T) => boolean): boolean {
    return this.runs.some((run) => run.some(test));
  }

  map<U>(f: (item: T) => U): U[] {
    const out: U[] = [];
    for (const run of this.runs) for (const item of run) out.push(f(item));
    return out;
  }
}
