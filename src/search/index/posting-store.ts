/**
 * Posting lists of one field, for every term of it, in typed arrays outside the JS object heap.
 *
 * A term is a small integer id (given out by the field's term dictionary). Its postings are
 * (ordinal, frequency) pairs in ordinal order, each packed into one int32, `ord << 4 | min(freq, 15)`;
 * the rare frequencies of 15 and more sit in a side map. A list is a chain of blocks in one pool
 * (chunks of 2^20 int32): block k of a list holds 2^(k+1) int32, the first of them the offset of the
 * next block, so most terms (one document) take two slots, and a list of n postings takes about
 * log2(n) blocks. Per-term bookkeeping is a handful of Int32Arrays indexed by term id.
 *
 * Why: a JS array per term meant hundreds of thousands of growing arrays and objects the garbage
 * collector traced on every major GC, and re-allocated on every growth; indexing spent as much time
 * in GC as in tokenizing. Here appending a posting writes two int32 at worst and allocates nothing
 * except a new block every doubling, and queries copy a list out with a few `set` calls.
 */

/** Frequencies up to this are packed with the ordinal; larger ones go to a side table. */
export const FREQ_BITS = 4;
export const FREQ_MASK = (1 << FREQ_BITS) - 1;
/** Ordinals must stay below 2^27 so that a packed posting is a positive int32. */
export const MAX_ORDINALS = 2 ** (31 - FREQ_BITS);

const CHUNK_BITS = 20;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
/** Largest block (int32 slots, incl. the next pointer): 2^(MAX_LEVEL + 1). */
const MAX_LEVEL = 10;
const MAX_POOL = 2 ** 31 - 1;
/** The first chunk starts small and doubles (tests and small indices make many fields). */
const FIRST_CHUNK = 1 << 10;

// Per-term record: STRIDE int32 in one array (one cache line per term on the indexing path):
//   HEAD 0      offset of the first block, -1 while empty
//   WRITE 1     where the next posting goes, and
//   END 2       where the last block ends (global offsets): an append compares the two and
//               writes, without working out the block's size from its level
//   LEVEL 3     block number of the last block (its size is 2^(min(level, MAX_LEVEL) + 1))
//   COUNT 4     postings in the list (live or not)
//   DOC_FREQ 5  live documents in the list
//   PENDING 6   scratch for the indexer: the term's frequency in the document being added
//   BOUND 7     score bound of a text term: largest frequency (<< 8, at most MAX_BOUND_FREQ =
//               2^23 - 1) and smallest norm byte of its postings (see maxScore in
//               match-top-k.ts); 255 when empty
// The methods on the indexing path (flushPending, bumpPending, replayPending, add) declare the
// offsets they use as function-local constants: V8 (11.x) reads a module-level `const` from the
// module context, type-checked, at every use (inside loops too), and folds a local one with a
// literal value into the code (callgrind: fewer instructions per posting). Keep them equal to
// the list above; the methods off that path use the module-level ones below.
const STRIDE = 8;
/** Undo logs a frozen view reads at most before it takes its own copy (see PostingStore.bound). */
const MAX_LOGS = 16;
const HEAD = 0;
const COUNT = 4;
const DOC_FREQ = 5;
const BOUND = 7;
const MAX_BOUND_FREQ = (1 << 23) - 1;

export class PostingStore {
  private chunks: Int32Array[] = [new Int32Array(FIRST_CHUNK)];
  /** Next free slot in the pool (global offset). */
  private top = 0;
  private meta = new Int32Array(64 * STRIDE);
  private terms = 0;
  /**
   * (termId * MAX_ORDINALS + ord) -> frequency, for frequencies >= FREQ_MASK. Entries are only
   * added, for new postings: frozen views share it (they never read an ordinal past theirs).
   */
  private bigFreqs = new Map<number, number>();
  /**
   * Frozen views (frozenView): the term records a view reads are the live ones, except those written
   * since it was taken, whose records as of then are in the undo logs from the view's on. `epoch`
   * counts the views taken; `saved[term]` is the epoch whose log holds the term's record already
   * (the term was not written since when they are equal). Every write of a record calls saveRecord
   * first when they differ: a term is logged once per view, whatever the writes.
   */
  private epoch = 0;
  private saved = new Int32Array(64);
  private log: UndoLog | undefined;
  /** The frozen views of this store not released yet (see releaseFrozen, bound). */
  private readonly views = new Set<PostingStore>();
  /** Set on a frozen view only: what it reads. */
  private frozen: FrozenState | undefined;

