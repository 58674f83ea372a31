import { analyze, hashRange, scanTokens } from './analyzer.js';
import { intToByte4 } from './bm25.js';
import type { ParsedDoc } from './document-parser.js';

/**
 * The in-memory index of one Elasticsearch index (one shard). Documents get increasing ordinals in
 * the order they were written; a re-indexed document gets a new ordinal, exactly as a Lucene doc
 * id grows when a document is updated. Posting lists are therefore always sorted by ordinal, and
 * ordinal order is the tie-break of every result order (see top-k.ts).
 *
 * Statistics used by BM25 (docCount, docFreq, sumTotalTermFreq) count live documents only: deleted
 * ordinals stay in the posting lists as tombstones (skipped through the `live` bitmap) but leave the
 * statistics at once. Lucene keeps them until a segment merge, which makes its scores drift in a way
 * nobody can predict; we prefer scores that depend only on the live documents.
 */

const INITIAL = 4;

/** Frequencies up to this are packed with the ordinal; larger ones go to a side table. */
const FREQ_BITS = 4;
const FREQ_MASK = (1 << FREQ_BITS) - 1;
/** Ordinals must stay below 2^27 so that a packed posting is a small integer (V8 Smi). */
export const MAX_ORDINALS = 2 ** (31 - FREQ_BITS);

/** Shared by every list that has no posting yet; never written to. */
const EMPTY: number[] = [];

/**
 * A list of (ordinal, frequency) pairs, sorted by ordinal. Each posting is one small integer,
 * `ordinal << 4 | min(freq, 15)`, in a plain array: V8 stores it unboxed, appends without
 * reallocating typed arrays (which made indexing GC-bound), and the rare frequencies above 15 sit
 * in a side map.
 */
export class PostingList {
  /** Replaced once, at the first push (see `push`); read it after adding, never keep it across adds. */
  packed: number[] = EMPTY;
  bigFreqs: Map<number, number> | undefined;
  /** Live documents containing the term. */
  docFreq = 0;
  /** While a document is being added: its ordinal and this term's frequency in it. */
  pendingOrd = -1;
  pendingFreq = 0;

  constructor(readonly term = '') {}

  get length(): number {
    return this.packed.length;
  }

  push(ord: number, freq: number): void {
    let p = (ord << FREQ_BITS) | freq;
    if (freq >= FREQ_MASK) {
      this.bigFreqs ??= new Map();
      this.bigFreqs.set(ord, freq);
      p = (ord << FREQ_BITS) | FREQ_MASK;
    }
    // Most terms occur in one document: a one-element literal holds exactly one slot, whereas the
    // first push onto [] reserves 17 (about 130 bytes more per term, all of it surviving GC).
    if (this.packed === EMPTY) this.packed = [p];
    else this.packed.push(p);
    this.docFreq++;
  }

  docAt(i: number): number {
    return (this.packed[i] as number) >>> FREQ_BITS;
  }

  freqAt(i: number): number {
    const p = this.packed[i] as number;
    const f = p & FREQ_MASK;
    return f === FREQ_MASK ? (this.bigFreqs?.get(p >>> FREQ_BITS) ?? f) : f;
  }
}

function grow<T extends Uint8Array | Float64Array>(arr: T, need: number, make: (n: number) => T): T {
  if (need <= arr.length) return arr;
  const next = make(Math.max(need, arr.length * 2));
  next.set(arr);
  return next;
}

/** term === src.slice(start, start + len), without making the slice (a plain loop beats startsWith here). */
function sameText(term: string, src: string, start: number, len: number): boolean {
  if (term.length !== len) return false;
  for (let i = 0; i < len; i++) if (term.charCodeAt(i) !== src.charCodeAt(start + i)) return false;
  return true;
}

/**
 * A flat copy of `s`. V8 makes a slice of 13 or more characters a view into its parent, so a term
 * sliced from a field value would keep the whole (lowercased) value alive for as long as the index
 * lives, and every comparison in `sameText` would go through the view to the parent: a copy made
 * once per new term keeps the heap small and the hot comparison to one memory access.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * Term → posting list, keyed by a 32-bit hash of the term so that indexing looks up a token by its
 * range in the field text without first allocating a string for it (the allocation and the string
 * hashing of a Map<string, …> dominated bulk indexing); equal hashes are told apart by comparing
 * the term text.
 */
