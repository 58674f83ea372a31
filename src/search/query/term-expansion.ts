import { errors } from '../errors.js';
import { compileRegexp, REGEXP_FLAGS, RegexpSyntaxError } from '../syntax/lucene-regexp.js';
import { wildcardMatch } from '../syntax/glob.js';
import { lowerBound, prefixRange, sortedTerms, type SortedTerms } from '../index/sorted-terms.js';
import type { PostingStore } from '../index/posting-store.js';
import type { PairFilter } from '../index/pair-filter.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import type { FieldDef, Mappings } from '../mapping/mapping.js';
import type { StatsContext } from './scoring-stats.js';

/**
 * Which terms of a field a multi-term query stands for: a prefix, a wildcard pattern, a regular
 * expression. Each walks the field's sorted view (sorted-terms.ts) over the narrowest range it
 * can: the literal text before the first operator bounds the range, so `pyth*` reads only the
 * terms starting with `pyth`; a pattern starting with an operator (`*ing`), or a case-insensitive
 * one, reads every term, as Lucene's automaton walk does then.
 */

/** The terms of one text or keyword field, with what scoring them needs. */
export interface TermField {
  readonly def: FieldDef;
  readonly view: SortedTerms;
  readonly postings: PostingStore;
  /** The shard's documents with the field, and the sum of their lengths (keyword fields: of their values); scoring reads them through scoring-stats.ts. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  /** Norm bytes by ordinal; undefined for keyword fields (length 1). */
  readonly norms: Uint8Array | undefined;
  /** Which term follows which (text fields that keep it, index/pair-filter.ts). */
  readonly pairs?: PairFilter | undefined;
}

/** What the expansions read of a query's context (query-exec.ts's ExecContext has it). */
export interface TermContext extends StatsContext {
  readonly indexName: string;
  readonly index: InvertedIndex;
  readonly mappings: Mappings;
}

/** ES's `index.max_regex_length` default. */
export const MAX_REGEX_LENGTH = 1000;

/** The text or keyword field at `path`, or undefined when it holds no terms (unmapped, or another type). */
export function termField(ctx: TermContext, path: string): TermField | undefined {
  const def = ctx.mappings.field(path);
  if (def === undefined) return undefined;
  if (def.kind === 'text') {
    const f = ctx.index.text.get(path);
    if (f === undefined) return undefined;
    return { def, view: sortedTerms(f.terms), postings: f.postings, docCount: f.docCount, sumTotalTermFreq: f.sumTotalTermFreq, norms: f.norms, pairs: f.pairs };
  }
  if (def.kind === 'keyword') {
    const f = ctx.index.keyword.get(path);
    if (f === undefined) return undefined;
    return { def, view: sortedTerms(f.terms), postings: f.postings, docCount: f.docCount, sumTotalTermFreq: f.sumDocFreq, norms: undefined };
  }
  return undefined;
}

/** Whether the term at position `at` of the view has live documents in these postings (a frozen view's postings know fewer terms). */
export function liveTerm(field: TermField, at: number): boolean {
  const id = field.view.ids[at] as number;
  return id < field.postings.termCount && field.postings.docFreq(id) > 0;
}

/** Positions of the view in [from, to) whose term passes `test` and has live documents: the first `max` of them. */
function scan(field: TermField, from: number, to: number, test: ((term: string) => boolean) | undefined, max = Infinity): number[] {
  const out: number[] = [];
  const texts = field.view.texts;
  for (let i = from; i < to && out.length < max; i++) if ((test === undefined || test(texts[i] as string)) && liveTerm(field, i)) out.push(i);
  return out;
}

/**
 * Positions of the terms starting with `prefix` (any case with `caseInsensitive`), in term order:
 * the first `max` of them (a phrase prefix's max_expansions stops the walk there, as Lucene's
 * MultiPhrasePrefixQuery stops its terms enum, rather than listing a `lib` prefix's thousands).
 */
export function prefixTerms(field: TermField, prefix: string, caseInsensitive: boolean, max = Infinity): number[] {
  if (caseInsensitive) {
    const wanted = prefix.toLowerCase();
    return scan(field, 0, field.view.texts.length, (t) => t.toLowerCase().startsWith(wanted), max);
  }
  const [from, to] = prefixRange(field.view, prefix);
  return scan(field, from, to, undefined, max);
}

/** The view position of exactly `term` when it has live documents, else -1 (one binary search, no walk of the terms it prefixes). */
export function exactTermAt(field: TermField, term: string): number {
  const at = lowerBound(field.view, term);
  return at < field.view.texts.length && field.view.texts[at] === term && liveTerm(field, at) ? at : -1;
}

/** Positions of the terms matching a wildcard pattern (`*` any run, `?` one character, `\` escapes the next). */
export function wildcardTerms(field: TermField, pattern: string, caseInsensitive: boolean): number[] {
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' || c === '?') break;
    if (c === '\\') {
      if (i + 1 < pattern.length) literal += pattern[++i];
      continue;
    }
    literal += c;
  }
  const simple = !/[\\\uD800-\uDFFF]/.test(pattern);
  let test: (t: string) => boolean;
  if (simple) {
    const p = caseInsensitive ? pattern.toLowerCase() : pattern;
    test = caseInsensitive ? (t) => wildcardMatch(p, t.toLowerCase()) : (t) => wildcardMatch(p, t);
  } else {
    // Escapes and characters above U+FFFF (one `?` each): the regexp matcher, with every character literal.
    test = compileRegexp(wildcardAsRegexp(pattern), REGEXP_FLAGS.NONE, caseInsensitive).matches;
  }
  if (caseInsensitive || literal === '') return scan(field, 0, field.view.texts.length, test);
  const [from, to] = prefixRange(field.view, literal);
  return scan(field, from, to, test);
}

function wildcardAsRegexp(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '\\' && i + 1 < pattern.length) out += `\\${pattern[++i] as string}`;
    else out += `\\${c}`;
  }
  return out;
}

/** The options of a `regexp` query that change what it matches. */
export interface RegexpOptions {
  readonly flags: number;
  readonly caseInsensitive: boolean;
}

/** Positions of the terms matching a Lucene regular expression; a syntax error is ES's query_shard_exception. */
export function regexpTerms(ctx: TermContext, field: TermField, value: string, o: RegexpOptions): number[] {
  if (value.length > MAX_REGEX_LENGTH) {
    throw errors.queryShard(
      ctx.indexName,
      `failed to create query: The length of regex [${value.length}] used in the Regexp Query request has exceeded the allowed maximum of [${MAX_REGEX_LENGTH}]. This maximum can be set by changing the [index.max_regex_length] index level setting.`,
    );
  }
  let re;
  try {
    re = compileRegexp(value, o.flags, o.caseInsensitive);
  } catch (e) {
    if (e instanceof RegexpSyntaxError) throw queryCreation(ctx.indexName, e.message);
    throw e;
  }
  if (o.caseInsensitive || re.prefix === '') return scan(field, 0, field.view.texts.length, re.matches);
  const [from, to] = prefixRange(field.view, re.prefix);
  return scan(field, from, to, re.matches);
}

/** ES's answer for a query Lucene refused to build: query_shard_exception "failed to create query: …" caused by the illegal argument. */
export function queryCreation(index: string, reason: string) {
  const e = errors.queryShard(index, `failed to create query: ${reason}`);
  const cause = e.cause_.causedBy;
  if (cause !== undefined) Object.assign(cause, { causedBy: { type: 'illegal_argument_exception', reason } });
  return e;
}
