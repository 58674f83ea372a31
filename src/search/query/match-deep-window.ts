import { FREQ_BITS } from '../index/posting-store.js';
import type { ScratchArena } from './scratch-arena.js';
import { selectWindowByScore } from './top-k.js';
import { countUnion, termScore, type Term, type TopK } from './match-terms.js';

/** What deepWindow is asked: the terms (in query order), the field's arrays, the window and the count limit. */
export interface DeepWindowArgs {
  readonly terms: readonly Term[];
  readonly live: Uint8Array;
  readonly norms: Uint8Array;
  readonly cache: Float32Array;
  readonly arena: ScratchArena;
  readonly from: number;
  readonly size: number;
  readonly limit: number;
  readonly maxDocFreq: number;
  /** The exact union count when already known, else -1. */
  readonly union: number;
}

/**
 * One deepWindow's scratch: a document's double sum at acc[d] (marked with `stamp` in `marks`),
 * the scored documents in first-seen order in `seen`, their float scores at the same positions;
 * `byBound` the terms by ascending bound, byBound[0, first) the non-essential ones.
 */
interface DeepScan {
  readonly marks: Int32Array;
  readonly stamp: number;
  readonly acc: Float64Array;
  readonly seen: Int32Array;
  readonly scores: Float32Array;
  readonly ext: Extremes;
  readonly byBound: readonly Term[];
  readonly first: number;
}

/**
 * The window of a deep page: each live document of the terms' postings gets an accumulator that
 * sums its float term scores in double in query order (`terms` are still in query order), as
 * unionSum does, rounded to float once; the documents come out in first-seen order, which the
 * selection does not need sorted (its order breaks ties on the ordinal itself).
 *
 * With several terms, not every document is scored at first (MaxScore applied term at a time): the
 * terms with the smallest score bounds are "non-essential" as long as the others (essential) still
 * hold PRUNE_MARGIN × (from + size) documents. The documents of the essential terms are scored
 * first, each with all of its terms; a document of the non-essential terms alone scores at most P,
 * the sum of their bounds. When at least from + size scored documents score strictly above P, the
 * first from + size of the whole order are all among them, in the same order (a tie with an unscored
 * document can only happen at or below P), and so is the best score: the rest is never scored.
 * Otherwise the documents of the non-essential terms alone are scored too, and the answer is the
 * full one: the guess only decides how much work is saved.
 */
export function deepWindow(w: DeepWindowArgs): TopK {
  const { terms, live, arena } = w;
  const end = w.from + w.size;
  const byBound = terms.slice().sort((a, b) => a.bound - b.bound || a.order - b.order);
  // byBound[0, first) are non-essential.
  let first = byBound.length;
  let essentialDocs = 0;
  while (first > 0 && essentialDocs < PRUNE_MARGIN * end) {
    const t = byBound[--first] as Term;
    essentialDocs += t.store.docFreq(t.id);
  }
  const { marks, stamp } = arena.marks(live.length);
  const acc = arena.dense64(live.length);
  let cap = 0;
  for (const t of terms) cap += t.length;
  // The best score and the positions of the extreme scores, for the selection (scores here are
  // never negative; NaN only when a term's weight is Infinity, see windowOf).
  const ext: Extremes = { best: -Infinity, least: Infinity, minAt: 0, maxAt: 0 };
  const scan: DeepScan = { marks, stamp, acc, seen: arena.int32(cap), scores: arena.float32(cap), ext, byBound, first };
  if (first === 0) {
    const count = scoreEvery(w, scan);
    roundScores(acc, scan.seen, scan.scores, 0, count, Infinity, ext);
    return windowOf(w, scan, count, true);
  }
  let count = scoreEssential(w, scan);
  let bound = 0;
  for (let j = 0; j < first; j++) bound += (byBound[j] as Term).bound;
  // The same slack as matchTopK's prefix sums: a float-rounded sum of term scores never exceeds it.
  bound *= 1 + 1e-6;
  if (roundScores(acc, scan.seen, scan.scores, 0, count, bound, ext) >= end) return windowOf(w, scan, count, false);
  // Not enough: the documents of the non-essential terms alone, with a second stamp on the same
  // marks (the first still tells the scored documents apart).
  const again = arena.marks(live.length);
  if (again.marks !== marks) return deepWindow(w);
  const known = count;
  count = scoreNonEssential(w, scan, again.stamp, count);
  roundScores(acc, scan.seen, scan.scores, known, count, Infinity, ext);
  return windowOf(w, scan, count, true);
}

/** Every live document of every term, summed term by term in query order; the count of documents seen. */
function scoreEvery(w: DeepWindowArgs, scan: DeepScan): number {
  const { terms, live, norms, cache } = w;
  const { marks, stamp, acc, seen } = scan;
  let count = 0;
  for (const t of terms) {
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const p = ps[i] as number;
      const d = p >>> FREQ_BITS;
      if (live[d] !== 1) continue;
      const s = termScore(t, p, norms[d] as number, cache);
      if (marks[d] !== stamp) {
        marks[d] = stamp;
        acc[d] = s;
        seen[count++] = d;
      } else acc[d] = (acc[d] as number) + s;
    }
  }
  return count;
}

