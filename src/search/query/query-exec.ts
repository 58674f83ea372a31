import { analyze, tokens } from '../index/analyzer.js';
import { ROUTING_FIELD, ROUTING_MAPPINGS } from '../mapping/routing-field.js';
import { bm25, idf, normInverseCache, termWeight } from './bm25.js';
import { errors, SearchError } from '../errors.js';
import { globMatch } from '../syntax/glob.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import { FREQ_BITS, type PostingStore } from '../index/posting-store.js';
import { DateMathError, DateMathParser } from '../syntax/date-math.js';
import { dateFormatText, parseBool, parseDateFor, parseNumber, type FieldDef, type Mappings } from '../mapping/mapping.js';
import { resolveMinimumShouldMatch, type FieldBoost, type Operator, type Query } from '../requests/query-dsl.js';
import type { FuzzySpec } from '../requests/fuzziness.js';
import type { QsClause } from '../requests/query-string.js';
import type { ScratchArena } from './scratch-arena.js';
import { addOptional, disMax, EMPTY, exclude, intersectKeepLeft, intersectSum, scale, unionAll, unionSum, type Hits } from './hit-lists.js';
import { exactPhraseFreq, sloppyPhraseFreq, tokenPositions } from './sloppy-phrase.js';
import { indexFieldMatches, indexNameMatches } from './index-field-query.js';
import { crossFields } from './cross-fields.js';
import { listEntryReaches, mappingsWithRouting, refuseListedMetadata } from './listed-fields.js';
import { isIdOrIndex, metadataQuery, onlyKeywordAndText, phrasePrefixOnlyText } from './metadata-fields.js';
import { scoreTerm } from './term-scorer.js';
import { fieldStatistics, termDocFreq, type ScoringStats } from './scoring-stats.js';
import { boolPrefix, constantHits, fuzzyHits, fuzzyMatch, phrasePrefix, storedStrings } from './multi-term-exec.js';
import { prefixTerms, queryCreation, regexpTerms, termField, wildcardTerms } from './term-expansion.js';

/**
 * Executes a query AST against one index. Every node yields the matching live ordinals in
 * ascending order with their float32 scores; combinations follow Lucene's arithmetic (clause
 * scores summed in double and rounded to float once per boolean, ReqOptSumScorer's float add).
 */

export type { Hits } from './hit-lists.js';

export interface ExecContext {
  readonly indexName: string;
  readonly index: InvertedIndex;
  readonly mappings: Mappings;
  /** The `_source` of a live ordinal (phrase verification re-reads the text). */
  readonly sourceOf: (ord: number) => unknown;
  /** The same `_source` as its stored JSON text, when the context has it (phrase verification reads one field of it). */
  readonly sourceTextOf?: (ord: number) => string;
  /**
   * Runs `fn`, which reads many sources (sourceOf), so that they share one read of the store
   * (DocumentStore.reading); runs it as it is when not given.
   */
  readonly reading?: <T>(fn: () => T) => T;
  /** Scratch memory for intermediate hit lists; reset by the caller before each query. */
  readonly arena: ScratchArena;
  /** Epoch milliseconds `now` stands for in date math (default: the clock when a bound is read). */
  readonly now?: () => number;
  /** The index's `index.max_terms_count`: more values in one `terms` query are refused (65,536 unless given). */
  readonly maxTermsCount?: number;
  /** Where scoring reads its statistics (scoring-stats.ts): the shard's own when absent, every shard's under dfs. */
  readonly stats?: ScoringStats | undefined;
}


const f = Math.fround;

function constant(docs: Int32Array, n: number, score: number, arena: ScratchArena): Hits {
  const scores = arena.float32(n);
  scores.fill(score);
  return { docs: n === docs.length ? docs : docs.subarray(0, n), scores, length: n };
}

