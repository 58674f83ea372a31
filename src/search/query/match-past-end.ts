import { bm25, idf, termWeight } from './bm25.js';
import type { TextField } from '../index/text-field.js';
import { FREQ_BITS } from '../index/posting-store.js';
import type { ScratchArena } from './scratch-arena.js';
import { bestPostingOf, bestTermScore, EMPTY_DOCS, EMPTY_SCORES, termScore, type Term, type TopK } from './match-terms.js';

/**
 * A page of a `match` past its last hit: no window, only the exact total and the best score, found
 * without scoring every document into a window (matchTopK, match-top-k.ts, asks when the page is
 * deep).
 */

/**
 * The number of live documents of the terms (`terms` in query order) and their best score, scoring
 * only the documents of two terms or more.
 *
 * The total is the sum of the terms' live document counts (docFreq) less, for every live document
 * in m >= 2 of the lists, m - 1. A document of one term scores at most that term's best score, and
 * the document holding a term's best posting scores at least that (term scores are not negative;
 * fround is monotone): so the best score is the larger of the terms' best scores (remembered per
 * term, see bestScore) and the best sum among documents of several terms, summed in double in
 * query order as unionSum does.
 *
 * Two terms take pastEndTwo (a merge of the two lists, cheaper still). With more, the shared
 * documents are found with two bit sets of the ordinals (8 KB at 63k documents: they
 * stay in the first-level cache): `seen` (in an earlier term) and `shared` (in two terms or more,
 * live). Their scores are then summed term by term in query order, into accumulators indexed by
 * the rank of the document among the shared ones (found by walking both in ordinal order). Per
 * posting that is two bit tests; per-document arrays (marks, first terms, accumulators: about 1 MB
 * at 63k documents) touched at random per posting mostly missed the cache when queries of other
 * terms ran in between.
 *
 * When the union holds more than `stopAbove` documents the page is not past the end after all
 * (each term alone was within it, their union is not): total -1 then, and the caller's deepWindow
 * does the work.
 */
export function pastEndScan(terms: readonly Term[], live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number, stopAbove: number): { total: number; maxScore: number } {
  if (terms.length === 2) return pastEndTwo(terms, live, norms, cache, arena, avgdl, stopAbove);
  const words = (live.length >>> 5) + 1;
  const seen = arena.int32(words).fill(0);
  const shared = arena.int32(words).fill(0);
  let sumDocFreq = 0;
  let overlap = 0;
  for (let ti = 0; ti < terms.length; ti++) {
    const t = terms[ti] as Term;
    sumDocFreq += t.store.docFreq(t.id);
    const ps = t.postings;
    for (let i = 0, n = t.length; i < n; i++) {
      const d = (ps[i] as number) >>> FREQ_BITS;
      const w = d >>> 5;
      const bit = 1 << (d & 31);
      const s = seen[w] as number;
      if ((s & bit) === 0) seen[w] = s | bit;
      else if (live[d] === 1) {
        overlap++;
        shared[w] = (shared[w] as number) | bit;
      }
    }
  }
  const total = sumDocFreq - overlap;
  if (total > stopAbove) return { total: -1, maxScore: Number.NaN };
  let best = bestTermScore(terms, live, norms, cache, arena, avgdl);
  if (overlap === 0) return { total, maxScore: best };
  // The shared documents in ordinal order.
  const docs = arena.int32(overlap);
  let m = 0;
  for (let w = 0; w < words; w++) {
    let x = shared[w] as number;
    while (x !== 0) {
      const low = x & -x;
      docs[m++] = (w << 5) | (31 - Math.clz32(low));
      x ^= low;
    }
  }
  const acc = arena.dense64(m);
  acc.fill(0, 0, m);
  for (const t of terms) {
    const ps = t.postings;
    let k = 0;
    for (let i = 0, n = t.length; i < n; i++) {
      const p = ps[i] as number;
      const d = p >>> FREQ_BITS;
      if (((shared[d >>> 5] as number) & (1 << (d & 31))) === 0) continue;
      while ((docs[k] as number) < d) k++;
      // 0 + s is s: the first term's score starts the sum exactly.
      acc[k] = (acc[k] as number) + termScore(t, p, norms[d] as number, cache);
      k++;
    }
  }
  let bestSum = -Infinity;
  for (let k = 0; k < m; k++) if ((acc[k] as number) > bestSum) bestSum = acc[k] as number;
  if (Math.fround(bestSum) > best) best = Math.fround(bestSum);
  return { total, maxScore: best };
}