  /** Number of term ids given out. */
  get termCount(): number {
    return this.terms;
  }

  /** A new, empty list; returns its term id. */
  newTerm(): number {
    const id = this.terms;
    this.ensureTerms(id + 1);
    return id;
  }

  /** Gives out term ids until there are `n` (a compacted copy takes its source's ids, see copyList). */
  ensureTerms(n: number): void {
    if (this.terms >= n) return;
    // Records doubled as often as needed, in one copy (a compaction's new stores take every term
    // of their source's, 155,000 at 20,000 Debian documents, in the slice that starts it).
    let cap = this.meta.length;
    while (cap < n * STRIDE) cap *= 2;
    if (cap > this.meta.length) {
      const next = new Int32Array(cap);
      next.set(this.meta);
      this.meta = next;
      const saved = new Int32Array(cap / STRIDE);
      saved.set(this.saved);
      this.saved = saved;
    }
    const { meta, saved, epoch } = this;
    for (let id = this.terms; id < n; id++) {
      // A term given out after the last view: no view reads its record (see rec), nothing to log.
      saved[id] = epoch;
      meta[id * STRIDE + HEAD] = -1;
      meta[id * STRIDE + BOUND] = 255;
    }
    this.terms = n;
  }

  /**
   * Appends postings [from, src.count(term)) of `src`'s list `term` to this store's list `term`,
   * each ordinal renumbered: ordinals below `remap.length` to `remap[ord]` (dropped when -1), the
   * others to `ord - shift`. Renumbering keeps the order (remap is increasing where not -1), so
   * the list stays sorted. `norms` (a text field's, by the source's ordinals) keeps the term's
   * score bound, which covers only the postings copied; docFreq is set apart (takeDocFreqs).
   * Returns how many postings of `src`'s list were read: where its next copy starts.
   * Used by index compaction (index-compaction.ts); `scratch` is reused between calls.
   */
  copyList(src: PostingStore, term: number, from: number, remap: Int32Array, shift: number, norms: Uint8Array | undefined, scratch: { buf: Int32Array }): number {
    const n = src.count(term);
    if (n <= from) return n;
    if (scratch.buf.length < n - from) scratch.buf = new Int32Array(Math.max(n - from, scratch.buf.length * 2));
    const buf = scratch.buf;
    src.copyRange(term, from, buf);
    const limit = remap.length;
    const o = term * STRIDE;
    let bound = this.meta[o + BOUND] as number;
    for (let i = 0; i < n - from; i++) {
      const p = buf[i] as number;
      const ord = p >>> FREQ_BITS;
      const to = ord < limit ? (remap[ord] as number) : ord - shift;
      if (to < 0) continue;
      const f = (p & FREQ_MASK) === FREQ_MASK ? src.freqOf(term, p) : p & FREQ_MASK;
      if (norms !== undefined) {
        const norm = norms[ord] as number;
        const bf = bound >>> 8;
        const bn = bound & 255;
        bound = ((f > bf ? Math.min(f, MAX_BOUND_FREQ) : bf) << 8) | (norm < bn ? norm : bn);
      }
      this.add(term, to, f);
    }
    if (norms !== undefined) this.meta[o + BOUND] = bound;
    return n;
  }

  /**
   * The first term in [from, to) whose list holds more postings than `copied[term]`; `to` when
   * none. One scan of the records: a compaction's catch-up round skips the lists no write grew.
   */
  nextGrown(copied: Int32Array, from: number, to: number): number {
    if (this.frozen !== undefined) throw new Error('nextGrown reads a live store');
    const m = this.meta;
    for (let t = from; t < to; t++) if ((m[t * STRIDE + COUNT] as number) > (copied[t] as number)) return t;
    return to;
  }

  /** Every term's docFreq as `src` counts it (live documents; see copyList). `src` has no more terms than this. */
  takeDocFreqs(src: PostingStore): void {
    for (let t = 0; t < src.terms; t++) this.meta[t * STRIDE + DOC_FREQ] = src.meta[t * STRIDE + DOC_FREQ] as number;
  }