export class TermDictionary {
  // Open addressing with linear probing: slot -> hash in `hashes`, list in `lists` (0 = empty slot,
  // so hash 0 is stored as 1). Faster than a Map<number, …> on the hot indexing path.
  private hashes = new Int32Array(1 << 12);
  private lists: (PostingList | undefined)[] = new Array<PostingList | undefined>(1 << 12);
  private mask = (1 << 12) - 1;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The list for src[start, end), created when new; `hash` is hashRange(src, start, end) if known. */
  intern(src: string, start: number, end: number, hash?: number): PostingList {
    const h = (hash ?? hashRange(src, start, end)) || 1;
    const len = end - start;
    const hashes = this.hashes;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const sh = hashes[slot] as number;
      if (sh === 0) break;
      if (sh === h) {
        const list = this.lists[slot] as PostingList;
        if (sameText(list.term, src, start, len)) return list;
      }
      slot = (slot + 1) & mask;
    }
    const created = new PostingList(ownString(src.slice(start, end)));
    hashes[slot] = h;
    this.lists[slot] = created;
    if (++this.count * 2 > mask) this.grow();
    return created;
  }

  private grow(): void {
    const oldHashes = this.hashes;
    const oldLists = this.lists;
    const size = oldHashes.length * 2;
    this.hashes = new Int32Array(size);
    this.lists = new Array<PostingList | undefined>(size);
    this.mask = size - 1;
    for (let i = 0; i < oldHashes.length; i++) {
      const h = oldHashes[i] as number;
      if (h === 0) continue;
      let slot = h & this.mask;
      while (this.hashes[slot] !== 0) slot = (slot + 1) & this.mask;
      this.hashes[slot] = h;
      this.lists[slot] = oldLists[i];
    }
  }

  get(term: string): PostingList | undefined {
    const h = hashRange(term, 0, term.length) || 1;
    let slot = h & this.mask;
    for (;;) {
      const sh = this.hashes[slot] as number;
      if (sh === 0) return undefined;
      if (sh === h && (this.lists[slot] as PostingList).term === term) return this.lists[slot];
      slot = (slot + 1) & this.mask;
    }
  }

  *entries(): IterableIterator<[string, PostingList]> {
    for (const list of this.lists) if (list !== undefined) yield [list.term, list];
  }

  keys(): string[] {
    return [...this.entries()].map(([t]) => t);
  }
}

/** A `text` field: terms with frequencies, and one norm byte per document. */
export class TextField {
  readonly terms = new TermDictionary();
  norms = new Uint8Array(INITIAL);
  present = new Uint8Array(INITIAL);
  /** Live documents with at least one token. */
  docCount = 0;
  /** Tokens in live documents. */
  sumTotalTermFreq = 0;
  /** Lists touched by the document being added (reused between documents). */
  private readonly touched: PostingList[] = [];
  private addingOrd = -1;
  private readonly onToken = (src: string, start: number, end: number, hash?: number): void => {
    const list = this.terms.intern(src, start, end, hash);
    if (list.pendingOrd !== this.addingOrd) {
      list.pendingOrd = this.addingOrd;
      list.pendingFreq = 1;
      this.touched.push(list);
    } else {
      list.pendingFreq++;
    }
  };

  add(ord: number, values: readonly string[]): void {
    this.norms = grow(this.norms, ord + 1, (n) => new Uint8Array(n));
    this.present = grow(this.present, ord + 1, (n) => new Uint8Array(n));
    this.present[ord] = 1;
    this.addingOrd = ord;
    let length = 0;
    for (const v of values) length += scanTokens(v, this.onToken);
    const touched = this.touched;
    for (let i = 0; i < touched.length; i++) {
      const list = touched[i] as PostingList;
      list.push(ord, list.pendingFreq);
    }
    touched.length = 0;
    if (length === 0) return;
    this.norms[ord] = intToByte4(length);
    this.docCount++;
    this.sumTotalTermFreq += length;
  }

  remove(ord: number, values: readonly string[]): void {
    this.present[ord] = 0;
    const seen = new Set<string>();
    let length = 0;
    for (const v of values) length += analyze(v, (t) => seen.add(t));
    if (length === 0) return;
    for (const term of seen) {
      const list = this.terms.get(term);
      if (list !== undefined) list.docFreq--;
    }
    this.docCount--;
    this.sumTotalTermFreq -= length;
  }
}

/**
 * Exact terms of a keyword field. Most keyword values (package names, URLs, versions) occur in one
 * document only, so such a value maps straight to its ordinal; a PostingList is made when a second
 * document has it (or when it is looked up or its document deleted). This keeps hundreds of
 * thousands of tiny objects off the heap, which is what made garbage collection dominate indexing.
 */
export class KeywordTerms {
  private readonly map = new Map<string, PostingList | number>();

  add(value: string, ord: number): void {
    const cur = this.map.get(value);
    if (cur === undefined) this.map.set(value, ord);
    else if (typeof cur === 'number') {
      const list = new PostingList(value);
      list.push(cur, 1);
      list.push(ord, 1);
      this.map.set(value, list);
    } else cur.push(ord, 1);
  }

  get(value: string): PostingList | undefined {
    const cur = this.map.get(value);
    if (typeof cur !== 'number') return cur;
    const list = new PostingList(value);
    list.push(cur, 1);
    this.map.set(value, list);
    return list;
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  *entries(): IterableIterator<[string, PostingList]> {
    for (const key of this.map.keys()) yield [key, this.get(key) as PostingList];
  }
}

/** A `keyword` (or `boolean`) field: exact values, a posting list per value, values per document. */
export class KeywordField {
  readonly terms = new KeywordTerms();
  /** Per ordinal: its single value, or all of them when several (sorting, exists). */
  private readonly values: (string | readonly string[] | undefined)[] = [];
  docCount = 0;
  sumDocFreq = 0;

