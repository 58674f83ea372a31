import { errors } from '../errors.js';
import { scanTokens, tokenText } from '../index/analyzer.js';
import { float32ForJson } from './bm25.js';
import { codePointCount, fuzzyBoost, fuzzyTerms } from './fuzzy-terms.js';
import { lowerBound } from '../index/sorted-terms.js';
import { liveTerm, termField, type TermContext, type TermField } from './term-expansion.js';
import type { TermSuggestion } from '../requests/suggest-request.js';

/**
 * The `term` suggester, as Elasticsearch runs it with Lucene's DirectSpellChecker: each token of
 * the text (analyzed by the field) gets the terms of the field within `max_edits` (one edit tried
 * first, then all), sharing its first `prefix_length` characters, scored by the fuzzy boost (1 -
 * edits / the shorter length: the `internal` string distance), kept when at least `accuracy`, more
 * frequent than the token itself in `popular` mode, and only for tokens the field does not hold in
 * `missing` mode (the default). The best `max_inspections` × `shard_size` by score are inspected,
 * then sorted by score, frequency and text (or frequency first) and cut to `size`.
 */

export interface SuggestOption {
  readonly text: string;
  readonly score: number;
  readonly freq: number;
}

export interface SuggestEntry {
  readonly text: string;
  readonly offset: number;
  readonly length: number;
  options: SuggestOption[];
}

/** The tokens of `text` with their offsets, by the field's analyzer (a keyword field's value is one token). */
function tokensWithOffsets(field: TermField, text: string): { term: string; offset: number; length: number }[] {
  if (field.def.kind !== 'text') return [{ term: text, offset: 0, length: text.length }];
  const out: { term: string; offset: number; length: number }[] = [];
  scanTokens(text, (src, start, end) => out.push({ term: tokenText(src, start, end), offset: start, length: end - start }));
  return out;
}

/** The live documents of `field` that hold `term`. */
export function docFreqOf(field: TermField, term: string): number {
  const at = lowerBound(field.view, term);
  return field.view.texts[at] === term && liveTerm(field, at) ? field.postings.docFreq(field.view.ids[at] as number) : 0;
}

/** DirectSpellChecker's settings: what the term suggester and the phrase suggester's generators share. */
export type SpellSettings = Pick<
  TermSuggestion,
  'shardSize' | 'sort' | 'suggestMode' | 'accuracy' | 'maxEdits' | 'maxInspections' | 'maxTermFreq' | 'prefixLength' | 'minWordLength' | 'minDocFreq' | 'lowercaseTerms'
>;

/** The candidates of one pass (one edit distance), the best `inspections` by score then the lower term. */
function candidates(field: TermField, term: string, maxEdits: number, prefixLength: number, threshold: number, s: SpellSettings, inspections: number): SuggestOption[] {
  const queryLength = codePointCount(term);
  const out: SuggestOption[] = [];
  for (const m of fuzzyTerms(field.view, term, { maxEdits, prefixLength, transpositions: true })) {
    if (m.edits === 0 || !liveTerm(field, m.at)) continue;
    const text = field.view.texts[m.at] as string;
    const freq = field.postings.docFreq(field.view.ids[m.at] as number);
    if (freq <= threshold) continue;
    const score = fuzzyBoost(m.edits, codePointCount(text), queryLength);
    if (score < s.accuracy) continue;
    out.push({ text, score, freq });
  }
  // fuzzyTerms gives term order, so a stable sort by score keeps the lower term first on ties.
  return out.sort((a, b) => b.score - a.score).slice(0, inspections);
}

/**
 * DirectSpellChecker.suggestSimilar: the best `shardSize` corrections of one token (none for a
 * token shorter than `min_word_length`, too frequent, or present in `missing` mode).
 */
export function suggestToken(field: TermField, token: string, s: SpellSettings, maxDoc: number): SuggestOption[] {
  if (codePointCount(token) < s.minWordLength) return [];
  const term = s.lowercaseTerms ? token.toLowerCase() : token;
  const df = docFreqOf(field, term);
  if (s.suggestMode === 'missing' && df > 0) return [];
  if (s.maxTermFreq >= 1 ? df > s.maxTermFreq : df > Math.ceil(Math.fround(s.maxTermFreq * maxDoc))) return [];
  let threshold = s.suggestMode === 'popular' ? df : 0;
  if (s.minDocFreq >= 1) threshold = Math.max(threshold, Math.trunc(s.minDocFreq));
  else if (s.minDocFreq > 0) threshold = Math.max(threshold, Math.trunc(Math.fround(s.minDocFreq * maxDoc)) - 1);
  const inspections = s.shardSize * s.maxInspections;
  let found = candidates(field, term, 1, s.prefixLength, threshold, s, inspections);
  if (s.maxEdits > 1 && found.length < inspections) {
    const seen = new Set(found.map((o) => o.text));
    const more = candidates(field, term, s.maxEdits, Math.max(s.prefixLength, s.maxEdits - 1), threshold, s, inspections);
    found = [...found, ...more.filter((o) => !seen.has(o.text))];
  }
  return sortOptions(found, s.sort).slice(0, s.shardSize);
}

function sortOptions(options: SuggestOption[], sort: 'score' | 'frequency'): SuggestOption[] {
  const byText = (a: SuggestOption, b: SuggestOption) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
  return sort === 'score'
    ? options.sort((a, b) => b.score - a.score || b.freq - a.freq || byText(a, b))
    : options.sort((a, b) => b.freq - a.freq || b.score - a.score || byText(a, b));
}

/** One index's entries of a term suggestion. */
export function termSuggest(ctx: TermContext, s: TermSuggestion): SuggestEntry[] {
  if (s.kind === 'completion') {
    throw errors.shardFailure(ctx.indexName, { type: 'illegal_argument_exception', reason: `Field [${s.field}] is not a completion suggest field` });
  }
  const def = ctx.mappings.field(s.field);
  if (def === undefined) throw errors.shardFailure(ctx.indexName, { type: 'illegal_argument_exception', reason: `no mapping found for field [${s.field}]` });
  const field = termField(ctx, s.field);
  if (field === undefined) return [];
  return tokensWithOffsets(field, s.text).map((t) => ({ text: t.term, offset: t.offset, length: t.length, options: suggestToken(field, t.term, s, ctx.index.liveCount) }));
}

/**
 * The entries of several indices merged as ES reduces shards: an option found in several adds its
 * frequencies and keeps its best score; then sorted and cut to `size`.
 */
export function mergeSuggestions(perIndex: readonly SuggestEntry[][], s: TermSuggestion): Record<string, unknown>[] {
  const first = perIndex[0] ?? [];
  return first.map((entry, i) => {
    const byText = new Map<string, SuggestOption>();
    for (const entries of perIndex) {
      for (const o of entries[i]?.options ?? []) {
        const held = byText.get(o.text);
        byText.set(o.text, held === undefined ? o : { text: o.text, score: Math.max(held.score, o.score), freq: held.freq + o.freq });
      }
    }
    const options = sortOptions([...byText.values()], s.sort).slice(0, s.size);
    return { text: entry.text, offset: entry.offset, length: entry.length, options: options.map((o) => ({ text: o.text, score: float32ForJson(o.score), freq: o.freq })) };
  });
}
