import { tokens } from '../index/analyzer.js';
import { avgFieldLength, bm25, normInverseCache } from './bm25.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import type { TextField } from '../index/text-field.js';
import type { Mappings } from '../mapping/mapping.js';
import { FREQ_BITS } from '../index/posting-store.js';
import type { Query } from '../requests/query-dsl.js';
import type { ScratchArena } from './scratch-arena.js';
import { bestPosting, collectTerms, countUnion, EMPTY_DOCS, EMPTY_SCORES, termScore, type Term, type TopK } from './match-terms.js';
import { pastEndScan, singleTermPastEnd } from './match-past-end.js';
import { deepWindow } from './match-deep-window.js';
import { drainHeap, heapPush, heapReplaceRoot } from './score-heap.js';

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
 *
 * Two terms take a pass of their own (twoTermHeap): one merge of the two lists that counts the
 * union when the total must be counted, and otherwise jumps over a term's own documents once its
 * bound is at most θ, so the common two-word query reads each list once, with its cursors in locals.
 *
 * The parts: the terms and their scores (match-terms.ts), a page past the last hit
 * (match-past-end.ts), a deep window scored term at a time (match-deep-window.ts) and the heap
 * (score-heap.ts); here the choice among them and the document-at-a-time passes.
 */

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
  const { terms, maxDocFreq } = collectTerms(words, query.boost, field, avgdl, cache, arena);
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
    if (total < 0 || total > from) return deepWindow({ terms, live, norms, cache, arena, from, size, limit, maxDocFreq, union: total });
  }
  // Two terms: one merge of their lists, which also counts them when the total is within the
  // limit (twoTermHeap).
  const counted = total < 0 && maxDocFreq <= limit && terms.length === 2;
  if (total < 0 && !counted) total = maxDocFreq > limit ? limit + 1 : terms.length === 1 ? maxDocFreq : countUnion(terms, live, arena);
  // A page past the last hit is empty but still reports the best score: a heap of one, which
  // prunes almost every document, finds it. (The merge learns the total only at its end; its heap
  // then holds every hit, fewer than `from`, and the page is empty all the same.)
  const pastEnd = !counted && total <= limit && total <= from;
  const k = pastEnd ? Math.min(1, from + size) : from + size;
  const pass: HeapPass = { terms, words: words.length, live, norms, cache, heapDocs: new Int32Array(k), heapScores: new Float32Array(k) };
  let filled: HeapFill;
  if (terms.length === 1) filled = singleTermHeap(pass, pastEnd);
  else if (terms.length === 2) {
    const union = twoTermHeap(pass, counted);
    if (counted) total = union.total;
    filled = union;
  } else filled = maxScoreHeap(pass);
  const ordered = drainHeap(pass.heapDocs, pass.heapScores, filled.size);
  const start = pastEnd ? filled.size : Math.min(from, filled.size);
  return { docs: ordered.docs.subarray(start), scores: ordered.scores.subarray(start), total, maxScore: filled.maxScore };
}

/** What the heap passes of matchTopK read: the terms, the field's arrays and the heap (k slots). */
interface HeapPass {
  readonly terms: Term[];
  /** The query's number of words (every term's `order` is below it). */
  readonly words: number;
  readonly live: Uint8Array;
  readonly norms: Uint8Array;
  readonly cache: Float32Array;
  readonly heapDocs: Int32Array;
  readonly heapScores: Float32Array;
}

/** What a heap pass leaves: the number of hits in the heap and the best score. */
interface HeapFill {
  readonly size: number;
  readonly maxScore: number;
}

/**
 * One term: its own score is the document's, so one tight pass over its postings. Past the end,
 * only the best score, which grows with freq * normInverse (every step of bm25 is a monotone float
 * operation), so the pass looks for the largest product, not scores.
 */
function singleTermHeap(pass: HeapPass, pastEnd: boolean): HeapFill {
  const { live, norms, cache, heapDocs, heapScores } = pass;
  const k = heapDocs.length;
  const t = pass.terms[0] as Term;
  let maxScore = -Infinity;
  if (k === 0) return { size: 0, maxScore };
  if (pastEnd) {
    const at = bestPosting(t.postings, t.length, t.store, t.id, live, norms, cache);
    if (at.norm >= 0) maxScore = bm25(t.weight, at.freq, cache[at.norm] as number);
    return { size: 0, maxScore };
  }
  let heapSize = 0;
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
  return { size: heapSize, maxScore };
}

/**
 * Several terms: their cursors merged document at a time, MaxScore pruning the documents that
 * cannot enter the full heap (see the top of this file).
 */
