/**
 * A field's terms in Lucene's term order (UTF-8 byte order), for the queries that walk a range of
 * the dictionary: prefix, fuzzy, wildcard, regexp, phrase prefix, range and the suggesters. The
 * dictionaries (term-dictionary.ts, keyword-terms.ts) are hash tables, fast for an exact lookup
 * and unordered; this view is built the first time a query needs it and kept up to date from then
 * on: terms are only ever added (ids are dense and never reused, a compaction keeps them), so a
 * later query sorts only the terms added since and merges them in.
 *
 * Why a side view and not an ordered dictionary: indexing looks up every token, and a hash probe
 * is what keeps bulk indexing fast; the walks are rarer and pay for the order once.
 */

/** What the view reads of a dictionary: its size and the text of a term id. */
export interface TermSource {
  readonly size: number;
  text(id: number): string;
}

/** The terms of one dictionary in order: `texts[i]` is the term with id `ids[i]`. */
export interface SortedTerms {
  readonly texts: readonly string[];
  readonly ids: Int32Array;
}

const views = new WeakMap<object, SortedTerms>();

/**
 * UTF-8 byte order of two strings. JavaScript's `<` compares UTF-16 units, which differs only where
 * a surrogate (a character above U+FFFF) meets a unit of U+E000..U+FFFF: in UTF-8 the former sorts last.
 */
export function compareTerms(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return fixup(x) - fixup(y);
    return x - y;
  }
  return a.length - b.length;
}

/** Surrogates moved above U+FFFF (see compareTerms). */
function fixup(u: number): number {
  return u >= 0xd800 && u <= 0xdfff ? u + 0x2000 : u >= 0xe000 ? u - 0x800 : u;
}

/** The sorted view of `dict` (see the file comment), brought up to date with the terms added since the last call. */
export function sortedTerms(dict: TermSource): SortedTerms {
  const held = views.get(dict);
  const size = dict.size;
  if (held !== undefined && held.ids.length === size) return held;
  const from = held?.ids.length ?? 0;
  const added: [string, number][] = [];
  for (let id = from; id < size; id++) added.push([dict.text(id), id]);
  added.sort((a, b) => compareTerms(a[0], b[0]));
  const view = held === undefined ? fromSorted(added) : merge(held, added);
  views.set(dict, view);
  return view;
}

function fromSorted(pairs: readonly [string, number][]): SortedTerms {
  const ids = new Int32Array(pairs.length);
  const texts = new Array<string>(pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i] as [string, number];
    texts[i] = p[0];
    ids[i] = p[1];
  }
  return { texts, ids };
}

function merge(held: SortedTerms, added: readonly [string, number][]): SortedTerms {
  const n = held.texts.length + added.length;
  const texts = new Array<string>(n);
  const ids = new Int32Array(n);
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    const a = added[j];
    if (i < held.texts.length && (a === undefined || compareTerms(held.texts[i] as string, a[0]) <= 0)) {
      texts[k] = held.texts[i] as string;
      ids[k] = held.ids[i] as number;
      i++;
    } else if (a !== undefined) {
      texts[k] = a[0];
      ids[k] = a[1];
      j++;
    }
  }
  return { texts, ids };
}

/** The first position whose term is not below `term` (`texts.length` when none). */
export function lowerBound(view: SortedTerms, term: string): number {
  let lo = 0;
  let hi = view.texts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareTerms(view.texts[mid] as string, term) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The positions [from, to) of the terms starting with `prefix`. */
export function prefixRange(view: SortedTerms, prefix: string): [number, number] {
  const from = lowerBound(view, prefix);
  let lo = from;
  let hi = view.texts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((view.texts[mid] as string).startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return [from, lo];
}
