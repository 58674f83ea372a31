import { bm25, idf, termWeight } from './bm25.js';
import type { TextField } from '../index/text-field.js';
import { FREQ_BITS, FREQ_MASK, type PostingStore } from '../index/posting-store.js';
import type { ScratchArena } from './scratch-arena.js';

/**
 * The terms of a `match` query as matchTopK (match-top-k.ts) scores them: each term's postings
 * copied out, its weight and score bound, its memoized scores, and the per-term facts the passes
 * share (its best posting, the live union of the terms).
 */

export interface TopK {
  /** Ordinals of the window's hits (from..k-1 of the order), best first. */
  readonly docs: Int32Array;
  readonly scores: Float32Array;
  /** Exact number of matching live documents when at most `limit`, otherwise limit + 1. */
  readonly total: number;
  /** Best score, -Infinity when nothing matched. */
  readonly maxScore: number;
}

/** The empty window of a page past the end (never written to: callers only read a TopK). */
export const EMPTY_DOCS = new Int32Array(0);
export const EMPTY_SCORES = new Float32Array(0);

export interface Term {
  /** Position among the query's terms (summation order). */
  readonly order: number;
  readonly postings: Int32Array;
  readonly length: number;
  readonly weight: number;
  readonly bound: number;
  readonly store: PostingStore;
  /** Scores by (frequency << 8 | norm byte) for frequencies below 15, NaN until first computed. */
  readonly table: Float32Array;
  readonly id: number;
  pos: number;
}

/**
 * The query's words that occur in the field, as Terms in query order (`order`: the word's
 * position), and the largest document count among them.
 */
export function collectTerms(words: readonly string[], boost: number, field: TextField, avgdl: number, cache: Float32Array, arena: ScratchArena): { terms: Term[]; maxDocFreq: number } {
  const terms: Term[] = [];
  let maxDocFreq = 0;
  words.forEach((w, order) => {
    const id = field.lookup(w);
    if (id < 0) return;
    const store = field.postings;
    const docFreq = store.docFreq(id);
    if (docFreq === 0) return;
    if (docFreq > maxDocFreq) maxDocFreq = docFreq;
    const weight = termWeight(boost, idf(docFreq, field.docCount));
    const postings = arena.int32(store.count(id));
    store.copyTo(id, postings);
    const bound = bm25(weight, store.maxFreq(id), cache[store.minNorm(id)] as number);
    const table = arena.scoreTable(store, id, weight, avgdl, FREQ_MASK << 8);
    terms.push({ order, postings, length: postings.length, weight, bound, store, id, table, pos: 0 });
  });
  return { terms, maxDocFreq };
}

/** The BM25 score of a packed posting of `t` in a document with norm byte `norm` (as scoreTerm computes it). */
export function termScore(t: Term, p: number, norm: number, cache: Float32Array): number {
  const low = p & FREQ_MASK;
  if (low === FREQ_MASK) return bm25(t.weight, t.store.freqOf(t.id, p), cache[norm] as number);
  const slot = (low << 8) | norm;
  let s = t.table[slot] as number;
  if (s !== s) {
    s = bm25(t.weight, low, cache[norm] as number);
    t.table[slot] = s;
  }
  return s;
}

/** The best of the terms' own best scores (see bestScore): what a document of one term can reach. */
export function bestTermScore(terms: readonly Term[], live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number): number {
  let best = -Infinity;
  for (const t of terms) {
    const s = bestScore(t, live, norms, cache, arena, avgdl);
    if (s > best) best = s;
  }
  return best;
}

/** The best score of a term's live postings (-Infinity when none is live), its best posting remembered in the arena. */
function bestScore(t: Term, live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number): number {
  const at = bestPostingOf(t.store, t.id, live, norms, cache, arena, avgdl, t.postings);
  return at.norm < 0 ? -Infinity : bm25(t.weight, at.freq, cache[at.norm] as number);
}

/**
 * bestPosting of a term, remembered per term in the arena until its postings (count only grows,
 * docFreq falls on deletes) or the field's average length change. `postings`, when given, are the
 * term's postings already copied out.
 */
export function bestPostingOf(store: PostingStore, id: number, live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number, postings?: Int32Array): BestPosting {
  const memo = arena.termMemo<BestPosting>(store);
  const count = store.count(id);
  const docFreq = store.docFreq(id);
  let best = memo.get(id);
  if (best === undefined || best.count !== count || best.docFreq !== docFreq || best.avgdl !== avgdl) {
    let ps = postings;
    if (ps === undefined) {
      ps = arena.int32(count);
      store.copyTo(id, ps);
    }
    const at = bestPosting(ps, count, store, id, live, norms, cache);
    best = { freq: at.freq, norm: at.norm, count, docFreq, avgdl };
    memo.set(id, best);
  }
  return best;
}

/** Where a term scores best, and under which statistics that was found. */
interface BestPosting {
  /** Frequency and norm byte of a live posting with the largest freq * normInverse (norm -1: none live). */
  readonly freq: number;
  readonly norm: number;
  /** What it depends on: the term's postings (count only grows, docFreq falls on deletes) and avgdl. */
  readonly count: number;
  readonly docFreq: number;
  readonly avgdl: number;
}


/**
 * The live posting of a term with the largest freq * normInverse: its best score, since every step
 * of bm25 is a monotone float operation of that product (weight >= 0).
 */
export function bestPosting(ps: Int32Array, length: number, store: PostingStore, id: number, live: Uint8Array, norms: Uint8Array, cache: Float32Array): { freq: number; norm: number } {
  let best = -1;
  let bestFreq = 0;
  let bestNorm = -1;
  for (let i = 0; i < length; i++) {
    const p = ps[i] as number;
    const d = p >>> FREQ_BITS;
    if (live[d] !== 1) continue;
    const low = p & FREQ_MASK;
    const freq = low === FREQ_MASK ? store.freqOf(id, p) : low;
    const norm = norms[d] as number;
    // In double (exact: an integer times a float32): Math.fround is monotone, so the largest
    // product also has the largest float product bm25 computes.
    const x = freq * (cache[norm] as number);
    if (x > best) {
      best = x;
      bestFreq = freq;
      bestNorm = norm;
    }
  }
  return { freq: bestFreq, norm: bestNorm };
}

/** Live documents in any of the terms' postings. */
export function countUnion(terms: readonly Term[], live: Uint8Array, arena: ScratchArena): number {
  const { marks, stamp } = arena.marks(live.length);
  let n = 0;
  for (const t of terms) {
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const d = (ps[i] as number) >>> FREQ_BITS;
      if (live[d] === 1 && marks[d] !== stamp) {
        marks[d] = stamp;
        n++;
      }
    }
  }
  return n;
}