  /** Postings entries in every list (live or not): what compaction brings back to the live documents'. */
  get postingCount(): number {
    let n = 0;
    for (let t = 0; t < this.terms; t++) n += this.count(t);
    return n;
  }

  /** Postings in the list (live or not). */
  count(term: number): number {
    return this.frozen === undefined ? (this.meta[term * STRIDE + COUNT] as number) : this.rec(term, COUNT);
  }

  /** Live documents in the list. */
  docFreq(term: number): number {
    return this.frozen === undefined ? (this.meta[term * STRIDE + DOC_FREQ] as number) : this.rec(term, DOC_FREQ);
  }

  /** A document of the list was deleted: it leaves the statistics (the posting stays as a tombstone). */
  decDocFreq(term: number): void {
    if (this.saved[term] !== this.epoch) this.saveRecord(term);
    const o = term * STRIDE + DOC_FREQ;
    this.meta[o] = (this.meta[o] as number) - 1;
  }

  /** Counts one more occurrence of `term` in the document being added; returns the count before. */
  bumpPending(term: number): number {
    const o = term * 8 + 6; // term * STRIDE + PENDING
    const f = this.meta[o] as number;
    this.meta[o] = f + 1;
    return f;
  }

  /**
   * Appends the pending frequency of each of `terms[0, count)` as a posting of `ord` and clears it;
   * `norm` is the document's norm byte for the field (kept for the terms' score bounds). When given,
   * `freqs[i]` receives the frequency of `terms[i]` (for replayPending). One call per document and
   * field, the common append inline: this runs for every posting of a text field.
   */
  flushPending(terms: Int32Array, count: number, ord: number, norm: number, freqs?: Int32Array): void {
    const STRIDE = 8;
    const WRITE = 1;
    const END = 2;
    const COUNT = 4;
    const DOC_FREQ = 5;
    const PENDING = 6;
    const BOUND = 7;
    const MAX_BOUND_FREQ = (1 << 23) - 1;
    const FREQ_BITS = 4;
    const FREQ_MASK = 15;
    const CHUNK_BITS = 20;
    const CHUNK_MASK = (1 << 20) - 1;
    const m = this.meta;
    const chunks = this.chunks;
    const saved = this.saved;
    const epoch = this.epoch;
    for (let i = 0; i < count; i++) {
      const term = terms[i] as number;
      if (saved[term] !== epoch) this.saveRecord(term);
      const o = term * STRIDE;
      const f = m[o + PENDING] as number;
      m[o + PENDING] = 0;
      if (freqs !== undefined) freqs[i] = f;
      const bound = m[o + BOUND] as number;
      const bf = bound >>> 8;
      const bn = bound & 255;
      m[o + BOUND] = ((f > bf ? (f < MAX_BOUND_FREQ ? f : MAX_BOUND_FREQ) : bf) << 8) | (norm < bn ? norm : bn);
      const w = m[o + WRITE] as number;
      if (f < FREQ_MASK && w !== m[o + END]) {
        m[o + COUNT] = (m[o + COUNT] as number) + 1;
        m[o + DOC_FREQ] = (m[o + DOC_FREQ] as number) + 1;
        (chunks[w >>> CHUNK_BITS] as Int32Array)[w & CHUNK_MASK] = (ord << FREQ_BITS) | f;
        m[o + WRITE] = w + 1;
      } else {
        this.add(term, ord, f);
      }
    }
  }

  /**
   * flushPending for a document whose terms and frequencies are known already: `terms[0, count)`
   * with `freqs[0, count)`, as an earlier flushPending recorded them. No term may be pending.
   */
  replayPending(terms: Int32Array, freqs: Int32Array, count: number, ord: number, norm: number): void {
    const m = this.meta;
    for (let i = 0; i < count; i++) m[(terms[i] as number) * 8 + 6] = freqs[i] as number; // STRIDE, PENDING
    this.flushPending(terms, count, ord, norm);
  }

