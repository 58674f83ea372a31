import { distance } from 'fastest-levenshtein';

/**
 * ES's "did you mean" candidates for an unknown name (SuggestingErrorOnUnknown, and the REST
 * layer's unrecognized parameters): the known names more than 0.5 similar to it by Levenshtein
 * distance (1 - distance / longer length), most similar first, ties by name.
 */
export function similarNames(name: string, known: Iterable<string>): string[] {
  return [...known]
    .map((k) => ({ k, s: 1 - distance(name, k) / Math.max(name.length, k.length) }))
    .filter((c) => c.s > 0.5)
    .sort((x, y) => y.s - x.s || (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((c) => c.k);
}
