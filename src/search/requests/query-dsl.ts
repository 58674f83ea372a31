import { errors, SearchError, type EsCause } from '../errors.js';
import { isJsonObject, textLocation, valueOffset } from '../syntax/json-members.js';
import { parseSimpleQueryString, type SqsNode } from './simple-query-string.js';
import { parseLuceneQuery, type LqNode, type QsClause } from './query-string.js';
import { didYouMean } from '../syntax/did-you-mean.js';
import { checkOptions, refusedOption, unsupportedOption } from './query-options.js';
import { LocatedQueryError, unknownField } from './query-error.js';
import { matchFuzzy, multiTermParsers, type MultiTermQuery } from './multi-term-queries.js';
import type { FuzzySpec } from './fuzziness.js';

/**
 * The Elasticsearch query DSL subset Portico understands, parsed from JSON into an AST with ES's
 * errors (parsing_exception "unknown query [x]" with its "did you mean" suffix, …). Execution is
 * in query-exec.ts; this file knows nothing about the index.
 */

export type Operator = 'or' | 'and';
export type MinimumShouldMatch = string | number | undefined;

export type Query =
  | { kind: 'match_all'; boost: number }
  | { kind: 'match_none' }
  | { kind: 'match'; field: string; text: string; operator: Operator; msm: MinimumShouldMatch; zeroTermsAll: boolean; lenient: boolean; boost: number; fuzzy?: FuzzySpec }
  | { kind: 'match_phrase'; field: string; text: string; slop: number; zeroTermsAll: boolean; boost: number }
  | {
      kind: 'multi_match'; fields: readonly FieldBoost[]; text: string; type: string; operator: Operator; msm: MinimumShouldMatch;
      /** undefined: the type's own (1 for most_fields and bool_prefix, else 0). */
      tieBreaker: number | undefined; slop: number; boost: number; fuzzy?: FuzzySpec; maxExpansions?: number;
      /** `lenient: true`: a field the fuzzy or phrase prefix query cannot run on is skipped rather than refused. */
      lenient?: boolean;
    }
  | { kind: 'term'; field: string; value: string | number | boolean; caseInsensitive: boolean; boost: number }
  | { kind: 'terms'; field: string; values: readonly (string | number | boolean)[]; boost: number }
  | {
      kind: 'range';
      field: string;
      gt?: unknown;
      gte?: unknown;
      lt?: unknown;
      lte?: unknown;
      /** Date format of the bounds (`dd/MM/yyyy`, `epoch_second`, `a||b`); the field's own format when absent. */
      format?: string;
      /** Zone of date bounds without one (`+01:00`, `Europe/Paris`); UTC when absent. */
      timeZone?: string;
      boost: number;
    }
  | { kind: 'exists'; field: string; boost: number }
  | { kind: 'ids'; values: readonly string[]; boost: number }
  | { kind: 'prefix'; field: string; value: string; caseInsensitive: boolean; boost: number }
  /**
   * `field` may be a pattern (`*`, `title*`): query_string's wildcards run over the default fields.
   * `listed`: a query_string pattern run over its `fields` or `default_field`, which ES refuses on `_index`.
   */
  | { kind: 'wildcard'; field: string; value: string; caseInsensitive: boolean; boost: number; listed?: true }
  | { kind: 'constant_score'; filter: Query; boost: number }
  | { kind: 'dis_max'; queries: readonly Query[]; tieBreaker: number; boost: number }
  | { kind: 'bool'; must: readonly Query[]; should: readonly Query[]; filter: readonly Query[]; mustNot: readonly Query[]; msm: MinimumShouldMatch; boost: number }
  // simple: simple_query_string, which sums a term's scores over the fields (most_fields), where
  // query_string takes the best field's (best_fields, tie_breaker 0).
  | { kind: 'query_string'; clauses: readonly QsClause[]; fields: readonly FieldBoost[] | undefined; defaultOperator: Operator; boost: number; simple: boolean; lenient?: boolean }
  | MultiTermQuery;

export interface FieldBoost {
  readonly field: string;
  readonly boost: number;
}