  /**
   * Appends the postings of a batch of documents: token i of the batch is an occurrence of term
   * `terms[i]` in document `ords[i]`, for i < n, in document order (ordinals never decrease, and each
   * is larger than every ordinal already in the lists); `norms[ord]` is a document's norm byte. The
   * same lists, statistics and bounds as flushPending per document, built term by term: a counting
   * sort by term (stable, so each term's ordinals stay ascending) and then one run per term, so
   * that a term's record and its list's tail are read once per batch instead of once per token
   * (see TextField.beginBatch).
   */
  appendGrouped(terms: Int32Array, ords: Int32Array, n: number, norms: Uint8Array): void {
    const STRIDE = 8;
    const WRITE = 1;
    const END = 2;
    const COUNT = 4;
    const DOC_FREQ = 5;
    const BOUND = 7;
    const MAX_BOUND_FREQ = (1 << 23) - 1;
    const FREQ_BITS = 4;
    const FREQ_MASK = 15;
    const CHUNK_BITS = 20;
    const CHUNK_MASK = (1 << 20) - 1;
    const t = this.terms;
    // starts[k + 1] counts term k's tokens, then (prefix sums) starts[k] is where its run begins.
    // Per call, not kept: a term count and a batch of int32 (megabytes) would stay for good.
    const starts = new Int32Array(t + 1);
    for (let i = 0; i < n; i++) {
      const k = (terms[i] as number) + 1;
      starts[k] = (starts[k] as number) + 1;
    }
    for (let k = 1; k <= t; k++) starts[k] = (starts[k] as number) + (starts[k - 1] as number);
    const sorted = new Int32Array(n);
    // starts[k] moves to the end of term k's run as it fills: afterwards it is the start of k + 1.
    for (let i = 0; i < n; i++) {
      const k = terms[i] as number;
      const at = starts[k] as number;
      sorted[at] = ords[i] as number;
      starts[k] = at + 1;
    }
    const m = this.meta;
    const saved = this.saved;
    const epoch = this.epoch;
    let i = 0;
    for (let k = 0; k < t; k++) {
      const end = starts[k] as number;
      if (i === end) continue;
      if (saved[k] !== epoch) this.saveRecord(k);
      const o = k * STRIDE;
      let bound = m[o + BOUND] as number;
      while (i < end) {
        const ord = sorted[i] as number;
        let f = 1;
        i++;
        while (i < end && sorted[i] === ord) {
          f++;
          i++;
        }
        const norm = norms[ord] as number;
        const bf = bound >>> 8;
        const bn = bound & 255;
        bound = ((f > bf ? (f < MAX_BOUND_FREQ ? f : MAX_BOUND_FREQ) : bf) << 8) | (norm < bn ? norm : bn);
        const w = m[o + WRITE] as number;
        if (f < FREQ_MASK && w !== m[o + END]) {
          m[o + COUNT] = (m[o + COUNT] as number) + 1;
          m[o + DOC_FREQ] = (m[o + DOC_FREQ] as number) + 1;
          (this.chunks[w >>> CHUNK_BITS] as Int32Array)[w & CHUNK_MASK] = (ord << FREQ_BITS) | f;
          m[o + WRITE] = w + 1;
        } else {
          this.add(k, ord, f);
        }
      }
      m[o + BOUND] = bound;
    }
  }

  /** The largest frequency in a text term's postings (capped at 2^23 - 1, 0 when empty). */
  maxFreq(term: number): number {
    return (this.frozen === undefined ? (this.meta[term * STRIDE + BOUND] as number) : this.rec(term, BOUND)) >>> 8;
  }

  /** The smallest norm byte among a text term's postings (255 when empty). */
  minNorm(term: number): number {
    return (this.frozen === undefined ? (this.meta[term * STRIDE + BOUND] as number) : this.rec(term, BOUND)) & 255;
  }