/** The live documents of the essential terms, each with all of its terms; the count of documents seen. */
function scoreEssential(w: DeepWindowArgs, scan: DeepScan): number {
  const { terms, live, norms, cache } = w;
  const { marks, stamp, acc, seen, byBound, first } = scan;
  let count = 0;
  for (let j = first; j < byBound.length; j++) {
    const t = byBound[j] as Term;
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const d = (ps[i] as number) >>> FREQ_BITS;
      if (live[d] === 1 && marks[d] !== stamp) {
        marks[d] = stamp;
        acc[d] = 0;
        seen[count++] = d;
      }
    }
  }
  // Every term in query order adds to the marked documents (0 + s is s: the same sum as scoreEvery's).
  for (const t of terms) {
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const p = ps[i] as number;
      const d = p >>> FREQ_BITS;
      if (marks[d] !== stamp) continue;
      acc[d] = (acc[d] as number) + termScore(t, p, norms[d] as number, cache);
    }
  }
  return count;
}

/**
 * The live documents of the non-essential terms alone (not marked with the scan's stamp), marked
 * with `stamp2`, after the `count` documents seen so far; the new count.
 */
function scoreNonEssential(w: DeepWindowArgs, scan: DeepScan, stamp2: number, count: number): number {
  const { terms, live, norms, cache } = w;
  const { marks, stamp, acc, seen, byBound, first } = scan;
  let n = count;
  for (const t of terms) {
    if (byBound.indexOf(t) >= first) continue;
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const p = ps[i] as number;
      const d = p >>> FREQ_BITS;
      const m = marks[d];
      if (m === stamp || live[d] !== 1) continue;
      const s = termScore(t, p, norms[d] as number, cache);
      if (m !== stamp2) {
        marks[d] = stamp2;
        acc[d] = s;
        seen[n++] = d;
      } else acc[d] = (acc[d] as number) + s;
    }
  }
  return n;
}

/**
 * The window selected from the `count` scored documents, and the total: their count when every
 * document was scored (`complete`), else the union's.
 */
function windowOf(w: DeepWindowArgs, scan: DeepScan, count: number, complete: boolean): TopK {
  const { terms, live, arena, limit } = w;
  const { seen, scores, ext } = scan;
  // The extremes hold only for scores that are numbers: a term weight that overflowed to Infinity
  // (boost * idf above the float range, e.g. a boost of 1e38) scores Infinity - Infinity = NaN,
  // which no comparison above saw; then the selection looks for them (and falls back) itself.
  const extremes = terms.every((t) => t.weight < Infinity) ? { min: ext.minAt, max: ext.maxAt } : undefined;
  const window = selectWindowByScore(seen, scores, count, w.from, w.size, (n) => arena.int32(n), extremes);
  const docs = new Int32Array(window.length);
  const windowScores = new Float32Array(window.length);
  for (let i = 0; i < window.length; i++) {
    const at = window[i] as number;
    docs[i] = seen[at] as number;
    windowScores[i] = scores[at] as number;
  }
  let total: number;
  if (complete) total = count > limit ? limit + 1 : count;
  else if (w.maxDocFreq > limit) total = limit + 1;
  else {
    // After the selection: countUnion takes new marks.
    const n = w.union >= 0 ? w.union : countUnion(terms, live, arena);
    total = n > limit ? limit + 1 : n;
  }
  return { docs, scores: windowScores, total, maxScore: ext.best };
}

/** The best score of a deepWindow and where its smallest and largest scores sit in `scores`. */
interface Extremes {
  best: number;
  least: number;
  minAt: number;
  maxAt: number;
}

/**
 * Rounds the double sums of the documents seen[start..end) to float into scores[start..end), noting
 * the extremes in `ext` (one pass, so that the selection need not look for them); returns how many
 * of these scores are above `bound`.
 */
function roundScores(acc: Float64Array, seen: Int32Array, scores: Float32Array, start: number, end: number, bound: number, ext: Extremes): number {
  let { best, least, minAt, maxAt } = ext;
  let above = 0;
  for (let i = start; i < end; i++) {
    const x = Math.fround(acc[seen[i] as number] as number);
    scores[i] = x;
    if (x > best) {
      best = x;
      maxAt = i;
    }
    if (x < least) {
      least = x;
      minAt = i;
    }
    if (x > bound) above++;
  }
  ext.best = best;
  ext.least = least;
  ext.minAt = minAt;
  ext.maxAt = maxAt;
  return above;
}

/** How many documents, as a multiple of from + size, the essential terms of deepWindow must hold. */
const PRUNE_MARGIN = 2;
