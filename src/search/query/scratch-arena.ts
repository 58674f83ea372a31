/**
 * Per-index scratch memory for query execution. Every intermediate hit list of a query (posting
 * scores, unions, intersections) is a view into two growing buffers that are reused by the next
 * query, instead of fresh typed arrays: large short-lived typed arrays count as external memory
 * and made V8 run full garbage collections of the whole (large) index heap, which showed up as
 * p95 latency. Views are valid until the next `reset()`, i.e. for one search of one index.
 *
 * It also keeps, across queries, a few things derived from the index that no request changes
 * (normInverse, scoreTable, termMemo): bounded, and checked against what they were computed from,
 * so a write to the index only makes them miss.
 */
export class ScratchArena {
  private ints = new Int32Array(1 << 16);
  private intTop = 0;
  private floats = new Float32Array(1 << 16);
  private floatTop = 0;

  private stampArray = new Int32Array(0);
  private stampValue = 0;

  /**
   * A per-document "seen" array for one pass: `marks[d] === stamp` means seen. Valid until the next
   * call; nothing has to be cleared between passes (the stamp changes instead).
   */
  marks(n: number): { readonly marks: Int32Array; readonly stamp: number } {
    if (this.stampArray.length < n || this.stampValue === 0x7fffffff) {
      this.stampArray = new Int32Array(Math.max(n, this.stampArray.length * 2));
      this.stampValue = 0;
    }
    return { marks: this.stampArray, stamp: ++this.stampValue };
  }

  private denseArray = new Float64Array(0);

  /**
   * A per-document float64 array for one pass (score accumulators), reused by the next call;
   * contents are undefined: pair it with `marks` to know which slots this pass wrote.
   */
  dense64(n: number): Float64Array {
    if (this.denseArray.length < n) this.denseArray = new Float64Array(Math.max(n, this.denseArray.length * 2));
    return this.denseArray;
  }

  private normAvgdl = Number.NaN;
  private normTable: Float32Array = new Float32Array(256);

  /**
   * normInverseCache(avgdl), kept until a query asks for another average length (it changes with
   * every write to the field, and fields of one index differ): 256 divisions a query otherwise.
   * Read-only for the caller.
   */
  normInverse(avgdl: number, compute: (avgdl: number) => Float32Array): Float32Array {
    if (avgdl !== this.normAvgdl) {
      this.normTable = compute(avgdl);
      this.normAvgdl = avgdl;
    }
    return this.normTable;
  }

  private memos = new WeakMap<object, Map<number, unknown>>();
  /** The maps of `memos`, for their common budget. */
  private memoMaps: Map<number, unknown>[] = [];

  /**
   * Per-term values derived from the index that outlive one query (e.g. where a term scores best),
   * by `owner` (a field's posting store) and term id. Unlike the scratch buffers this memory is not
   * reused by the next query: the caller stores with each value what it was computed from and
   * checks that before using it. At most about MEMO_LIMIT terms per arena (index), across owners:
   * a budget per field would let an index of many text fields hold memos without bound. Past it,
   * or past MEMO_OWNER_LIMIT owners, every memo is dropped, owners included: a view refreshed
   * after writes reads new posting stores, so even empty maps kept per owner would pile up.
   */
  termMemo<T>(owner: object): Map<number, T> {
    let kept = 0;
    for (const x of this.memoMaps) kept += x.size;
    if (kept > MEMO_LIMIT || this.memoMaps.length >= MEMO_OWNER_LIMIT) {
      this.memos = new WeakMap();
      this.memoMaps = [];
    }
    let m = this.memos.get(owner);
    if (m === undefined) {
      m = new Map();
      this.memos.set(owner, m);
      this.memoMaps.push(m);
    }
    return m as Map<number, T>;
  }

  private tables = new WeakMap<object, Map<number, { weight: number; avgdl: number; table: Float32Array }>>();
  /** The tables kept, oldest first, across owners (the budget is per index, not per field). */
  private readonly tableOrder: { readonly owner: Map<number, unknown>; readonly id: number }[] = [];

  /**
   * A term's table of scores (`size` floats, NaN where not computed yet) for one term weight and
   * average length, kept across queries: the same term asked again finds the scores its earlier
   * queries computed (on a fresh table every posting with a new (frequency, norm) pair pays the
   * bm25 arithmetic). `owner` is the field's posting store. The caller fills slots it computes,
   * with nothing but the score for (weight, avgdl). At most TABLE_LIMIT tables per arena (index);
   * the oldest is forgotten.
   */
  scoreTable(owner: object, id: number, weight: number, avgdl: number, size: number): Float32Array {
    let m = this.tables.get(owner);
    if (m === undefined) {
      m = new Map();
      this.tables.set(owner, m);
    }
    const e = m.get(id);
    if (e !== undefined) {
      if (e.weight !== weight || e.avgdl !== avgdl) {
        e.table.fill(Number.NaN);
        e.weight = weight;
        e.avgdl = avgdl;
      }
      return e.table;
    }
    // The oldest is dropped, not recycled: a query of many terms may still be using it.
    if (this.tableOrder.length >= TABLE_LIMIT) {
      const oldest = this.tableOrder.shift() as { owner: Map<number, unknown>; id: number };
      oldest.owner.delete(oldest.id);
    }
    const table = new Float32Array(size).fill(Number.NaN);
    m.set(id, { weight, avgdl, table });
    this.tableOrder.push({ owner: m, id });
    return table;
  }

  /**
   * Forgets every memo and score table: their owners (posting stores) were replaced by a
   * compaction of the index (engine/index-reclaimer.ts), and `memoMaps` would keep their maps.
   */
  forgetMemos(): void {
    this.memos = new WeakMap();
    this.memoMaps = [];
    this.tables = new WeakMap();
    this.tableOrder.length = 0;
  }

  reset(): void {
    this.intTop = 0;
    this.floatTop = 0;
  }

  /** n int32 slots; contents are undefined (not zeroed). */
  int32(n: number): Int32Array {
    if (this.intTop + n > this.ints.length) {
      // Earlier views keep the old buffer alive until the query ends.
      this.ints = new Int32Array(Math.max(n, this.ints.length * 2));
      this.intTop = 0;
    }
    const v = this.ints.subarray(this.intTop, this.intTop + n);
    this.intTop += n;
    return v;
  }

  /** n float32 slots; contents are undefined (not zeroed). */
  float32(n: number): Float32Array {
    if (this.floatTop + n > this.floats.length) {
      this.floats = new Float32Array(Math.max(n, this.floats.length * 2));
      this.floatTop = 0;
    }
    const v = this.floats.subarray(this.floatTop, this.floatTop + n);
    this.floatTop += n;
    return v;
  }
}

/** Terms whose memos a ScratchArena (one index) keeps, across its fields (about 100 bytes each). */
const MEMO_LIMIT = 16_384;
/** Owners (posting stores) a ScratchArena keeps memos for: the text fields of a few views. */
const MEMO_OWNER_LIMIT = 256;

/** Score tables a ScratchArena (one index) keeps: 15 KB each for text fields, 1 MB in all. */
const TABLE_LIMIT = 64;
