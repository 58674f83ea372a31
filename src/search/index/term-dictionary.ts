import { hashRange, hashUnits, tokenUnit } from './analyzer.js';
import type { PostingStore } from './posting-store.js';

/**
 * Term text → term id of a text field. Indexing looks a token up by its range in the field text
 * (and the hash the tokenizer computed while scanning it), without allocating a string for it: the
 * allocation and the string hashing of a Map<string, …> dominated bulk indexing.
 *
 * The terms' text lives in one Uint16Array, each term as a record [length, id low, id high,
 * UTF-16 units…], and the open-addressing table maps a hash to the term id and its text (short
 * terms inline, others by record offset): a lookup of a short term touches its table slot only, a
 * long one the slot and the record, and the hundreds of thousands of terms are no objects for the
 * garbage collector. Ids are dense (0, 1, …) and index the field's PostingStore;
 * term strings are made only when a query enumerates the terms (prefix, range).
 *
 * The table's hashes are the analyzer's keyed token hash (hashRange; hashBytes and hashUnits for
 * bytes and UTF-16 units; see analyzer.ts for why it is keyed: tokens come from _bulk, and a public
 * hash let crafted tokens pile into one probe run). Every way in must hash with those functions of
 * this thread. Their key is per process and per thread, so the table is never saved (snapshot) nor
 * fed hashes from another thread: a restore rebuilds it from the terms with this process's key.
 */
/** Int32 per table slot: [hash, id, a, b] (see TermDictionary). */
const SLOT = 4;
/** Longest term kept in its table slot: two int32 of four 7-bit units. */
const INLINE_MAX = 8;

export class TermDictionary {
  // Slot s: table[4s] = hash (0 = empty slot, so hash 0 is stored as 1), table[4s + 1] = term id,
  // then the term itself when short: a term of at most INLINE_MAX units, each in 1..127 (every
  // lowercased ASCII token), is packed in table[4s + 2] (units 0-3, one per byte from the low one)
  // and table[4s + 3] (units 4-7), zero-padded. Any other term has ~(record offset) there (< 0).
  // Why: most tokens are short, and a hit on a known short term then reads its slot only; the
  // record (a random place in a pool of megabytes) was one more cache miss per token. Whether a
  // term is inline depends on its text alone, so an inline term never equals a record's term.
  private table = new Int32Array(SLOT << 10);
  private mask = (1 << 10) - 1;
  private pool = new Uint16Array(1 << 12);
  private poolTop = 0;
  /** Record offset by term id. */
  private offsets = new Int32Array(1 << 8);
  private count = 0;

  constructor(private postings: PostingStore) {}

  /** New terms get their ids from `postings` from now on (a compacted copy of the old store, with the same ids). */
  rebind(postings: PostingStore): void {
    this.postings = postings;
  }

  get size(): number {
    return this.count;
  }

  /** The id of the token src[start, end) (see scanTokens), created when new; `hash` is hashRange(src, start, end) if known. */
  intern(src: string, start: number, end: number, hash?: number): number {
    const h = (hash ?? hashRange(src, start, end)) || 1;
    const slot = this.probe(src, start, end, h);
    if (slot >= 0) return this.table[SLOT * slot + 1] as number;
    const len = end - start;
    const at = this.newRecord(~slot, h, len);
    const pool = this.pool;
    for (let i = 0; i < len; i++) pool[at + 3 + i] = tokenUnit(src, start + i);
    this.setText(~slot, at, len);
    return this.count - 1;
  }

  /** The id of src[start, end), or -1. */
  find(src: string, start: number, end: number, hash: number): number {
    const slot = this.probe(src, start, end, hash || 1);
    return slot >= 0 ? (this.table[SLOT * slot + 1] as number) : -1;
  }

