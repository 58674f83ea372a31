import { analyze, scanTokens, tokenText, tokenUnit, tokens } from '../index/analyzer.js';
import { bm25, idf, normInverseCache, termWeight } from './bm25.js';
import { FREQ_BITS, FREQ_MASK } from '../index/posting-store.js';
import { EMPTY, intersectSum, unionSum, type Hits } from './hit-lists.js';
import type { ScratchArena } from './scratch-arena.js';
import { editsFor, type FuzzySpec } from '../requests/fuzziness.js';
import { codePointCount, fuzzyTerms, topTerms } from './fuzzy-terms.js';
import { exactTermAt, prefixTerms, queryCreation, termField, type TermContext, type TermField } from './term-expansion.js';
import { sloppyPhraseFreq, tokenPositions } from './sloppy-phrase.js';
import { sourceStrings, sourceValues } from '../mapping/source-values.js';
import { resolveMinimumShouldMatch, type Operator } from '../requests/query-dsl.js';
import { onlyKeywordAndText } from './metadata-fields.js';
import { fieldStatistics, termDocFreq } from './scoring-stats.js';

/**
 * The scored multi-term queries: fuzzy terms (the `fuzzy` query and `fuzziness` on `match`), the
 * phrase with a prefix for its last term (`match_phrase_prefix`) and the terms with a prefix for
 * the last (`match_bool_prefix`), with Lucene's arithmetic:
 * - a fuzzy term expands to at most max_expansions terms, the best by Lucene's boost (1 - edits /
 *   the shorter length) then the lower term, each scored as a term query boosted by that boost with
 *   the largest document frequency of them all (the top-terms blended rewrite, so a rare
 *   misspelling does not outscore the word it misspells), summed per document;
 * - the phrase prefix takes the first max_expansions terms with the prefix in term order, as one
 *   position of a MultiPhraseQuery, whose weight sums the idf of every term of every position;
 * - the bool prefix is a bool of the term queries and a constant-score prefix query.
 */

/** What these queries read of the query's context (query-exec.ts's ExecContext has it). */
export interface MultiTermContext extends TermContext {
  readonly sourceOf: (ord: number) => unknown;
  /** As ExecContext's: the stored `_source` text. */
  readonly sourceTextOf?: (ord: number) => string;
  /** As ExecContext's: many source reads in one read of the store. */
  readonly reading?: <T>(fn: () => T) => T;
  readonly arena: ScratchArena;
}

const f = Math.fround;

/** ES's default position_increment_gap of text fields. */
const POSITION_INCREMENT_GAP = 100;

/** The values at `path` of ordinal `ord`'s `_source`, as text: read from the stored text when the context gives it (sourceStrings). */
export function storedStrings(ctx: Pick<MultiTermContext, 'sourceOf' | 'sourceTextOf'>, ord: number, path: string): string[] {
  return ctx.sourceTextOf === undefined ? sourceValues(ctx.sourceOf(ord), path).map(String) : sourceStrings(ctx.sourceTextOf(ord), path);
}

/** BM25 hits of the term at view position `at`, with `docFreq` standing for its own (blending). */
function scoreAt(ctx: MultiTermContext, field: TermField, at: number, boost: number, docFreq: number): Hits {
  const id = field.view.ids[at] as number;
  const postings = field.postings;
  const stats = fieldStatistics(ctx, field.def.path, field.docCount, field.sumTotalTermFreq);
  const weight = termWeight(boost, idf(termDocFreq(ctx, field.def.path, field.view.texts[at] as string, docFreq), stats.docCount));
  const cache = normInverseCache(stats.avgdl);
  const live = ctx.index.live;
  const n = postings.count(id);
  const docs = ctx.arena.int32(n);
  postings.copyTo(id, docs);
  const scores = ctx.arena.float32(n);
  const norms = field.norms;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const p = docs[i] as number;
    const d = p >>> FREQ_BITS;
    if (live[d] !== 1) continue;
    const low = p & FREQ_MASK;
    const freq = low === FREQ_MASK ? postings.freqOf(id, p) : low;
    docs[k] = d;
    scores[k] = bm25(weight, freq, cache[norms === undefined ? 1 : (norms[d] as number)] as number);
    k++;
  }
  return { docs, scores, length: k };
}

