import type { SortedTerms } from './sorted-terms.js';

/**
 * A field's terms as a trie of code points, for the fuzzy walk (query/levenshtein-walk.ts): the
 * nodes in preorder (children in term order), so a walk is one pass over typed arrays that jumps
 * past the whole subtree of a prefix no term below which can match with `next`. Walking the sorted
 * view itself costs a string comparison and a search for every prefix it skips; here a skip is one
 * array read.
 *
 * Built from the sorted view on the first fuzzy query after a change of the dictionary and kept
 * with that view (a view is replaced when terms are added, so a trie is never stale); about 16
 * bytes a node, one node for each distinct prefix of the field's terms.
 */
export interface TermTrie {
  /** The code point of node n (node 0 is the root, the empty prefix). */
  readonly chars: Int32Array;
  /** The number of code points of node n's prefix. */
  readonly depth: Int32Array;
  /** The first node after n's subtree. */
  readonly next: Int32Array;
  /** The view position of the term that is node n's prefix, or -1. */
  readonly term: Int32Array;
}

const tries = new WeakMap<SortedTerms, TermTrie>();

/** The trie of `view` (see the file comment). */
export function termTrie(view: SortedTerms): TermTrie {
  let held = tries.get(view);
  if (held === undefined) {
    held = build(view.texts);
    tries.set(view, held);
  }
  return held;
}

function build(texts: readonly string[]): TermTrie {
  let bound = 1;
  for (const t of texts) bound += t.length;
  const chars = new Int32Array(bound);
  const depth = new Int32Array(bound);
  const next = new Int32Array(bound);
  const term = new Int32Array(bound).fill(-1);
  chars[0] = -1;
  // path[d] is the code point and nodes[d] the node at depth d of the previous term's path.
  let path = new Int32Array(64);
  let nodes = new Int32Array(64);
  let pathLen = 0;
  let count = 1;
  for (let p = 0; p < texts.length; p++) {
    const t = texts[p] as string;
    let d = 0;
    let common = true;
    for (let u = 0; u < t.length; ) {
      let c = t.charCodeAt(u++);
      if (c >= 0xd800 && c <= 0xdbff && u < t.length) {
        const low = t.charCodeAt(u);
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          u++;
        }
      }
      d++;
      if (common && d <= pathLen && path[d] === c) continue;
      if (common) {
        // The path from here on belongs to the previous terms: close its nodes.
        for (let e = pathLen; e >= d; e--) next[nodes[e] as number] = count;
        common = false;
      }
      if (d >= path.length) {
        path = grow(path);
        nodes = grow(nodes);
      }
      path[d] = c;
      nodes[d] = count;
      chars[count] = c;
      depth[count] = d;
      count++;
    }
    if (common) for (let e = pathLen; e > d; e--) next[nodes[e] as number] = count;
    pathLen = d;
    term[d === 0 ? 0 : (nodes[d] as number)] = p;
  }
  for (let e = pathLen; e >= 1; e--) next[nodes[e] as number] = count;
  next[0] = count;
  return { chars: chars.slice(0, count), depth: depth.slice(0, count), next: next.slice(0, count), term: term.slice(0, count) };
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** The node whose prefix is the code points of `prefix`, or -1 when no term starts with it. */
export function trieNode(trie: TermTrie, prefix: string): number {
  let n = 0;
  for (const ch of prefix) {
    const c = ch.codePointAt(0) as number;
    let child = n + 1;
    const end = trie.next[n] as number;
    while (child < end && trie.chars[child] !== c) child = trie.next[child] as number;
    if (child >= end) return -1;
    n = child;
  }
  return n;
}
