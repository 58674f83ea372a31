import { wildcardMatch } from '../syntax/glob.js';
import type { Query } from '../requests/query-dsl.js';

/**
 * Queries on the `_index` metadata field. ES answers them per index, from the index's name
 * alone: every document of an index whose name the query matches (a match_all, score 1 times
 * the boost), none of another's. `term`, `terms`, `match`, `prefix` and `wildcard` are read so;
 * undefined for a query that is not on `_index`.
 */
export function indexFieldMatches(query: Query, indexName: string): boolean | undefined {
  switch (query.kind) {
    case 'term':
      return query.field === '_index' ? sameName(String(query.value), indexName, query.caseInsensitive) : undefined;
    case 'match':
      // With fuzziness it is refused as a fuzzy query on `_index` (query-exec.ts).
      return query.field === '_index' && query.fuzzy === undefined ? query.text === indexName : undefined;
    case 'terms':
      return query.field === '_index' ? query.values.some((v) => String(v) === indexName) : undefined;
    case 'prefix':
      return query.field === '_index' ? (query.caseInsensitive ? indexName.toLowerCase().startsWith(query.value.toLowerCase()) : indexName.startsWith(query.value)) : undefined;
    case 'wildcard':
      return query.field === '_index' ? wildcardMatch(query.caseInsensitive ? query.value.toLowerCase() : query.value, indexName) : undefined;
    default:
      return undefined;
  }
}

function sameName(value: string, indexName: string, caseInsensitive: boolean): boolean {
  return caseInsensitive ? value.toLowerCase() === indexName.toLowerCase() : value === indexName;
}
