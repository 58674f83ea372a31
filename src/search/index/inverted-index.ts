import { randomInt } from 'node:crypto';
import { asciiBytes, hashRange, scanAsciiBytes, scanTokens } from './analyzer.js';
import { intToByte4 } from './norms.js';
import type { ParsedDoc } from '../mapping/document-parser.js';
import { MAX_ORDINALS, PostingStore } from './posting-store.js';
import { TermDictionary } from './term-dictionary.js';

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
 *
 * Terms are dense integer ids per field and postings live in typed arrays (term-dictionary.ts,
 * posting-store.ts): hundreds of thousands of terms are no objects for the garbage collector.
 */

const INITIAL = 4;
/** Text values at least this long (UTF-16 units) are tokenized as bytes when ASCII. */
const MIN_BYTES_PATH = 16;
/**
 * ... and at most this long: the field keeps its scratch bytes and token batch (about 8 bytes a
 * unit together) sized for the longest value it took this way, so a huge value would pin several
 * times its size for good. Longer values take the string path (the same tokens).
 */
const MAX_BYTES_PATH = 1 << 13;
/**
 * Longest value a text field remembers for the repeat check (see TextField.repeatValue): the field
 * holds the string until its next single value, possibly for good, so a huge one would pin its
 * document's text. Repeated values are short (a maintainer, a section, a version).
 */
const MAX_REPEAT_LENGTH = 1 << 10;

export { MAX_ORDINALS } from './posting-store.js';

function grow<T extends Uint8Array | Float64Array | Int32Array>(arr: T, need: number, make: (n: number) => T): T {
  if (need <= arr.length) return arr;
  const next = make(Math.max(need, arr.length * 2));
  next.set(arr);
  return next;
}

/** Int32 slots for the tokens of an n-byte value: at most ceil(n / 2) tokens, 3 slots each. */
const batchSize = (n: number): number => 3 * ((n + 1) >> 1) + 3;
const byteArray = (n: number): Uint8Array<ArrayBuffer> => new Uint8Array(n);
const nanArray = (n: number): Float64Array<ArrayBuffer> => new Float64Array(n).fill(Number.NaN);

/** A `text` field: terms with frequencies, and one norm byte per document. */
export class TextField {
  readonly postings = new PostingStore();
  readonly terms = new TermDictionary(this.postings);
  norms = new Uint8Array(INITIAL);
  present = new Uint8Array(INITIAL);
  /** Live documents with at least one token. */
  docCount = 0;
  /** Tokens in live documents. */
  sumTotalTermFreq = 0;
  /** Term ids touched by the document being added (their frequencies are pending in the PostingStore). */
  private touched = new Int32Array(64);
  private touchedCount = 0;
  /** The frequencies of `touched`, filled when they are flushed. */
  private touchedFreqs = new Int32Array(64);
  /**
   * The last single value this field took and what it counted: term ids, their frequencies, the
   * token count. Bulk loads repeat values from one document to the next (a maintainer, a section, a
   * priority: 30-99 % of the time in the Debian corpus), and the same text gives the same tokens,
   * hence the same term ids (an id never changes once given): such a value skips the analyzer and
   * the dictionary. Its arrays are the ones `touched` used then (swapped, not copied).
   */
  private repeatValue: string | undefined;
  private repeatIds = new Int32Array(64);
  private repeatFreqs = new Int32Array(64);
  private repeatCount = 0;
  private repeatLength = 0;
  private readonly onToken = (src: string, start: number, end: number, hash?: number): void => {
    const id = this.terms.intern(src, start, end, hash);
    if (this.batching) this.emit(id);
    else this.countTerm(id);
  };

  /**
   * Batched inversion (see beginBatch): while on, each token of a document appends its term id to
   * `batchTerms` and the document's ordinal to `batchOrds`, sequentially, instead of counting it in
   * the term's record of the PostingStore; flushBatch then groups the pairs by term (counting sort)
   * and appends each term's postings of the whole batch in one go.
   * Why: a bulk touches tens of thousands of terms; counting a token in its term's record and
   * appending the posting to its list's tail read two places anywhere in megabytes per token and
   * per posting (cache misses, most of the cost of indexing a token). Grouped, a term's record and
   * its list's tail are read once per batch, in term order. Lucene buffers a segment's postings the
   * same way.
   */
  private batching = false;
  private batchTerms = new Int32Array(0);
  private batchOrds = new Int32Array(0);
  private batchCount = 0;
  /** The token term ids of the value counted last, for replaying it in batch mode (see repeatValue). */
  private repeatTokens = new Int32Array(64);
  private repeatTokenCount = -1;