/** Runs `query`; the result holds live documents only. */
export function execute(query: Query, ctx: ExecContext): Hits {
  const onMetadata = metadataHits(query, ctx);
  if (onMetadata !== undefined) return onMetadata;
  switch (query.kind) {
    case 'match_all': {
      const all = ctx.index.allLive();
      return constant(all, all.length, f(query.boost), ctx.arena);
    }
    case 'match_none':
      return EMPTY;
    case 'match':
      if (query.fuzzy !== undefined) return fuzzyMatchField(ctx, query.field, query.text, query.fuzzy, query.operator, query.msm, query.boost, query.lenient);
      return matchField(ctx, query.field, query.text, query.operator, query.msm, query.boost, query.zeroTermsAll, query.lenient);
    case 'match_phrase':
      if (query.zeroTermsAll && tokens(query.text).length === 0) return execute({ kind: 'match_all', boost: query.boost }, ctx);
      return phrase(ctx, query.field, query.text, query.boost, false, query.slop);
    case 'multi_match':
      return multiMatch(ctx, query);
    case 'term':
      return termQuery(ctx, query.field, query.value, query.boost, query.caseInsensitive);
    case 'terms':
      checkTermsCount(ctx, query.values.length);
      return constScore(ctx, unionAll(query.values.map((v) => termQuery(ctx, query.field, v, 1, false)), ctx.arena), query.boost);
    case 'range':
      return rangeQuery(ctx, query);
    case 'exists':
      return existsQuery(ctx, query.field, query.boost);
    case 'ids':
      return idsQuery(ctx, query.values, query.boost);
    case 'prefix':
      return prefixQuery(ctx, query.field, query.value, query.boost, query.caseInsensitive);
    case 'wildcard':
      return wildcardQuery(ctx, query.field, query.value, query.boost, query.caseInsensitive);
    case 'constant_score':
      return constScore(ctx, execute(query.filter, ctx), query.boost);
    case 'dis_max':
      return disMax(query.queries.map((q) => execute(q, ctx)), query.tieBreaker, query.boost, ctx.arena);
    case 'bool':
      return boolQuery(ctx, query);
    case 'query_string':
      return queryString(ctx, query.clauses, query.fields, query.defaultOperator, query.boost, query.simple ? 1 : 0, query.lenient === true);
    case 'fuzzy':
      return fuzzyHits(ctx, query.field, query.value, query.fuzzy, query.boost);
    case 'regexp':
      return regexpQuery(ctx, query);
    case 'match_phrase_prefix':
      if (query.zeroTermsAll && tokens(query.text).length === 0) return execute({ kind: 'match_all', boost: query.boost }, ctx);
      return phrasePrefixOn(ctx, query.field, query.text, query.slop, query.maxExpansions, query.boost);
    case 'match_bool_prefix':
      return boolPrefixOn(ctx, query.field, query.text, { op: query.operator, msm: query.msm, fuzzy: query.fuzzy, boost: query.boost });
  }
}

/**
 * A query on a metadata field, answered from the index itself: on `_index` by the index's name,
 * `exists` on a field every document has; ES's error for one it refuses. Undefined otherwise.
 */
function metadataHits(query: Query, ctx: ExecContext): Hits | undefined {
  const boost = 'boost' in query ? query.boost : 1;
  const onIndexName = indexFieldMatches(query, ctx.indexName);
  if (onIndexName !== undefined) return onIndexName ? execute({ kind: 'match_all', boost }, ctx) : EMPTY;
  // `_routing` is indexed as a keyword field (routing-field.ts) and queried as one, as ES's
  // RoutingFieldType is a string field type.
  if ('field' in query && query.field === ROUTING_FIELD && ctx.mappings !== ROUTING_MAPPINGS && ctx.mappings.field(ROUTING_FIELD) === undefined) {
    return execute(query, { ...ctx, mappings: ROUTING_MAPPINGS });
  }
  if (!('field' in query) || !query.field.startsWith('_') || ctx.mappings.field(query.field) !== undefined) return undefined;
  return metadataQuery(query, ctx.indexName) === 'all' ? execute({ kind: 'match_all', boost }, ctx) : undefined;
}

function constScore(ctx: ExecContext, hits: Hits, boost: number): Hits {
  return constant(hits.docs, hits.length, f(boost), ctx.arena);
}

/** Field names matching a pattern (`title`, `title*`, `*`), in mapping order. */
function resolveFields(ctx: ExecContext, pattern: string): FieldDef[] {
  if (!pattern.includes('*')) {
    const def = ctx.mappings.field(pattern);
    return def === undefined ? [] : [def];
  }
  // globMatch, not a RegExp of `.*` runs: those backtrack exponentially on many stars.
  // As ES expands a pattern, a text field that is not indexed (so not searchable) is left out.
  return [...ctx.mappings.fields.values()].filter((d) => globMatch(pattern, d.path) && (d.index || d.kind !== 'text') && listEntryReaches(pattern, d.path));
}

/** A term query on the text field at `path`, scored with the statistics the context reads (scoring-stats.ts). */
function textTerm(ctx: ExecContext, path: string, term: string, boost: number): Hits {
  const field = ctx.index.text.get(path);
  if (field === undefined) return EMPTY;
  // Lucene's TermWeight asks for the field's statistics before it looks at the term (dfs records them either way).
  const s = fieldStatistics(ctx, path, field.docCount, field.sumTotalTermFreq);
  const id = field.lookup(term);
  if (id < 0) return EMPTY;
  return scoreTerm(ctx, field.postings, id, boost, s.docCount, s.avgdl, field.norms, termDocFreq(ctx, path, term, field.postings.docFreq(id)));
}

