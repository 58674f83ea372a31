import type { ScratchArena } from './scratch-arena.js';
import { DENSE_UNION_LISTS, denseUnionSum } from './dense-union.js';

/**
 * Combinations of hit lists (ascending ordinals with float32 scores) with Lucene's arithmetic:
 * conjunctions and disjunctions sum clause scores in double and round to float once
 * (ConjunctionScorer, DisjunctionSumScorer), ReqOptSumScorer adds in float, dis_max takes the best
 * plus tie_breaker times the rest. Outputs live in the query's scratch arena.
 */

/** Matching live ordinals, ascending, with their scores (views may be longer than `length`). */
export interface Hits {
  readonly docs: Int32Array;
  readonly scores: Float32Array;
  readonly length: number;
}

/** No hits. */
export const EMPTY: Hits = { docs: new Int32Array(0), scores: new Float32Array(0), length: 0 };

const f = Math.fround;

/** Every score multiplied by a boost (a boosted bool or query_string). */
export function scale(h: Hits, boost: number, arena: ScratchArena): Hits {
  const scores = arena.float32(h.length);
  for (let i = 0; i < h.length; i++) scores[i] = f((h.scores[i] as number) * f(boost));
  return { docs: h.docs, scores, length: h.length };
}

/** Docs in every list; scores summed in double and rounded to float (ConjunctionScorer). */
export function intersectSum(lists: readonly Hits[], arena: ScratchArena): Hits {
  if (lists.length === 1) return lists[0] as Hits;
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  const lead = sorted[0] as Hits;
  const docs = arena.int32(lead.length);
  const scores = arena.float32(lead.length);
  const pos = new Int32Array(sorted.length);
  let k = 0;
  outer: for (let i = 0; i < lead.length; i++) {
    const d = lead.docs[i] as number;
    let sum = lead.scores[i] as number;
    for (let j = 1; j < sorted.length; j++) {
      const l = sorted[j] as Hits;
      let p = pos[j] as number;
      while (p < l.length && (l.docs[p] as number) < d) p++;
      pos[j] = p;
      if (p >= l.length) break outer;
      if (l.docs[p] !== d) continue outer;
      sum += l.scores[p] as number;
    }
    docs[k] = d;
    scores[k] = sum;
    k++;
  }
  return { docs, scores, length: k };
}

export function intersectKeepLeft(left: Hits, right: Hits, arena: ScratchArena): Hits {
  const docs = arena.int32(Math.min(left.length, right.length));
  const scores = arena.float32(docs.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < left.length && j < right.length) {
    const a = left.docs[i] as number;
    const b = right.docs[j] as number;
    if (a < b) i++;
    else if (b < a) j++;
    else {
      docs[k] = a;
      scores[k++] = left.scores[i] as number;
      i++;
      j++;
    }
  }
  return { docs, scores, length: k };
}

/** ReqOptSumScorer: float(required) + float(optional) where the optional clause matches. */
export function addOptional(req: Hits, opt: Hits, arena: ScratchArena): Hits {
  const scores = arena.float32(req.length);
  let j = 0;
  for (let i = 0; i < req.length; i++) {
    const d = req.docs[i] as number;
    while (j < opt.length && (opt.docs[j] as number) < d) j++;
    const s = req.scores[i] as number;
    scores[i] = j < opt.length && opt.docs[j] === d ? f(s + (opt.scores[j] as number)) : s;
  }
  return { docs: req.docs, scores, length: req.length };
}

export function exclude(base: Hits, remove: Hits, arena: ScratchArena): Hits {
  const docs = arena.int32(base.length);
  const scores = arena.float32(base.length);
  let j = 0;
  let k = 0;
  for (let i = 0; i < base.length; i++) {
    const d = base.docs[i] as number;
    while (j < remove.length && (remove.docs[j] as number) < d) j++;
    if (j < remove.length && remove.docs[j] === d) continue;
    docs[k] = d;
    scores[k++] = base.scores[i] as number;
  }
  return { docs, scores, length: k };
}

/**
 * Docs in at least `minMatch` lists; scores summed in double, rounded to float
 * (DisjunctionSumScorer / BooleanScorer).
 */
export function unionSum(lists: readonly Hits[], minMatch: number, arena: ScratchArena): Hits {
  return merge(lists, minMatch, 'sum', 0, arena);
}

export function unionAll(lists: readonly Hits[], arena: ScratchArena): Hits {
  return merge(lists, 1, 'sum', 0, arena);
}

/** DisjunctionMaxQuery: max + tieBreaker * (sum of the others). */
export function disMax(lists: readonly Hits[], tieBreaker: number, boost: number, arena: ScratchArena): Hits {
  const h = merge(lists, 1, 'max', tieBreaker, arena);
  return boost === 1 ? h : scale(h, boost, arena);
}

export function merge(lists: readonly Hits[], minMatch: number, mode: 'sum' | 'max', tie: number, arena: ScratchArena): Hits {
  const live = lists.filter((l) => l.length > 0);
  if (live.length < minMatch) return EMPTY;
  if (live.length === 1 && minMatch <= 1) return live[0] as Hits;
  if (live.length === 2 && mode === 'sum' && minMatch <= 1) return union2(live[0] as Hits, live[1] as Hits, arena);
  let total = 0;
  for (const l of live) total += l.length;
  if (live.length >= DENSE_UNION_LISTS && mode === 'sum' && minMatch <= 1) return denseUnionSum(live, total, arena);
  const docs = arena.int32(total);
  const scores = arena.float32(total);
  const pos = new Int32Array(live.length);
  const m = live.length;
  let k = 0;
  const fTie = f(tie);
  while (true) {
    let min = 0x7fffffff;
    for (let j = 0; j < m; j++) {
      const l = live[j] as Hits;
      const p = pos[j] as number;
      if (p < l.length && (l.docs[p] as number) < min) min = l.docs[p] as number;
    }
    if (min === 0x7fffffff) break;
    let sum = 0;
    let max = -Infinity;
    let count = 0;
    for (let j = 0; j < m; j++) {
      const l = live[j] as Hits;
      const p = pos[j] as number;
      if (p < l.length && l.docs[p] === min) {
        const s = l.scores[p] as number;
        sum += s;
        if (s > max) max = s;
        count++;
        pos[j] = p + 1;
      }
    }
    if (count < minMatch) continue;
    docs[k] = min;
    // DisjunctionMaxScorer: (float) (max + otherScoreSum * tieBreakerMultiplier), the sum in double.
    scores[k] = mode === 'sum' ? sum : fTie === 0 ? max : max + (sum - max) * fTie;
    k++;
  }
  return { docs, scores, length: k };
}

/** The common two-term `match`: a two-pointer union summing scores (float + float in double, then float). */
function union2(a: Hits, b: Hits, arena: ScratchArena): Hits {
  const docs = arena.int32(a.length + b.length);
  const scores = arena.float32(a.length + b.length);
  const ad = a.docs;
  const bd = b.docs;
  const as = a.scores;
  const bs = b.scores;
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const x = ad[i] as number;
    const y = bd[j] as number;
    if (x < y) {
      docs[k] = x;
      scores[k++] = as[i++] as number;
    } else if (y < x) {
      docs[k] = y;
      scores[k++] = bs[j++] as number;
    } else {
      docs[k] = x;
      scores[k++] = (as[i++] as number) + (bs[j++] as number);
    }
  }
  while (i < a.length) {
    docs[k] = ad[i] as number;
    scores[k++] = as[i++] as number;
  }
  while (j < b.length) {
    docs[k] = bd[j] as number;
    scores[k++] = bs[j++] as number;
  }
  return { docs, scores, length: k };
}