  /** Appends one token of the document being added to the batch. */
  private emit(id: number): void {
    if (this.batchCount === this.batchTerms.length) this.growBatch(this.batchCount + 1);
    this.batchTerms[this.batchCount] = id;
    this.batchOrds[this.batchCount++] = this.batchOrd;
  }
  private batchOrd = 0;

  private growBatch(need: number): void {
    const n = Math.max(need, this.batchTerms.length * 2, 1024);
    const terms = new Int32Array(n);
    terms.set(this.batchTerms.subarray(0, this.batchCount));
    const ords = new Int32Array(n);
    ords.set(this.batchOrds.subarray(0, this.batchCount));
    this.batchTerms = terms;
    this.batchOrds = ords;
  }

  /** Starts batching this field's postings (see batching); flushBatch ends it. */
  beginBatch(): void {
    if (this.batching) return;
    this.batching = true;
    // Each mode remembers the repeated value its own way (token ids here, ids and frequencies there).
    this.repeatValue = undefined;
    this.repeatTokenCount = -1;
  }

  /** Appends every batched posting to its list and stops batching. Idempotent. */
  flushBatch(): void {
    this.applyBatch();
    this.batching = false;
    // Let the buffers go between bulks (megabytes per field otherwise). The next batch grows its
    // own by doubling: allocated at the last batch's size, every small _bulk after a large one
    // allocated megabytes per text field.
    this.batchTerms = new Int32Array(0);
    this.batchOrds = new Int32Array(0);
    this.repeatTokenCount = -1;
    this.repeatValue = undefined;
  }

  private applyBatch(): void {
    const n = this.batchCount;
    if (n === 0) return;
    this.batchCount = 0;
    // A batch small against the field's vocabulary (a _bulk of a few documents) goes document by
    // document, as without batching: the grouped append allocates and walks an array over every
    // term id of the field, which made a one-document _bulk on a large index cost 20 times a write.
    if (n * 8 < this.postings.termCount) this.appendByDocument(n);
    else this.postings.appendGrouped(this.batchTerms, this.batchOrds, n, this.norms);
  }

  /** applyBatch through the per-document path (countTerm, flushPending) for batch[0, n). */
  private appendByDocument(n: number): void {
    const terms = this.batchTerms;
    const ords = this.batchOrds;
    let i = 0;
    while (i < n) {
      const ord = ords[i] as number;
      this.touchedCount = 0;
      for (; i < n && ords[i] === ord; i++) this.countTerm(terms[i] as number);
      this.postings.flushPending(this.touched, this.touchedCount, ord, this.norms[ord] as number);
    }
    this.touchedCount = 0;
  }

  /** Counts one occurrence of term `id` in the document being added. */
  private countTerm(id: number): void {
    if (this.postings.bumpPending(id) === 0) {
      if (this.touchedCount === this.touched.length) this.touched = grow(this.touched, this.touchedCount + 1, (n) => new Int32Array(n));
      this.touched[this.touchedCount++] = id;
    }
  }

  /** Where ASCII values are copied to be tokenized as bytes (see asciiBytes). */
  private scratch = new Uint8Array(256);
  /** The tokens of the value in `scratch` (see scanAsciiBytes for its size). */
  private tokenBatch = new Int32Array(batchSize(256));