function keywordTerm(ctx: ExecContext, path: string, value: string, boost: number): Hits {
  const field = ctx.index.keyword.get(path);
  if (field === undefined) return EMPTY;
  // Keyword fields index docs only, without norms: freq 1, length 1, avgdl = sumDocFreq / docCount.
  const s = fieldStatistics(ctx, path, field.docCount, field.sumDocFreq);
  const id = field.lookup(value);
  if (id < 0) return EMPTY;
  return scoreTerm(ctx, field.postings, id, boost, s.docCount, s.avgdl, undefined, termDocFreq(ctx, path, value, field.postings.docFreq(id)));
}

function numericEquals(ctx: ExecContext, def: FieldDef, value: number, boost: number): Hits {
  // ES rounds the value as the field rounds what it indexes (a half float, a scaled long).
  const v = def.quantize === undefined ? value : def.quantize(value);
  return numericRange(ctx, def.path, v, true, v, true, boost);
}

function numericRange(ctx: ExecContext, path: string, lo: number, loInc: boolean, hi: number, hiInc: boolean, boost: number): Hits {
  const field = ctx.index.numeric.get(path);
  if (field === undefined) return EMPTY;
  const live = ctx.index.live;
  const max = ctx.index.maxOrd;
  const out = new Int32Array(ctx.index.liveCount);
  let k = 0;
  const inRange = (v: number) => (loInc ? v >= lo : v > lo) && (hiInc ? v <= hi : v < hi);
  for (let d = 0; d < max && d < field.min.length; d++) {
    if (live[d] !== 1) continue;
    const mn = field.min[d] as number;
    if (Number.isNaN(mn)) continue;
    const multi = field.multi.get(d);
    if (multi === undefined ? inRange(mn) : multi.some(inRange)) out[k++] = d;
  }
  return constant(out, k, f(boost), ctx.arena);
}

function parseFor(ctx: ExecContext, def: FieldDef, value: unknown): number {
  const v = def.kind === 'date' ? parseDateFor(def, value) : def.kind === 'boolean' ? (parseBool(value) === undefined ? undefined : parseBool(value) ? 1 : 0) : parseNumber(value, false);
  if (v === undefined) {
    const reason = def.kind === 'date'
      ? `failed to parse date field [${String(value)}] with format [${dateFormatText(def)}]`
      : `failed to create query: For input string: "${String(value)}"`;
    throw errors.queryShard(ctx.indexName, reason);
  }
  return v;
}

function termQuery(ctx: ExecContext, path: string, value: string | number | boolean, boost: number, caseInsensitive: boolean): Hits {
  const def = ctx.mappings.field(path);
  if (def === undefined) return path === '_id' ? execute({ kind: 'ids', values: [String(value)], boost }, ctx) : EMPTY;
  searchable(ctx, def);
  switch (def.kind) {
    case 'text':
      // Indexed text terms are lower case: a case-insensitive term is its lower-case form, and
      // like ES's automaton query for it, it scores as a constant.
      if (caseInsensitive) return constScore(ctx, textTerm(ctx, path, String(value).toLowerCase(), 1), boost);
      return textTerm(ctx, path, String(value), boost);
    case 'keyword': {
      const field = ctx.index.keyword.get(path);
      // A field that is not indexed is searched through its doc values in ES: a constant score.
      if (!def.index) return constScore(ctx, keywordTerm(ctx, path, caseInsensitive ? String(value).toLowerCase() : String(value), 1), boost);
      if (!caseInsensitive || field === undefined) return keywordTerm(ctx, path, String(value), boost);
      const wanted = String(value).toLowerCase();
      const matches = [...field.terms.keys()].filter((t) => t.toLowerCase() === wanted);
      return constScore(ctx, unionAll(matches.map((t) => keywordTerm(ctx, path, t, 1)), ctx.arena), boost);
    }
    case 'boolean': {
      const b = parseBool(typeof value === 'string' ? value : value === true || value === false ? value : String(value));
      if (b === undefined) throw errors.queryShard(ctx.indexName, `Can't parse boolean value [${String(value)}], expected [true] or [false]`);
      return def.index ? keywordTerm(ctx, path, String(b), boost) : constScore(ctx, keywordTerm(ctx, path, String(b), 1), boost);
    }
    case 'numeric':
      return numericEquals(ctx, def, parseFor(ctx, def, value), boost);
    case 'date':
      // ES's DateFieldType.termQuery is the range [value, value] with both bounds inclusive: the
      // lower rounds down and the upper up, so "2021-06-15" matches the whole day.
      return dateRange(ctx, def, { kind: 'range', field: path, gte: value, lte: value, boost });
  }
}