/** pastEndScan for two terms (most queries): mergeTwo, which does not need the bit sets' second pass. */
function pastEndTwo(terms: readonly Term[], live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number, stopAbove: number): { total: number; maxScore: number } {
  const a = terms[0] as Term;
  const b = terms[1] as Term;
  const shared = mergeTwo(a, b, live, norms, cache);
  const total = a.store.docFreq(a.id) + b.store.docFreq(b.id) - shared.overlap;
  if (total > stopAbove) return { total: -1, maxScore: Number.NaN };
  let best = bestTermScore(terms, live, norms, cache, arena, avgdl);
  if (shared.bestSum !== -Infinity && Math.fround(shared.bestSum) > best) best = Math.fround(shared.bestSum);
  return { total, maxScore: best };
}

/** What a merge of postings found in the live documents of two terms or more. */
interface Shared {
  /** The sum over those documents of (number of their terms - 1). */
  overlap: number;
  /** Their best score, in double before the rounding to float (-Infinity when none). */
  bestSum: number;
}

/**
 * The shared documents of two posting lists. The pointers advance without a branch on which is
 * behind (a list moves when its ordinal is not above the other's): the comparison is as likely
 * one way as the other, and a mispredicted branch per posting cost more than the merge itself.
 */
function mergeTwo(a: Term, b: Term, live: Uint8Array, norms: Uint8Array, cache: Float32Array): Shared {
  const pa = a.postings;
  const pb = b.postings;
  const na = a.length;
  const nb = b.length;
  let i = 0;
  let j = 0;
  let overlap = 0;
  let bestSum = -Infinity;
  while (i < na && j < nb) {
    const x = pa[i] as number;
    const y = pb[j] as number;
    const dx = x >>> FREQ_BITS;
    const dy = y >>> FREQ_BITS;
    // Ordinals are below 2^27: the differences are exact and their sign bit says which is smaller.
    const aBehind = (dx - dy) >>> 31;
    const bBehind = (dy - dx) >>> 31;
    if (aBehind + bBehind === 0 && live[dx] === 1) {
      overlap++;
      const norm = norms[dx] as number;
      const v = termScore(a, x, norm, cache) + termScore(b, y, norm, cache);
      if (v > bestSum) bestSum = v;
    }
    i += 1 - bBehind;
    j += 1 - aBehind;
  }
  return { overlap, bestSum };
}

/**
 * A deep page past the last hit of a one-word query: total = the term's live document count, best
 * score = its score at its best posting (remembered per term in the arena until the term's postings
 * or the field's average length change). Undefined when the page is not past the end.
 */
// eslint-disable-next-line max-params -- called per query with the scorer's arrays and scalars already in locals; an options object would be an allocation on the deep-page path
export function singleTermPastEnd(word: string, field: TextField, live: Uint8Array, from: number, limit: number, boost: number, avgdl: number, cache: Float32Array, arena: ScratchArena): TopK | undefined {
  const id = field.lookup(word);
  const store = field.postings;
  const docFreq = id < 0 ? 0 : store.docFreq(id);
  if (docFreq === 0) return { docs: EMPTY_DOCS, scores: EMPTY_SCORES, total: 0, maxScore: -Infinity };
  if (docFreq > limit || docFreq > from) return undefined;
  const best = bestPostingOf(store, id, live, field.norms, cache, arena, avgdl);
  const maxScore = best.norm < 0 ? -Infinity : bm25(termWeight(boost, idf(docFreq, field.docCount)), best.freq, cache[best.norm] as number);
  return { docs: EMPTY_DOCS, scores: EMPTY_SCORES, total: docFreq, maxScore };
}