/** Every query name Elasticsearch registers that we could suggest in "did you mean". */
const KNOWN = [
  'bool', 'boosting', 'combined_fields', 'constant_score', 'dis_max', 'distance_feature', 'exists', 'function_score', 'fuzzy',
  'geo_bounding_box', 'geo_distance', 'geo_polygon', 'geo_shape', 'has_child', 'has_parent', 'ids', 'intervals', 'knn', 'match',
  'match_all', 'match_bool_prefix', 'match_none', 'match_phrase', 'match_phrase_prefix', 'more_like_this', 'multi_match', 'nested',
  'parent_id', 'percolate', 'pinned', 'prefix', 'query_string', 'range', 'rank_feature', 'regexp', 'script', 'script_score',
  'shape', 'simple_query_string', 'span_containing', 'span_field_masking', 'span_first', 'span_multi', 'span_near', 'span_not',
  'span_or', 'span_term', 'span_within', 'term', 'terms', 'terms_set', 'wildcard', 'wrapper',
];

function num(v: unknown, what: string): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n)) throw errors.parsing(`[${what}] must be a number, got [${JSON.stringify(v)}]`);
  return n;
}

function operator(v: unknown): Operator {
  if (v === undefined) return 'or';
  const s = String(v).toLowerCase();
  if (s === 'or' || s === 'and') return s;
  throw errors.illegalArgument(`No enum constant org.elasticsearch.index.query.Operator.${String(v).toUpperCase()}`);
}

/** `{"field": value}` or `{"field": {"query": value, …}}` — the one-field shape of match, term, …. */
function singleField(name: string, body: unknown, valueKey: string): { field: string; opts: Record<string, unknown> } {
  if (!isJsonObject(body)) throw errors.parsing(`[${name}] query malformed, no start_object after query name`);
  const keys = Object.keys(body).filter((k) => k !== 'boost' && k !== '_name');
  if (keys.length > 1) {
    throw errors.parsing(`[${name}] query doesn't support multiple fields, found [${keys[0] ?? ''}] and [${keys[1] ?? ''}]`);
  }
  const field = keys[0];
  // ES builds the query with what it found and lets the builder object to what is missing.
  if (field === undefined) {
    if (name === 'match' || name === 'match_phrase') throw errors.parsing('No text specified for text query');
    throw errors.illegalArgument('field name is null or empty');
  }
  // The term-level builders and range refuse an empty field name; match and match_phrase search it (and find nothing).
  if (field === '' && ['term', 'prefix', 'wildcard', 'range'].includes(name)) throw errors.illegalArgument('field name is null or empty');
  const v = body[field];
  if (Array.isArray(v) && (name === 'term' || name === 'prefix')) throw errors.parsing(`[${name}] query does not support array of values`);
  // range only has an object form: a bare value is an unknown key of the range query itself.
  if (name === 'range' && !isJsonObject(v)) throw errors.parsing(`[range] query does not support [${field}]`);
  if (isJsonObject(v)) checkOptions(name, v, [name, field]);
  // Named queries (`matched_queries` in the hits) are not done here.
  if (body._name !== undefined) throw unsupportedOption(name, '_name', [name]);
  const opts = isJsonObject(v) ? { ...v } : { [valueKey]: v };
  if (opts[valueKey] === undefined && name === 'term' && opts.term !== undefined) opts.value = opts.term;
  if (opts[valueKey] === undefined && name === 'prefix' && opts.prefix !== undefined) opts.value = opts.prefix;
  if (Array.isArray(opts.value) && name === 'term') {
    throw errors.parsing(
      '[term] query does not support arrays for value - use a bool query with multiple term clauses in the should section or use a Terms query if scoring is not required',
    );
  }
  if (opts.boost === undefined && body.boost !== undefined) opts.boost = body.boost;
  return { field, opts };
}

function fieldBoosts(v: unknown): FieldBoost[] | undefined {
  if (v === undefined) return undefined;
  const list = Array.isArray(v) ? v : [v];
  return list.map((s) => {
    const [field, boost] = String(s).split('^');
    return { field: field as string, boost: boost === undefined ? 1 : Number(boost) };
  });
}

function scalar(v: unknown, name: string): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  throw errors.parsing(`[${name}] query does not support [${JSON.stringify(v)}]`);
}

/**
 * ES's `indices.query.bool.max_nested_depth` (default 30 since 8.6, for every query type): the
 * longest chain of query objects one query may hold, the outermost and the innermost counted.
 * Also what keeps a query nested thousands deep from exhausting the stack of this parser.
 */
export const MAX_NESTED_DEPTH = 30;

const NESTED_DEPTH_REASON = 'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]';