  add(ord: number, values: readonly string[]): void {
    // One compare per document and field; the growth itself is rare.
    if (ord >= this.norms.length || ord >= this.present.length) this.growDocs(ord + 1);
    this.present[ord] = 1;
    const single = values.length === 1 ? (values[0] as string) : undefined;
    if (this.batching) {
      this.addBatched(ord, values, single);
      return;
    }
    if (single !== undefined && single === this.repeatValue) {
      this.addRepeat(ord);
      return;
    }
    const length = this.tokenize(values);
    const norm = length === 0 ? 0 : intToByte4(length);
    if (this.touchedFreqs.length < this.touched.length) this.touchedFreqs = new Int32Array(this.touched.length);
    this.postings.flushPending(this.touched, this.touchedCount, ord, norm, this.touchedFreqs);
    if (single !== undefined && single.length <= MAX_REPEAT_LENGTH) {
      const ids = this.repeatIds;
      const freqs = this.repeatFreqs;
      this.repeatIds = this.touched;
      this.repeatFreqs = this.touchedFreqs;
      this.touched = ids;
      this.touchedFreqs = freqs;
      this.repeatValue = single;
      this.repeatCount = this.touchedCount;
      this.repeatLength = length;
    }
    this.touchedCount = 0;
    this.countDoc(ord, norm, length);
  }

  /**
   * Tokenizes a document's values into its term ids: counted for the document, or appended to the
   * batch when batching (onToken, addBytes / emitBytes); returns the number of tokens.
   */
  private tokenize(values: readonly string[]): number {
    let length = 0;
    for (const v of values) {
      // Short values cost less through charCodeAt than calls into native lowercasing and encoding.
      if (v.length < MIN_BYTES_PATH || v.length > MAX_BYTES_PATH) {
        length += scanTokens(v, this.onToken);
        continue;
      }
      if (v.length > this.scratch.length) {
        this.scratch = new Uint8Array(v.length * 2);
        this.tokenBatch = new Int32Array(batchSize(this.scratch.length));
      }
      const n = asciiBytes(v, this.scratch);
      length += n < 0 ? scanTokens(v, this.onToken) : this.batching ? this.emitBytes(n) : this.addBytes(n);
    }
    return length;
  }

  /** `add` in batch mode: the tokens go to the batch (see batching). */
  private addBatched(ord: number, values: readonly string[], single: string | undefined): void {
    if (single !== undefined && single === this.repeatValue && this.repeatTokenCount >= 0) {
      const count = this.repeatTokenCount;
      if (this.batchCount + count > this.batchTerms.length) this.growBatch(this.batchCount + count);
      const terms = this.batchTerms;
      const ords = this.batchOrds;
      const ids = this.repeatTokens;
      let at = this.batchCount;
      for (let i = 0; i < count; i++) {
        terms[at] = ids[i] as number;
        ords[at++] = ord;
      }
      this.batchCount = at;
      const length = this.repeatLength;
      this.countDoc(ord, length === 0 ? 0 : intToByte4(length), length);
      this.flushIfFull();
      return;
    }
    this.batchOrd = ord;
    const from = this.batchCount;
    const length = this.tokenize(values);
    if (single !== undefined && single.length <= MAX_REPEAT_LENGTH) {
      const count = this.batchCount - from;
      if (count > this.repeatTokens.length) this.repeatTokens = new Int32Array(Math.max(count, this.repeatTokens.length * 2));
      // A loop, not set(subarray): the subarray was an object per value (about 500 bytes per
      // document of the Debian corpus for the garbage collector).
      const repeat = this.repeatTokens;
      const terms = this.batchTerms;
      for (let i = 0; i < count; i++) repeat[i] = terms[from + i] as number;
      this.repeatTokenCount = count;
      this.repeatValue = single;
      this.repeatLength = length;
    }
    this.countDoc(ord, length === 0 ? 0 : intToByte4(length), length);
    this.flushIfFull();
  }

  /** Applies the batch when it holds this many tokens (bounds its memory: 8 bytes a token). */
  private flushIfFull(): void {
    if (this.batchCount >= 1 << 21) this.applyBatch();
  }

  /** addBytes in batch mode. */
  private emitBytes(n: number): number {
    const bytes = this.scratch;
    const batch = this.tokenBatch;
    const count = scanAsciiBytes(bytes, n, batch);
    if (this.batchCount + count > this.batchTerms.length) this.growBatch(this.batchCount + count);
    const terms = this.terms;
    const out = this.batchTerms;
    const ords = this.batchOrds;
    const ord = this.batchOrd;
    let at = this.batchCount;
    for (let t = 0; t < 3 * count; t += 3) {
      out[at] = terms.internBytes(bytes, batch[t] as number, batch[t + 1] as number, batch[t + 2] as number);
      ords[at++] = ord;
    }
    this.batchCount = at;
    return count;
  }

