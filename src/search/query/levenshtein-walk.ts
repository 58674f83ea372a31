import type { TermTrie } from '../index/term-trie.js';

/**
 * The fuzzy walk of fuzzy-terms.ts for query terms of at most 30 code points (after the fixed
 * prefix), run as a bit-parallel Levenshtein automaton (the NFA of Wu and Manber, with Hyyrö's
 * transposition step) over the field's term trie (index/term-trie.ts). One 32-bit word per allowed
 * edit count holds a whole row of the edit-distance table: bit j of `R[e]` after i characters of a
 * term says that those i characters are within e edits of the query's first j. A character costs
 * a few shifts per edit count instead of a row of m cells; a trie node shares its states with every
 * term below it, and a node whose words are all empty is skipped with its whole subtree.
 *
 * The rows are the edit-distance table's (restricted Damerau distance with `transpositions`), so it
 * finds the same terms at the same distances as the table walk.
 */

/** A term found: its position in the sorted view and its edit distance. */
export interface WalkMatch {
  readonly at: number;
  readonly edits: number;
}

/** The longest query rest (in code points) a word holds with its empty-prefix bit. */
export const MAX_WALK_LENGTH = 30;

/** Grows `a` to at least `n` entries, keeping its contents. */
function grown(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
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

/** The smallest e ≤ k whose word at `base` has the query's last bit, else -1. */
function editsAt(states: Int32Array, base: number, k: number, last: number): number {
  for (let e = 0; e <= k; e++) if (((states[base + e] as number) & last) !== 0) return e;
  return -1;
}

/**
 * The terms below trie node `start` whose rest (after `start`'s prefix) is within `k` edits of the
 * code points `q` (1 ≤ q.length ≤ MAX_WALK_LENGTH), in term order.
 */
export function levenshteinWalk(trie: TermTrie, start: number, q: readonly number[], k: number, transpositions: boolean): WalkMatch[] {
  const m = q.length;
  const mask = (1 << (m + 1)) - 1;
  const last = 1 << m;
  const k1 = k + 1;
  const ascii = new Int32Array(128);
  for (let j = 0; j < m; j++) if ((q[j] as number) < 128) ascii[q[j] as number] = (ascii[q[j] as number] as number) | (1 << (j + 1));
  const { chars, depth, next, term } = trie;
  // states[r * k1 + e]: R[e] at relative depth r of the current path; path[r] its code point there.
  let states = new Int32Array(32 * k1);
  let path = new Int32Array(32);
  for (let e = 0; e <= k; e++) states[e] = ((1 << (e + 1)) - 1) & mask;
  const out: WalkMatch[] = [];
  const d0 = depth[start] as number;
  if ((term[start] as number) >= 0 && m <= k) out.push({ at: term[start] as number, edits: m });
  const end = next[start] as number;
  for (let n = start + 1; n < end; ) {
    const r = (depth[n] as number) - d0;
    if ((r + 1) * k1 > states.length) {
      states = grown(states, (r + 1) * k1);
      path = grown(path, r + 1);
    }
    const c = chars[n] as number;
    path[r] = c;
    const b = matchMask(q, ascii, c);
    const base = r * k1;
    const up = base - k1;
    // Transposition: the query's (j-1)-th and j-th are this character and the one before it.
    const swap = transpositions && r >= 2 ? (b << 1) & matchMask(q, ascii, path[r - 1] as number) : 0;
    let v = ((states[up] as number) << 1) & b & mask;
    states[base] = v;
    for (let e = 1; e <= k; e++) {
      const before = states[up + e - 1] as number;
      let w = (((states[up + e] as number) << 1) & b) | before | (before << 1) | (v << 1);
      if (swap !== 0) w |= ((states[up - k1 + e - 1] as number) << 2) & swap;
      v = w & mask;
      states[base + e] = v;
    }
    if (v === 0) {
      // No term below this prefix comes within k: skip its subtree.
      n = next[n] as number;
      continue;
    }
    const at = term[n] as number;
    if (at >= 0) {
      const edits = editsAt(states, base, k, last);
      if (edits >= 0) out.push({ at, edits });
    }
    n++;
  }
  return out;
}
