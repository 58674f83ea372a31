import { distance } from 'fastest-levenshtein';

/**
 * ES's "did you mean" candidates for an unknown name (SuggestingErrorOnUnknown, and the REST
 * layer's unrecognized parameters): the known names more than 0.5 similar to it by Levenshtein
 * distance (1 - distance / longer length), most similar first, ties by name. The one similarity
 * for unknown queries (query-dsl.ts), update-body fields and URL parameters (url-params.ts).
 */
export function similarNames(name: string, known: Iterable<string>): string[] {
  return [...known]
    .map((k) => ({ k, s: 1 - distance(name, k) / Math.max(name.length, k.length) }))
    .filter((c) => c.s > 0.5)
    .sort((x, y) => y.s - x.s || (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((c) => c.k);
}

/**
 * The " did you mean [x]?" (or " did you mean any of [x, y]?") that ES's SuggestingErrorOnUnknown
 * appends to an error about an unknown name; empty when no known name is close.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const close = similarNames(name, known);
  if (close.length === 0) return '';
  return close.length === 1 ? ` did you mean [${close[0]}]?` : ` did you mean any of [${close.join(', ')}]?`;
}