  private growDocs(need: number): void {
    this.norms = grow(this.norms, need, byteArray);
    this.present = grow(this.present, need, byteArray);
  }

  /** `add` of the value counted last (see repeatValue). */
  private addRepeat(ord: number): void {
    const length = this.repeatLength;
    const norm = length === 0 ? 0 : intToByte4(length);
    this.postings.replayPending(this.repeatIds, this.repeatFreqs, this.repeatCount, ord, norm);
    this.countDoc(ord, norm, length);
  }

  private countDoc(ord: number, norm: number, length: number): void {
    if (length === 0) return;
    this.norms[ord] = norm;
    this.docCount++;
    this.sumTotalTermFreq += length;
  }

  /** Counts the tokens of the ASCII value in `scratch[0, n)` into the pending frequencies; returns how many. */
  private addBytes(n: number): number {
    const bytes = this.scratch;
    const batch = this.tokenBatch;
    const count = scanAsciiBytes(bytes, n, batch);
    const terms = this.terms;
    for (let t = 0; t < 3 * count; t += 3) this.countTerm(terms.internBytes(bytes, batch[t] as number, batch[t + 1] as number, batch[t + 2] as number));
    return count;
  }

  /**
   * The term id of `term`, or -1 (also when no live document has it any more, see docFreq). A term
   * the field's postings do not know is one added after a frozen view was taken (frozenView): -1.
   */
  lookup(term: string): number {
    const id = this.terms.get(term);
    return id < this.postings.termCount ? id : -1;
  }

  /**
   * This field as it is now, for a point in time (InvertedIndex.frozenView): it shares the term
   * dictionary, the posting pool, norms and `present`, which later writes only extend (new terms,
   * postings and ordinals past the view's, which the view's live set and term count leave out), and
   * copies what they change: the per-term records (docFreq, posting count, score bound; 32 bytes a
   * term) and the field's statistics.
   */
  frozenView(): TextField {
    return Object.assign(new TextField(), {
      postings: this.postings.frozenCopy(),
      terms: this.terms,
      norms: this.norms,
      present: this.present,
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
    });
  }

  snapshot(): unknown {
    return { postings: this.postings.snapshot(), terms: this.terms.snapshot(), norms: this.norms, present: this.present, docCount: this.docCount, sumTotalTermFreq: this.sumTotalTermFreq };
  }

  static restore(data: unknown): TextField {
    const d = data as { postings: unknown; terms: unknown; norms: Uint8Array; present: Uint8Array; docCount: number; sumTotalTermFreq: number };
    const postings = PostingStore.restore(d.postings);
    return Object.assign(new TextField(), {
      postings,
      terms: TermDictionary.restore(postings, d.terms),
      norms: d.norms,
      present: d.present,
      docCount: d.docCount,
      sumTotalTermFreq: d.sumTotalTermFreq,
    });
  }

  /**
   * `values` are the document's values as its source parses now, which may hold a field mapped
   * after the document was indexed (PUT _mapping under dynamic: false): such a field never counted
   * it, and must not uncount it. With `keep`, `present` stays set: the ordinal is dead for good (the
   * index's live set says so to every reader), and a point in time taken before still sees it
   * (frozenView).
   */
  remove(ord: number, values: readonly string[], keep = false): void {
    if (this.present[ord] !== 1) return;
    if (!keep) this.present[ord] = 0;
    const seen = new Set<number>();
    let length = 0;
    for (const v of values) length += scanTokens(v, (src, start, end, hash) => seen.add(this.terms.find(src, start, end, hash ?? hashRange(src, start, end))));
    if (length === 0) return;
    for (const id of seen) if (id >= 0) this.postings.decDocFreq(id);
    this.docCount--;
    this.sumTotalTermFreq -= length;
  }
}

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

  constructor(private readonly postings: PostingStore) {}

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