/** Live ordinals holding any of the terms at `ats`, ascending, each scored `boost`. */
export function constantHits(ctx: MultiTermContext, field: TermField, ats: readonly number[], boost: number): Hits {
  if (ats.length === 0) return EMPTY;
  const mark = new Uint8Array(ctx.index.maxOrd);
  for (const at of ats) {
    const packed = field.postings.postings(field.view.ids[at] as number);
    for (let i = 0; i < packed.length; i++) mark[(packed[i] as number) >>> FREQ_BITS] = 1;
  }
  const live = ctx.index.live;
  const docs = ctx.arena.int32(ctx.index.liveCount);
  let k = 0;
  for (let d = 0; d < mark.length; d++) if (mark[d] === 1 && live[d] === 1) docs[k++] = d;
  const scores = ctx.arena.float32(k);
  scores.fill(f(boost));
  return { docs, scores, length: k };
}

/** Throws ES's error for a fuzzy query on a field that is neither text nor keyword; returns the field (undefined: no terms). */
function fuzzyField(ctx: MultiTermContext, path: string): TermField | undefined {
  const def = ctx.mappings.field(path);
  if (def !== undefined && def.kind !== 'text' && def.kind !== 'keyword') {
    throw queryCreation(ctx.indexName, onlyKeywordAndText('fuzzy', path, def.esType));
  }
  return termField(ctx, path);
}

/** Lucene's checks of a FuzzyQuery's arguments. */
export function checkFuzzy(ctx: TermContext, spec: FuzzySpec): void {
  if (spec.maxExpansions <= 0) throw queryCreation(ctx.indexName, 'maxExpansions must be positive.');
  if (spec.prefixLength < 0) throw queryCreation(ctx.indexName, 'prefixLength cannot be negative.');
}

/** One fuzzy term (not analyzed) on the field at `path`. */
export function fuzzyHits(ctx: MultiTermContext, path: string, term: string, spec: FuzzySpec, boost: number): Hits {
  checkFuzzy(ctx, spec);
  const field = fuzzyField(ctx, path);
  if (field === undefined) return EMPTY;
  return fuzzyOn(ctx, field, term, spec, boost);
}

/** One term of a fuzzy expansion: its view position, its boost, and the blended document frequency it is scored with. */
interface Expanded {
  readonly at: number;
  readonly boost: number;
  readonly df: number;
}

/** The terms a fuzzy term expands to (see the file comment). */
function expandFuzzy(field: TermField, term: string, spec: FuzzySpec): Expanded[] {
  const maxEdits = editsFor(spec.fuzziness, term);
  const found = fuzzyTerms(field.view, term, { maxEdits, prefixLength: spec.prefixLength, transpositions: spec.transpositions }).filter((m) => {
    const id = field.view.ids[m.at] as number;
    return id < field.postings.termCount && field.postings.docFreq(id) > 0;
  });
  const top = topTerms(field.view, found, codePointCount(term), spec.maxExpansions);
  let df = 0;
  for (const t of top) df = Math.max(df, field.postings.docFreq(field.view.ids[t.at] as number));
  return top.map((t) => ({ at: t.at, boost: t.boost, df }));
}

function scoreExpanded(ctx: MultiTermContext, field: TermField, terms: readonly Expanded[], boost: number): Hits {
  if (terms.length === 0) return EMPTY;
  const lists = terms.map((t) => scoreAt(ctx, field, t.at, f(f(boost) * t.boost), t.df));
  return lists.length === 1 ? (lists[0] as Hits) : unionSum(lists, 1, ctx.arena);
}

function fuzzyOn(ctx: MultiTermContext, field: TermField, term: string, spec: FuzzySpec, boost: number): Hits {
  return scoreExpanded(ctx, field, expandFuzzy(field, term, spec), boost);
}

/**
 * The fuzzy terms of a disjunction (`or`, at most one clause required), as Lucene rewrites it: the
 * expansions' bool queries are flattened into one, and a term that two query terms expand to is
 * one clause whose boost is the sum of theirs (in double), keeping the first one's statistics.
 * So "ewa web" scores a document holding "ebu", which both reach, with the boosts added.
 */
function flattenedFuzzy(field: TermField, terms: readonly string[], spec: FuzzySpec): Expanded[] {
  const byTerm = new Map<number, { at: number; boost: number; df: number }>();
  for (const t of terms) {
    for (const e of expandFuzzy(field, t, spec)) {
      const held = byTerm.get(e.at);
      if (held === undefined) byTerm.set(e.at, { ...e });
      else held.boost += e.boost;
    }
  }
  return [...byTerm.values()].map((e) => ({ at: e.at, boost: f(e.boost), df: e.df }));
}

