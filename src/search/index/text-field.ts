import { asciiBytes, hashRange, scanAsciiBytes, scanTokens } from './analyzer.js';
import { byteArray, grow, INITIAL } from './grow.js';
import { intToByte4 } from './norms.js';
import { PairFilter } from './pair-filter.js';
import { PostingStore } from './posting-store.js';
import { TermDictionary } from './term-dictionary.js';

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

/** Int32 slots for the tokens of an n-byte value: at most ceil(n / 2) tokens, 3 slots each. */
const batchSize = (n: number): number => 3 * ((n + 1) >> 1) + 3;

/** A `text` field: terms with frequencies, and one norm byte per document. */
export class TextField {
  postings = new PostingStore();
  readonly terms = new TermDictionary(this.postings);
  norms = new Uint8Array(INITIAL);
  present = new Uint8Array(INITIAL);
  /** Live documents with at least one token. */
  docCount = 0;
  /** Tokens in live documents. */
  sumTotalTermFreq = 0;
  /**
   * Which term follows which in a value (pair-filter.ts), for phrase prefix queries; undefined
   * when restored from a snapshot written without it (it would miss the pairs of the documents
   * there, so it is never started later: only a rebuild from the stored documents makes one).
   */
  pairs: PairFilter | undefined = new PairFilter();
  /** The previous token's term id in the value being tokenized (-1 at a value's start). */
  private prevToken = -1;
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
    this.follows(id);
    if (this.batching) this.emit(id);
    else this.countTerm(id);
  };

  /** Records that `id` follows the value's previous token (see pairs). */
  private follows(id: number): void {
    const pairs = this.pairs;
    if (pairs === undefined) return;
    if (this.prevToken >= 0) pairs.add(this.prevToken, id);
    this.prevToken = id;
  }

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
      // Tokens of two values never follow each other (ES puts a position gap between them).
      this.prevToken = -1;
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
      const id = terms.internBytes(bytes, batch[t] as number, batch[t + 1] as number, batch[t + 2] as number);
      this.follows(id);
      out[at] = id;
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
    for (let t = 0; t < 3 * count; t += 3) {
      const id = terms.internBytes(bytes, batch[t] as number, batch[t + 1] as number, batch[t + 2] as number);
      this.follows(id);
      this.countTerm(id);
    }
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
   * the per-term records (docFreq, posting count, score bound), which later writes log before they
   * change them (PostingStore.frozenCopy); it copies the field's statistics.
   */
  frozenView(): TextField {
    return Object.assign(new TextField(), {
      postings: this.postings.frozenCopy(),
      terms: this.terms,
      norms: this.norms,
      present: this.present,
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
      // Shared: pairs written later only add maybes.
      pairs: this.pairs,
    });
  }

  snapshot(): unknown {
    return { postings: this.postings.snapshot(), terms: this.terms.snapshot(), norms: this.norms, present: this.present, docCount: this.docCount, sumTotalTermFreq: this.sumTotalTermFreq, pairs: this.pairs?.snapshot() };
  }

  static restore(data: unknown): TextField {
    const d = data as { postings: unknown; terms: unknown; norms: Uint8Array; present: Uint8Array; docCount: number; sumTotalTermFreq: number; pairs?: unknown };
    const postings = PostingStore.restore(d.postings);
    return Object.assign(new TextField(), {
      postings,
      terms: TermDictionary.restore(postings, d.terms),
      norms: d.norms,
      present: d.present,
      docCount: d.docCount,
      sumTotalTermFreq: d.sumTotalTermFreq,
      pairs: PairFilter.restore(d.pairs),
    });
  }

  /**
   * Takes the compacted postings, norms and presence (index-compaction.ts): the same term ids and
   * statistics, the documents renumbered. The term dictionary stays, giving new ids from `postings`.
   */
  adoptCompacted(postings: PostingStore, norms: Uint8Array<ArrayBuffer>, present: Uint8Array<ArrayBuffer>): void {
    this.postings = postings;
    this.terms.rebind(postings);
    this.norms = norms;
    this.present = present;
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