/**
 * A query whose chain of query objects is longer than MAX_NESTED_DEPTH. ES refuses it as soon as it
 * reads the name of the first query past the limit (AbstractQueryBuilder.parseTopLevelQuery), with
 * illegal_argument_exception; every bool around that query, parsed by an ObjectParser, wraps it in
 * x_content_parse_exception "[line:col] [bool] failed to parse field [must]", all at the same place:
 * the body of the query that broke the limit, where the parser stopped. Other compound queries
 * (dis_max, constant_score) read their clauses by hand and add no wrapper.
 *
 * The place needs the request text, which this parser does not see: `locatedIn` gives ES's whole
 * answer once the caller has the text; until then the error is the bare illegal_argument_exception.
 */
export class NestedDepthExceeded extends SearchError {
  /** The JSON path from where the path is known so far down to the body of the query that broke the limit. */
  readonly path: (string | number)[];
  /** The clause (must, filter, …) of each bool around that query, innermost first. */
  readonly boolClauses: string[] = [];

  constructor(name: string) {
    super(400, { type: 'illegal_argument_exception', reason: NESTED_DEPTH_REASON });
    this.path = [name];
  }

  /** Prefixes the path with `steps` (from an enclosing query, or the request body's root), and records the clause of an enclosing bool. */
  within(steps: readonly (string | number)[], boolClause?: string): this {
    this.path.unshift(...steps);
    if (boolClause !== undefined) this.boolClauses.push(boolClause);
    return this;
  }

  /** Where ES's parser stops in the request body `text`, once `path` runs from its root. */
  offsetIn(text: string): number {
    return valueOffset(text, this.path) ?? 0;
  }

  /** ES's answer for the request body `text`, once `path` runs from its root. */
  locatedIn(text: string): SearchError {
    if (this.boolClauses.length === 0) return this;
    const { line, col } = textLocation(text, this.offsetIn(text));
    let cause: EsCause = { type: 'illegal_argument_exception', reason: NESTED_DEPTH_REASON };
    for (const clause of this.boolClauses) {
      cause = { type: 'x_content_parse_exception', reason: `[${line}:${col}] [bool] failed to parse field [${clause}]`, causedBy: cause };
    }
    // ES's guessRootCauses follows an XContentParseException's cause only while it is an ES
    // exception: the root cause is the innermost wrapper, not the illegal argument.
    const innermost = `[${line}:${col}] [bool] failed to parse field [${this.boolClauses[0] ?? ''}]`;
    return new SearchError(400, cause, [{ type: 'x_content_parse_exception', reason: innermost }]);
  }
}

/**
 * `v` read as a list of clauses (one object, or an array of them) of the query at `depth`; a chain
 * too deep below them is given the steps from `query` (the enclosing query's name) and `field` down.
 */
function clauses(v: unknown, depth: number, query: string, field: string): Query[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return [child(v, depth, [query, field], query === 'bool' ? field : undefined)];
  const out: Query[] = [];
  for (let i = 0; i < v.length; i++) out.push(child(v[i], depth, [query, field, i], query === 'bool' ? field : undefined));
  return out;
}

/** parseQuery of a clause of the query at `depth`, at `steps` below it. */
function child(raw: unknown, depth: number, steps: readonly (string | number)[], boolClause: string | undefined): Query {
  try {
    return parseQuery(raw, depth + 1);
  } catch (e) {
    if (e instanceof NestedDepthExceeded || e instanceof LocatedQueryError) throw e.within(steps, boolClause);
    // Placed at the query that threw it: ES would name the very token, which only matters for the
    // numbers in the bool wrappers' reasons.
    if (e instanceof SearchError) throw LocatedQueryError.around(e, []).within(steps, boolClause);
    throw e;
  }
}

/**
 * parseQuery of the query at `key` of a request body (`query`, `post_filter`): each starts its own
 * count of nested depth, as ES parses each with parseTopLevelQuery.
 */
export function parseTopLevelQuery(raw: unknown, key: string): Query {
  return child(raw, 0, [key], undefined);
}

/**
 * Parses one query object (`{"match": {...}}`) at `depth` in its chain (the outermost is 1);
 * throws SearchError with ES's texts.
 */
