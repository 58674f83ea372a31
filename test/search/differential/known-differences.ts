/**
 * The differences between Portico and the OpenSearch reference that the differential suite knows
 * of, each with its reason. The suite fails on a difference no entry explains, and on an entry
 * that no longer matches anything (a fix must remove its entry, here and in docs/search.md).
 *
 * Two kinds: where OpenSearch differs from Elasticsearch 8, the compatibility target, Portico
 * follows Elasticsearch 8 (`follows: 'elasticsearch-8'`); where Portico is wrong, the entry says
 * why it is not fixed yet (`follows: 'not-yet'`).
 */
import type { Answer } from './compare.js';
import type { DiffRequest } from './requests.js';

export interface Found {
  readonly request: DiffRequest;
  readonly diff: string;
  readonly portico: Answer;
  readonly reference: Answer;
}

export interface KnownDifference {
  readonly name: string;
  readonly follows: 'elasticsearch-8' | 'not-yet';
  /** Why they differ. */
  readonly reason: string;
  matches(f: Found): boolean;
}

/** Every query object of `q` (depth first) that has the key `name`, as that key's value. */
function queriesNamed(q: unknown, name: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(q)) for (const x of q) queriesNamed(x, name, out);
  else if (q !== null && typeof q === 'object') {
    for (const [k, v] of Object.entries(q)) {
      if (k === name) out.push(v);
      queriesNamed(v, name, out);
    }
  }
  return out;
}

/** A difference in what was found or how it scored (not in an error). */
const inHits = (f: Found): boolean => /^(total|ids|max_score|hit \d+ \(.*\) score)/.test(f.diff);

const queryTexts = (body: unknown, name: string): string[] => queriesNamed(body, name).map((q) => String((q as { query?: unknown }).query ?? ''));

/** A query_string over several fields (listed, or all by default) whose text has two plain words side by side. */
const multiFieldRun = (body: unknown): boolean =>
  queriesNamed(body, 'query_string').some((q) => {
    const { fields, default_field: df, query } = q as { fields?: unknown[]; default_field?: unknown; query?: unknown };
    const several = fields !== undefined ? fields.length > 1 : df === undefined;
    return several && /(^|[\s(])(?!(AND|OR|NOT)\b)[\w.]+\s+(?!(AND|OR|NOT)\b)[\w"]/.test(String(query));
  });

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    name: 'integer and boolean sort values of a missing field',
    follows: 'elasticsearch-8',
    reason:
      'OpenSearch 2.x sorts integer, short, byte and boolean fields as Lucene INT fields, so a document without the field sorts with ' +
      '2147483647 (or -2147483648) in its `sort` array; Elasticsearch 8 sorts them as LONG (IndexNumericFieldData.NumericType), ' +
      'giving 9223372036854775807 (or -9223372036854775808), as Portico does. The order of the hits is the same.',
    matches: (f) => /^hit \d+ \(.*\) sort /.test(f.diff) && /(2147483647|-2147483648)/.test(f.diff) && /9223372036854776000/.test(f.diff),
  },
  {
    name: 'search_after with a from above 0',
    follows: 'elasticsearch-8',
    reason:
      'Elasticsearch 8 refuses it while validating the request: 400 action_request_validation_exception "`from` parameter must be set ' +
      'to 0 when `search_after` is used", as Portico does; OpenSearch 2.x fails it in the query phase, 500 search_phase_execution_exception.',
    matches: (f) => f.request.body.search_after !== undefined && f.portico.status === 400 && f.portico.body?.error?.type === 'action_request_validation_exception' && f.reference.status === 500,
  },
  {
    name: 'query_string groups and mixed operators',
    follows: 'not-yet',
    reason:
      'Lucene\'s classic query parser honours parentheses and reads "a OR b NOT c" by its operator rules; Portico\'s query-string parser ' +
      'is flat (parentheses are dropped), so "(a OR b) AND c" becomes a OR b AND c with other required clauses.',
    matches: (f) => inHits(f) && queryTexts(f.request.body, 'query_string').some((t) => /[()]|\bNOT\b/.test(t)),
  },
  {
    name: 'query_string over several fields',
    follows: 'not-yet',
    reason:
      'Elasticsearch\'s query_string does not split on whitespace: a run of plain words ("data module") is analyzed as one text and ' +
      'becomes a best_fields multi_match over the fields (with AND, every word in the same field; scored by the best field\'s sum). ' +
      'Portico builds one dis_max over the fields per word, so with AND a document may match with its words in different fields, ' +
      'and scores differ when the words are in different fields.',
    matches: (f) => inHits(f) && multiFieldRun(f.request.body),
  },
];
