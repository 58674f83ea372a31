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
];
