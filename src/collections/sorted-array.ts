/**
 * Binary searches over arrays kept sorted, shared by the areas that keep records in sorted arrays
 * instead of Maps (the push gateway's families per group, the management API's entries per kind):
 * an array costs far less memory than a Map per small collection, and a binary search finds a name
 * in it about as fast.
 *
 * "Sorted by name" means ascending in UTF-16 code unit order, the order of JavaScript's `<` on
 * strings and of `compareByName`; the searches are only correct for arrays sorted that way.
 */

/** Anything kept in an array sorted by its name. */
export interface Named {
  readonly name: string;
}

/** Orders by name in UTF-16 code unit order: the order `findByName` and `lowerBoundByName` expect. */
export function compareByName(a: Named, b: Named): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The element named `name` of `list` (sorted by name, names unique), or undefined.
 *
 * A hot path (the push gateway looks up a group's family on every push): the loop stops at the
 * first equal name rather than narrowing to the lower bound.
 */
export function findByName<T extends Named>(list: readonly T[], name: string): T | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = (list[mid] as T).name;
    if (at === name) return list[mid];
    if (at < name) lo = mid + 1;
    else hi = mid;
  }
  return undefined;
}

/**
 * Index of the first element of `list` (sorted by name), at or after `from`, whose name is not
 * below `name`; `list.length` when there is none. `from` (default 0) lets a caller walking names
 * in ascending order skip what it has passed.
 */
export function lowerBoundByName(list: readonly Named[], name: string, from = 0): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as Named).name < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