/** FNV-1a from `seed` over the UTF-16 units of a keyword value, mixed, never 0 (0 marks an empty slot). */
function hashValue(value: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  // FNV-1a's low bits (the slot) depend only on the inputs' low bits: mixed (murmur3's fmix32).
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0 || 1;
}

/** A `keyword` (or `boolean`) field: exact values, a posting list per value, values per document. */
export class KeywordField {
  readonly postings = new PostingStore();
  readonly terms = new KeywordTerms(this.postings);
  /** Per ordinal: the term id of its single value; -1 none, -2 several (in `multi`). */
  private single = new Int32Array(INITIAL).fill(-1);
  private readonly multi = new Map<number, readonly string[]>();
  docCount = 0;
  sumDocFreq = 0;

  valuesOf(ord: number): readonly string[] | undefined {
    const id = ord < this.single.length ? (this.single[ord] as number) : -1;
    if (id >= 0) return [this.terms.texts[id] as string];
    return id === -2 ? this.multi.get(ord) : undefined;
  }

  /** Whether a document has at least one value. */
  hasValue(ord: number): boolean {
    const id = ord < this.single.length ? (this.single[ord] as number) : -1;
    return id >= 0 || (id === -2 && (this.multi.get(ord)?.length ?? 0) > 0);
  }

  /** The term id of `value`, or -1 (also for a value added after a frozen view was taken, see TextField.lookup). */
  lookup(value: string): number {
    const id = this.terms.get(value);
    return id < this.postings.termCount ? id : -1;
  }

  /** This field as it is now, for a point in time: see TextField.frozenView (doc values are shared, never changed for an ordinal once written). */
  frozenView(): KeywordField {
    return Object.assign(new KeywordField(), {
      postings: this.postings.frozenCopy(),
      terms: this.terms,
      single: this.single,
      multi: this.multi,
      docCount: this.docCount,
      sumDocFreq: this.sumDocFreq,
    });
  }

  snapshot(): unknown {
    return { postings: this.postings.snapshot(), texts: this.terms.texts, single: this.single, multi: this.multi, docCount: this.docCount, sumDocFreq: this.sumDocFreq };
  }

  static restore(data: unknown): KeywordField {
    const d = data as { postings: unknown; texts: string[]; single: Int32Array; multi: Map<number, string[]>; docCount: number; sumDocFreq: number };
    const field = new KeywordField();
    const postings = PostingStore.restore(d.postings);
    const terms = new KeywordTerms(postings);
    terms.restoreTexts(d.texts);
    Object.assign(field, { postings, terms, single: d.single, docCount: d.docCount, sumDocFreq: d.sumDocFreq });
    for (const [k, v] of d.multi) field.multi.set(k, v);
    return field;
  }

  add(ord: number, values: readonly string[]): void {
    if (ord >= this.single.length) {
      const next = new Int32Array(Math.max(ord + 1, this.single.length * 2)).fill(-1);
      next.set(this.single);
      this.single = next;
    }
    if (values.length === 0) return;
    if (values.length === 1) {
      const id = this.terms.intern(values[0] as string);
      this.single[ord] = id;
      this.postings.add(id, ord, 1);
      this.docCount++;
      this.sumDocFreq++;
      return;
    }
    const unique = [...new Set(values)];
    this.single[ord] = -2;
    this.multi.set(ord, values);
    for (const v of unique) this.postings.add(this.terms.intern(v), ord, 1);
    this.docCount++;
    this.sumDocFreq += unique.length;
  }

  /** Drops the values of dead ordinals (see InvertedIndex.releaseView). */
  dropDead(live: Uint8Array): void {
    for (const ord of this.multi.keys()) if (live[ord] !== 1) this.multi.delete(ord);
  }

