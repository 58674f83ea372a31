import { randomInt } from 'node:crypto';
import type { PostingStore } from './posting-store.js';

/**
 * Exact terms of a keyword field: value → dense term id (indexing the field's PostingStore).
 *
 * An open-addressing table of (hash, id) int32 pairs over the values in `texts`, rather than a
 * Map<string, number>. Why: bulk loads add a new value per document to several keyword fields (a
 * package name, a version, a summary); a Map lookup read a bucket, an entry and the entry's key
 * string at random places in the heap before it could tell a new value from a known one, and the
 * Map's backing stores were large heap objects that every major GC traced and every growth
 * re-allocated. Here a new value costs its hash and one table slot; a value's string is read only
 * when the full 32-bit hashes match.
 */
export class KeywordTerms {
  /** Term text by id. */
  readonly texts: string[] = [];
  /** Slot s: table[2s] = hash (0 = empty, so hash 0 is stored as 1), table[2s + 1] = term id. */
  private table = new Int32Array(2 << 4);
  /**
   * The hash's starting state, random per table: with a fixed one, FNV-1a's block collisions chain
   * into any number of values of one hash (found offline), which a _bulk could send to make every
   * insert walk one probe chain (quadratic; V8 seeds its Map hashes for the same reason).
   */
  private readonly seed = randomInt(0x7fffffff);
  private mask = (1 << 4) - 1;

  constructor(private postings: PostingStore) {}

  /** New terms get their ids from `postings` from now on (a compacted copy of the old store, with the same ids). */
  rebind(postings: PostingStore): void {
    this.postings = postings;
  }

  /**
   * The last value interned and its id: bulk loads repeat values from one document to the next
   * (see TextField.repeatValue), and comparing with one string is cheaper than any lookup.
   */
  private lastValue: string | undefined;
  private lastId = -1;

  /** The id of `value`, created when new. */
  intern(value: string): number {
    if (value === this.lastValue) return this.lastId;
    const h = hashValue(value, this.seed);
    const slot = this.probe(value, h);
    let id: number;
    if (slot >= 0) id = this.table[2 * slot + 1] as number;
    else {
      id = this.postings.newTerm();
      this.add(~slot, h, value, id);
    }
    this.lastValue = value;
    this.lastId = id;
    return id;
  }

  /** The id of `value`, or -1. */
  get(value: string): number {
    const slot = this.probe(value, hashValue(value, this.seed));
    return slot >= 0 ? (this.table[2 * slot + 1] as number) : -1;
  }

  /** The slot holding `value` (hash `h`), or ~(the empty slot where it would go). */
  private probe(value: string, h: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const sh = table[2 * slot] as number;
      if (sh === 0) return ~slot;
      if (sh === h && this.texts[table[2 * slot + 1] as number] === value) return slot;
    }
  }

  /** The first empty slot from `h`'s (a value known to be new). */
  private emptySlot(h: number): number {
    let slot = h & this.mask;
    while (this.table[2 * slot] !== 0) slot = (slot + 1) & this.mask;
    return slot;
  }

  /** Records new value `value`, term `id` (its position in `texts`), in empty slot `slot`; grows the table when half full. */
  private add(slot: number, h: number, value: string, id: number): void {
    this.table[2 * slot] = h;
    this.table[2 * slot + 1] = id;
    this.texts.push(value);
    if (this.texts.length * 2 > this.mask) this.grow();
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = (this.table.length >> 1) - 1;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i] as number;
      if (h === 0) continue;
      const slot = this.emptySlot(h);
      this.table[2 * slot] = h;
      this.table[2 * slot + 1] = old[i + 1] as number;
    }
  }

  keys(): IterableIterator<string> {
    return this.texts.values();
  }

  /** The number of terms (ids are 0 .. size - 1). */
  get size(): number {
    return this.texts.length;
  }

  /** The text of term `id`. */
  text(id: number): string {
    return this.texts[id] as string;
  }

  /** Fills a new dictionary from the texts of a snapshot (ids are positions; the store holds them already). */
  restoreTexts(texts: readonly string[]): void {
    for (const t of texts) {
      const h = hashValue(t, this.seed);
      this.add(this.emptySlot(h), h, t, this.texts.length);
    }
  }

  /** [value, id] for every term, in id order (the order values were first seen). */
  entries(): IterableIterator<[string, number]> {
    return this.texts.map((t, id): [string, number] => [t, id]).values();
  }
}

/**
 * FNV-1a from `seed` over the UTF-16 units of a keyword value, with a fold per unit, mixed, never 0
 * (0 marks an empty slot). The fold (h ^= h >>> 15) makes the whole seed matter: plain FNV-1a never
 * moves bits downwards, so values colliding from one seed collide from every seed with the same
 * low 16 bits (see the token hash in analyzer.ts).
 */
function hashValue(value: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < value.length; i++) {
    h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
    h ^= h >>> 15;
  }
  // FNV-1a's low bits (the slot) depend only on the inputs' low bits: mixed (murmur3's fmix32).
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0 || 1;
}