export function parseQuery(raw: unknown, depth = 1): Query {
  if (!isJsonObject(raw)) throw errors.parsing('[_na] query malformed, must start with start_object');
  const names = Object.keys(raw);
  if (names.length === 0) return { kind: 'match_all', boost: 1 };
  const name = names[0] as string;
  // ES counts a query as it reads its name, before it looks at anything after it.
  if (depth > MAX_NESTED_DEPTH) throw new NestedDepthExceeded(name);
  if (names.length > 1) {
    throw errors.parsing(`[${names[0]}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
  }
  const body = raw[name];
  const parse = PARSERS.get(name);
  if (parse !== undefined) return parse(body, depth, name);
  if (KNOWN.includes(name)) throw errors.parsing(`query [${name}] is not supported by this server`);
  throw errors.unknownQuery(name, didYouMean(name, KNOWN));
}

/**
 * simple_query_string's tree (simple-query-string.ts) as queries: each term or phrase a one-clause
 * simple query over the fields, each operator a bool, and a negation Lucene's `-x *:*` (a bool of
 * must_not x and a match_all that scores 1).
 */
function simpleTree(node: SqsNode, fields: readonly FieldBoost[] | undefined, op: Operator, o: SimpleOptions): Query {
  const bool = (must: Query[], should: Query[], mustNot: Query[]): Query => ({ kind: 'bool', must, should, filter: [], mustNot, msm: undefined, boost: 1 });
  switch (node.kind) {
    case 'text': {
      const clause: QsClause = {
        occur: 'default', field: undefined, text: node.text, phrase: node.phrase,
        ...(node.slop !== undefined && { slop: node.slop }),
        ...(node.prefix === true && { prefix: true }),
        ...(node.fuzzy !== undefined && { fuzzy: { ...o.fuzzy, fuzziness: { auto: false, edits: node.fuzzy } } }),
      };
      return { kind: 'query_string', clauses: [clause], fields, defaultOperator: op, boost: 1, simple: true, ...(o.lenient && { lenient: true }) };
    }
    case 'not':
      return bool([], [{ kind: 'match_all', boost: 1 }], [simpleTree(node.child, fields, op, o)]);
    default: {
      const children = node.children.map((c) => simpleTree(c, fields, op, o));
      return node.occur === 'must' ? bool(children, [], []) : bool([], children, []);
    }
  }
}

/** What simple_query_string's prefix and fuzzy terms are run with. */
interface SimpleOptions {
  /** `fuzzy_prefix_length` (0), `fuzzy_max_expansions` (50), `fuzzy_transpositions` (true); the edits come from `~N`. */
  readonly fuzzy: Omit<FuzzySpec, 'fuzziness'>;
  /** `lenient`, or every field (`*`, ES's default): a field a prefix or fuzzy query cannot run on is skipped. */
  readonly lenient: boolean;
}

function simpleOptions(body: Record<string, unknown>, fields: readonly FieldBoost[] | undefined): SimpleOptions {
  const int = (v: unknown, name: string, def: number): number => (v === undefined ? def : Math.trunc(num(v, name)));
  return {
    fuzzy: {
      prefixLength: int(body.fuzzy_prefix_length, 'fuzzy_prefix_length', 0),
      maxExpansions: int(body.fuzzy_max_expansions, 'fuzzy_max_expansions', 50),
      transpositions: body.fuzzy_transpositions === undefined ? true : body.fuzzy_transpositions === true || body.fuzzy_transpositions === 'true',
    },
    lenient: body.lenient === true || body.lenient === 'true' || fields === undefined || fields.some((f) => f.field === '*'),
  };
}

/** query_string and simple_query_string: the query text in Lucene's syntax (query-string.ts, simple-query-string.ts). */
function queryStringQuery(body: unknown, _depth: number, name: string): Query {
  if (isJsonObject(body)) checkOptions(name, body);
  if (!isJsonObject(body) || body.query === undefined) throw errors.parsing(`[${name}] must be provided with a [query]`);
  const fields = fieldBoosts(body.fields) ?? fieldBoosts(body.default_field);
  if (name === 'simple_query_string') {
    const op = operator(body.default_operator);
    const tree = parseSimpleQueryString(String(body.query), op);
    if (tree === undefined) return { kind: 'match_none' };
    const q = simpleTree(tree, fields, op, simpleOptions(body, fields));
    const boost = boostOf(body);
    return boost === 1 ? q : { kind: 'bool', must: [q], should: [], filter: [], mustNot: [], msm: undefined, boost };
  }
  const q = queryStringToQuery(String(body.query), {
    fields,
    operator: operator(body.default_operator),
    tieBreaker: body.tie_breaker === undefined ? 0 : num(body.tie_breaker, 'tie_breaker'),
    phraseSlop: body.phrase_slop === undefined ? 0 : num(body.phrase_slop, 'phrase_slop'),
    lenient: body.lenient === true || body.lenient === 'true',
  });
  const boost = boostOf(body);
  return boost === 1 ? q : { kind: 'bool', must: [q], should: [], filter: [], mustNot: [], msm: undefined, boost };
}

/** How query_string (and `q=`) searches its text. */
export interface QueryStringOptions {
  /** The default fields; undefined for every field (ES's `index.query.default_field`, `*`). */
  readonly fields: readonly FieldBoost[] | undefined;
  readonly operator: Operator;
  readonly tieBreaker: number;
  readonly phraseSlop: number;
  /** `lenient`: a field a pattern cannot run on is skipped rather than refused. */
  readonly lenient?: boolean;
}

/** A query_string text (query-string.ts) as a query: match_none when it holds nothing. */
export function queryStringToQuery(text: string, o: QueryStringOptions): Query {
  const tree = parseLuceneQuery(text, o.operator === 'and', o.phraseSlop);
  return tree === undefined ? { kind: 'match_none' } : luceneQuery(tree, o, true);
}

const COMPARISON = /^(>=|<=|>|<)(.+)$/;

// eslint-disable-next-line complexity -- one case per node of the query-string tree, each with its one- and several-field forms
function luceneQuery(node: LqNode, o: QueryStringOptions, top: boolean): Query {
  const one = node.kind !== 'bool' && node.kind !== 'match_all' && node.field !== undefined && node.field !== '*' && !node.field.includes('*') ? node.field : undefined;
  const fields = node.kind !== 'bool' && node.kind !== 'match_all' && node.field !== undefined ? [{ field: node.field, boost: 1 }] : (o.fields ?? [{ field: '*', boost: 1 }]);
  const overFields = (make: (fb: FieldBoost) => Query): Query =>
    fields.length === 1 ? make(fields[0] as FieldBoost) : { kind: 'dis_max', queries: fields.map(make), tieBreaker: o.tieBreaker, boost: 1 };
  switch (node.kind) {
    case 'bool': {
      const parts = { must: [] as Query[], should: [] as Query[], must_not: [] as Query[] };
      for (const c of node.clauses) parts[c.occur].push(luceneQuery(c.node, o, false));
      // Lucene's BooleanQuery of prohibited clauses alone matches nothing; ES adds a match_all
      // filter to the whole query only, which Portico's bool of must_not clauses alone is.
      if (!top && parts.must.length + parts.should.length === 0) return { kind: 'match_none' };
      return { kind: 'bool', must: parts.must, should: parts.should, filter: [], mustNot: parts.must_not, msm: undefined, boost: node.boost };
    }
    case 'match_all':
      return { kind: 'match_all', boost: node.boost };
    case 'exists':
      return { kind: 'exists', field: node.field, boost: node.boost };
    case 'wildcard': {
      const value = node.pattern;
      const isPrefix = /^[^*?]*\*$/.test(value);
      // The node answers `_id:d*`, `_id:d?x` with no hits rather than the refusal a prefix or
      // wildcard query on `_id` gets elsewhere (also when `_id` is one of several fields).
      if (one === '_id') return { kind: 'match_none' };
      // So does `_index:i?x` (a pattern that is not a bare prefix, `*` or `?` anywhere else), where
      // the `wildcard` query and `_index:i*` are answered from the index's name; also under NOT.
      if (one === '_index' && !isPrefix) return { kind: 'match_none' };
      if (isPrefix && one !== undefined) return { kind: 'prefix', field: one, value: value.slice(0, -1), caseInsensitive: false, boost: node.boost };
      // ES builds a prefix query per field for `x*`: on `_id` its refusal names prefix queries.
      // Over `fields` (or `default_field`) the node refuses any other pattern on `_index` (skipped
      // when lenient); a bare prefix there matches index names.
      return overFields((fb): Query => {
        if (fb.field === '_id' && isPrefix) return { kind: 'prefix', field: fb.field, value: value.slice(0, -1), caseInsensitive: false, boost: f32(node.boost * fb.boost) };
        if (fb.field === '_index' && !isPrefix) return o.lenient === true ? { kind: 'match_none' } : { kind: 'wildcard', field: fb.field, value, caseInsensitive: false, boost: f32(node.boost * fb.boost), listed: true };
        return { kind: 'wildcard', field: fb.field, value, caseInsensitive: false, boost: f32(node.boost * fb.boost) };
      });
    }
    case 'range': {
      const q = (field: string): Query => {
        const r: Query = { kind: 'range', field, boost: node.boost };
        if (node.from !== undefined) r[node.includeLower ? 'gte' : 'gt'] = node.from;
        if (node.to !== undefined) r[node.includeUpper ? 'lte' : 'lt'] = node.to;
        return r;
      };
      // The node answers a range on `_id` or `_index` named in the text (also `_id:>a`) with no
      // hits, where the `range` query on them is refused.
      if (one === '_id' || one === '_index') return { kind: 'match_none' };
      if (one !== undefined) return q(one);
      throw errors.parsing('query [range] over several fields in [query_string] is not supported by this server');
    }
    case 'text': {
      const cmp = one !== undefined && !node.phrase ? COMPARISON.exec(node.text) : null;
      if (cmp !== null) {
        // A range on `_id` or `_index`, as `[a TO b]` below: no hits.
        if (one === '_id' || one === '_index') return { kind: 'match_none' };
        const op = ({ '>=': 'gte', '<=': 'lte', '>': 'gt', '<': 'lt' } as const)[cmp[1] as '>=' | '<=' | '>' | '<'];
        return { kind: 'range', field: one as string, [op]: cmp[2], boost: node.boost };
      }
      if (one !== undefined && node.phrase) return { kind: 'match_phrase', field: one, text: node.text, slop: node.slop ?? 0, zeroTermsAll: false, boost: node.boost };
      if (one !== undefined) return { kind: 'match', field: one, text: node.text, operator: o.operator, msm: undefined, zeroTermsAll: false, lenient: false, boost: node.boost };
      return {
        kind: 'multi_match', fields, text: node.text, type: node.phrase ? 'phrase' : 'best_fields', operator: o.operator, msm: undefined,
        tieBreaker: o.tieBreaker, slop: node.slop ?? 0, boost: node.boost,
      };
    }
  }
}

const f32 = Math.fround;

/** The parser of each query this server runs: `body` is the object under the query's name. */
const PARSERS = new Map<string, (body: unknown, depth: number, name: string) => Query>([
  ['match_all', (body, _depth, name) => {
    objectParserKeys(name, body, true);
    return { kind: 'match_all', boost: isJsonObject(body) ? boostOf(body) : 1 };
  }],
  ['match_none', (body, _depth, name) => {
    if (isJsonObject(body)) checkOptions(name, body);
    return { kind: 'match_none' };
  }],
  ['match', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'query');
    if (opts.query === undefined || opts.query === null) throw errors.parsing('No text specified for text query');
    return {
      kind: 'match',
      field,
      text: String(scalar(opts.query, name)),
      operator: operator(opts.operator),
      msm: opts.minimum_should_match as MinimumShouldMatch,
      zeroTermsAll: zeroTermsAll(opts.zero_terms_query),
      lenient: opts.lenient === true || opts.lenient === 'true',
      boost: boostOf(opts),
      ...fuzzyKey(matchFuzzy(name, opts, [name, field])),
    };
  }],
  ['match_phrase', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'query');
    const slop = opts.slop === undefined ? 0 : num(opts.slop, 'slop');
    if (slop < 0) throw errors.illegalArgument('No negative slop allowed.');
    return { kind: 'match_phrase', field, text: String(scalar(opts.query, name)), slop, zeroTermsAll: zeroTermsAll(opts.zero_terms_query), boost: boostOf(opts) };
  }],
  ['multi_match', (body, _depth, name) => {
    if (!isJsonObject(body)) throw errors.parsing('[multi_match] query malformed');
    checkOptions(name, body);
    if (body.query === undefined) throw errors.parsing('No text specified for multi_match query');
    const type = multiMatchType(body.type);
    const fuzzy = matchFuzzy(name, body, [name]);
    if (fuzzy !== undefined && (type === 'phrase' || type === 'phrase_prefix' || type === 'cross_fields')) throw errors.parsing(`Fuzziness not allowed for type [${type}]`);
    return {
      kind: 'multi_match',
      fields: fieldBoosts(body.fields) ?? [{ field: '*', boost: 1 }],
      text: String(scalar(body.query, name)),
      type,
      operator: operator(body.operator),
      msm: body.minimum_should_match as MinimumShouldMatch,
      tieBreaker: body.tie_breaker === undefined ? undefined : num(body.tie_breaker, 'tie_breaker'),
      slop: body.slop === undefined ? 0 : num(body.slop, 'slop'),
      boost: boostOf(body),
      maxExpansions: body.max_expansions === undefined ? 50 : num(body.max_expansions, 'max_expansions'),
      lenient: body.lenient === true || body.lenient === 'true',
      ...fuzzyKey(fuzzy),
    };
  }],
  ['term', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'value');
    if (opts.value === undefined || opts.value === null) throw errors.illegalArgument('value cannot be null');
    return { kind: 'term', field, value: scalar(opts.value, name), caseInsensitive: opts.case_insensitive === true, boost: boostOf(opts) };
  }],
  ['terms', (body, _depth, name) => {
    if (!isJsonObject(body)) throw errors.parsing('[terms] query malformed');
    // Any key but boost names the field; a second one, or a value no list, is one ES does not know.
    const fields = Object.keys(body).filter((k) => k !== 'boost');
    for (const k of fields) if (!Array.isArray(body[k]) && !isJsonObject(body[k])) throw unsupportedOption(name, k, [name]);
    const field = fields[0];
    if (field === undefined || fields.length > 1) throw errors.parsing('[terms] query does not support multiple fields');
    const values = body[field];
    if (!Array.isArray(values)) throw errors.parsing(`[terms] query does not support [${field}]`);
    return { kind: 'terms', field, values: values.map((v) => scalar(v, name)), boost: boostOf(body) };
  }],
  ['range', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'gte');
    const q: Query = { kind: 'range', field, boost: boostOf(opts) };
    for (const k of ['gt', 'gte', 'lt', 'lte'] as const) if (opts[k] !== undefined && opts[k] !== null) q[k] = opts[k];
    if (opts.from !== undefined && opts.from !== null) q[opts.include_lower === false ? 'gt' : 'gte'] = opts.from;
    if (opts.to !== undefined && opts.to !== null) q[opts.include_upper === false ? 'lt' : 'lte'] = opts.to;
    if (typeof opts.format === 'string') q.format = opts.format;
    if (typeof opts.time_zone === 'string') q.timeZone = opts.time_zone;
    return q;
  }],
  ['exists', (body, _depth, name) => {
    if (isJsonObject(body)) checkOptions(name, body);
    if (!isJsonObject(body) || typeof body.field !== 'string') throw errors.parsing('[exists] must be provided with a [field]');
    if (body.field === '') throw errors.illegalArgument('field name is null or empty');
    return { kind: 'exists', field: body.field, boost: boostOf(body) };
  }],
  ['ids', (body, _depth, name) => {
    if (!isJsonObject(body)) throw errors.parsing('[ids] query malformed');
    objectParserKeys(name, body, true);
    const values = body.values ?? [];
    if (!Array.isArray(values)) throw errors.parsing('[ids] query malformed, values must be an array');
    return { kind: 'ids', values: values.map(String), boost: boostOf(body) };
  }],
  ['prefix', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'value');
    return { kind: 'prefix', field, value: String(scalar(opts.value, name)), caseInsensitive: opts.case_insensitive === true, boost: boostOf(opts) };
  }],
  ['constant_score', (body, depth, name) => {
    if (isJsonObject(body)) checkOptions(name, body);
    if (!isJsonObject(body) || body.filter === undefined) throw errors.parsing('[constant_score] requires a \'filter\' element');
    return { kind: 'constant_score', filter: child(body.filter, depth, [name, 'filter'], undefined), boost: boostOf(body) };
  }],
  ['dis_max', (body, depth, name) => {
    if (!isJsonObject(body)) throw errors.parsing('[dis_max] query malformed');
    checkOptions(name, body);
    return { kind: 'dis_max', queries: clauses(body.queries, depth, name, 'queries'), tieBreaker: body.tie_breaker === undefined ? 0 : num(body.tie_breaker, 'tie_breaker'), boost: boostOf(body) };
  }],
  ['bool', (body, depth, name) => {
    if (!isJsonObject(body)) throw errors.parsing('[bool] query malformed, no start_object after query name');
    objectParserKeys(name, body, false);
    return {
      kind: 'bool',
      must: clauses(body.must, depth, name, 'must'),
      should: clauses(body.should, depth, name, 'should'),
      filter: clauses(body.filter, depth, name, 'filter'),
      mustNot: clauses(body.must_not, depth, name, 'must_not'),
      msm: body.minimum_should_match as MinimumShouldMatch,
      boost: boostOf(body),
    };
  }],
  ['query_string', queryStringQuery],
  ['wildcard', (body, _depth, name) => {
    const { field, opts } = singleField(name, body, 'value');
    if (opts.value === undefined && opts.wildcard !== undefined) opts.value = opts.wildcard;
    return { kind: 'wildcard', field, value: String(scalar(opts.value, name)), caseInsensitive: opts.case_insensitive === true, boost: boostOf(opts) };
  }],
  ['simple_query_string', queryStringQuery],
  ...multiTermParsers({ singleField, boostOf, num, scalar, operator, zeroTermsAll }),
]);

/** `{ fuzzy }` when there is one: the key stays absent otherwise (exactOptionalPropertyTypes). */
function fuzzyKey(fuzzy: FuzzySpec | undefined): { fuzzy?: FuzzySpec } {
  return fuzzy === undefined ? {} : { fuzzy };
}

/**
 * The keys of a query ES parses with an ObjectParser (bool, ids, match_all): one it does not know
 * (or whose value Portico does not act on) is ES's "[1:19] [bool] unknown field [nope]", placed
 * in the request text; `wrapped` in a parsing_exception for ids and match_all.
 */
function objectParserKeys(name: string, body: unknown, wrapped: boolean): void {
  if (!isJsonObject(body)) return;
  const k = refusedOption(name, body);
  if (k !== undefined) throw unknownField(name, k, [name, k], wrapped);
}

function zeroTermsAll(v: unknown): boolean {
  if (v === undefined) return false;
  const s = String(v).toLowerCase();
  if (s === 'all' || s === 'none') return s === 'all';
  throw errors.parsing(`Unsupported zero_terms_query value [${String(v)}]`);
}

/** The multi_match types Portico runs; ES's other types are refused, never run as best_fields. */
function multiMatchType(v: unknown): string {
  const type = v === undefined ? 'best_fields' : String(v).toLowerCase();
  if (['best_fields', 'most_fields', 'cross_fields', 'phrase', 'phrase_prefix', 'bool_prefix'].includes(type)) return type;
  throw errors.parse(`failed to parse [multi_match] query type [${String(v)}]. unknown type.`);
}

function boostOf(o: Record<string, unknown>): number {
  return o.boost === undefined ? 1 : num(o.boost, 'boost');
}

/**
 * Resolves minimum_should_match against the number of optional clauses, with ES's forms: `3`,
 * `-2`, `75%`, `-25%`, `3<90%` and `2<-25% 9<-3`. Not capped at `optional`: ES hands the value to
 * Lucene as it is, so a query asking for more optional clauses than it has matches nothing.
 */
export function resolveMinimumShouldMatch(spec: MinimumShouldMatch, optional: number): number {
  if (spec === undefined || spec === null) return 0;
  const text = String(spec).trim();
  if (text.includes('<')) {
    let result = optional;
    for (const part of text.split(/\s+/)) {
      const [lhs, rhs] = part.split('<');
      const upTo = Number(lhs);
      if (Number.isNaN(upTo) || rhs === undefined) throw errors.illegalArgument(`Invalid minimum_should_match value [${text}]`);
      if (optional > upTo) result = resolveMinimumShouldMatch(rhs, optional);
    }
    return result;
  }
  let n: number;
  if (text.endsWith('%')) {
    const pct = Number(text.slice(0, -1));
    if (Number.isNaN(pct)) throw errors.illegalArgument(`Invalid minimum_should_match value [${text}]`);
    const calc = Math.trunc((optional * pct) / 100);
    n = pct < 0 ? optional + calc : calc;
  } else {
    const v = Number(text);
    if (!Number.isInteger(v)) throw errors.illegalArgument(`Invalid minimum_should_match value [${text}]`);
    n = v < 0 ? optional + v : v;
  }
  return Math.max(0, n);
}