  /**
   * Takes a live document out of the statistics. With `keep` its values stay (a frozen view that
   * holds it still sorts on and filters by them, see InvertedIndex.frozenView); without, they go,
   * so that a multi-valued document's values do not stay in memory (and in every snapshot) for
   * good after it is updated or deleted.
   */
  remove(ord: number, keep = false): void {
    const values = this.valuesOf(ord);
    if (!keep) {
      if (ord < this.single.length) this.single[ord] = -1;
      this.multi.delete(ord);
    }
    if (values === undefined) return;
    const unique = new Set(values);
    if (unique.size === 0) return;
    for (const v of unique) {
      const id = this.terms.get(v);
      if (id >= 0) this.postings.decDocFreq(id);
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
    this.min = grow(this.min, ord + 1, nanArray);
    this.max = grow(this.max, ord + 1, nanArray);
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

  /**
   * Forgets a dead ordinal's values, unless `keep`: a frozen view taken before it died still reads
   * them (see InvertedIndex.frozenView; every reader checks the index's live set).
   */
  remove(ord: number, keep = false): void {
    if (keep) return;
    if (ord < this.min.length) {
      this.min[ord] = Number.NaN;
      this.max[ord] = Number.NaN;
    }
    this.multi.delete(ord);
  }

  /** Drops the values of dead ordinals (see InvertedIndex.releaseView). */
  dropDead(live: Uint8Array): void {
    for (const ord of this.multi.keys()) if (live[ord] !== 1) this.multi.delete(ord);
  }

  snapshot(): unknown {
    return { min: this.min, max: this.max, multi: this.multi };
  }

  static restore(data: unknown): NumericField {
    const d = data as { min: Float64Array<ArrayBuffer>; max: Float64Array<ArrayBuffer>; multi: Map<number, number[]> };
    const field = new NumericField();
    field.min = d.min;
    field.max = d.max;
    for (const [k, v] of d.multi) field.multi.set(k, v);
    return field;
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
  /** Whether text postings are being batched (see beginBatch). */
  private batching = false;
  /** Frozen views taken of this index and not released yet (frozenView, releaseView): removes keep doc values while any is. */
  private openViews = 0;

  /**
   * Batches the text fields' postings of the documents added from now on (see
   * TextField.beginBatch) until endBatch, which must come before any read of the postings: a
   * query between the two would miss the batched documents' terms. `_bulk` brackets its items.
   */
  beginBatch(): void {
    this.batching = true;
    for (const f of this.text.values()) f.beginBatch();
  }

  /** Appends every batched posting to its list (see beginBatch). */
  endBatch(): void {
    this.batching = false;
    for (const f of this.text.values()) f.flushBatch();
  }

  private newText(path: string): TextField {
    const field = getOrCreate(this.text, path, newTextField);
    if (this.batching) field.beginBatch();
    return field;
  }

  /** Ordinals given out (a frozen view: those of the index it was taken of, then). */
  get maxOrd(): number {
    return this.viewMaxOrd < 0 ? this.ids.length : this.viewMaxOrd;
  }
  /** A frozen view's ordinal count (its `ids` are the live index's, which grows); -1 for a live index. */
  private viewMaxOrd = -1;

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
    // No closure per field and document: this runs for every field of every indexed document.
    const { text, keyword, numeric } = doc;
    for (let i = 0; i < text.size; i++) {
      const path = text.pathAt(i);
      (this.text.get(path) ?? this.newText(path)).add(ord, text.valuesAt(i));
    }
    for (let i = 0; i < keyword.size; i++) {
      const path = keyword.pathAt(i);
      (this.keyword.get(path) ?? getOrCreate(this.keyword, path, newKeywordField)).add(ord, keyword.valuesAt(i));
    }
    for (let i = 0; i < numeric.size; i++) {
      const path = numeric.pathAt(i);
      (this.numeric.get(path) ?? getOrCreate(this.numeric, path, newNumericField)).add(ord, numeric.valuesAt(i));
    }
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
    // Doc values stay only while a frozen view may read them.
    const keep = this.openViews > 0;
    const { text, keyword, numeric } = doc;
    for (let i = 0; i < text.size; i++) this.text.get(text.pathAt(i))?.remove(ord, text.valuesAt(i), keep);
    for (let i = 0; i < keyword.size; i++) this.keyword.get(keyword.pathAt(i))?.remove(ord, keep);
    for (let i = 0; i < numeric.size; i++) this.numeric.get(numeric.pathAt(i))?.remove(ord, keep);
  }

  /** Everything needed to rebuild the index (plain data and typed arrays, for v8.serialize). */
  snapshot(): unknown {
    if (this.batching) {
      this.endBatch();
      this.beginBatch();
    }
    const fields = <T extends { snapshot(): unknown }>(m: Map<string, T>) => [...m].map(([k, v]) => [k, v.snapshot()] as const);
    return { ids: this.ids, live: this.live, liveCount: this.liveCount, text: fields(this.text), keyword: fields(this.keyword), numeric: fields(this.numeric) };
  }

  static restore(data: unknown): InvertedIndex {
    const d = data as { ids: string[]; live: Uint8Array<ArrayBuffer>; liveCount: number; text: [string, unknown][]; keyword: [string, unknown][]; numeric: [string, unknown][] };
    const index = Object.assign(new InvertedIndex(), { ids: d.ids });
    index.live = d.live;
    index.liveCount = d.liveCount;
    d.ids.forEach((id, ord) => {
      if (d.live[ord] === 1) index.idToOrd.set(id, ord);
    });
    for (const [k, v] of d.text) index.text.set(k, TextField.restore(v));
    for (const [k, v] of d.keyword) index.keyword.set(k, KeywordField.restore(v));
    for (const [k, v] of d.numeric) index.numeric.set(k, NumericField.restore(v));
    // A snapshot saved while points in time were open holds the values removes kept for their
    // views (see remove); the views did not survive the restart.
    for (const f of index.keyword.values()) f.dropDead(index.live);
    for (const f of index.numeric.values()) f.dropDead(index.live);
    return index;
  }

  /**
   * A read-only view of the index as it is now, for a point in time that must outlive later writes
   * (open-contexts.ts). Writes only append (new ordinals, terms and postings past the view's) and
   * retire ordinals, so the view shares the ids, the posting pools, the term dictionaries and the
   * doc values, and copies only what a write changes below its ordinals: the live set (a byte a
   * document), each text and keyword field's statistics and per-term records (32 bytes a term), and
   * the field lists (a field created later has no document of the view). `idToOrd` is what the view
   * answers for ids (the caller keeps it right as documents are retired). Costs O(documents / 8 +
   * terms), never a copy of the postings; the view is never written.
   */
  frozenView(idToOrd: Map<string, number>): InvertedIndex {
    if (this.batching) {
      // The batched postings belong to documents the view holds.
      this.endBatch();
      this.beginBatch();
    }
    this.openViews++;
    const view = Object.assign(new InvertedIndex(), { ids: this.ids, idToOrd });
    view.viewMaxOrd = this.maxOrd;
    view.live = this.live.slice(0, this.maxOrd);
    view.liveCount = this.liveCount;
    for (const [k, f] of this.text) view.text.set(k, f.frozenView());
    for (const [k, f] of this.keyword) view.keyword.set(k, f.frozenView());
    for (const [k, f] of this.numeric) view.numeric.set(k, f);
    return view;
  }

  /**
   * A frozen view of this index is no longer used. When it was the last, the multi-valued doc values
   * of the ordinals retired while views were open go (removes kept them for the views).
   */
  releaseView(): void {
    if (this.openViews === 0 || --this.openViews > 0) return;
    for (const f of this.keyword.values()) f.dropDead(this.live);
    for (const f of this.numeric.values()) f.dropDead(this.live);
  }

  /** Every live ordinal, ascending (cached until the next write). */
  allLive(): Int32Array {
    if (this.allLiveCache === undefined) {
      const out = new Int32Array(this.liveCount);
      let n = 0;
      const max = this.maxOrd;
      for (let i = 0; i < max; i++) if (this.live[i] === 1) out[n++] = i;
      this.allLiveCache = out;
    }
    return this.allLiveCache;
  }
}

/**
 * A PostingStore over the same posting pool with its own copy of the per-term records: postings
 * appended later (ordinals past the view's) lie past the copied counts, and deletes change the
 * live store's docFreq only. The pool's chunks are shared: a growing chunk is replaced by a larger
 * copy, the old one is never written again.
 */
const newTextField = (): TextField => new TextField();
const newKeywordField = (): KeywordField => new KeywordField();
const newNumericField = (): NumericField => new NumericField();

function getOrCreate<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}
