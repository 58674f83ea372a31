/**
 * Picks the hits at positions from+1 .. from+size of one total order without sorting everything.
 *
 * The order is given by `before(a, b)`, which must be a strict total order over hit indices. For
 * relevance order that is: higher score first, then lower ordinal first. Ordinals are write order
 * (Lucene's doc id order within one segment), so documents with equal scores come out oldest
 * write first, and a re-indexed document moves behind its equals. Because the order is total, the
 * pages of a walk with any page size partition the full ordered list: nothing repeats or is skipped
 * while the index is unchanged.
 *
 * Small windows use a bounded heap of size from+size (most hits are rejected after one
 * comparison); deep windows use quickselect twice (O(n)) and sort only the `size` hits returned.
 */

/** `true` when hit `a` comes before hit `b`. */
export type Before = (a: number, b: number) => boolean;

const HEAP_LIMIT = 512;

/**
 * Indices (0..n-1) of the hits in the window, in order. `scratch`, when given, provides the
 * working array of the quickselect path (a query's scratch arena), so deep pages allocate only the
 * window.
 */
export function selectWindow(n: number, from: number, size: number, before: Before, scratch?: (n: number) => Int32Array): Int32Array {
  const end = Math.min(n, from + size);
  if (from >= end) return new Int32Array(0);
  if (end <= HEAP_LIMIT || end * 8 < n) return heapWindow(n, from, end, before);
  const idx = scratch === undefined ? new Int32Array(n) : scratch(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  quickselect(idx, 0, n - 1, from, before);
  quickselect(idx, from, n - 1, end - 1, before);
  const window = idx.slice(from, end);
  return sortIndices(window, before);
}

function sortIndices(arr: Int32Array, before: Before): Int32Array {
  const list = Array.from(arr);
  list.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  return Int32Array.from(list);
}

/** A max-heap on "worst first" of capacity `end`: the root is the hit that would be dropped next. */
function heapWindow(n: number, from: number, end: number, before: Before): Int32Array {
  const heap = new Int32Array(end);
  let size = 0;
  const worse = (a: number, b: number) => before(b, a);
  const up = (i: number) => {
    const x = heap[i] as number;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const y = heap[p] as number;
      if (!worse(x, y)) break;
      heap[i] = y;
      i = p;
    }
    heap[i] = x;
  };
  const down = (i: number) => {
    const x = heap[i] as number;
    while (true) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      const c = r < size && worse(heap[r] as number, heap[l] as number) ? r : l;
      if (!worse(heap[c] as number, x)) break;
      heap[i] = heap[c] as number;
      i = c;
    }
    heap[i] = x;
  };
  for (let i = 0; i < n; i++) {
    if (size < end) {
      heap[size] = i;
      up(size++);
    } else if (before(i, heap[0] as number)) {
      heap[0] = i;
      down(0);
    }
  }
  // The heap holds the best `end` hits; only the last `size` of them need to be put in order.
  const best = heap.slice(0, size);
  if (from >= size) return new Int32Array(0);
  if (from > 0) quickselect(best, 0, size - 1, from, before);
  return sortIndices(best.subarray(from, size), before);
}

/** Rearranges idx[lo..hi] so that idx[k] holds the k-th hit in order, smaller ones before it. */
function quickselect(idx: Int32Array, lo: number, hi: number, k: number, before: Before): void {
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // Median of three as pivot keeps sorted inputs (equal scores in ordinal order) linear.
    const a = idx[lo] as number;
    const b = idx[mid] as number;
    const c = idx[hi] as number;
    const pivot = before(a, b) ? (before(b, c) ? b : before(a, c) ? c : a) : before(a, c) ? a : before(b, c) ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(idx[i] as number, pivot)) i++;
      while (before(pivot, idx[j] as number)) j--;
      if (i <= j) {
        const t = idx[i] as number;
        idx[i] = idx[j] as number;
        idx[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/**
 * selectWindow for relevance order (score descending, then ordinal ascending) over parallel arrays:
 * the same indices in the same order, found without comparing every hit for deep windows.
 *
 * A non-negative float32's bit pattern orders like its value, so one pass finds the range of the
 * patterns and a second counts the hits per bucket (4,096 of equal width over it), a walk down the buckets
 * finds those holding positions `from` and `end - 1`, and only the hits of the buckets between them
 * (the window plus the ties of its two edge buckets, a few hundred on a real corpus instead of tens
 * of thousands) go through quickselect with the full order. Negative scores (a negative boost in a
 * function the DSL may grow) fall back to selectWindow.
 */
export function selectWindowByScore(
  docs: Int32Array,
  scores: Float32Array,
  n: number,
  from: number,
  size: number,
  scratch?: (n: number) => Int32Array,
  /**
   * Positions of a smallest and a largest score when the caller found them while computing the
   * scores, and knows them all to be neither negative nor NaN: saves the pass that looks for them.
   */
  extremes?: { readonly min: number; readonly max: number },
): Int32Array {
  const end = Math.min(n, from + size);
  const before = byScore(docs, scores);
  if (from >= end || end <= HEAP_LIMIT) return selectWindow(n, from, size, before, scratch);
  const bits = new Uint32Array(scores.buffer, scores.byteOffset, n);
  let minBits = 0x7f800000;
  let maxBits = 0;
  if (extremes !== undefined) {
    minBits = bits[extremes.min] as number;
    maxBits = bits[extremes.max] as number;
  } else {
    for (let i = 0; i < n; i++) {
      const b = bits[i] as number;
      // Negative (sign bit) or NaN: the bit order no longer follows the value order.
      if (b > 0x7f800000) return selectWindow(n, from, size, before, scratch);
      if (b < minBits) minBits = b;
      if (b > maxBits) maxBits = b;
    }
  }
  // Buckets of equal width in bit space over the scores' range (finer than a fixed split of the bits).
  let shift = 0;
  while ((maxBits - minBits) >>> shift >= BUCKETS) shift++;
  const counts = new Int32Array(BUCKETS);
  for (let i = 0; i < n; i++) {
    const c = ((bits[i] as number) - minBits) >>> shift;
    counts[c] = (counts[c] as number) + 1;
  }
  // Walking down from the best bucket: `top` holds position `from`, `low` holds position end - 1.
  let above = 0;
  let top = BUCKETS - 1;
  while (above + (counts[top] as number) <= from) above += counts[top--] as number;
  let through = above;
  let low = top;
  while (through + (counts[low] as number) < end) through += counts[low--] as number;
  through += counts[low] as number;
  const m = through - above;
  const cand = scratch === undefined ? new Int32Array(m) : scratch(m);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const c = ((bits[i] as number) - minBits) >>> shift;
    if (c >= low && c <= top) cand[k++] = i;
  }
  const lo = from - above;
  const hi = end - 1 - above;
  quickselect(cand, 0, m - 1, lo, before);
  quickselect(cand, lo, m - 1, hi, before);
  return sortIndices(cand.slice(lo, hi + 1), before);
}

const BUCKETS = 1 << 12;

/** Relevance order over parallel arrays: score descending, then ordinal ascending. */
export function byScore(docs: Int32Array, scores: Float32Array): Before {
  return (a, b) => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    return sa > sb || (sa === sb && (docs[a] as number) < (docs[b] as number));
  };
}