/** Whether Lucene flattens the bool of these `n` clauses (a disjunction needing at most one). */
function flattens(op: Operator, msm: unknown, n: number): boolean {
  return op === 'or' && resolveMinimumShouldMatch(msm as string, n) <= 1;
}

/**
 * `match` with `fuzziness` on a text or keyword field: each analyzed term a fuzzy term (a keyword
 * field's value is its one term), combined as the plain match combines its terms.
 */
export function fuzzyMatch(ctx: MultiTermContext, path: string, text: string, spec: FuzzySpec, op: Operator, msm: unknown, boost: number): Hits {
  checkFuzzy(ctx, spec);
  const field = fuzzyField(ctx, path);
  if (field === undefined) return EMPTY;
  const terms = field.def.kind === 'text' ? tokens(text) : [text];
  if (terms.length === 0) return EMPTY;
  if (terms.length > 1 && flattens(op, msm, terms.length)) return scoreExpanded(ctx, field, flattenedFuzzy(field, terms, spec), boost);
  const perTerm = terms.map((t) => fuzzyOn(ctx, field, t, spec, boost));
  return combine(ctx, perTerm, op, msm);
}

function combine(ctx: MultiTermContext, perTerm: Hits[], op: Operator, msm: unknown): Hits {
  if (perTerm.length === 1) return perTerm[0] as Hits;
  if (op === 'and') return resolveMinimumShouldMatch(msm as string, 0) > 0 ? EMPTY : intersectSum(perTerm, ctx.arena);
  return unionSum(perTerm, Math.max(1, resolveMinimumShouldMatch(msm as string, perTerm.length)), ctx.arena);
}

/** The first `max` terms of the field with `prefix`, in term order (MultiPhrasePrefixQuery's expansion). */
function prefixExpansion(field: TermField, prefix: string, max: number): number[] {
  return prefixTerms(field, prefix, false, max);
}

/** `match_bool_prefix`: the analyzed terms but the last as term (or fuzzy) queries, the last as a constant-score prefix query. */
export function boolPrefix(ctx: MultiTermContext, path: string, text: string, o: { op: Operator; msm: unknown; fuzzy: FuzzySpec | undefined; boost: number }): Hits {
  if (o.fuzzy !== undefined) checkFuzzy(ctx, o.fuzzy);
  const field = termField(ctx, path);
  if (field === undefined) return EMPTY;
  const terms = field.def.kind === 'text' ? tokens(text) : [text];
  if (terms.length === 0) return EMPTY;
  const last = terms[terms.length - 1] as string;
  const prefix = constantHits(ctx, field, prefixTerms(field, last, false), o.boost);
  const heads = terms.slice(0, -1);
  if (o.fuzzy !== undefined && heads.length > 1 && flattens(o.op, o.msm, terms.length)) {
    // Flattened as in fuzzyMatch; the prefix query stays its own clause.
    return unionSum([scoreExpanded(ctx, field, flattenedFuzzy(field, heads, o.fuzzy), o.boost), prefix], 1, ctx.arena);
  }
  const perTerm = heads.map((t) => (o.fuzzy === undefined ? exactTerm(ctx, field, t, o.boost) : fuzzyOn(ctx, field, t, o.fuzzy, o.boost)));
  perTerm.push(prefix);
  return combine(ctx, perTerm, o.op, o.msm);
}

function exactTerm(ctx: MultiTermContext, field: TermField, term: string, boost: number): Hits {
  const at = exactTermAt(field, term);
  // A term query's weight asks for the field's statistics even where the term has no documents (dfs records them).
  if (at < 0) {
    fieldStatistics(ctx, field.def.path, field.docCount, field.sumTotalTermFreq);
    return EMPTY;
  }
  return scoreAt(ctx, field, at, boost, field.postings.docFreq(field.view.ids[at] as number));
}

/**
 * `match_phrase_prefix`: the phrase of the analyzed terms whose last is any of the first
 * `maxExpansions` terms with that prefix. One term alone is a bool of those terms' queries.
 */