  valuesOf(ord: number): readonly string[] | undefined {
    const v = this.values[ord];
    return typeof v === 'string' ? [v] : v;
  }

  add(ord: number, values: readonly string[]): void {
    if (values.length === 0) {
      this.values[ord] = values;
      return;
    }
    if (values.length === 1) {
      const v = values[0] as string;
      this.values[ord] = v;
      this.terms.add(v, ord);
      this.docCount++;
      this.sumDocFreq++;
      return;
    }
    const unique = [...new Set(values)];
    this.values[ord] = values;
    for (const v of unique) this.terms.add(v, ord);
    this.docCount++;
    this.sumDocFreq += unique.length;
  }

  remove(ord: number): void {
    const values = this.valuesOf(ord);
    this.values[ord] = undefined;
    if (values === undefined) return;
    const unique = new Set(values);
    if (unique.size === 0) return;
    for (const v of unique) {
      const list = this.terms.get(v);
      if (list !== undefined) list.docFreq--;
    }
    this.docCount--;
    this.sumDocFreq -= unique.size;
  }
}

/** A numeric, date or boolean field: the smallest value per document plus all values when several. */
export class NumericField {
  min = new Float64Array(INITIAL).fill(Number.NaN);
  max = new Float64Array(INITIAL).fill(Number.NaN);
  readonly multi = new Map<number, readonly number[]>();

  add(ord: number, values: readonly number[]): void {
    const make = (n: number) => new Float64Array(n).fill(Number.NaN);
    this.min = grow(this.min, ord + 1, make);
    this.max = grow(this.max, ord + 1, make);
    if (values.length === 0) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    this.min[ord] = lo;
    this.max[ord] = hi;
    if (values.length > 1) this.multi.set(ord, values);
  }

  remove(ord: number): void {
    if (ord < this.min.length) {
      this.min[ord] = Number.NaN;
      this.max[ord] = Number.NaN;
    }
    this.multi.delete(ord);
  }

  /** Every value of a document (empty when it has none). */
  valuesOf(ord: number): readonly number[] {
    const m = this.multi.get(ord);
    if (m !== undefined) return m;
    const v = this.min[ord];
    return v === undefined || Number.isNaN(v) ? [] : [v];
  }
}

export class InvertedIndex {
  readonly ids: string[] = [];
  live = new Uint8Array(INITIAL);
  liveCount = 0;
  readonly idToOrd = new Map<string, number>();
  readonly text = new Map<string, TextField>();
  readonly keyword = new Map<string, KeywordField>();
  readonly numeric = new Map<string, NumericField>();
  private allLiveCache: Int32Array | undefined;

  get maxOrd(): number {
    return this.ids.length;
  }

  /** Adds a new version of a document; the caller has removed the old one. Returns its ordinal. */
  add(id: string, doc: ParsedDoc): number {
    const ord = this.ids.length;
    if (ord >= MAX_ORDINALS) throw new RangeError(`an index holds at most ${MAX_ORDINALS} document versions`);
    this.ids.push(id);
    this.live = grow(this.live, ord + 1, (n) => new Uint8Array(n));
    this.live[ord] = 1;
    this.liveCount++;
    this.idToOrd.set(id, ord);
    this.allLiveCache = undefined;
    for (const [path, values] of doc.text) getOrCreate(this.text, path, () => new TextField()).add(ord, values);
    for (const [path, values] of doc.keyword) getOrCreate(this.keyword, path, () => new KeywordField()).add(ord, values);
    for (const [path, values] of doc.numeric) getOrCreate(this.numeric, path, () => new NumericField()).add(ord, values);
    return ord;
  }

  /** Removes a live document; `doc` is its parsed source, needed to take its terms out of the statistics. */
  remove(ord: number, doc: ParsedDoc): void {
    if (this.live[ord] !== 1) return;
    this.live[ord] = 0;
    this.liveCount--;
    this.allLiveCache = undefined;
    const id = this.ids[ord] as string;
    if (this.idToOrd.get(id) === ord) this.idToOrd.delete(id);
    for (const [path, values] of doc.text) this.text.get(path)?.remove(ord, values);
    for (const path of doc.keyword.keys()) this.keyword.get(path)?.remove(ord);
    for (const path of doc.numeric.keys()) this.numeric.get(path)?.remove(ord);
  }

  /** Every live ordinal, ascending (cached until the next write). */
  allLive(): Int32Array {
    if (this.allLiveCache === undefined) {
      const out = new Int32Array(this.liveCount);
      let n = 0;
      for (let i = 0; i < this.ids.length; i++) if (this.live[i] === 1) out[n++] = i;
      this.allLiveCache = out;
    }
    return this.allLiveCache;
  }
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}
