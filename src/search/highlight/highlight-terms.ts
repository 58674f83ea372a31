import { tokens } from '../index/analyzer.js';
import type { Query } from '../requests/query-dsl.js';
import { globMatch } from '../syntax/glob.js';

/**
 * What a query asks the highlighter to mark in one field: its terms (as the field's analyzer makes
 * them), prefixes, wildcard patterns and phrases, gathered from every clause that can match (not
 * `must_not`). With `require_field_match` (ES's default) only clauses on the highlighted field
 * count; without it, every clause's terms do.
 */

export interface FieldTerms {
  readonly terms: Set<string>;
  readonly prefixes: string[];
  readonly patterns: RegExp[];
  /** Phrases (`match_phrase`, quoted query-string text), each its terms in order and its slop. */
  readonly phrases: { readonly terms: readonly string[]; readonly slop: number }[];
}

export function emptyTerms(): FieldTerms {
  return { terms: new Set(), prefixes: [], patterns: [], phrases: [] };
}

/** Whether a clause on `clauseField` (a name or a pattern; undefined: the default fields, all) reaches `field`. */
function reaches(clauseField: string | undefined, field: string, requireFieldMatch: boolean): boolean {
  if (!requireFieldMatch || clauseField === undefined || clauseField === '*' || clauseField === '_all') return true;
  return clauseField === field || (clauseField.includes('*') && globMatch(clauseField, field));
}

function addText(out: FieldTerms, text: string, keyword: boolean, phrase: boolean, slop: number): void {
  if (keyword) {
    out.terms.add(text);
    return;
  }
  const ts = tokens(text);
  if (phrase && ts.length > 1) out.phrases.push({ terms: ts, slop });
  else for (const t of ts) out.terms.add(t);
}

function wildcardRegex(pattern: string, caseInsensitive: boolean): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, caseInsensitive ? 'i' : '');
}

/**
 * Gathers what `query` marks in `field` (a keyword field's terms are whole values, a text field's
 * the standard analyzer's tokens) into `out`.
 */
export function collectTerms(query: Query, field: string, keyword: boolean, requireFieldMatch: boolean, out: FieldTerms): void {
  const on = (f: string | undefined) => reaches(f, field, requireFieldMatch);
  switch (query.kind) {
    case 'match':
      if (on(query.field)) addText(out, query.text, keyword, false, 0);
      return;
    case 'match_phrase':
      if (on(query.field)) addText(out, query.text, keyword, true, query.slop);
      return;
    case 'multi_match':
      if (query.fields.some((f) => on(f.field))) addText(out, query.text, keyword, query.type === 'phrase', query.slop);
      return;
    case 'term':
      if (on(query.field)) out.terms.add(String(query.value));
      return;
    case 'terms':
      if (on(query.field)) for (const v of query.values) out.terms.add(String(v));
      return;
    case 'prefix':
      if (on(query.field)) out.prefixes.push(query.caseInsensitive ? query.value.toLowerCase() : query.value);
      return;
    case 'wildcard':
      if (on(query.field)) out.patterns.push(wildcardRegex(query.value, query.caseInsensitive));
      return;
    case 'bool':
      for (const q of [...query.must, ...query.should, ...query.filter]) collectTerms(q, field, keyword, requireFieldMatch, out);
      return;
    case 'constant_score':
      collectTerms(query.filter, field, keyword, requireFieldMatch, out);
      return;
    case 'dis_max':
      for (const q of query.queries) collectTerms(q, field, keyword, requireFieldMatch, out);
      return;
    case 'query_string':
      for (const c of query.clauses) {
        if (c.occur === 'must_not') continue;
        const fields = c.field === undefined ? query.fields?.map((f) => f.field) : [c.field];
        if (fields === undefined ? on(undefined) : fields.some((f) => on(f))) addText(out, c.text, keyword, c.phrase, c.slop ?? 0);
      }
      return;
    default:
      // match_all, match_none, range, exists, ids: nothing to mark.
      return;
  }
}

/** Whether `token` (a text field's token, or a keyword field's whole value) is one `t` marks. */
export function marks(t: FieldTerms, token: string): boolean {
  if (t.terms.has(token)) return true;
  for (const p of t.prefixes) if (token.startsWith(p)) return true;
  for (const r of t.patterns) if (r.test(token)) return true;
  return false;
}