function rangeQuery(ctx: ExecContext, q: Extract<Query, { kind: 'range' }>): Hits {
  const def = ctx.mappings.field(q.field);
  if (def === undefined) return EMPTY;
  if (def.kind === 'date') return dateRange(ctx, def, q);
  if (def.kind === 'numeric' || def.kind === 'boolean') {
    const lo = q.gt ?? q.gte;
    const hi = q.lt ?? q.lte;
    return numericRange(
      ctx,
      def.path,
      lo === undefined ? -Infinity : parseFor(ctx, def, lo),
      q.gt === undefined,
      hi === undefined ? Infinity : parseFor(ctx, def, hi),
      q.lt === undefined,
      q.boost,
    );
  }
  searchable(ctx, def);
  const field = def.kind === 'keyword' ? ctx.index.keyword.get(def.path) : ctx.index.text.get(def.path);
  if (field === undefined) return EMPTY;
  const lo = q.gt ?? q.gte;
  const hi = q.lt ?? q.lte;
  const inRange = (t: string) =>
    (lo === undefined || (q.gt !== undefined ? t > String(lo) : t >= String(lo))) &&
    (hi === undefined || (q.lt !== undefined ? t < String(hi) : t <= String(hi)));
  const ids = [...field.terms.entries()].filter(([t]) => inRange(t)).map(([, id]) => id);
  return constant(...postingsUnion(ctx, field.postings, ids), f(q.boost), ctx.arena);
}

/** A range on a date field: bounds in the query's `format` (else the field's, or epoch_millis for numbers), with date math and `time_zone`. */
function dateRange(ctx: ExecContext, def: FieldDef, q: Extract<Query, { kind: 'range' }>): Hits {
  // Without a query format, a bound given as a JSON number makes ES read both as epoch_millis,
  // whatever the field's format (DateFieldType.rangeQuery: "force epoch_millis").
  const numeric = [q.gt, q.gte, q.lt, q.lte].some((b) => typeof b === 'number');
  const format = q.format ?? (numeric ? 'epoch_millis' : dateFormatText(def));
  // Read only when a bound is date math on `now` (one value for both bounds): a search that reads
  // it is not kept in the request cache (request-cache.ts).
  let nowMs: number | undefined;
  const nowOnce = (): number => (nowMs ??= ctx.now?.() ?? Date.now());
  // Compiled per query (a format compiles in microseconds); no process-wide cache.
  const dateMath = new DateMathParser();
  const bound = (value: unknown, roundUp: boolean): number => {
    try {
      return dateMath.parse(value, { format, get now() { return nowOnce(); }, roundUp, ...(q.timeZone === undefined ? {} : { timeZone: q.timeZone }) });
    } catch (e) {
      if (!(e instanceof DateMathError)) throw e;
      if (e.kind === 'format') throw errors.queryShard(ctx.indexName, e.message);
      if (e.kind === 'invalid') throw errors.illegalArgument(e.message);
      throw errors.shardFailure(ctx.indexName, { type: 'parse_exception', reason: e.message });
    }
  };
  // ES rounds gt and lte up, gte and lt down.
  const lo = q.gt !== undefined ? bound(q.gt, true) : q.gte !== undefined ? bound(q.gte, false) : -Infinity;
  const hi = q.lt !== undefined ? bound(q.lt, false) : q.lte !== undefined ? bound(q.lte, true) : Infinity;
  return numericRange(ctx, def.path, lo, q.gt === undefined, hi, q.lt === undefined, q.boost);
}

function idsQuery(ctx: ExecContext, ids: readonly string[], boost: number): Hits {
  const ords = ids.map((id) => ctx.index.idToOrd.get(id)).filter((o): o is number => o !== undefined);
  const docs = Int32Array.from(new Set(ords)).sort();
  return constant(docs, docs.length, f(boost), ctx.arena);
}

function regexpQuery(ctx: ExecContext, query: Extract<Query, { kind: 'regexp' }>): Hits {
  const def = ctx.mappings.field(query.field);
  if (def !== undefined) searchable(ctx, def);
  const field = termField(ctx, query.field);
  return field === undefined ? EMPTY : constantHits(ctx, field, regexpTerms(ctx, field, query.value, query), query.boost);
}

function prefixQuery(ctx: ExecContext, path: string, value: string, boost: number, caseInsensitive = false): Hits {
  const def = ctx.mappings.field(path);
  if (def !== undefined) searchable(ctx, def);
  const field = termField(ctx, path);
  return field === undefined ? EMPTY : constantHits(ctx, field, prefixTerms(field, value, caseInsensitive), boost);
}

/** match_phrase_prefix: text fields only (ES refuses the others), an unmapped field matches nothing. */
function phrasePrefixOn(ctx: ExecContext, path: string, text: string, slop: number, maxExpansions: number, boost: number): Hits {
  const def = ctx.mappings.field(path);
  if (def === undefined && isIdOrIndex(path)) throw queryCreation(ctx.indexName, phrasePrefixOnlyText(path, path));
  if (def === undefined) return EMPTY;
  if (def.kind !== 'text') throw queryCreation(ctx.indexName, phrasePrefixOnlyText(path, def.esType));
  searchable(ctx, def);
  return phrasePrefix(ctx, path, text, { slop, maxExpansions, boost });
}

