import type { SortedTerms } from '../index/sorted-terms.js';

/**
 * The fuzzy walk of fuzzy-terms.ts for query terms of at most 30 code points (after the fixed
 * prefix), run as a bit-parallel Levenshtein automaton (the NFA of Wu and Manber, with Hyyrö's
 * transposition step) over the sorted dictionary. One 32-bit word per allowed edit count holds a
 * whole row of the edit-distance table: bit j of `R[e]` after i characters of a term says that
 * those i characters are within e edits of the query's first j. A character costs a few shifts per
 * edit count instead of a row of m cells, and no term is copied: the walk reads each term's
 * characters in place, reuses the states of the previous term's common prefix, and skips every
 * term below a prefix whose states are all empty with a galloping search.
 *
 * The rows are the same as the edit-distance table's (restricted Damerau distance with
 * `transpositions`), so it finds the same terms at the same distances as the table walk.
 */

/** A term found: its position in the sorted view and its edit distance. */
export interface WalkMatch {
  readonly at: number;
  readonly edits: number;
}

/** The longest query rest (in code points) a word holds with its empty-prefix bit. */
export const MAX_WALK_LENGTH = 30;

/** Grows `a` to at least `n` entries, keeping its contents. */
function grown(a: Int32Array, n: number): Int32Array {
  if (a.length >= n) return a;
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/** Bit j (1-based) set where the query's j-th code point is `c`. */
function matchMask(q: readonly number[], ascii: Int32Array, c: number): number {
  if (c < 128) return ascii[c] as number;
  let b = 0;
  for (let j = 0; j < q.length; j++) if (q[j] === c) b |= 1 << (j + 1);
  return b;
}

/** The end of the run of terms from `at` (which starts with `stem`) that start with `stem`: a galloping search. */
function endOfStem(texts: readonly string[], at: number, to: number, stem: string): number {
  let lo = at + 1;
  let step = 1;
  let hi = lo;
  while (hi < to && (texts[hi] as string).startsWith(stem)) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > to) hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((texts[mid] as string).startsWith(stem)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The terms in positions [from, to) of `view` (all starting with the same `skip` UTF-16 units)
 * whose rest is within `k` edits of the code points `q` (1 ≤ q.length ≤ MAX_WALK_LENGTH), in term order.
 */
export function levenshteinWalk(view: SortedTerms, from: number, to: number, skip: number, q: readonly number[], k: number, transpositions: boolean): WalkMatch[] {
  const m = q.length;
  const mask = (1 << (m + 1)) - 1;
  const last = 1 << m;
  const k1 = k + 1;
  const ascii = new Int32Array(128);
  for (let j = 0; j < m; j++) if ((q[j] as number) < 128) ascii[q[j] as number] = (ascii[q[j] as number] as number) | (1 << (j + 1));
  // states[i * k1 + e]: R[e] after i code points of the current term's rest; chars[i] its i-th; offs[i] where the (i+1)-th starts.
  let states = new Int32Array(32 * k1);
  let chars = new Int32Array(32);
  let offs = new Int32Array(32);
  for (let e = 0; e <= k; e++) states[e] = ((1 << (e + 1)) - 1) & mask;
  const texts = view.texts;
  const out: WalkMatch[] = [];
  let prev = '';
  let valid = 0;
  for (let pos = from; pos < to; ) {
    const text = texts[pos] as string;
    let cu = skip;
    const lim = Math.min(text.length, prev.length);
    while (cu < lim && text.charCodeAt(cu) === prev.charCodeAt(cu)) cu++;
    let i = valid;
    while (i > 0 && skip + (offs[i] as number) > cu) i--;
    let u = skip + (offs[i] as number);
    let dead = false;
    while (u < text.length) {
      let c = text.charCodeAt(u);
      let step = 1;
      if (c >= 0xd800 && c <= 0xdbff && u + 1 < text.length) {
        const low = text.charCodeAt(u + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          step = 2;
        }
      }
      u += step;
      i++;
      if ((i + 1) * k1 > states.length) {
        states = grown(states, (i + 1) * k1);
        chars = grown(chars, i + 1);
        offs = grown(offs, i + 1);
      }
      chars[i] = c;
      offs[i] = u - skip;
      const b = matchMask(q, ascii, c);
      const base = i * k1;
      const up = base - k1;
      // Transposition: the query's j-1-th and j-th are this character and the one before it.
      const swap = transpositions && i >= 2 ? (b << 1) & matchMask(q, ascii, chars[i - 1] as number) : 0;
      let r = ((states[up] as number) << 1) & b & mask;
      states[base] = r;
      for (let e = 1; e <= k; e++) {
        const before = states[up + e - 1] as number;
        let v = (((states[up + e] as number) << 1) & b) | before | (before << 1) | (r << 1);
        if (swap !== 0) v |= ((states[up - k1 + e - 1] as number) << 2) & swap;
        r = v & mask;
        states[base + e] = r;
      }
      if (r === 0) {
        dead = true;
        break;
      }
    }
    prev = text;
    if (dead) {
      // No term starting with these i code points comes within k: skip them all.
      valid = i - 1;
      pos = endOfStem(texts, pos, to, text.slice(0, skip + (offs[i] as number)));
      continue;
    }
    valid = i;
    const base = i * k1;
    for (let e = 0; e <= k; e++) {
      if (((states[base + e] as number) & last) !== 0) {
        out.push({ at: pos, edits: e });
        break;
      }
    }
    pos++;
  }
  return out;
}