function maxScoreHeap(pass: HeapPass): HeapFill {
  const { terms, live, norms, cache, heapDocs, heapScores } = pass;
  const k = heapDocs.length;
  let heapSize = 0;
  let maxScore = -Infinity;
  // Terms by ascending bound; prefix[j] = sum of the bounds of terms[0..j-1] (in double, then a
  // little slack so that the rounding of the real sums can never exceed it).
  terms.sort((a, b) => a.bound - b.bound || a.order - b.order);
  const n = terms.length;
  const prefix = new Float64Array(n + 1);
  for (let j = 0; j < n; j++) prefix[j + 1] = (prefix[j] as number) + (terms[j] as Term).bound;
  for (let j = 1; j <= n; j++) prefix[j] = (prefix[j] as number) * (1 + 1e-6);
  const contrib = new Float64Array(pass.words);
  const matched = new Uint8Array(pass.words);
  /** Terms before this index are non-essential: they only add to documents the others found. */
  let firstEssential = 0;
  let theta = -Infinity;
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
      const pos = advanceTo(t.postings, t.pos, t.length, d);
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
    for (let o = 0; o < pass.words; o++) {
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
  return { size: heapSize, maxScore };
}

/** No document: past every ordinal. */
const END = 0x7fffffff;

/**
 * Two terms: one merge of their lists, in document order. The score is maxScoreHeap's (the terms'
 * float scores summed in double in query order, rounded to float); a document of one term alone is
 * not scored once that term's bound is at most θ, nor one of both once their bounds (with
 * maxScoreHeap's slack) are. With `count` (the total is within the limit) the merge also counts
 * the live union, where countUnion and then maxScoreHeap would each read both lists. Without it,
 * once one term's bound is at most θ the documents it has alone are jumped over (MaxScore with the
 * other term essential): its cursor gallops to the other's document, and once both bounds are, the
 * merge is an intersection; once their sum is, it stops.
 */
// eslint-disable-next-line complexity -- one loop, so that both cursors and θ stay in locals (the hot path of two-word queries)
function twoTermHeap(pass: HeapPass, count: boolean): HeapFill & { total: number } {
  const { live, norms, cache, heapDocs, heapScores } = pass;
  const k = heapDocs.length;
  const [t0, t1] = pass.terms as [Term, Term];
  // `a` comes first in the query: its score is added first.
  const [a, b] = t0.order < t1.order ? [t0, t1] : [t1, t0];
  const pa = a.postings;
  const pb = b.postings;
  const la = a.length;
  const lb = b.length;
  const boundBoth = (a.bound + b.bound) * (1 + 1e-6);
  let i = 0;
  let j = 0;
  let da = la > 0 ? (pa[0] as number) >>> FREQ_BITS : END;
  let db = lb > 0 ? (pb[0] as number) >>> FREQ_BITS : END;
  let total = 0;
  let heapSize = 0;
  let maxScore = -Infinity;
  let theta = -Infinity;
  for (;;) {
    if (!count && heapSize === k) {
      if (k === 0 || boundBoth <= theta) break;
      if (db < da && b.bound <= theta) {
        j = advanceTo(pb, j, lb, da);
        db = j < lb ? (pb[j] as number) >>> FREQ_BITS : END;
      }
      if (da < db && a.bound <= theta) {
        i = advanceTo(pa, i, la, db);
        da = i < la ? (pa[i] as number) >>> FREQ_BITS : END;
      }
    }
    let d: number;
    let score: number;
    if (da < db) {
      d = da;
      const p = pa[i++] as number;
      da = i < la ? (pa[i] as number) >>> FREQ_BITS : END;
      if (live[d] !== 1) continue;
      total++;
      if (k === 0 || (heapSize === k && a.bound <= theta)) continue;
      score = termScore(a, p, norms[d] as number, cache);
    } else if (db < da) {
      d = db;
      const p = pb[j++] as number;
      db = j < lb ? (pb[j] as number) >>> FREQ_BITS : END;
      if (live[d] !== 1) continue;
      total++;
      if (k === 0 || (heapSize === k && b.bound <= theta)) continue;
      score = termScore(b, p, norms[d] as number, cache);
    } else {
      if (da === END) break;
      d = da;
      const p = pa[i++] as number;
      const q = pb[j++] as number;
      da = i < la ? (pa[i] as number) >>> FREQ_BITS : END;
      db = j < lb ? (pb[j] as number) >>> FREQ_BITS : END;
      if (live[d] !== 1) continue;
      total++;
      if (k === 0 || (heapSize === k && boundBoth <= theta)) continue;
      const norm = norms[d] as number;
      score = Math.fround(termScore(a, p, norm, cache) + termScore(b, q, norm, cache));
    }
    if (heapSize < k) {
      if (score > maxScore) maxScore = score;
      heapPush(heapDocs, heapScores, heapSize++, d, score);
      if (heapSize === k) theta = heapScores[0] as number;
    } else if (score > theta) {
      if (score > maxScore) maxScore = score;
      heapReplaceRoot(heapDocs, heapScores, heapSize, d, score);
      theta = heapScores[0] as number;
    }
  }
  return { size: heapSize, maxScore, total };
}

/**
 * The first position from `from` on whose document is `d` or later (`length` when none):
 * galloping, then a binary search. A non-essential term's cursor only visits the documents the
 * others propose, and skips the stretches between them instead of reading them one by one.
 */
function advanceTo(ps: Int32Array, from: number, length: number, d: number): number {
  if (from >= length || (ps[from] as number) >>> FREQ_BITS >= d) return from;
  // ps[lo] is before d; ps[hi] is not, or hi is the end.
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < length && (ps[hi] as number) >>> FREQ_BITS < d) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > length) hi = length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if ((ps[mid] as number) >>> FREQ_BITS < d) lo = mid;
    else hi = mid;
  }
  return hi;
}
