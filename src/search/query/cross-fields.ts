import { tokens } from '../index/analyzer.js';
import { parseBool, type FieldDef } from '../mapping/mapping.js';
import { resolveMinimumShouldMatch, type FieldBoost, type MinimumShouldMatch, type Operator } from '../requests/query-dsl.js';
import { fieldStatistics, termDocFreq, type StatsContext } from './scoring-stats.js';
import { isIdOrIndex } from './metadata-fields.js';
import { disMax, EMPTY, intersectSum, unionSum, type Hits } from './hit-lists.js';
import { scoreTerm, type ScoreContext } from './term-scorer.js';
import type { Mappings } from '../mapping/mapping.js';

/**
 * `multi_match` of type `cross_fields`, as ES builds it: the fields are grouped by their search
 * analyzer (every text field here shares the standard analyzer; keyword, numeric, date and boolean
 * fields share the keyword analyzer). A group of one field is a `match` on it. In a group of
 * several, each analyzed term is one blended query over the fields: a dis_max (`tie_breaker`) of
 * the term on each field, where every field's document frequency is rewritten to the largest of
 * them (Lucene's BlendedTermQuery), so that a term rare in one field but common in another does
 * not win on its rarity. The terms combine as `operator` and `minimum_should_match` say, per group;
 * the groups combine as a dis_max with the same `tie_breaker`. Fields whose term query is not a
 * plain term (numbers, dates) join the group's term as dis_max clauses of their own, unblended.
 */

/** What cross_fields needs of the rest of the executor (query-exec.ts), passed in to keep imports one-way. */
export interface CrossFieldsDeps {
  /** A `match` of `text` on one field (a group of one field). */
  match(path: string, text: string, op: Operator, msm: MinimumShouldMatch, boost: number): Hits;
  /** ES's term query of `text` on a numeric or date field; throws its error when `text` does not parse. */
  term(path: string, text: string, boost: number): Hits;
  /** Throws ES's error for a text field that is not searchable (`index: false`). */
  searchable(def: FieldDef): void;
}

export interface CrossFieldsContext extends ScoreContext, StatsContext {
  readonly mappings: Mappings;
}

export interface CrossFieldsQuery {
  readonly text: string;
  readonly operator: Operator;
  readonly msm: MinimumShouldMatch;
  readonly tieBreaker: number;
  readonly lenient: boolean;
}

interface GroupField {
  readonly def: FieldDef;
  readonly boost: number;
}

/**
 * Lucene's BlendedTermQuery.blend over one term's per-field statistics: every field holding the
 * term gets the largest document frequency, plus one for each step down to a field with fewer
 * (a slight bias towards the fields where the term is common), never more than `maxDoc` (lowered to
 * the smallest sum of term frequencies among those fields) nor than the field's own document count.
 * Fields without the term keep 0.
 */
export function blendDocFreqs(docFreqs: readonly number[], sumTtfs: readonly number[], docCounts: readonly number[], maxDoc: number): number[] {
  const out = [...docFreqs];
  if (out.length <= 1) return out;
  let max = 0;
  let cap = maxDoc;
  docFreqs.forEach((df, i) => {
    max = Math.max(max, df);
    if (df > 0) cap = Math.min(cap, sumTtfs[i] as number);
  });
  if (max === 0) return out;
  // Stable, by document frequency descending (Lucene's InPlaceMergeSorter is stable).
  const order = docFreqs.map((_, i) => i).sort((a, b) => (docFreqs[b] as number) - (docFreqs[a] as number) || a - b);
  let prev = docFreqs[order[0] as number] as number;
  let actual = Math.min(cap, max);
  for (const i of order) {
    const current = docFreqs[i] as number;
    if (current === 0) break;
    if (prev > current) actual++;
    out[i] = Math.min(Math.min(cap, docCounts[i] as number), actual);
    prev = current;
  }
  return out;
}

/** Which analyzer group a field searches with: `text` (standard), `keyword` (the rest), or none. */
function groupOf(def: FieldDef): 'text' | 'keyword' {
  return def.kind === 'text' ? 'text' : 'keyword';
}