/**
 * `wildcard` (`*` and `?`) over the fields `pattern` names, constant score. A text field's terms
 * are lower case, so the pattern is too there, as ES normalizes it with the field's analyzer.
 */
function wildcardQuery(ctx: ExecContext, pattern: string, value: string, boost: number, caseInsensitive: boolean): Hits {
  const perField = resolveFields(ctx, pattern).map((def) => {
    searchable(ctx, def);
    const wanted = caseInsensitive || def.kind === 'text' ? value.toLowerCase() : value;
    const field = termField(ctx, def.path);
    return field === undefined ? EMPTY : constantHits(ctx, field, wildcardTerms(field, wanted, caseInsensitive), boost);
  });
  return perField.length === 1 ? (perField[0] as Hits) : constScore(ctx, unionAll(perField, ctx.arena), boost);
}

/** Live ordinals in any of the lists, ascending. */
function postingsUnion(ctx: ExecContext, postings: PostingStore, ids: readonly number[]): [Int32Array, number] {
  const mark = new Uint8Array(ctx.index.maxOrd);
  for (const id of ids) {
    const packed = postings.postings(id);
    for (let i = 0; i < packed.length; i++) mark[(packed[i] as number) >>> FREQ_BITS] = 1;
  }
  const live = ctx.index.live;
  const out = new Int32Array(ctx.index.liveCount);
  let k = 0;
  for (let d = 0; d < mark.length; d++) if (mark[d] === 1 && live[d] === 1) out[k++] = d;
  return [out, k];
}

function existsQuery(ctx: ExecContext, pattern: string, boost: number): Hits {
  const defs = resolveFields(ctx, pattern);
  const prefixDefs = [...ctx.mappings.fields.values()].filter((d) => d.path.startsWith(`${pattern}.`));
  const live = ctx.index.live;
  const mark = new Uint8Array(ctx.index.maxOrd);
  for (const def of [...defs, ...prefixDefs]) {
    const t = ctx.index.text.get(def.path);
    if (t !== undefined && def.kind === 'text') for (let d = 0; d < t.present.length; d++) if (t.present[d] === 1) mark[d] = 1;
    const kw = ctx.index.keyword.get(def.path);
    if (kw !== undefined && def.kind === 'keyword') for (let d = 0; d < mark.length; d++) if (kw.hasValue(d)) mark[d] = 1;
    const nm = ctx.index.numeric.get(def.path);
    if (nm !== undefined) for (let d = 0; d < nm.min.length; d++) if (!Number.isNaN(nm.min[d] as number)) mark[d] = 1;
  }
  const out = new Int32Array(ctx.index.liveCount);
  let k = 0;
  for (let d = 0; d < mark.length; d++) if (mark[d] === 1 && live[d] === 1) out[k++] = d;
  return constant(out, k, f(boost), ctx.arena);
}

/** A `match` on one field, by field type; `lenient` skips values the field cannot parse. */
/** A `match` with `fuzziness` on one field (multi-term-exec.ts); `lenient` answers nothing where ES would refuse the field. */
function fuzzyMatchField(ctx: ExecContext, path: string, text: string, fuzzy: FuzzySpec, op: Operator, msm: unknown, boost: number, lenient: boolean): Hits {
  if (ctx.mappings.field(path) === undefined) {
    // `_id` and `_index` are not keyword fields: ES refuses a fuzzy query on them unless lenient.
    if (!isIdOrIndex(path) || lenient) return EMPTY;
    throw queryCreation(ctx.indexName, onlyKeywordAndText('fuzzy', path));
  }
  try {
    return fuzzyMatch(ctx, path, text, fuzzy, op, msm, boost);
  } catch (e) {
    if (lenient) return EMPTY;
    throw e;
  }
}

function matchField(ctx: ExecContext, path: string, text: string, op: Operator, msm: unknown, boost: number, zeroTermsAll: boolean, lenient: boolean): Hits {
  const def = ctx.mappings.field(path);
  if (def === undefined) return metadataTerm(ctx, path, text, boost);
  if (def.kind === 'text') {
    searchable(ctx, def);
    const terms = tokens(text);
    if (terms.length === 0) return zeroTermsAll ? execute({ kind: 'match_all', boost }, ctx) : EMPTY;
    const perTerm = terms.map((t) => textTerm(ctx, path, t, boost));
    if (perTerm.length === 1) return perTerm[0] as Hits;
    // With `and` every term is required and none is optional, so a minimum_should_match above 0
    // asks for more optional clauses than there are: ES's query then matches nothing.
    if (op === 'and') return resolveMinimumShouldMatch(msm as string, 0) > 0 ? EMPTY : intersectSum(perTerm, ctx.arena);
    return unionSum(perTerm, Math.max(1, resolveMinimumShouldMatch(msm as string, perTerm.length)), ctx.arena);
  }
  if (def.kind === 'keyword') return keywordTerm(ctx, path, text, boost);
  try {
    return termQuery(ctx, path, text, boost, false);
  } catch (e) {
    if (lenient) return EMPTY;
    throw e;
  }
}