  /** Appends a posting; `ord` is larger than every ordinal already in the list. */
  add(term: number, ord: number, freq: number): void {
    const STRIDE = 8;
    const HEAD = 0;
    const WRITE = 1;
    const END = 2;
    const LEVEL = 3;
    const COUNT = 4;
    const DOC_FREQ = 5;
    const FREQ_BITS = 4;
    const FREQ_MASK = 15;
    const MAX_LEVEL = 10;
    const CHUNK_BITS = 20;
    const CHUNK_MASK = (1 << 20) - 1;
    let p = (ord << FREQ_BITS) | freq;
    if (freq >= FREQ_MASK) {
      this.bigFreqs.set(term * MAX_ORDINALS + ord, freq);
      p = (ord << FREQ_BITS) | FREQ_MASK;
    }
    if (this.saved[term] !== this.epoch) this.saveRecord(term);
    const m = this.meta;
    const o = term * STRIDE;
    m[o + COUNT] = (m[o + COUNT] as number) + 1;
    m[o + DOC_FREQ] = (m[o + DOC_FREQ] as number) + 1;
    let w = m[o + WRITE] as number;
    if (w === m[o + END]) {
      // The last block is full (or there is none): chain a block twice its size, up to the cap.
      let size = 2;
      if (m[o + HEAD] === -1) {
        w = this.alloc(size);
        m[o + HEAD] = w;
        m[o + LEVEL] = 0;
      } else {
        const lvl = (m[o + LEVEL] as number) + 1;
        size = 2 << (lvl < MAX_LEVEL ? lvl : MAX_LEVEL);
        w = this.alloc(size);
        const last = (m[o + END] as number) - (2 << (lvl - 1 < MAX_LEVEL ? lvl - 1 : MAX_LEVEL));
        (this.chunks[last >>> CHUNK_BITS] as Int32Array)[last & CHUNK_MASK] = w;
        m[o + LEVEL] = lvl;
      }
      m[o + END] = w + size;
      w++; // the block's first slot links to the next block
    }
    (this.chunks[w >>> CHUNK_BITS] as Int32Array)[w & CHUNK_MASK] = p;
    m[o + WRITE] = w + 1;
  }

