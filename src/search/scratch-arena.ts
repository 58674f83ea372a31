/**
 * Per-index scratch memory for query execution. Every intermediate hit list of a query (posting
 * scores, unions, intersections) is a view into two growing buffers that are reused by the next
 * query, instead of fresh typed arrays: large short-lived typed arrays count as external memory
 * and made V8 run full garbage collections of the whole (large) index heap, which showed up as
 * p95 latency. Views are valid until the next `reset()`, i.e. for one search of one index.
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