/**
 * `match_phrase`: documents containing the terms at consecutive positions (or, with `slop`, within
 * that many moves: sloppy-phrase.ts), scored as Lucene's PhraseQuery.
 */
function phrase(ctx: ExecContext, path: string, text: string, boost: number, lenient: boolean, slop: number): Hits {
  const def = ctx.mappings.field(path);
  if (def === undefined) return metadataTerm(ctx, path, text, boost);
  if (def.kind !== 'text') return matchField(ctx, path, text, 'or', undefined, boost, false, lenient);
  searchable(ctx, def);
  const terms = tokens(text);
  if (terms.length <= 1) return matchField(ctx, path, text, 'or', undefined, boost, false, lenient);
  const field = ctx.index.text.get(path);
  if (field === undefined) return EMPTY;
  const ids = terms.map((t) => field.lookup(t));
  // PhraseQuery's weight sums the idf of its terms. Its statistics are asked for before a term
  // missing here makes the shard match nothing: the field's, and each term's that has documents.
  const stats = fieldStatistics(ctx, path, field.docCount, field.sumTotalTermFreq);
  const dfs = ids.map((id, i) => {
    const local = id < 0 ? 0 : field.postings.docFreq(id);
    return local === 0 ? 0 : termDocFreq(ctx, path, terms[i] as string, local);
  });
  if (dfs.some((df) => df === 0)) return EMPTY;
  const candidates = intersectSum(terms.map((t) => textTerm(ctx, path, t, 1)), ctx.arena);
  let idfSum = 0;
  for (const df of dfs) idfSum = f(idfSum + idf(df, stats.docCount));
  const weight = termWeight(boost, idfSum);
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
      const gap = def.positionIncrementGap ?? POSITION_INCREMENT_GAP;
      // A phrase spans two values only when the gap is shorter than the phrase.
      const freq = slop > 0 ? sloppyPhraseFreq(tokenPositions(values, analyze, gap), terms, slop) : gap < terms.length - 1 ? exactPhraseFreq(tokenPositions(values, analyze, gap), terms) : phraseFreq(values, terms);
      if (freq === 0) continue;
      docs[k] = d;
      scores[k] = bm25(weight, freq, cache[field.norms[d] as number] as number);
      k++;
    }
  });
  return { docs, scores, length: k };
}

function checkTermsCount(ctx: ExecContext, n: number): void {
  const max = ctx.maxTermsCount ?? 65_536;
  if (n > max) {
    const reason = `The number of terms [${n}] used in the Terms Query request has exceeded the allowed maximum of [${max}]. This maximum can be set by changing the [index.max_terms_count] index level setting.`;
    throw errors.queryShard(ctx.indexName, `failed to create query: ${reason}`);
  }
}

/** ES's refusal of a query on a text field that is not indexed (it has no doc values to fall back on). */
function searchable(ctx: ExecContext, def: FieldDef): void {
  if (def.kind === 'text' && !def.index) throw errors.queryShard(ctx.indexName, `failed to create query: Cannot search on field [${def.path}] since it is not indexed.`);
}

/** ES's default position_increment_gap of text fields: the positions between two values of one field. */
const POSITION_INCREMENT_GAP = 100;

function phraseFreq(values: readonly string[], terms: readonly string[]): number {
  let freq = 0;
  for (const v of values) {
    const toks: string[] = [];
    analyze(v, (t) => toks.push(t));
    for (let i = 0; i + terms.length <= toks.length; i++) {
      let ok = true;
      for (let j = 0; j < terms.length && ok; j++) ok = toks[i + j] === terms[j];
      if (ok) freq++;
    }
  }
  return freq;
}

/**
 * multi_match: each field's query by the type (match, match_phrase, match_phrase_prefix or
 * match_bool_prefix), combined as ES does: most_fields sums them, the others take the best plus
 * tie_breaker times the rest (bool_prefix's own tie_breaker is 1, a sum, as most_fields').
 */
