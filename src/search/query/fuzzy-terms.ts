import { lowerBound, prefixRange, type SortedTerms } from '../index/sorted-terms.js';
import { termTrie, trieNode } from '../index/term-trie.js';
import { levenshteinWalk, MAX_WALK_LENGTH } from './levenshtein-walk.js';

/**
 * The terms of a dictionary within an edit distance of a query term, as Lucene's FuzzyQuery finds
 * them: the first `prefixLength` characters must match exactly, the rest within `maxEdits`
 * insertions, deletions and substitutions (and, with `transpositions`, swaps of two adjacent
 * characters, each one edit: Lucene's automaton is the restricted Damerau distance), counted in
 * code points.
 *
 * The walk is the automaton intersected with the sorted dictionary (sorted-terms.ts): one row of the
 * edit-distance table per character of the term, the rows of the previous term's common prefix
 * kept, and every term below a prefix whose row already exceeds `maxEdits` skipped with one binary
 * search, so a query reads a small part of a large dictionary.
 */

export interface FuzzyOptions {
  readonly maxEdits: number;
  readonly prefixLength: number;
  readonly transpositions: boolean;
}

/** A term found: its position in the sorted view and its edit distance. */
export interface FuzzyMatch {
  readonly at: number;
  readonly edits: number;
}

/** The code points of `s` (a character above U+FFFF is one). */
export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) as number);
  return out;
}

/** The number of code points of `s`. */
export function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0xd800 || u > 0xdbff || i + 1 >= s.length) n++;
    else {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v <= 0xdfff) i++;
      n++;
    }
  }
  return n;
}

/** The first `n` code points of `s`, as a string. */
function leadingCodePoints(s: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n && i < s.length; k++) i += s.codePointAt(i)! > 0xffff ? 2 : 1;
  return s.slice(0, i);
}

/** Every term of `view` within the distance of `term` (see the file comment), in term order. */
export function fuzzyTerms(view: SortedTerms, term: string, o: FuzzyOptions): FuzzyMatch[] {
  const prefix = leadingCodePoints(term, o.prefixLength);
  const [from, to] = prefixRange(view, prefix);
  if (o.maxEdits === 0 || prefix.length === term.length) {
    const at = lowerBound(view, term);
    return at >= from && at < to && view.texts[at] === term ? [{ at, edits: 0 }] : [];
  }
  const q = codePoints(term.slice(prefix.length));
  if (q.length <= MAX_WALK_LENGTH) {
    const trie = termTrie(view);
    const start = trieNode(trie, prefix);
    return start < 0 ? [] : levenshteinWalk(trie, start, q, o.maxEdits, o.transpositions);
  }
  return tableWalk(view, from, to, prefix, q, o);
}

/** The walk of the edit-distance table, one row per character: query terms too long for levenshtein-walk.ts. */
function tableWalk(view: SortedTerms, from: number, to: number, prefix: string, q: readonly number[], o: FuzzyOptions): FuzzyMatch[] {
  const out: FuzzyMatch[] = [];
  const m = q.length;
  const k = o.maxEdits;
  // rows[i] is the table's row after the first i characters of the term's rest; chars[i] the i-th.
  const rows: Int32Array[] = [Int32Array.from({ length: m + 1 }, (_, j) => j)];
  const rowMin: number[] = [0];
  let chars: number[] = [];
  let prev: number[] = [];
  for (let pos = from; pos < to; ) {
    const text = view.texts[pos] as string;
    chars = codePoints(text.slice(prefix.length));
    let common = 0;
    while (common < chars.length && common < prev.length && chars[common] === prev[common]) common++;
    let dead = -1;
    for (let i = common + 1; i <= chars.length; i++) {
      const row = (rows[i] ??= new Int32Array(m + 1));
      fillRow(row, rows[i - 1] as Int32Array, i >= 2 ? (rows[i - 2] as Int32Array) : undefined, q, chars, i, o.transpositions);
      let min = row[0] as number;
      for (let j = 1; j <= m; j++) if ((row[j] as number) < min) min = row[j] as number;
      rowMin[i] = min;
      if (min > k) {
        dead = i;
        break;
      }
    }
    if (dead < 0 && common > 0 && (rowMin[common] as number) > k) dead = common;
    prev = chars;
    if (dead >= 0) {
      // No term starting with these `dead` characters can come within k: skip them all.
      const stem = prefix + String.fromCodePoint(...chars.slice(0, dead));
      pos = prefixRange(view, stem)[1];
      prev = chars.slice(0, dead - 1);
      continue;
    }
    const edits = (rows[chars.length] as Int32Array)[m] as number;
    if (edits <= k) out.push({ at: pos, edits });
    pos++;
  }
  return out;
}

/** Row i of the edit-distance table of the term's rest `t` (1-based i) against the query's rest `q`. */
function fillRow(row: Int32Array, up: Int32Array, up2: Int32Array | undefined, q: readonly number[], t: readonly number[], i: number, transpositions: boolean): void {
  const c = t[i - 1] as number;
  row[0] = i;
  for (let j = 1; j <= q.length; j++) {
    const cost = q[j - 1] === c ? 0 : 1;
    let v = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
    if (transpositions && up2 !== undefined && j >= 2 && c === q[j - 2] && t[i - 2] === q[j - 1]) v = Math.min(v, (up2[j - 2] as number) + 1);
    row[j] = v;
  }
}

/**
 * Lucene's boost of a fuzzy term: 1 for the exact term, else 1 - edits / the shorter length (of
 * the term and the query term, in code points), in float32.
 */
export function fuzzyBoost(edits: number, termLength: number, queryLength: number): number {
  if (edits === 0) return 1;
  return Math.fround(1 - Math.fround(edits / Math.min(termLength, queryLength)));
}

/**
 * The `max` best of `found` as Lucene's top-terms rewrite keeps them: by boost, then the lower term
 * first. Returned in term order.
 */
export function topTerms(view: SortedTerms, found: readonly FuzzyMatch[], queryLength: number, max: number): { at: number; boost: number }[] {
  const scored = found.map((f) => ({ at: f.at, boost: fuzzyBoost(f.edits, codePointCount(view.texts[f.at] as string), queryLength) }));
  if (scored.length <= max) return scored;
  // Sorted by position = term order, so a stable sort by boost keeps the lower term first on ties.
  return scored.sort((a, b) => b.boost - a.boost || a.at - b.at).slice(0, max).sort((a, b) => a.at - b.at);
}
