import { globMatch } from '../syntax/glob.js';
import type { Query } from '../requests/query-dsl.js';

/**
 * Queries on the `_index` metadata field. ES answers them per index, from the index's name
 * alone: every document of an index whose name the query matches (a match_all, score 1 times
 * the boost), none of another's. `term`, `terms`, `match`, `prefix` and `wildcard` are read so;
 * undefined for a query that is not on `_index`. As in ES (its index field type's `matches`), each
 * value is a simple pattern: `*` any run of characters, everything else itself (`?` too), so
 * `term: m*` matches `ma` and `wildcard: i?x` does not match `idx`; a prefix is the value and `*`.
 */
export function indexFieldMatches(query: Query, indexName: string): boolean | undefined {
  switch (query.kind) {
    case 'term':
      return query.field === '_index' ? indexNameMatches(String(query.value), indexName, query.caseInsensitive) : undefined;
    case 'match':
      // With fuzziness it is refused as a fuzzy query on `_index` (query-exec.ts).
      return query.field === '_index' && query.fuzzy === undefined ? indexNameMatches(query.text, indexName, false) : undefined;
    case 'terms':
      return query.field === '_index' ? query.values.some((v) => indexNameMatches(String(v), indexName, false)) : undefined;
    case 'prefix':
      return query.field === '_index' ? indexNameMatches(`${query.value}*`, indexName, query.caseInsensitive) : undefined;
    case 'wildcard':
      // A query_string pattern over its field list is refused instead (metadata-fields.ts).
      return query.field === '_index' && query.listed !== true ? indexNameMatches(query.value, indexName, query.caseInsensitive) : undefined;
    default:
      return undefined;
  }
}

/** Whether `pattern` (`*` any run of characters) matches the index's name, as ES's `_index` field type matches it. */
export function indexNameMatches(pattern: string, indexName: string, caseInsensitive: boolean): boolean {
  return caseInsensitive ? globMatch(pattern.toLowerCase(), indexName.toLowerCase()) : globMatch(pattern, indexName);
}
