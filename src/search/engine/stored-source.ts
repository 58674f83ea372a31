import type { RootMeta } from '../mapping/root-meta.js';
import { filterSource } from '../requests/source-filter.js';

/**
 * The `_source` an index keeps, as ES keeps it: a mapping's `_source.includes`/`excludes`
 * (root-meta.ts) filter what is stored, so get, `_mget`, search hits (and their `fields` and
 * highlights), an update's merge and the by-query APIs see the filtered document, while every
 * field is still indexed and searchable. Portico keeps the whole document in its store (the
 * in-memory index is rebuilt from it at a start) and applies the filter when it reads it;
 * stored fields (`store: true`) and doc values come from the whole document, as ES keeps them
 * apart from `_source`.
 */
export function shownSource(root: RootMeta, text: string): string {
  if (root.sourceIncludes.length === 0 && root.sourceExcludes.length === 0) return text;
  return JSON.stringify(filterSource(JSON.parse(text), { fetch: true, includes: root.sourceIncludes, excludes: root.sourceExcludes }));
}