/** The term a field would look up for `value`, and its statistics; undefined when its term query is not a plain term. */
function termStats(ctx: CrossFieldsContext, def: FieldDef, value: string, lenient: boolean): { term: number; df: number; sumTtf: number; docCount: number; score: (boost: number, df: number) => Hits } | undefined {
  if (def.kind === 'text') {
    const field = ctx.index.text.get(def.path);
    if (field === undefined) return { term: -1, df: 0, sumTtf: 0, docCount: 0, score: () => EMPTY };
    const term = field.lookup(value);
    const df = term < 0 ? 0 : field.postings.docFreq(term);
    // Blended with the shard's own statistics (BlendedTermQuery's rewrite); scored with those the context reads (under dfs, every shard's).
    const s = fieldStatistics(ctx, def.path, field.docCount, field.sumTotalTermFreq);
    return { term, df, sumTtf: field.sumTotalTermFreq, docCount: field.docCount, score: (b, d) => scoreTerm(ctx, field.postings, term, b, s.docCount, s.avgdl, field.norms, termDocFreq(ctx, def.path, value, d)) };
  }
  let text = value;
  if (def.kind === 'boolean') {
    const b = parseBool(value);
    if (b === undefined) {
      if (lenient) return { term: -1, df: 0, sumTtf: 0, docCount: 0, score: () => EMPTY };
      return undefined;
    }
    text = String(b);
  } else if (def.kind !== 'keyword' || !def.index) return undefined;
  const field = ctx.index.keyword.get(def.path);
  if (field === undefined) return { term: -1, df: 0, sumTtf: 0, docCount: 0, score: () => EMPTY };
  const term = field.lookup(text);
  const df = term < 0 ? 0 : field.postings.docFreq(term);
  // Keyword fields index documents only: each term once per document, length 1.
  const s = fieldStatistics(ctx, def.path, field.docCount, field.sumDocFreq);
  return { term, df, sumTtf: field.sumDocFreq, docCount: field.docCount, score: (b, d) => scoreTerm(ctx, field.postings, term, b, s.docCount, s.avgdl, undefined, termDocFreq(ctx, def.path, text, d)) };
}

/** One term over a group's fields: the blended dis_max of the plain terms, with the other fields' queries beside it. */
function blendedTerm(ctx: CrossFieldsContext, fields: readonly GroupField[], value: string, q: CrossFieldsQuery, deps: CrossFieldsDeps): Hits {
  const plain: { stats: NonNullable<ReturnType<typeof termStats>>; boost: number }[] = [];
  const others: Hits[] = [];
  for (const { def, boost } of fields) {
    const stats = termStats(ctx, def, value, q.lenient);
    if (stats !== undefined) {
      plain.push({ stats, boost });
      continue;
    }
    try {
      others.push(deps.term(def.path, value, boost));
    } catch (e) {
      if (!q.lenient) throw e;
    }
  }
  const parts = [...others];
  if (plain.length > 0) {
    const dfs = blendDocFreqs(
      plain.map((p) => p.stats.df),
      plain.map((p) => p.stats.sumTtf),
      plain.map((p) => p.stats.docCount),
      ctx.index.maxOrd,
    );
    parts.push(disMax(plain.map((p, i) => (p.stats.df === 0 ? EMPTY : p.stats.score(p.boost, dfs[i] as number))), q.tieBreaker, 1, ctx.arena));
  }
  return parts.length === 1 ? (parts[0] as Hits) : disMax(parts, q.tieBreaker, 1, ctx.arena);
}

/** A group of several fields: its terms blended, combined by operator and minimum_should_match. */
function blendedGroup(ctx: CrossFieldsContext, group: 'text' | 'keyword', fields: readonly GroupField[], q: CrossFieldsQuery, deps: CrossFieldsDeps): Hits {
  for (const { def } of fields) if (def.kind === 'text') deps.searchable(def);
  const terms = group === 'text' ? tokens(q.text) : [q.text];
  if (terms.length === 0) return EMPTY;
  const perTerm = terms.map((t) => blendedTerm(ctx, fields, t, q, deps));
  if (perTerm.length === 1) return perTerm[0] as Hits;
  if (q.operator === 'and') return resolveMinimumShouldMatch(q.msm, 0) > 0 ? EMPTY : intersectSum(perTerm, ctx.arena);
  return unionSum(perTerm, Math.max(1, resolveMinimumShouldMatch(q.msm, perTerm.length)), ctx.arena);
}

/** Runs cross_fields over `fields` (already expanded from patterns, boosts multiplied by the query's). */
export function crossFields(ctx: CrossFieldsContext, fields: readonly FieldBoost[], q: CrossFieldsQuery, deps: CrossFieldsDeps): Hits {
  const groups = new Map<'text' | 'keyword', GroupField[]>();
  // `_id` and `_index` (not in the mappings) are not blended: each is a query of its own, as the node answers.
  const own: Hits[] = [];
  for (const { field, boost } of fields) {
    const def = ctx.mappings.field(field);
    if (def === undefined && isIdOrIndex(field)) own.push(deps.match(field, q.text, q.operator, q.msm, boost));
    if (def === undefined) continue;
    const g = groupOf(def);
    const list = groups.get(g) ?? [];
    list.push({ def, boost });
    groups.set(g, list);
  }
  const queries: Hits[] = [];
  for (const [group, list] of groups) {
    const only = list.length === 1 ? (list[0] as GroupField) : undefined;
    queries.push(only !== undefined ? deps.match(only.def.path, q.text, q.operator, q.msm, only.boost) : blendedGroup(ctx, group, list, q, deps));
  }
  queries.push(...own);
  if (queries.length === 0) return EMPTY;
  return queries.length === 1 ? (queries[0] as Hits) : disMax(queries, q.tieBreaker, 1, ctx.arena);
}
