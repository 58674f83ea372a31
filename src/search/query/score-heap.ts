/**
 * The bounded heap of matchTopK (match-top-k.ts): the best k hits so far in two typed arrays
 * (ordinals, scores), the worst at the root, so that a hit enters for log(k) and no object.
 */

/** Heap order: the root is the worst hit (lowest score; among equal scores the highest ordinal). */
function worse(ds: Int32Array, ss: Float32Array, a: number, b: number): boolean {
  const sa = ss[a] as number;
  const sb = ss[b] as number;
  return sa < sb || (sa === sb && (ds[a] as number) > (ds[b] as number));
}

export function heapPush(ds: Int32Array, ss: Float32Array, at: number, d: number, s: number): void {
  ds[at] = d;
  ss[at] = s;
  let i = at;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!worse(ds, ss, i, p)) break;
    swap(ds, ss, i, p);
    i = p;
  }
}

export function heapReplaceRoot(ds: Int32Array, ss: Float32Array, size: number, d: number, s: number): void {
  ds[0] = d;
  ss[0] = s;
  siftDown(ds, ss, size, 0);
}

function siftDown(ds: Int32Array, ss: Float32Array, size: number, at: number): void {
  let i = at;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= size) return;
    const r = l + 1;
    const c = r < size && worse(ds, ss, r, l) ? r : l;
    if (!worse(ds, ss, c, i)) return;
    swap(ds, ss, c, i);
    i = c;
  }
}

function swap(ds: Int32Array, ss: Float32Array, a: number, b: number): void {
  const d = ds[a] as number;
  ds[a] = ds[b] as number;
  ds[b] = d;
  const s = ss[a] as number;
  ss[a] = ss[b] as number;
  ss[b] = s;
}

/** Takes the heap (`size` hits) apart worst first into the hits' order, best first. */
export function drainHeap(heapDocs: Int32Array, heapScores: Float32Array, size: number): { docs: Int32Array; scores: Float32Array } {
  let heapSize = size;
  const docs = new Int32Array(size);
  const scores = new Float32Array(size);
  for (let i = size - 1; i >= 0; i--) {
    docs[i] = heapDocs[0] as number;
    scores[i] = heapScores[0] as number;
    heapSize--;
    if (heapSize > 0) {
      heapDocs[0] = heapDocs[heapSize] as number;
      heapScores[0] = heapScores[heapSize] as number;
      siftDown(heapDocs, heapScores, heapSize, 0);
    }
  }
  return { docs, scores };
}