  /** Reserves `size` slots that do not cross a chunk boundary; returns the global offset. */
  private alloc(size: number): number {
    let at = this.top;
    if ((at & CHUNK_MASK) + size > CHUNK_SIZE) at = (at >>> CHUNK_BITS) * CHUNK_SIZE + CHUNK_SIZE;
    // Offsets are kept in Int32Arrays: one field holds at most 2^31 slots (8 GiB of postings).
    if (at + size > MAX_POOL) throw new RangeError(`a field holds at most ${MAX_POOL} posting slots`);
    const c = at >>> CHUNK_BITS;
    const end = (at & CHUNK_MASK) + size;
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = new Int32Array(c === 0 ? FIRST_CHUNK : CHUNK_SIZE);
      this.chunks[c] = chunk;
    }
    if (end > chunk.length) {
      const grown = new Int32Array(Math.min(CHUNK_SIZE, Math.max(end, chunk.length * 2)));
      grown.set(chunk);
      this.chunks[c] = grown;
    }
    this.top = at + size;
    return at;
  }

  /**
   * Copies the packed postings of a list into `out` (which holds at least `count(term)` slots), in
   * ordinal order; returns how many were copied.
   */
  copyTo(term: number, out: Int32Array): number {
    const n = this.count(term);
    let b = this.frozen === undefined ? (this.meta[term * STRIDE + HEAD] as number) : this.rec(term, HEAD);
    let k = 0;
    let lvl = 0;
    while (k < n) {
      const chunk = this.chunks[b >>> CHUNK_BITS] as Int32Array;
      const at = b & CHUNK_MASK;
      const cap = (2 << (lvl < MAX_LEVEL ? lvl : MAX_LEVEL)) - 1;
      const take = n - k < cap ? n - k : cap;
      if (take === 1) out[k] = chunk[at + 1] as number;
      else out.set(chunk.subarray(at + 1, at + 1 + take), k);
      k += take;
      b = chunk[at] as number;
      lvl++;
    }
    return n;
  }

  /** Copies postings [from, count(term)) of a list into `out`, skipping whole blocks before `from`. */
  copyRange(term: number, from: number, out: Int32Array): void {
    const n = this.count(term);
    let b = this.frozen === undefined ? (this.meta[term * STRIDE + HEAD] as number) : this.rec(term, HEAD);
    let k = 0;
    let lvl = 0;
    while (k < n) {
      const chunk = this.chunks[b >>> CHUNK_BITS] as Int32Array;
      const at = b & CHUNK_MASK;
      const cap = (2 << (lvl < MAX_LEVEL ? lvl : MAX_LEVEL)) - 1;
      const take = n - k < cap ? n - k : cap;
      if (k + take > from) {
        const skip = from > k ? from - k : 0;
        // Most lists are a few postings long: a subarray per block would be an object each.
        if (take - skip <= 16) for (let i = skip; i < take; i++) out[k + i - from] = chunk[at + 1 + i] as number;
        else out.set(chunk.subarray(at + 1 + skip, at + 1 + take), k + skip - from);
      }
      k += take;
      b = chunk[at] as number;
      lvl++;
    }
  }

  /** The packed postings of a list, in a fresh array. */
  postings(term: number): Int32Array {
    const out = new Int32Array(this.count(term));
    this.copyTo(term, out);
    return out;
  }

  /** Frequency of a packed posting of `term`. */
  freqOf(term: number, packed: number): number {
    const f = packed & FREQ_MASK;
    return f === FREQ_MASK ? (this.bigFreqs.get(term * MAX_ORDINALS + (packed >>> FREQ_BITS)) ?? f) : f;
  }

  /** Everything needed to rebuild this store (plain data for v8.serialize; see index-snapshot.ts). */
  snapshot(): unknown {
    return { chunks: this.chunks, top: this.top, meta: this.frozen === undefined ? this.meta : this.frozenMeta(), terms: this.terms, bigFreqs: this.bigFreqs };
  }

  /**
   * This store as it is now, for a frozen view of the index (InvertedIndex.frozenView): it shares
   * the posting pool, which later appends only extend past the view's counts, the big frequencies
   * (only added to, for new postings) and the term records, which later writes change: each write
   * logs a term's record first, once per view (saveRecord), and the view reads the logs from its
   * own on before the live records (rec). So taking a view costs O(1), and the writes after it
   * O(terms they write) once; before, it copied every term's record (32 bytes a term, 12 MiB for
   * the Debian corpus, 2-22 ms in one turn of the event loop: bench/search-frozen-view-probe.ts).
   * A term id past the view's terms comes only from a dictionary walk (prefix, range), whose
   * postings then read as none, or from a lookup, which answers -1 for it.
   */
  frozenCopy(): PostingStore {
    if (this.frozen !== undefined) throw new Error('a frozen view is not copied');
    for (const v of this.views) v.bound();
    const log = new UndoLog();
    if (this.log !== undefined) this.log.next = log;
    this.log = log;
    this.epoch++;
    const view = new PostingStore();
    view.chunks = this.chunks;
    view.top = this.top;
    view.terms = this.terms;
    view.bigFreqs = this.bigFreqs;
    view.meta = new Int32Array(0);
    view.frozen = { base: this, log };
    this.views.add(view);
    return view;
  }

  /** A frozen view is no longer read (its store lets go of it). */
  releaseFrozen(): void {
    this.frozen?.base.views.delete(this);
  }

  /**
   * Bounds what an old view costs (at each new view, see frozenCopy): once the logs it reads hold
   * more records than half its terms, or are more than MAX_LOGS, it takes its own copy of the
   * records (the live ones, each logged term's record as of the view over them) and lets go of the
   * logs: a point in time held across many refreshes costs at most about what a copy of the term
   * records did (32 bytes a term), and a read walks at most MAX_LOGS logs.
   */
  private bound(): void {
    const f = this.frozen;
    if (f === undefined) return;
    const chain: UndoLog[] = [];
    let records = 0;
    for (let log: UndoLog | undefined = f.log; log !== undefined; log = log.next) {
      chain.push(log);
      records += log.size;
    }
    if (records * 2 <= this.terms && chain.length <= MAX_LOGS) return;
    const meta = f.base.meta.slice(0, Math.max(1, this.terms) * STRIDE);
    // The oldest log last: a term's first logged record (as of the view) wins.
    for (let i = chain.length - 1; i >= 0; i--) (chain[i] as UndoLog).restoreInto(meta, this.terms);
    this.meta = meta;
    this.frozen = undefined;
    f.base.views.delete(this);
  }

  /** No frozen view of this store is used any more: writes stop logging until the next is taken. */
  viewsReleased(): void {
    this.log = undefined;
  }

  /** Logs `term`'s record as it is before a write, for the views taken since it was last logged (see frozenCopy). */
  private saveRecord(term: number): void {
    this.saved[term] = this.epoch;
    this.log?.add(term, this.meta, term * STRIDE);
  }

  /** A frozen view's `slot` of `term`'s record: as logged since the view was taken, else the live one. */
  private rec(term: number, slot: number): number {
    const f = this.frozen as FrozenState;
    if (term >= this.terms) return slot === HEAD ? -1 : slot === BOUND ? 255 : 0;
    for (let log: UndoLog | undefined = f.log; log !== undefined; log = log.next) {
      const at = log.find(term);
      if (at >= 0) return log.records[at + slot] as number;
    }
    return f.base.meta[term * STRIDE + slot] as number;
  }

  /** A frozen view's term records in one array (a snapshot of a view). */
  private frozenMeta(): Int32Array {
    const meta = new Int32Array(Math.max(1, this.terms) * STRIDE);
    for (let t = 0; t < this.terms; t++) for (let k = 0; k < STRIDE; k++) meta[t * STRIDE + k] = this.rec(t, k);
    return meta;
  }

  static restore(data: unknown): PostingStore {
    const d = data as { chunks: Int32Array[]; top: number; meta: Int32Array<ArrayBuffer>; terms: number; bigFreqs: Map<number, number> };
    const store = new PostingStore();
    store.chunks = d.chunks;
    store.top = d.top;
    store.meta = d.meta;
    store.saved = new Int32Array(d.meta.length / STRIDE);
    store.terms = d.terms;
    for (const [k, v] of d.bigFreqs) store.bigFreqs.set(k, v);
    return store;
  }

  /** Approximate bytes held (pool and per-term tables). */
  get bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.byteLength;
    return n + this.meta.byteLength;
  }
}

