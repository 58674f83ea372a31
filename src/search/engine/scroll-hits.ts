import type { SortValue } from '../query/sort.js';

/**
 * What a scroll keeps of the search that began it: every hit, in order, in columns (typed arrays
 * where it can), so that a scroll over a million hits costs bytes per hit, not objects
 * (open-contexts.ts keeps the scrolls; scroll-pit-search.ts renders their batches).
 */

/** The hits of a scroll, in order, from the search that began it. */
export interface ScrollHits {
  /** Position of the hit's index in the scroll's `states`. */
  readonly shards: Uint32Array;
  readonly ords: Int32Array;
  readonly scores: Float64Array;
  /**
   * When the search sorts on fields: one column per sort key, a hit's values at its position. A
   * column of numbers only (`_doc`, numeric and date fields) is a Float64Array, 8 bytes a hit; an
   * array per hit cost about 170 bytes (a scroll sorted on `_doc` over 1M documents held 173 MiB).
   */
  readonly sortColumns: readonly SortColumn[] | undefined;
}

export type SortColumn = Float64Array | SortValue[];

/** The sort values of hit `i` (undefined: the scroll does not sort on fields). */
export function sortValuesAt(columns: readonly SortColumn[] | undefined, i: number): SortValue[] | undefined {
  return columns?.map((c) => c[i] as SortValue);
}

/** Sort columns of `n` hits, `values(i)` the sort values of hit `i`; undefined when hits have none. */
export function sortColumnsOf(n: number, values: (i: number) => readonly SortValue[] | undefined): SortColumn[] | undefined {
  const keys = n === 0 ? undefined : values(0)?.length;
  if (keys === undefined) return undefined;
  const columns: SortColumn[] = [];
  for (let k = 0; k < keys; k++) {
    let numeric = true;
    for (let i = 0; i < n && numeric; i++) numeric = typeof values(i)?.[k] === 'number';
    if (numeric) {
      const col = new Float64Array(n);
      for (let i = 0; i < n; i++) col[i] = values(i)?.[k] as number;
      columns.push(col);
    } else {
      const col = new Array<SortValue>(n);
      for (let i = 0; i < n; i++) col[i] = values(i)?.[k] ?? null;
      columns.push(col);
    }
  }
  return columns;
}