function multiMatch(indexCtx: ExecContext, q: Extract<Query, { kind: 'multi_match' }>): Hits {
  const ctx = listCtx(indexCtx, q.fields);
  if (q.type === 'cross_fields') {
    const lenient = q.lenient === true || q.fields.some((fb) => fb.field === '*');
    const fields = expand(ctx, q.fields).map(({ field, boost }) => ({ field, boost: f(boost * q.boost) }));
    return crossFields(ctx, fields, { text: q.text, operator: q.operator, msm: q.msm, tieBreaker: q.tieBreaker ?? 0, lenient }, {
      match: (path, text, op, msm, boost) => matchField(ctx, path, text, op, msm, boost, false, lenient),
      term: (path, text, boost) => termQuery(ctx, path, text, boost, false),
      searchable: (def) => searchable(ctx, def),
    });
  }
  const perField = expand(ctx, q.fields).map(({ field, boost }) => {
    const b = f(boost * q.boost);
    if (q.type === 'phrase') return phrase(ctx, field, q.text, b, true, q.slop);
    if (q.type === 'phrase_prefix') return multiPhrasePrefix(ctx, field, q.text, q.slop, q.maxExpansions ?? 50, b, q.lenient === true);
    if (q.type === 'bool_prefix') return boolPrefixOn(ctx, field, q.text, { op: q.operator, msm: q.msm, fuzzy: q.fuzzy, boost: b });
    // Lenient for the values a field cannot parse, but a fuzzy query on a field of another type is refused unless `lenient`, as in ES.
    if (q.fuzzy !== undefined) return fuzzyMatchField(ctx, field, q.text, q.fuzzy, q.operator, q.msm, b, q.lenient === true);
    return matchField(ctx, field, q.text, q.operator, q.msm, b, false, true);
  });
  if (q.type === 'most_fields' && q.tieBreaker === undefined) return unionSum(perField, 1, ctx.arena);
  return disMax(perField, q.tieBreaker ?? (q.type === 'most_fields' || q.type === 'bool_prefix' ? 1 : 0), 1, ctx.arena);
}

/** match_bool_prefix; on `_routing` a match (ES's term or fuzzy query: its keyword analyzer leaves no prefix term), as the node runs it. */
function boolPrefixOn(ctx: ExecContext, path: string, text: string, o: Parameters<typeof boolPrefix>[3]): Hits {
  if (path !== ROUTING_FIELD && !(isIdOrIndex(path) && ctx.mappings.field(path) === undefined)) return boolPrefix(ctx, path, text, o);
  return o.fuzzy === undefined ? matchField(ctx, path, text, o.op, o.msm, o.boost, false, true) : fuzzyMatchField(ctx, path, text, o.fuzzy, o.op, o.msm, o.boost, false);
}

/** A phrase prefix on one of multi_match's fields: one that is not text is refused, or skipped when `lenient`. */
function multiPhrasePrefix(ctx: ExecContext, path: string, text: string, slop: number, maxExpansions: number, boost: number, lenient: boolean): Hits {
  const def = ctx.mappings.field(path);
  if (lenient && (def === undefined ? isIdOrIndex(path) : def.kind !== 'text')) return EMPTY;
  return phrasePrefixOn(ctx, path, text, slop, maxExpansions, boost);
}

/** The context a field list runs in: `_routing` among the fields (listed-fields.ts), other metadata fields refused. */
function listCtx(ctx: ExecContext, fields: readonly FieldBoost[]): ExecContext {
  for (const fb of fields) refuseListedMetadata(fb.field, ctx.indexName);
  return { ...ctx, mappings: mappingsWithRouting(ctx.mappings) };
}

function expand(ctx: ExecContext, fields: readonly FieldBoost[]): FieldBoost[] {
  const out: FieldBoost[] = [];
  for (const fb of fields) {
    // `_id` and `_index` named in a list are searched as a match on them is (metadataTerm).
    if (isIdOrIndex(fb.field) && ctx.mappings.field(fb.field) === undefined) out.push({ field: fb.field, boost: fb.boost });
    else for (const def of resolveFields(ctx, fb.field)) out.push({ field: def.path, boost: fb.boost });
  }
  return out;
}

/**
 * A match (or phrase, or bool prefix) on a field the mappings do not have: on `_id` the document
 * with that id, on `_index` every document when the text matches the index's name (`m*` too, as
 * indexNameMatches reads it), each scoring 1
 * times the boost, as ES's term queries on them do; on any other field nothing.
 */
function metadataTerm(ctx: ExecContext, path: string, text: string, boost: number): Hits {
  if (path === '_id') return execute({ kind: 'ids', values: [text], boost }, ctx);
  if (path === '_index') return indexNameMatches(text, ctx.indexName, false) ? execute({ kind: 'match_all', boost }, ctx) : EMPTY;
  return EMPTY;
}

