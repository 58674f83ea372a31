import { bm25, idf, normInverseCache, termWeight } from './bm25.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import { FREQ_BITS, FREQ_MASK, type PostingStore } from '../index/posting-store.js';
import { EMPTY, type Hits } from './hit-lists.js';
import type { ScratchArena } from './scratch-arena.js';

/** What scoring one term's postings needs of the query's context. */
export interface ScoreContext {
  readonly index: InvertedIndex;
  readonly arena: ScratchArena;
}

/**
 * BM25 hits of one term's posting list (`term` -1: no such term). `statsDocFreq` stands for the
 * term's document frequency in its idf when given (cross_fields blends them across fields).
 */
export function scoreTerm(ctx: ScoreContext, postings: PostingStore, term: number, boost: number, docCount: number, avgdl: number, norms: Uint8Array | undefined, statsDocFreq?: number): Hits {
  if (term < 0) return EMPTY;
  const docFreq = postings.docFreq(term);
  if (docFreq === 0) return EMPTY;
  const weight = termWeight(boost, idf(statsDocFreq ?? docFreq, docCount));
  const cache = normInverseCache(avgdl);
  const one = cache[1] as number;
  const live = ctx.index.live;
  const n = postings.count(term);
  // Decode in place: the packed postings go into `docs`, which the loop overwrites from the front
  // (k <= i) with the live ordinals.
  const docs = ctx.arena.int32(n);
  postings.copyTo(term, docs);
  const scores = ctx.arena.float32(docFreq);
  let k = 0;
  if (norms === undefined) {
    for (let i = 0; i < n; i++) {
      const p = docs[i] as number;
      const d = p >>> FREQ_BITS;
      if (live[d] !== 1) continue;
      const low = p & FREQ_MASK;
      docs[k] = d;
      scores[k] = bm25(weight, low === FREQ_MASK ? postings.freqOf(term, p) : low, one);
      k++;
    }
    return { docs, scores, length: k };
  }
  // A score depends only on (frequency, norm byte): long lists reuse them from a table filled on
  // first use (NaN = not yet computed), which saves the float division chain per posting.
  const table = n > 1024 ? ctx.arena.float32(FREQ_MASK << 8).fill(Number.NaN) : undefined;
  for (let i = 0; i < n; i++) {
    const p = docs[i] as number;
    const d = p >>> FREQ_BITS;
    if (live[d] !== 1) continue;
    const norm = norms[d] as number;
    const low = p & FREQ_MASK;
    let s: number;
    if (low === FREQ_MASK) s = bm25(weight, postings.freqOf(term, p), cache[norm] as number);
    else if (table !== undefined) {
      const slot = (low << 8) | norm;
      s = table[slot] as number;
      if (s !== s) {
        s = bm25(weight, low, cache[norm] as number);
        table[slot] = s;
      }
    } else s = bm25(weight, low, cache[norm] as number);
    docs[k] = d;
    scores[k] = s;
    k++;
  }
  return { docs, scores, length: k };
}