export function phrasePrefix(ctx: MultiTermContext, path: string, text: string, o: { slop: number; maxExpansions: number; boost: number }): Hits {
  const field = termField(ctx, path);
  if (field === undefined) return EMPTY;
  const terms = field.def.kind === 'text' ? tokens(text) : [text];
  if (terms.length === 0) return EMPTY;
  const expansion = prefixExpansion(field, terms[terms.length - 1] as string, o.maxExpansions);
  if (expansion.length === 0) return EMPTY;
  if (terms.length === 1 || field.def.kind !== 'text') {
    const lists = expansion.map((at) => scoreAt(ctx, field, at, o.boost, field.postings.docFreq(field.view.ids[at] as number)));
    return lists.length === 1 ? (lists[0] as Hits) : unionSum(lists, 1, ctx.arena);
  }
  const heads = terms.slice(0, -1).map((t) => exactTermAt(field, t));
  // MultiPhraseQuery's weight sums the idf of every term of every position; it asks for the
  // field's statistics and each present term's before a missing head leaves the shard no match.
  const stats = fieldStatistics(ctx, field.def.path, field.docCount, field.sumTotalTermFreq);
  let idfSum = 0;
  for (const at of [...heads, ...expansion]) {
    if (at >= 0) idfSum = f(idfSum + idf(termDocFreq(ctx, field.def.path, field.view.texts[at] as string, field.postings.docFreq(field.view.ids[at] as number)), stats.docCount));
  }
  if (heads.some((at) => at < 0)) return EMPTY;
  const weight = termWeight(o.boost, idfSum);
  // Only the expansions that ever follow the last head word in a value can end the phrase (no
  // slop: the words are adjacent); the others' documents are not read (index/pair-filter.ts).
  // The weight above counts every expansion, as ES's does.
  const following = followingExpansions(field, heads[heads.length - 1] as number, expansion, o.slop);
  if (following.length === 0) return EMPTY;
  const candidates = heads.length < MAX_MARKED_HEADS ? phraseCandidates(ctx, field, heads, following) : intersectSum([...heads.map((at) => constantHits(ctx, field, [at], 0)), constantHits(ctx, field, following, 0)], ctx.arena);
  const lastSet = new Set(expansion.map((at) => field.view.texts[at] as string));
  const headTerms = terms.slice(0, -1);
  // Every expansion starts with the last term (prefixExpansion): a token that does not is skipped unread.
  const typed = terms[terms.length - 1] as string;
  const lastPrefix = [...lastSet].every((t) => t.startsWith(typed)) ? typed : '';
  const cache = normInverseCache(stats.avgdl);
  const docs = ctx.arena.int32(candidates.length);
  const scores = ctx.arena.float32(candidates.length);
  let k = 0;
  // Each candidate's text is read from the store: in one read transaction, not one per document.
  const reading = ctx.reading ?? (<T>(fn: () => T): T => fn());
  reading(() => {
    for (let i = 0; i < candidates.length; i++) {
      const d = candidates.docs[i] as number;
      const values = storedStrings(ctx, d, path);
      const freq = o.slop > 0 ? prefixPhraseFreq(tokenPositions(values, analyze, POSITION_INCREMENT_GAP), headTerms, lastSet, o.slop) : exactPrefixPhraseFreq(values, headTerms, lastSet, lastPrefix);
      if (freq === 0) continue;
      docs[k] = d;
      scores[k] = bm25(weight, freq, cache[field.norms?.[d] ?? 1] as number);
      k++;
    }
  });
  return { docs, scores, length: k };
}

/**
 * The expansions (view positions) that may follow the head at view position `head` somewhere in
 * the field, by its pair filter: all of them with slop (the words need not be adjacent) or when the
 * field keeps no filter.
 */
function followingExpansions(field: TermField, head: number, expansion: readonly number[], slop: number): readonly number[] {
  const pairs = field.pairs;
  if (pairs === undefined || slop > 0) return expansion;
  const ids = field.view.ids;
  const first = ids[head] as number;
  return expansion.filter((at) => pairs.mayFollow(first, ids[at] as number));
}

/** The most heads phraseCandidates counts in a byte per document (the last term takes one more step). */
const MAX_MARKED_HEADS = 250;

/**
 * The live documents holding every head term (view positions `heads`) and at least one of the
 * `expansion` terms, ascending: what intersecting each head's hits with the union of the
 * expansions' gives, from the postings alone. A byte per document counts the lists it was found in,
 * in order (a document advances from step j to j + 1 only in the j-th list), so the cost is the
 * postings read, with no pass over every document per list.
 */