  /** The slot holding the token src[start, end) with hash `h` (not 0), or ~(the empty slot where it would go). */
  private probe(src: string, start: number, end: number, h: number): number {
    const SLOT = 4; // local copies: see internBytes
    const INLINE_MAX = 8;
    const len = end - start;
    let a = 0;
    let b = 0;
    let inline = len <= INLINE_MAX;
    for (let i = 0; inline && i < len; i++) {
      const u = tokenUnit(src, start + i);
      if (u === 0 || u > 127) inline = false;
      else if (i < 4) a |= u << (8 * i);
      else b |= u << (8 * (i - 4));
    }
    const table = this.table;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const o = SLOT * slot;
      const sh = table[o] as number;
      if (sh === 0) return ~slot;
      if (sh === h) {
        const ta = table[o + 2] as number;
        if (inline ? ta === a && table[o + 3] === b : ta < 0 && this.sameText(~ta, src, start, len)) return slot;
      }
      slot = (slot + 1) & mask;
    }
  }

  /**
   * A record for a new term of `len` units with hash `h` in table slot `slot` (found empty by the
   * caller's probe); returns its offset, for the caller to write the units at offset + 3 and then
   * call setText. The new term's id is size - 1.
   */
  private newRecord(slot: number, h: number, len: number): number {
    const id = this.postings.newTerm();
    const at = this.poolTop;
    if (at + 3 + len > this.pool.length) {
      const grown = new Uint16Array(Math.max(at + 3 + len, this.pool.length * 2));
      grown.set(this.pool);
      this.pool = grown;
    }
    const pool = this.pool;
    pool[at] = len;
    pool[at + 1] = id & 0xffff;
    pool[at + 2] = id >>> 16;
    this.poolTop = at + 3 + len;
    if (id >= this.offsets.length) {
      const grown = new Int32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[id] = at;
    this.count++;
    this.table[SLOT * slot] = h;
    this.table[SLOT * slot + 1] = id;
    return at;
  }

  /** Fills slot `slot` with the text of the record at `at` (inline or its offset), then grows the table if due. */
  private setText(slot: number, at: number, len: number): void {
    const pool = this.pool;
    let a = 0;
    let b = 0;
    let inline = len <= INLINE_MAX;
    for (let i = 0; inline && i < len; i++) {
      const u = pool[at + 3 + i] as number;
      if (u === 0 || u > 127) inline = false;
      else if (i < 4) a |= u << (8 * i);
      else b |= u << (8 * (i - 4));
    }
    this.table[SLOT * slot + 2] = inline ? a : ~at;
    this.table[SLOT * slot + 3] = inline ? b : 0;
    if (this.count * 2 > this.mask) this.grow();
  }

  /**
   * `intern` for a token held as lowercased ASCII bytes (see scanAsciiBytes); `hash` is its
   * hashRange. The same id as `intern` gives for the same text. The probe loop repeats probe's on
   * purpose: one loop per source type (string, bytes) keeps each monomorphic, with no compare
   * callback, on the hottest path of bulk indexing.
   */
  internBytes(bytes: Uint8Array, start: number, end: number, hash: number): number {
    // Local copies of SLOT and INLINE_MAX: V8 (11.x) reads a module-level `const` from the module
    // context, type-checked, at every use, and folds a local literal into the code.
    const SLOT = 4;
    const INLINE_MAX = 8;
    const h = hash || 1;
    const len = end - start;
    const table = this.table;
    const mask = this.mask;
    let slot = h & mask;
    if (len <= INLINE_MAX) {
      // Token bytes are ASCII word characters, never 0: a short one is always inline.
      // Unrolled rather than a loop: straight-line code lets V8 check `bytes` and load its data
      // pointer once, where a loop reloads them at every iteration (callgrind).
      let a = 0;
      let b = 0;
      if (len > 0) a = bytes[start] as number;
      if (len > 1) a |= (bytes[start + 1] as number) << 8;
      if (len > 2) a |= (bytes[start + 2] as number) << 16;
      if (len > 3) a |= (bytes[start + 3] as number) << 24;
      if (len > 4) b = bytes[start + 4] as number;
      if (len > 5) b |= (bytes[start + 5] as number) << 8;
      if (len > 6) b |= (bytes[start + 6] as number) << 16;
      if (len > 7) b |= (bytes[start + 7] as number) << 24;
      for (;;) {
        const o = SLOT * slot;
        const sh = table[o] as number;
        if (sh === 0) break;
        if (sh === h && table[o + 2] === a && table[o + 3] === b) return table[o + 1] as number;
        slot = (slot + 1) & mask;
      }
    } else {
      for (;;) {
        const o = SLOT * slot;
        const sh = table[o] as number;
        if (sh === 0) break;
        if (sh === h) {
          const ta = table[o + 2] as number;
          const pool = this.pool;
          if (ta < 0 && pool[~ta] === len) {
            // pool[base + j] is the unit matching bytes[j].
            const base = ~ta + 3 - start;
            let j = start;
            while (j < end && pool[base + j] === bytes[j]) j++;
            if (j === end) return table[o + 1] as number;
          }
        }
        slot = (slot + 1) & mask;
      }
    }
    const at = this.newRecord(slot, h, len);
    const pool = this.pool;
    // A loop, not set(subarray): terms are a few units long, a subarray is an allocation.
    for (let i = 0; i < len; i++) pool[at + 3 + i] = bytes[start + i] as number;
    this.setText(slot, at, len);
    return this.count - 1;
  }

  /** Whether the record at `at` holds the token src[start, start + len). */
  private sameText(at: number, src: string, start: number, len: number): boolean {
    const pool = this.pool;
    if (pool[at] !== len) return false;
    for (let i = 0; i < len; i++) if (pool[at + 3 + i] !== tokenUnit(src, start + i)) return false;
    return true;
  }

  private grow(): void {
    const old = this.table;
    const slots = old.length / SLOT;
    const table = new Int32Array(old.length * 2);
    const mask = 2 * slots - 1;
    for (let i = 0; i < old.length; i += SLOT) {
      const h = old[i] as number;
      if (h === 0) continue;
      let slot = h & mask;
      while (table[SLOT * slot] !== 0) slot = (slot + 1) & mask;
      for (let k = 0; k < SLOT; k++) table[SLOT * slot + k] = old[i + k] as number;
    }
    this.table = table;
    this.mask = mask;
  }

  /**
   * The id of exactly `term`, or -1. The table compares case-folded units (tokenUnit, so that
   * indexing can probe with raw text), but every stored term is the analyzer's lowercased text: a
   * term that lowercasing changes is not in it, and a `term` query for "Quick" finds nothing, as in ES.
   */
  get(term: string): number {
    if (term.toLowerCase() !== term) return -1;
    return this.find(term, 0, term.length, hashRange(term, 0, term.length));
  }

  /** The text of term `id`. */
  text(id: number): string {
    const at = this.offsets[id] as number;
    const len = this.pool[at] as number;
    let out = '';
    // Chunked so that no call passes more arguments than the engine allows.
    for (let i = 0; i < len; i += 4096) out += String.fromCharCode(...this.pool.subarray(at + 3 + i, at + 3 + Math.min(len, i + 4096)));
    return out;
  }

  /** [term, id] for every term, in id order. */
  *entries(): IterableIterator<[string, number]> {
    for (let i = 0; i < this.count; i++) yield [this.text(i), i];
  }

  /** The terms (not the table: its hashes are keyed per process, see restore). */
  snapshot(): unknown {
    return { pool: this.pool, poolTop: this.poolTop, offsets: this.offsets, count: this.count };
  }

  /**
   * The dictionary of a snapshot: the terms as saved, the table rebuilt with this process's hash
   * key (the saving process had another one). A table of the size it had when saved: at most half
   * full, as grow keeps it.
   */
  static restore(postings: PostingStore, data: unknown): TermDictionary {
    const d = data as { pool: Uint16Array<ArrayBuffer>; poolTop: number; offsets: Int32Array<ArrayBuffer>; count: number };
    const dict = new TermDictionary(postings);
    dict.pool = d.pool;
    dict.poolTop = d.poolTop;
    dict.offsets = d.offsets;
    dict.count = d.count;
    let slots = dict.mask + 1;
    while (d.count * 2 > slots - 1) slots *= 2;
    dict.table = new Int32Array(SLOT * slots);
    dict.mask = slots - 1;
    const pool = d.pool;
    for (let id = 0; id < d.count; id++) {
      const at = d.offsets[id] as number;
      const len = pool[at] as number;
      const h = hashUnits(pool, at + 3, at + 3 + len) || 1;
      let slot = h & dict.mask;
      while (dict.table[SLOT * slot] !== 0) slot = (slot + 1) & dict.mask;
      dict.table[SLOT * slot] = h;
      dict.table[SLOT * slot + 1] = id;
      dict.setText(slot, at, len);
    }
    return dict;
  }

  keys(): string[] {
    return Array.from({ length: this.count }, (_, i) => this.text(i));
  }
}