/** `tieBreaker` combines a clause's fields: 0 takes the best field's score, 1 sums them (simple_query_string). */
function queryString(indexCtx: ExecContext, clauses: readonly QsClause[], fields: readonly FieldBoost[] | undefined, op: Operator, boost: number, tieBreaker: number, lenient = false): Hits {
  const ctx = listCtx(indexCtx, [...(fields ?? []), ...clauses.flatMap((c) => (c.field === undefined ? [] : [{ field: c.field, boost: 1 }]))]);
  const defaults = expand(ctx, fields ?? [{ field: '*', boost: 1 }]);
  const build = (c: QsClause): Hits => {
    const targets = c.field !== undefined ? expand(ctx, [{ field: c.field, boost: 1 }]) : defaults;
    const perField = targets.map(({ field, boost: b }) => {
      // simple_query_string's `x*` and `x~N`: the text as the field's analyzer normalizes it (lower
      // case on text fields), a field the query cannot run on skipped when lenient, as in ES.
      if (c.prefix === true) return unlessLenient(ctx, { kind: 'prefix', field, value: normalized(ctx, field, c.text), caseInsensitive: false, boost: b }, lenient);
      if (c.fuzzy !== undefined) return unlessLenient(ctx, { kind: 'fuzzy', field, value: normalized(ctx, field, c.text), fuzzy: c.fuzzy, boost: b }, lenient);
      return c.phrase ? phrase(ctx, field, c.text, b, true, c.slop ?? 0) : matchField(ctx, field, c.text, op, undefined, b, false, true);
    });
    // A phrase takes the best field's score also in simple_query_string (ES's phrase type).
    return perField.length === 1 ? (perField[0] as Hits) : disMax(perField, c.phrase ? 0 : tieBreaker, 1, ctx.arena);
  };
  const must: Hits[] = [];
  const should: Hits[] = [];
  const mustNot: Hits[] = [];
  for (const c of clauses) {
    const occur = c.occur === 'default' ? (op === 'and' ? 'must' : 'should') : c.occur;
    (occur === 'must' ? must : occur === 'should' ? should : mustNot).push(build(c));
  }
  const result = combineBool(ctx, must, should, [], mustNot, should.length > 0 && must.length === 0 ? 1 : 0);
  return boost === 1 ? result : scale(result, boost, ctx.arena);
}


/** A term as a field's analyzer normalizes it for multi-term queries: lower case on text fields (the standard analyzer's normalization), as it is elsewhere. */
function normalized(ctx: ExecContext, field: string, text: string): string {
  return ctx.mappings.field(field)?.kind === 'text' ? text.toLowerCase() : text;
}

/** `query` on one field of a list; ES's refusal of the field becomes no hits when `lenient`. */
function unlessLenient(ctx: ExecContext, query: Query, lenient: boolean): Hits {
  try {
    return execute(query, ctx);
  } catch (e) {
    if (lenient && e instanceof SearchError) return EMPTY;
    throw e;
  }
}

function boolQuery(ctx: ExecContext, q: Extract<Query, { kind: 'bool' }>): Hits {
  const must = q.must.map((c) => execute(c, ctx));
  const should = q.should.map((c) => execute(c, ctx));
  const filter = q.filter.map((c) => execute(c, ctx));
  const mustNot = q.mustNot.map((c) => execute(c, ctx));
  const required = must.length + filter.length;
  // No clause at all: ES builds a match_all (score 1, times the boost), whatever minimum_should_match says.
  if (required + should.length + mustNot.length === 0) {
    const all = ctx.index.allLive();
    return constant(all, all.length, q.boost, ctx.arena);
  }
  let msm = resolveMinimumShouldMatch(q.msm, should.length);
  // ES hands Lucene the value as it is: more should clauses asked for than there are matches
  // nothing. Except in a bool of must_not clauses alone: ES rebuilds it with a match_all filter,
  // and the rebuilt query no longer carries minimum_should_match.
  if (msm > should.length && required + should.length > 0) return EMPTY;
  // A bool of should clauses alone needs one of them, also when the spec resolves to 0 ("50%" of 1).
  if (required === 0 && should.length > 0 && msm === 0) msm = 1;
  const result = combineBool(ctx, must, should, filter, mustNot, msm);
  return q.boost === 1 ? result : scale(result, q.boost, ctx.arena);
}

function combineBool(ctx: ExecContext, must: Hits[], should: Hits[], filter: Hits[], mustNot: Hits[], msm: number): Hits {
  let base: Hits | undefined;
  if (must.length > 0) base = intersectSum(must, ctx.arena);
  if (filter.length > 0) {
    const fl = intersectSum(filter, ctx.arena);
    base = base === undefined ? constant(fl.docs, fl.length, 0, ctx.arena) : intersectKeepLeft(base, fl, ctx.arena);
  }
  if (should.length > 0 && msm > 0) {
    const sh = unionSum(should, msm, ctx.arena);
    base = base === undefined ? sh : addOptional(intersectKeepLeft(base, sh, ctx.arena), sh, ctx.arena);
  } else if (should.length > 0 && base !== undefined) {
    base = addOptional(base, unionSum(should, 1, ctx.arena), ctx.arena);
  }
  if (base === undefined) {
    if (should.length > 0) return EMPTY;
    // Only must_not clauses: match all, score 0 (ES adds a match_all filter).
    const all = ctx.index.allLive();
    base = constant(all, all.length, 0, ctx.arena);
  }
  if (mustNot.length > 0) base = exclude(base, unionAll(mustNot, ctx.arena), ctx.arena);
  return base;
}
