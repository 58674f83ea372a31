import { tokens } from '../index/analyzer.js';
import { avgFieldLength, bm25, idf, normInverseCache, termWeight } from './bm25.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import type { TextField } from '../index/text-field.js';
import type { Mappings } from '../mapping/mapping.js';
import { FREQ_BITS, FREQ_MASK, type PostingStore } from '../index/posting-store.js';
import type { Query } from '../requests/query-dsl.js';
import type { ScratchArena } from './scratch-arena.js';
import { selectWindowByScore } from './top-k.js';

/**
 * The best `k` hits of a `match` query (operator or, no minimum_should_match) on one text field,
 * in relevance order, without building the full hit list.
 *
 * The general path scores every posting of every term into a hit list, merges the lists into a
 * union and then selects the window: three passes over arrays as long as the posting lists. Here
 * the term cursors are merged document at a time, each document's score is computed once (with the
 * same float arithmetic: term scores as in scoreTerm, summed in double in query-term order and
 * rounded to float, as unionSum does) and offered to a bounded heap in typed arrays.
 *
 * When the total need not be counted exactly (some term alone has more live documents than the
 * total-hits limit, so the total is "more than the limit" whatever the union is), documents that
 * cannot enter the heap are skipped without scoring them (MaxScore, Turtle & Flood 1995): each term
 * has an upper bound (its score at its largest frequency in its shortest document); once the heap is
 * full with worst score θ, the terms whose bounds add up to at most θ only score documents that
 * other terms also match. A document enters the heap only with a score strictly above θ because
 * documents arrive in ordinal order and ties go to the smaller ordinal, so skipping documents whose
 * bound is at most θ never changes the result.
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

interface Term {
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
 * The text field a query can be answered from here, or undefined when the general path must run.
 * A negative boost makes every term score negative, and a term's "bound" (its score at its largest
 * frequency in its shortest document) then its lowest score, not its highest: pruning by it would
 * drop the best documents, so such queries take the general path.
 */
export function fastMatchField(query: Query, mappings: Mappings, index: InvertedIndex): TextField | undefined {
  if (query.kind !== 'match' || query.operator !== 'or' || query.msm !== undefined) return undefined;
  if (!(query.boost >= 0)) return undefined;
  if (mappings.field(query.field)?.kind !== 'text') return undefined;
  return index.text.get(query.field);
}

/**
 * Runs a `match` accepted by fastMatchField. `from`/`size` select the window; `limit` is the number
 * of hits counted exactly (track_total_hits; 0 when not tracked). Returns undefined when the query
 * has no tokens (zero_terms_query applies: the general path handles it). Windows with from + size
 * above `maxWindow` (default: no bound) are not selected with the heap, which pays log(k) per
 * accepted hit, but by scoring documents term at a time (only those that can reach the window when
 * the terms' bounds allow it, see deepWindow) and selecting by score buckets.
 */
