import type { ScratchArena } from './scratch-arena.js';

/**
 * The sum of many hit lists (a fuzzy or prefix expansion's dozens of terms, a long `should`) by
 * document slot instead of by merging: each list is added into a per-document float64 accumulator,
 * list after list, so each document's sum is taken in list order, as the merge of hit-lists.ts
 * adds it (0 + s is s, so the first addend starts it exactly), and rounded to float once. The merge
 * looks at every list for every document it emits; this reads each posting once, then orders the
 * documents it touched (a sort when few, a scan of the slots when many).
 */

/** A hit list as hit-lists.ts defines it (not imported: hit-lists.ts imports this file). */
interface Hits {
  readonly docs: Int32Array;
  readonly scores: Float32Array;
  readonly length: number;
}

/** How many lists make the accumulator cheaper than the merge (the merge costs lists × documents). */
export const DENSE_UNION_LISTS = 6;

/** The union of `lists` (each non-empty, ascending), scores summed in double then rounded to float. */
export function denseUnionSum(lists: readonly Hits[], total: number, arena: ScratchArena): Hits {
  let slots = 0;
  for (const l of lists) slots = Math.max(slots, (l.docs[l.length - 1] as number) + 1);
  const { marks, stamp } = arena.marks(slots);
  const acc = arena.dense64(slots);
  const docs = arena.int32(total);
  let n = 0;
  for (const l of lists) {
    const ds = l.docs;
    const ss = l.scores;
    for (let i = 0, len = l.length; i < len; i++) {
      const d = ds[i] as number;
      if (marks[d] !== stamp) {
        marks[d] = stamp;
        acc[d] = ss[i] as number;
        docs[n++] = d;
      } else {
        acc[d] = (acc[d] as number) + (ss[i] as number);
      }
    }
  }
  if (n * 16 < slots) docs.subarray(0, n).sort();
  else {
    let k = 0;
    for (let d = 0; d < slots; d++) if (marks[d] === stamp) docs[k++] = d;
  }
  const scores = arena.float32(n);
  for (let k = 0; k < n; k++) scores[k] = acc[docs[k] as number] as number;
  return { docs, scores, length: n };
}
