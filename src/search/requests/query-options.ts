import { errors } from '../errors.js';
import { LocatedQueryError } from './query-error.js';

/**
 * The options of each query type, taken from Elasticsearch 8's query builders, and what Portico
 * does with each: never accepted and ignored. An option is either always taken (`true`: Portico
 * acts on it, or it changes nothing in what Portico does, like the fuzzy tuning options of a query
 * without `fuzziness`), or taken only at the values a test says change nothing (ES's default, the
 * only analyzer Portico has). Any other option or value is refused with the error ES gives for a
 * key it does not know, so a client always learns that Portico did not do what it asked.
 */

export type OptionRule = true | ((value: unknown) => boolean);

const standard = (v: unknown): boolean => v === 'standard';
const isTrue = (v: unknown): boolean => v === true || v === 'true';
const isFalse = (v: unknown): boolean => v === false || v === 'false';
const lower = (v: unknown): string => String(v).toLowerCase();
const constantScoreRewrite = (v: unknown): boolean => ['constant_score', 'constant_score_blended', 'constant_score_boolean'].includes(String(v));

/** Options that only tune fuzzy matching: nothing to do while `fuzziness` is absent (or refused). */
const FUZZY_TUNING = { prefix_length: true, max_expansions: true, fuzzy_transpositions: true, fuzzy_rewrite: true } as const;

export const QUERY_OPTIONS: Readonly<Record<string, Readonly<Record<string, OptionRule>>>> = {
  match: {
    query: true, operator: true, minimum_should_match: true, zero_terms_query: true, boost: true, lenient: true,
    auto_generate_synonyms_phrase_query: true, ...FUZZY_TUNING, fuzziness: true, analyzer: standard,
  },
  match_phrase: { query: true, slop: true, zero_terms_query: true, boost: true, analyzer: standard },
  term: { value: true, term: true, boost: true, case_insensitive: true },
  prefix: { value: true, prefix: true, boost: true, case_insensitive: true, rewrite: constantScoreRewrite },
  wildcard: { value: true, wildcard: true, boost: true, case_insensitive: true, rewrite: constantScoreRewrite },
  range: {
    from: true, to: true, include_lower: true, include_upper: true, gt: true, gte: true, lt: true, lte: true, time_zone: true, format: true,
    boost: true, relation: (v) => lower(v) === 'intersects',
  },
  multi_match: {
    query: true, fields: true, type: true, operator: true, minimum_should_match: true, tie_breaker: true, slop: true, boost: true,
    lenient: true, auto_generate_synonyms_phrase_query: true, ...FUZZY_TUNING, fuzziness: true, analyzer: standard,
    zero_terms_query: (v) => lower(v) === 'none',
  },
  // The multi-term queries of multi-term-queries.ts; `fuzzy_rewrite`/`rewrite` other than the default are refused there.
  fuzzy: { value: true, fuzziness: true, prefix_length: true, max_expansions: true, transpositions: true, rewrite: true, boost: true },
  regexp: {
    value: true, flags: true, flags_value: true, case_insensitive: true, max_determinized_states: true, boost: true, rewrite: constantScoreRewrite,
  },
  match_phrase_prefix: { query: true, slop: true, max_expansions: true, zero_terms_query: true, boost: true, analyzer: standard },
  match_bool_prefix: {
    query: true, operator: true, minimum_should_match: true, boost: true, analyzer: standard, fuzziness: true, ...FUZZY_TUNING,
  },
  exists: { field: true, boost: true },
  ids: { values: true, boost: true },
  match_all: { boost: true },
  match_none: { boost: true },
  constant_score: { filter: true, boost: true },
  dis_max: { queries: true, tie_breaker: true, boost: true },
  bool: { must: true, should: true, filter: true, must_not: true, minimum_should_match: true, boost: true, adjust_pure_negative: isTrue },
  query_string: {
    query: true, fields: true, default_field: true, default_operator: true, boost: true, phrase_slop: true, tie_breaker: true,
    // Fuzzy and wildcard tuning: the syntax they tune (`term~`, `te*m`) is refused by the parser.
    fuzziness: true, fuzzy_max_expansions: true, fuzzy_prefix_length: true, fuzzy_transpositions: true, fuzzy_rewrite: true,
    allow_leading_wildcard: isTrue, analyze_wildcard: true, max_determinized_states: true, rewrite: true,
    enable_position_increments: isTrue, auto_generate_synonyms_phrase_query: true, escape: isFalse, lenient: true, time_zone: true,
    analyzer: standard, quote_analyzer: standard, type: (v) => lower(v) === 'best_fields',
  },
  simple_query_string: {
    query: true, fields: true, default_operator: true, boost: true, lenient: true, auto_generate_synonyms_phrase_query: true,
    fuzzy_max_expansions: true, fuzzy_prefix_length: true, fuzzy_transpositions: true, analyzer: standard, flags: (v) => String(v) === 'ALL',
    analyze_wildcard: isFalse,
  },
};

/**
 * ES's words for an option a query does not know (simple_query_string has its own), placed at its
 * value: `at` is the path from the query object to the object holding the option.
 */
export function unsupportedOption(query: string, key: string, at: readonly (string | number)[]): LocatedQueryError {
  const reason = query === 'simple_query_string' ? `[simple_query_string] unsupported field [${key}]` : `[${query}] query does not support [${key}]`;
  return new LocatedQueryError((value) => errors.parsing(reason, value?.line, value?.col), [...at, key]);
}

/** The first option of `opts` that `query` does not take (by QUERY_OPTIONS), or undefined. */
export function refusedOption(query: string, opts: Readonly<Record<string, unknown>>): string | undefined {
  const rules = QUERY_OPTIONS[query];
  if (rules === undefined) return undefined;
  for (const [k, v] of Object.entries(opts)) {
    const rule = Object.hasOwn(rules, k) ? rules[k] : undefined;
    if (rule === undefined || (rule !== true && !rule(v))) return k;
  }
  return undefined;
}

/** Throws ES's error for the first option of `opts` (at path `at` from the query object) that `query` does not take. */
export function checkOptions(query: string, opts: Readonly<Record<string, unknown>>, at: readonly (string | number)[] = [query]): void {
  const k = refusedOption(query, opts);
  if (k !== undefined) throw unsupportedOption(query, k, at);
}