export function matchTopK(
  query: Extract<Query, { kind: 'match' }>,
  field: TextField,
  live: Uint8Array,
  from: number,
  size: number,
  limit: number,
  arena: ScratchArena,
  maxWindow = Infinity,
): TopK | undefined {
  const words = tokens(query.text);
  if (words.length === 0) return undefined;
  const avgdl = avgFieldLength(field.sumTotalTermFreq, field.docCount);
  const cache = arena.normInverse(avgdl, normInverseCache);
  const norms = field.norms;
  // One term, a deep page past its last hit: the total and the best score come from the term's
  // statistics, without reading its postings (but once per change of the term).
  if (from + size > maxWindow && words.length === 1) {
    const past = singleTermPastEnd(words[0] as string, field, live, from, limit, query.boost, avgdl, cache, arena);
    if (past !== undefined) return past;
  }
  const terms: Term[] = [];
  let maxDocFreq = 0;
  words.forEach((w, order) => {
    const id = field.lookup(w);
    if (id < 0) return;
    const store = field.postings;
    const docFreq = store.docFreq(id);
    if (docFreq === 0) return;
    if (docFreq > maxDocFreq) maxDocFreq = docFreq;
    const weight = termWeight(query.boost, idf(docFreq, field.docCount));
    const postings = arena.int32(store.count(id));
    store.copyTo(id, postings);
    const bound = bm25(weight, store.maxFreq(id), cache[store.minNorm(id)] as number);
    const table = arena.scoreTable(store, id, weight, avgdl, FREQ_MASK << 8);
    terms.push({ order, postings, length: postings.length, weight, bound, store, id, table, pos: 0 });
  });
  // The total: more than the limit when one term alone exceeds it, else one cheap pass over the
  // ordinals (no scoring), so that scoring can skip what cannot enter the window.
  let total = -1;
  if (from + size > maxWindow) {
    // A deep page past the last hit (the union is at least the largest list, so only when that is
    // within `from`): no window, only the exact total and the best score (pastEndScan; one term
    // below, from its best posting), instead of scoring every document into a window.
    // Not when a term's weight overflowed to Infinity (a huge boost): its documents score NaN, so
    // "the document of a term's best posting scores at least that" no longer holds (deepWindow,
    // as before, counts only the scores that are numbers).
    if (maxDocFreq <= limit && maxDocFreq <= from && terms.every((t) => t.weight < Infinity)) {
      if (terms.length <= 1) total = maxDocFreq;
      else {
        const end = pastEndScan(terms, live, norms, cache, arena, avgdl, from);
        if (end.total >= 0 && end.total <= from && end.total <= limit) return { docs: EMPTY_DOCS, scores: EMPTY_SCORES, total: end.total, maxScore: end.maxScore };
        total = end.total;
      }
    }
    // A deep window: every document is scored anyway, so term at a time into dense accumulators
    // (no merge of cursors, no heap of log(k) per hit), then a selection of the window.
    if (total < 0 || total > from) return deepWindow(terms, live, norms, cache, arena, from, size, limit, maxDocFreq, total);
  }
  if (total < 0) total = maxDocFreq > limit ? limit + 1 : terms.length === 1 ? maxDocFreq : countUnion(terms, live, arena);
  // A page past the last hit is empty but still reports the best score: a heap of one, which
  // prunes almost every document, finds it.
  const pastEnd = total <= limit && total <= from;
  const k = pastEnd ? Math.min(1, from + size) : from + size;
  const heapDocs = new Int32Array(k);
  const heapScores = new Float32Array(k);
  let heapSize = 0;
  let maxScore = -Infinity;

  // Terms by ascending bound; prefix[j] = sum of the bounds of terms[0..j-1] (in double, then a
  // little slack so that the rounding of the real sums can never exceed it).
  terms.sort((a, b) => a.bound - b.bound || a.order - b.order);
  const n = terms.length;
  const prefix = new Float64Array(n + 1);
  for (let j = 0; j < n; j++) prefix[j + 1] = (prefix[j] as number) + (terms[j] as Term).bound;
  for (let j = 1; j <= n; j++) prefix[j] = (prefix[j] as number) * (1 + 1e-6);
  const contrib = new Float64Array(words.length);
  const matched = new Uint8Array(words.length);
  /** Terms before this index are non-essential: they only add to documents the others found. */
  let firstEssential = 0;
  let theta = -Infinity;

  // One term past the end: only the best score, which grows with freq * normInverse (every step of
  // bm25 is a monotone float operation), so the pass looks for the largest product, not scores.
  if (n === 1 && pastEnd && k > 0) {
    const t = terms[0] as Term;
    const at = bestPosting(t.postings, t.length, t.store, t.id, live, norms, cache);
    if (at.norm >= 0) maxScore = bm25(t.weight, at.freq, cache[at.norm] as number);
    t.pos = t.length;
  }
  // One term: its own score is the document's, so one tight pass over its postings.
  if (n === 1 && k > 0 && !pastEnd) {
    const t = terms[0] as Term;
    const ps = t.postings;
    for (let i = 0; i < t.length; i++) {
      const p = ps[i] as number;
      const d = p >>> FREQ_BITS;
      if (live[d] !== 1) continue;
      const score = Math.fround(termScore(t, p, norms[d] as number, cache));
      if (heapSize < k) heapPush(heapDocs, heapScores, heapSize++, d, score);
      else if (score > (heapScores[0] as number)) heapReplaceRoot(heapDocs, heapScores, heapSize, d, score);
      if (score > maxScore) maxScore = score;
    }
    t.pos = t.length;
  }

  for (;;) {
    // The next candidate: the smallest current ordinal among the essential terms.
    let d = 0x7fffffff;
    for (let j = firstEssential; j < n; j++) {
      const t = terms[j] as Term;
      if (t.pos < t.length) {
        const od = (t.postings[t.pos] as number) >>> FREQ_BITS;
        if (od < d) d = od;
      }
    }
    if (d === 0x7fffffff) break;
    let partial = 0;
    for (let j = firstEssential; j < n; j++) {
      const t = terms[j] as Term;
      if (t.pos < t.length && (t.postings[t.pos] as number) >>> FREQ_BITS === d) {
        const p = t.postings[t.pos] as number;
        t.pos++;
        if (live[d] !== 1) continue;
        const s = termScore(t, p, norms[d] as number, cache);
        contrib[t.order] = (contrib[t.order] as number) + s;
        matched[t.order] = 1;
        partial += s;
      }
    }
    if (live[d] !== 1) continue;
    // The non-essential terms, best bound first, while they can still lift the document above θ.
    let ok = true;
    for (let j = firstEssential - 1; j >= 0; j--) {
      if (heapSize === k && partial + (prefix[j + 1] as number) <= theta) {
        ok = false;
        break;
      }
      const t = terms[j] as Term;
      let pos = t.pos;
      while (pos < t.length && (t.postings[pos] as number) >>> FREQ_BITS < d) pos++;
      t.pos = pos;
      if (pos < t.length && (t.postings[pos] as number) >>> FREQ_BITS === d) {
        const p = t.postings[pos] as number;
        t.pos = pos + 1;
        const s = termScore(t, p, norms[d] as number, cache);
        contrib[t.order] = (contrib[t.order] as number) + s;
        matched[t.order] = 1;
        partial += s;
      }
    }
    // The score exactly as unionSum computes it: float term scores summed in query order.
    let sum = 0;
    for (let o = 0; o < words.length; o++) {
      if (matched[o] === 1) {
        sum += contrib[o] as number;
        contrib[o] = 0;
        matched[o] = 0;
      }
    }
    if (!ok || k === 0) continue;
    const score = Math.fround(sum);
    if (score > maxScore) maxScore = score;
    if (heapSize < k) {
      heapPush(heapDocs, heapScores, heapSize++, d, score);
      if (heapSize === k) {
        theta = heapScores[0] as number;
        while (firstEssential < n && (prefix[firstEssential + 1] as number) <= theta) firstEssential++;
      }
    } else if (score > (heapScores[0] as number)) {
      heapReplaceRoot(heapDocs, heapScores, heapSize, d, score);
      theta = heapScores[0] as number;
      while (firstEssential < n && (prefix[firstEssential + 1] as number) <= theta) firstEssential++;
    }
  }
  // Take the heap apart worst first: positions heapSize-1 .. 0 of the order.
  const count = heapSize;
  const orderedDocs = new Int32Array(count);
  const orderedScores = new Float32Array(count);
  for (let i = count - 1; i >= 0; i--) {
    orderedDocs[i] = heapDocs[0] as number;
    orderedScores[i] = heapScores[0] as number;
    heapSize--;
    if (heapSize > 0) {
      heapDocs[0] = heapDocs[heapSize] as number;
      heapScores[0] = heapScores[heapSize] as number;
      siftDown(heapDocs, heapScores, heapSize, 0);
    }
  }
  const start = pastEnd ? count : Math.min(from, count);
  return { docs: orderedDocs.subarray(start), scores: orderedScores.subarray(start), total, maxScore };
}

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
function pastEndScan(terms: readonly Term[], live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number, stopAbove: number): { total: number; maxScore: number } {
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

/** The best of the terms' own best scores (see bestScore): what a document of one term can reach. */
function bestTermScore(terms: readonly Term[], live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number): number {
  let best = -Infinity;
  for (const t of terms) {
    const s = bestScore(t, live, norms, cache, arena, avgdl);
    if (s > best) best = s;
  }
  return best;
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
function bestPostingOf(store: PostingStore, id: number, live: Uint8Array, norms: Uint8Array, cache: Float32Array, arena: ScratchArena, avgdl: number, postings?: Int32Array): BestPosting {
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
 * A deep page past the last hit of a one-word query: total = the term's live document count, best
 * score = its score at its best posting (remembered per term in the arena until the term's postings
 * or the field's average length change). Undefined when the page is not past the end.
 */
function singleTermPastEnd(word: string, field: TextField, live: Uint8Array, from: number, limit: number, boost: number, avgdl: number, cache: Float32Array, arena: ScratchArena): TopK | undefined {
  const id = field.lookup(word);
  const store = field.postings;
  const docFreq = id < 0 ? 0 : store.docFreq(id);
  if (docFreq === 0) return { docs: EMPTY_DOCS, scores: EMPTY_SCORES, total: 0, maxScore: -Infinity };
  if (docFreq > limit || docFreq > from) return undefined;
  const best = bestPostingOf(store, id, live, field.norms, cache, arena, avgdl);
  const maxScore = best.norm < 0 ? -Infinity : bm25(termWeight(boost, idf(docFreq, field.docCount)), best.freq, cache[best.norm] as number);
  return { docs: EMPTY_DOCS, scores: EMPTY_SCORES, total: docFreq, maxScore };
}

/**
 * The live posting of a term with the largest freq * normInverse: its best score, since every step
 * of bm25 is a monotone float operation of that product (weight >= 0).
 */
function bestPosting(ps: Int32Array, length: number, store: PostingStore, id: number, live: Uint8Array, norms: Uint8Array, cache: Float32Array): { freq: number; norm: number } {
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

/** The BM25 score of a packed posting of `t` in a document with norm byte `norm` (as scoreTerm computes it). */
function termScore(t: Term, p: number, norm: number, cache: Float32Array): number {
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
function deepWindow(
  terms: readonly Term[],
  live: Uint8Array,
  norms: Uint8Array,
  cache: Float32Array,
  arena: ScratchArena,
  from: number,
  size: number,
  limit: number,
  maxDocFreq: number,
  /** The exact union count when already known, else -1. */
  union = -1,
): TopK {
  const end = from + size;
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
  const seen = arena.int32(cap);
  const scores = arena.float32(cap);
  let count = 0;
  // The best score and the positions of the extreme scores, for the selection (scores here are
  // never negative; NaN only when a term's weight is Infinity, see below).
  const ext: Extremes = { best: -Infinity, least: Infinity, minAt: 0, maxAt: 0 };
  let complete = true;
  if (first === 0) {
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
    roundScores(acc, seen, scores, 0, count, Infinity, ext);
  } else {
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
    // Every term in query order adds to the marked documents (0 + s is s: the same sum as above).
    for (const t of terms) {
      const ps = t.postings;
      for (let i = 0; i < t.length; i++) {
        const p = ps[i] as number;
        const d = p >>> FREQ_BITS;
        if (marks[d] !== stamp) continue;
        acc[d] = (acc[d] as number) + termScore(t, p, norms[d] as number, cache);
      }
    }
    let bound = 0;
    for (let j = 0; j < first; j++) bound += (byBound[j] as Term).bound;
    // The same slack as matchTopK's prefix sums: a float-rounded sum of term scores never exceeds it.
    bound *= 1 + 1e-6;
    if (roundScores(acc, seen, scores, 0, count, bound, ext) < end) {
      // Not enough: the documents of the non-essential terms alone, with a second stamp on the same
      // marks (the first still tells the scored documents apart).
      const again = arena.marks(live.length);
      if (again.marks !== marks) return deepWindow(terms, live, norms, cache, arena, from, size, limit, maxDocFreq, union);
      const stamp2 = again.stamp;
      const known = count;
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
            seen[count++] = d;
          } else acc[d] = (acc[d] as number) + s;
        }
      }
      roundScores(acc, seen, scores, known, count, Infinity, ext);
    } else complete = false;
  }
  // The extremes hold only for scores that are numbers: a term weight that overflowed to Infinity
  // (boost * idf above the float range, e.g. a boost of 1e38) scores Infinity - Infinity = NaN,
  // which no comparison above saw; then the selection looks for them (and falls back) itself.
  const extremes = terms.every((t) => t.weight < Infinity) ? { min: ext.minAt, max: ext.maxAt } : undefined;
  const window = selectWindowByScore(seen, scores, count, from, size, (n) => arena.int32(n), extremes);
  const docs = new Int32Array(window.length);
  const windowScores = new Float32Array(window.length);
  for (let i = 0; i < window.length; i++) {
    const at = window[i] as number;
    docs[i] = seen[at] as number;
    windowScores[i] = scores[at] as number;
  }
  let total: number;
  if (complete) total = count > limit ? limit + 1 : count;
  else if (maxDocFreq > limit) total = limit + 1;
  else {
    // After the selection: countUnion takes new marks.
    const n = union >= 0 ? union : countUnion(terms, live, arena);
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

// The empty window of a page past the end (never written to: callers only read a TopK).
const EMPTY_DOCS = new Int32Array(0);
const EMPTY_SCORES = new Float32Array(0);

/** How many documents, as a multiple of from + size, the essential terms of deepWindow must hold. */
const PRUNE_MARGIN = 2;

/** Live documents in any of the terms' postings. */
function countUnion(terms: readonly Term[], live: Uint8Array, arena: ScratchArena): number {
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

/** Heap order: the root is the worst hit (lowest score; among equal scores the highest ordinal). */
function worse(ds: Int32Array, ss: Float32Array, a: number, b: number): boolean {
  const sa = ss[a] as number;
  const sb = ss[b] as number;
  return sa < sb || (sa === sb && (ds[a] as number) > (ds[b] as number));
}

function heapPush(ds: Int32Array, ss: Float32Array, at: number, d: number, s: number): void {
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

function heapReplaceRoot(ds: Int32Array, ss: Float32Array, size: number, d: number, s: number): void {
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