/** What a frozen view of a store reads (see PostingStore.frozenCopy). */
interface FrozenState {
  readonly base: PostingStore;
  /** The log of the writes after the view was taken (its successors follow, for later views). */
  readonly log: UndoLog;
}

/**
 * The term records written after one frozen view was taken and before the next: each term's record
 * as it was before its first write, found through an open-addressing table of term ids. Nothing per
 * term for the garbage collector: typed arrays that double.
 */
class UndoLog {
  /** The log of the next view (records written after it). */
  next: UndoLog | undefined;
  /** STRIDE int32 per logged term. */
  records = new Int32Array(16 * STRIDE);
  private count = 0;
  /** Terms logged. */
  get size(): number {
    return this.count;
  }

  /** Writes each logged record of a term below `terms` into `meta` (by term id). */
  restoreInto(meta: Int32Array, terms: number): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const term = (keys[i] as number) - 1;
      if (term < 0 || term >= terms) continue;
      const at = this.at[i] as number;
      for (let k = 0; k < STRIDE; k++) meta[term * STRIDE + k] = this.records[at + k] as number;
    }
  }

  /** term + 1 per slot (0 free), and where its record starts. */
  private keys = new Int32Array(32);
  private at = new Int32Array(32);

  add(term: number, meta: Int32Array, from: number): void {
    if (this.count * STRIDE === this.records.length) {
      const r = new Int32Array(this.records.length * 2);
      r.set(this.records);
      this.records = r;
    }
    const o = this.count * STRIDE;
    for (let k = 0; k < STRIDE; k++) this.records[o + k] = meta[from + k] as number;
    this.count++;
    if (this.count * 2 > this.keys.length) this.rehash();
    this.put(term, o);
  }

  /** Where `term`'s record starts in `records`, or -1. */
  find(term: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = hashTerm(term) & mask; ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === 0) return -1;
      if (k === term + 1) return this.at[i] as number;
    }
  }

  private put(term: number, o: number): void {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = hashTerm(term) & mask;
    while (keys[i] !== 0) i = (i + 1) & mask;
    keys[i] = term + 1;
    this.at[i] = o;
  }

  private rehash(): void {
    const keys = this.keys;
    const at = this.at;
    this.keys = new Int32Array(keys.length * 2);
    this.at = new Int32Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) this.put((keys[i] as number) - 1, at[i] as number);
  }
}

/** Spreads consecutive term ids over the table (Fibonacci hashing). */
const hashTerm = (term: number): number => Math.imul(term, 0x9e3779b1) >>> 8;
