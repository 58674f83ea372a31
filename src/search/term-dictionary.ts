import { hashRange, tokenUnit } from './analyzer.js';
import type { PostingStore } from './posting-store.js';

/**
 * Term text → term id of a text field. Indexing looks a token up by its range in the field text
 * (and the hash the tokenizer computed while scanning it), without allocating a string for it: the
 * allocation and the string hashing of a Map<string, …> dominated bulk indexing.
 *
 * The terms' text lives in one Uint16Array, each term as a record [length, id low, id high,
 * UTF-16 units…], and the open-addressing table maps a hash to its record: a lookup touches the
 * table slot and the record, two cache lines, and the hundreds of thousands of terms are no
 * objects for the garbage collector. Ids are dense (0, 1, …) and index the field's PostingStore;
 * term strings are made only when a query enumerates the terms (prefix, range).
 */
const HAS_UPPER_ASCII = /[A-Z]/;

export class TermDictionary {
  // Slot i: table[2i] = hash (0 = empty slot, so hash 0 is stored as 1), table[2i + 1] = record offset.
  private table = new Int32Array(2 << 10);
  private mask = (1 << 10) - 1;
  private pool = new Uint16Array(1 << 12);
  private poolTop = 0;
  /** Record offset by term id. */
  private offsets = new Int32Array(1 << 8);
  private count = 0;

  constructor(private readonly postings: PostingStore) {}

  get size(): number {
    return this.count;
  }

  /** The id of the token src[start, end) (see scanTokens), created when new; `hash` is hashRange(src, start, end) if known. */
  intern(src: string, start: number, end: number, hash?: number): number {
    const h = (hash ?? hashRange(src, start, end)) || 1;
    const len = end - start;
    const table = this.table;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const sh = table[2 * slot] as number;
      if (sh === 0) break;
      if (sh === h) {
        const at = table[2 * slot + 1] as number;
        if (this.sameText(at, src, start, len)) return (this.pool[at + 1] as number) | ((this.pool[at + 2] as number) << 16);
      }
      slot = (slot + 1) & mask;
    }
    const at = this.newRecord(slot, h, len);
    const pool = this.pool;
    for (let i = 0; i < len; i++) pool[at + 3 + i] = tokenUnit(src, start + i);
    return (pool[at + 1] as number) | ((pool[at + 2] as number) << 16);
  }

  /**
   * A record for a new term of `len` units with hash `h` in table slot `slot` (found empty by the
   * caller's probe); returns its offset, for the caller to write the units at offset + 3.
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
    this.table[2 * slot] = h;
    this.table[2 * slot + 1] = at;
    if (this.count * 2 > this.mask) this.grow();
    return at;
  }

  /**
   * `intern` for a token held as lowercased ASCII bytes (see scanAsciiBytes); `hash` is its
   * hashRange. The same id as `intern` gives for the same text. The probe loop repeats intern's on
   * purpose: one loop per source type (string, bytes) keeps each monomorphic, with no compare
   * callback, on the hottest path of bulk indexing.
   */
  internBytes(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const h = hash || 1;
    const len = end - start;
    const table = this.table;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const sh = table[2 * slot] as number;
      if (sh === 0) break;
      if (sh === h) {
        const at = table[2 * slot + 1] as number;
        const pool = this.pool;
        if (pool[at] === len) {
          // pool[base + j] is the unit matching bytes[j].
          const base = at + 3 - start;
          let j = start;
          while (j < end && pool[base + j] === bytes[j]) j++;
          if (j === end) return (pool[at + 1] as number) | ((pool[at + 2] as number) << 16);
        }
      }
      slot = (slot + 1) & mask;
    }
    const at = this.newRecord(slot, h, len);
    const pool = this.pool;
    // A loop, not set(subarray): terms are a few units long, a subarray is an allocation.
    for (let i = 0; i < len; i++) pool[at + 3 + i] = bytes[start + i] as number;
    return (pool[at + 1] as number) | ((pool[at + 2] as number) << 16);
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
    const slots = old.length; // twice the old slot count
    this.table = new Int32Array(slots * 2);
    this.mask = slots - 1;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i] as number;
      if (h === 0) continue;
      let slot = h & this.mask;
      while (this.table[2 * slot] !== 0) slot = (slot + 1) & this.mask;
      this.table[2 * slot] = h;
      this.table[2 * slot + 1] = old[i + 1] as number;
    }
  }

  /**
   * The id of exactly `term`, or -1. The table compares case-folded units (tokenUnit, so that
   * indexing can probe with raw text), but every stored term is lowercase: a term with an
   * upper-case ASCII letter is not in it, and a `term` query for "Quick" finds nothing, as in ES.
   */
  get(term: string): number {
    if (HAS_UPPER_ASCII.test(term)) return -1;
    return this.find(term, 0, term.length, hashRange(term, 0, term.length));
  }

  /** The id of src[start, end), or -1. */
  find(src: string, start: number, end: number, hash: number): number {
    const h = hash || 1;
    let slot = h & this.mask;
    for (;;) {
      const sh = this.table[2 * slot] as number;
      if (sh === 0) return -1;
      if (sh === h) {
        const at = this.table[2 * slot + 1] as number;
        if (this.sameText(at, src, start, end - start)) return (this.pool[at + 1] as number) | ((this.pool[at + 2] as number) << 16);
      }
      slot = (slot + 1) & this.mask;
    }
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

  snapshot(): unknown {
    return { table: this.table, mask: this.mask, pool: this.pool, poolTop: this.poolTop, offsets: this.offsets, count: this.count };
  }

  static restore(postings: PostingStore, data: unknown): TermDictionary {
    const d = data as { table: Int32Array<ArrayBuffer>; mask: number; pool: Uint16Array<ArrayBuffer>; poolTop: number; offsets: Int32Array<ArrayBuffer>; count: number };
    const dict = new TermDictionary(postings);
    dict.table = d.table;
    dict.mask = d.mask;
    dict.pool = d.pool;
    dict.poolTop = d.poolTop;
    dict.offsets = d.offsets;
    dict.count = d.count;
    return dict;
  }

  keys(): string[] {
    return Array.from({ length: this.count }, (_, i) => this.text(i));
  }
}