function phraseCandidates(ctx: MultiTermContext, field: TermField, heads: readonly number[], expansion: readonly number[]): { readonly docs: Int32Array; readonly length: number } {
  const postings = field.postings;
  const ids = field.view.ids;
  // The rarest head first: the documents it lists are the only ones that can advance.
  const order = [...heads].sort((a, b) => postings.count(ids[a] as number) - postings.count(ids[b] as number));
  const step = new Uint8Array(ctx.index.maxOrd);
  const first = ids[order[0] as number] as number;
  const listed = ctx.arena.int32(postings.count(first));
  postings.copyTo(first, listed);
  for (let i = 0; i < listed.length; i++) step[(listed[i] as number) >>> FREQ_BITS] = 1;
  // The other lists are copied in turn into one scratch buffer (a `the` copied into a fresh array
  // per query was garbage for the collector, and most of what the walk cost).
  let longest = 0;
  for (let j = 1; j < order.length; j++) longest = Math.max(longest, postings.count(ids[order[j] as number] as number));
  for (const at of expansion) longest = Math.max(longest, postings.count(ids[at] as number));
  const scratch = ctx.arena.int32(longest);
  for (let j = 1; j < order.length; j++) {
    const n = postings.copyTo(ids[order[j] as number] as number, scratch);
    for (let i = 0; i < n; i++) {
      const d = (scratch[i] as number) >>> FREQ_BITS;
      if (step[d] === j) step[d] = j + 1;
    }
  }
  const h = order.length;
  for (const at of expansion) {
    const n = postings.copyTo(ids[at] as number, scratch);
    for (let i = 0; i < n; i++) {
      const d = (scratch[i] as number) >>> FREQ_BITS;
      if (step[d] === h) step[d] = h + 1;
    }
  }
  const live = ctx.index.live;
  const docs = ctx.arena.int32(listed.length);
  let k = 0;
  for (let i = 0; i < listed.length; i++) {
    const d = (listed[i] as number) >>> FREQ_BITS;
    // Once each (a document is listed once per term), and only live ones.
    if (step[d] === h + 1 && live[d] === 1) {
      docs[k++] = d;
      step[d] = 0;
    }
  }
  docs.subarray(0, k).sort();
  return { docs, length: k };
}

/**
 * The exact (slop 0) frequency of the phrase `heads` then any of `last` in `values`, read as the
 * tokenizer streams the tokens (no string for a token that cannot be the last one, no map of every
 * token's positions): a token of `last` at position p counts when the tokens at p - heads.length …
 * p - 1 are the heads, in order. Positions run on within a value and jump POSITION_INCREMENT_GAP
 * between two, as tokenPositions numbers them, so this counts what prefixPhraseFreq counts over
 * tokenPositions' map. `prefix`: what every term of `last` starts with ('' when unknown).
 */
function exactPrefixPhraseFreq(values: readonly string[], heads: readonly string[], last: ReadonlySet<string>, prefix: string): number {
  const h = heads.length;
  const plen = prefix.length;
  // The last h tokens (as ranges of their source) and their positions, the newest at (seen - 1) % h.
  const srcs: string[] = new Array<string>(h).fill('');
  const starts = new Int32Array(h);
  const ends = new Int32Array(h);
  const at = new Float64Array(h).fill(Number.NaN);
  let seen = 0;
  let position = -1;
  let freq = 0;
  const emit = (src: string, start: number, end: number): void => {
    position++;
    if (seen >= h && end - start >= plen && startsWith(src, start, prefix) && last.has(tokenText(src, start, end))) {
      let ok = true;
      for (let j = 1; j <= h && ok; j++) {
        const k = (seen - j) % h;
        ok = at[k] === position - j && sameToken(srcs[k] as string, starts[k] as number, ends[k] as number, heads[h - j] as string);
      }
      if (ok) freq++;
    }
    const k = seen % h;
    srcs[k] = src;
    starts[k] = start;
    ends[k] = end;
    at[k] = position;
    seen++;
  };
  values.forEach((v, i) => {
    if (i > 0) position += POSITION_INCREMENT_GAP;
    const windows = isAscii(v) ? phraseWindows(v, heads[0] as string, h + 1) : undefined;
    if (windows === undefined) {
      scanTokens(v, emit);
      return;
    }
    for (let w = 0; w < windows.length; w += 2) {
      // Text left out holds no token of the first head: no phrase begins (or runs) there.
      if (w > 0) position += SKIPPED;
      scanTokens(v.slice(windows[w], windows[w + 1]), emit);
    }
  });
  return freq;
}

