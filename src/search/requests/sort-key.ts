/** One key of a search's `sort` (also a top_hits aggregation's). */

export type SortOrder = 'asc' | 'desc';

export interface SortKey {
  /** A field path, `_score` or `_doc`. */
  readonly field: string;
  readonly order: SortOrder;
  /** `_last` (default), `_first`, or a replacement value. */
  readonly missing: unknown;
  readonly mode: 'min' | 'max' | undefined;
  readonly unmappedType: string | undefined;
}
