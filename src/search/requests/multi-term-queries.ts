import { errors } from '../errors.js';
import { DEFAULT_FUZZINESS, fuzzySpec, type FuzzySpec } from './fuzziness.js';
import { unsupportedOption } from './query-options.js';
import { parseFlags, REGEXP_FLAGS } from '../syntax/lucene-regexp.js';

/**
 * The query types that stand for many terms and the queries built on them: `fuzzy`, `regexp`,
 * `match_phrase_prefix` and `match_bool_prefix` (`prefix` and `wildcard` are in query-dsl.ts). Their
 * parsers read the one-field shape with query-dsl.ts's helpers, handed in, so that this file needs
 * nothing else of it.
 */

export type MultiTermQuery =
  | { kind: 'fuzzy'; field: string; value: string; fuzzy: FuzzySpec; boost: number }
  | { kind: 'regexp'; field: string; value: string; flags: number; caseInsensitive: boolean; boost: number }
  | { kind: 'match_phrase_prefix'; field: string; text: string; slop: number; maxExpansions: number; zeroTermsAll: boolean; boost: number }
  | { kind: 'match_bool_prefix'; field: string; text: string; operator: 'or' | 'and'; msm: string | number | undefined; fuzzy: FuzzySpec | undefined; boost: number };

/** What the parsers use of query-dsl.ts. */
export interface DslHelpers {
  singleField(name: string, body: unknown, valueKey: string): { field: string; opts: Record<string, unknown> };
  boostOf(o: Record<string, unknown>): number;
  num(v: unknown, what: string): number;
  scalar(v: unknown, name: string): string | number | boolean;
  operator(v: unknown): 'or' | 'and';
  zeroTermsAll(v: unknown): boolean;
}

/**
 * A fuzzy rewrite other than the default (top_terms_blended_freqs_<max_expansions>) changes the
 * scores: refused, with ES's words for an option a query does not take, where ES would act on it.
 */
function checkFuzzyRewrite(query: string, opts: Record<string, unknown>, key: string, at: readonly (string | number)[], spec: FuzzySpec | undefined): void {
  const v = opts[key];
  if (v === undefined || spec === undefined) return;
  if (String(v) === `top_terms_blended_freqs_${spec.maxExpansions}`) return;
  throw unsupportedOption(query, key, at);
}

/** The fuzzy options of `match`, `multi_match` and `match_bool_prefix` (`fuzzy_transpositions`, `fuzzy_rewrite`). */
export function matchFuzzy(query: string, opts: Record<string, unknown>, at: readonly (string | number)[]): FuzzySpec | undefined {
  const spec = fuzzySpec(opts, { transpositions: 'fuzzy_transpositions' });
  checkFuzzyRewrite(query, opts, 'fuzzy_rewrite', at, spec);
  return spec;
}

function regexpFlags(opts: Record<string, unknown>): number {
  if (opts.flags_value !== undefined) {
    const n = Number(opts.flags_value);
    if (!Number.isInteger(n)) throw errors.parsing(`[regexp] failed to parse field [flags_value]`);
    // ES: a negative or 0xffff value means ALL.
    return n;
  }
  if (opts.flags === undefined) return REGEXP_FLAGS.ALL;
  const v = parseFlags(String(opts.flags));
  if (v === undefined) {
    const bad = String(opts.flags).split('|').find((s) => parseFlags(s) === undefined) ?? String(opts.flags);
    throw errors.illegalArgument(`Unknown regexp flag [${bad.trim()}]`);
  }
  return v;
}

export function multiTermParsers(h: DslHelpers): Map<string, (body: unknown, depth: number, name: string) => MultiTermQuery> {
  return new Map<string, (body: unknown, depth: number, name: string) => MultiTermQuery>([
    ['fuzzy', (body, _depth, name) => {
      const { field, opts } = h.singleField(name, body, 'value');
      if (opts.value === undefined || opts.value === null) throw errors.illegalArgument('query value cannot be null');
      const spec = fuzzySpec(opts, { transpositions: 'transpositions' }, DEFAULT_FUZZINESS) as FuzzySpec;
      checkFuzzyRewrite(name, opts, 'rewrite', [name, field], spec);
      return { kind: 'fuzzy', field, value: String(h.scalar(opts.value, name)), fuzzy: spec, boost: h.boostOf(opts) };
    }],
    ['regexp', (body, _depth, name) => {
      const { field, opts } = h.singleField(name, body, 'value');
      if (opts.value === undefined || opts.value === null) throw errors.illegalArgument('value cannot be null');
      if (opts.max_determinized_states !== undefined) h.num(opts.max_determinized_states, 'max_determinized_states');
      return { kind: 'regexp', field, value: String(h.scalar(opts.value, name)), flags: regexpFlags(opts), caseInsensitive: opts.case_insensitive === true, boost: h.boostOf(opts) };
    }],
    ['match_phrase_prefix', (body, _depth, name) => {
      const { field, opts } = h.singleField(name, body, 'query');
      if (opts.query === undefined || opts.query === null) throw errors.parsing(`[${name}] requires query value`);
      const slop = opts.slop === undefined ? 0 : h.num(opts.slop, 'slop');
      if (slop < 0) throw errors.illegalArgument('No negative slop allowed.');
      const maxExpansions = opts.max_expansions === undefined ? 50 : h.num(opts.max_expansions, 'max_expansions');
      if (maxExpansions < 0) throw errors.illegalArgument('No negative max_expansions allowed.');
      return {
        kind: 'match_phrase_prefix', field, text: String(h.scalar(opts.query, name)), slop, maxExpansions,
        zeroTermsAll: h.zeroTermsAll(opts.zero_terms_query), boost: h.boostOf(opts),
      };
    }],
    ['match_bool_prefix', (body, _depth, name) => {
      const { field, opts } = h.singleField(name, body, 'query');
      if (opts.query === undefined || opts.query === null) throw errors.parsing(`[${name}] requires query value`);
      return {
        kind: 'match_bool_prefix', field, text: String(h.scalar(opts.query, name)), operator: h.operator(opts.operator),
        msm: opts.minimum_should_match as string | number | undefined, fuzzy: matchFuzzy(name, opts, [name, field]), boost: h.boostOf(opts),
      };
    }],
  ]);
}