const NON_ASCII = /[\u0080-\uffff]/;
const UTF8 = new TextEncoder();
/** Room for a value of up to 16 Ki units, as UTF-8 (3 bytes a unit at most); longer ones take the regular expression. */
const ASCII_SCRATCH = new Uint8Array(3 << 14);

/**
 * Whether every unit of `v` is ASCII: its UTF-8 is as long as it exactly then. The native encoder
 * answers in a third of the time the regular expression takes on a candidate's description.
 */
function isAscii(v: string): boolean {
  if (v.length > 1 << 14) return !NON_ASCII.test(v);
  return UTF8.encodeInto(v, ASCII_SCRATCH).written === v.length;
}
/** Positions put between two windows of a value: more than any phrase spans, so none spans them. */
const SKIPPED = 1 << 20;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;
}

/**
 * Whether c is an ASCII letter or digit: a word holding one holds a token. Not the underscore: a
 * word of underscores alone (`_`, `__`) holds none (the tokenizer drops a token without a letter
 * or digit), and counting it as one cut a phrase running over it (`foo _ bar`) out of its part.
 */
function isWordUnit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/**
 * The parts of an ASCII value the phrase can lie in, as [start, end) pairs, ascending and apart:
 * around each place its lower case holds `first` (a token equal to it is such a place), from the
 * white space before it to past `words` words holding an ASCII letter or digit (each holds a
 * token, so they cover the phrase's tokens). Both ends are white space or the value's ends, where
 * the tokenizer never is inside a token (in ASCII text a token holds no white space), so a part
 * gives the tokens the whole value gives there.
 */
function phraseWindows(v: string, first: string, words: number): number[] {
  const lower = v.toLowerCase();
  const out: number[] = [];
  let from = 0;
  for (let at = lower.indexOf(first, from); at >= 0; at = lower.indexOf(first, from)) {
    let start = at;
    while (start > 0 && !isSpace(v.charCodeAt(start - 1))) start--;
    let end = start;
    for (let seen = 0; seen < words && end < v.length; ) {
      while (end < v.length && isSpace(v.charCodeAt(end))) end++;
      let word = false;
      while (end < v.length && !isSpace(v.charCodeAt(end))) word = isWordUnit(v.charCodeAt(end++)) || word;
      if (word) seen++;
    }
    if (out.length > 0 && start <= (out[out.length - 1] as number)) out[out.length - 1] = Math.max(end, out[out.length - 1] as number);
    else out.push(start, end);
    from = at + 1;
  }
  return out;
}

/** Whether the token src[start, …) (as tokenUnit reads it) starts with `prefix`. */
function startsWith(src: string, start: number, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) if (tokenUnit(src, start + i) !== prefix.charCodeAt(i)) return false;
  return true;
}

/** Whether the token src[start, end) (as tokenUnit reads it) is `text`. */
function sameToken(src: string, start: number, end: number, text: string): boolean {
  return end - start === text.length && startsWith(src, start, text);
}

/** The key the last position's union of terms is filed under (no analyzed token holds a NUL). */
const LAST = '\u0000last';

function prefixPhraseFreq(positions: Map<string, number[]>, heads: readonly string[], last: ReadonlySet<string>, slop: number): number {
  const union: number[] = [];
  for (const t of last) union.push(...(positions.get(t) ?? []));
  if (union.length === 0) return 0;
  union.sort((a, b) => a - b);
  if (slop > 0) {
    positions.set(LAST, union);
    return sloppyPhraseFreq(positions, [...heads, LAST], slop);
  }
  const first = positions.get(heads[0] as string) ?? [];
  const sets = heads.map((h) => new Set(positions.get(h) ?? []));
  const lastSet = new Set(union);
  let freq = 0;
  for (const p of first) {
    let ok = true;
    for (let j = 1; j < sets.length && ok; j++) ok = (sets[j] as Set<number>).has(p + j);
    if (ok && lastSet.has(p + heads.length)) freq++;
  }
  return freq;
}
