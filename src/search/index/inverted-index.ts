import type { ParsedDoc } from '../mapping/document-parser.js';
import { grow, INITIAL } from './grow.js';
import { KeywordField } from './keyword-field.js';
import { NumericField } from './numeric-field.js';
import { MAX_ORDINALS } from './posting-store.js';
import { TextField } from './text-field.js';

/**
 * The in-memory index of one Elasticsearch index (one shard). Documents get increasing ordinals in
 * the order they were written; a re-indexed document gets a new ordinal, exactly as a Lucene doc
 * id grows when a document is updated. Posting lists are therefore always sorted by ordinal, and
 * ordinal order is the tie-break of every result order (see top-k.ts).
 *
 * Statistics used by BM25 (docCount, docFreq, sumTotalTermFreq) count live documents only: deleted
 * ordinals stay in the posting lists as tombstones (skipped through the `live` bitmap) but leave the
 * statistics at once. Lucene keeps them until a segment merge, which makes its scores drift in a way
 * nobody can predict; we prefer scores that depend only on the live documents. What retired
 * ordinals hold is reclaimed by a compaction (index-compaction.ts), which renumbers the live ones.
 *
 * Terms are dense integer ids per field and postings live in typed arrays (term-dictionary.ts,
 * posting-store.ts): hundreds of thousands of terms are no objects for the garbage collector.
 *
 * Each field kind is its own module: text-field.ts (terms, frequencies, norms), keyword-field.ts
 * (exact values, with keyword-terms.ts for their dictionary) and numeric-field.ts (numbers, dates).
 */

export class InvertedIndex {
  /** Id per ordinal (replaced, never changed in place, by a compaction: frozen views share it). */
  ids: string[] = [];
  live = new Uint8Array(INITIAL);
  liveCount = 0;
  /** Id → ordinal of its live document (replaced by a compaction: a point in time's PinnedIds reads the old one). */
  idToOrd = new Map<string, number>();
  readonly text = new Map<string, TextField>();
  readonly keyword = new Map<string, KeywordField>();
  readonly numeric = new Map<string, NumericField>();
  private allLiveCache: Int32Array | undefined;
  /** Whether text postings are being batched (see beginBatch). */
  private batching = false;
  /** Where remove reports retired ordinals while a compaction runs (index-compaction.ts). */
  private retiredLog: number[] | undefined;
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
    this.retiredLog?.push(ord);
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

  /** Ordinals given out and retired since: what a compaction would reclaim. */
  get deadCount(): number {
    return this.maxOrd - this.liveCount;
  }

  /** A compaction begins: retired ordinals are reported to `log` until it ends. */
  beginCompaction(log: number[]): void {
    if (this.retiredLog !== undefined) throw new Error('a compaction is running already');
    // A frozen view may be open while a compaction runs (the view of the last refresh: refresh-schedule.ts);
    // it reads the structures the compaction copies from, and is released before the swap (adoptCompacted).
    this.retiredLog = log;
  }

  /** The compaction that began with `log` ended (finished or abandoned). */
  endCompaction(log: number[]): void {
    if (this.retiredLog === log) this.retiredLog = undefined;
  }

  /** Whether text postings are being batched (between beginBatch and endBatch). */
  get isBatching(): boolean {
    return this.batching;
  }

  /** Whether a compaction is running. */
  get compacting(): boolean {
    return this.retiredLog !== undefined;
  }

  /**
   * Takes the renumbered ids, live set and id map of a finished compaction (its fields have taken
   * their own parts already). Not while batching or while frozen views share this index.
   */
  adoptCompacted(ids: string[], live: Uint8Array<ArrayBuffer>, idToOrd: Map<string, number>): void {
    if (this.batching) throw new Error('an index is not compacted while it batches postings');
    if (this.openViews > 0) throw new Error('an index with frozen views open is not compacted');
    this.ids = ids;
    this.live = live;
    this.idToOrd = idToOrd;
    this.allLiveCache = undefined;
    this.retiredLog = undefined;
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
   * document), each text and keyword field's statistics, and the field lists (a field created later
   * has no document of the view); the per-term records are logged by the writes that change them
   * (PostingStore.frozenCopy). `idToOrd` is what the view answers for ids (the caller keeps it right
   * as documents are retired). Costs O(documents / 8 + fields), never a copy of the postings or of
   * the term records; the view is never written.
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
  releaseView(view?: InvertedIndex): void {
    if (view !== undefined) {
      for (const f of view.text.values()) f.postings.releaseFrozen();
      for (const f of view.keyword.values()) f.postings.releaseFrozen();
    }
    if (this.openViews === 0 || --this.openViews > 0) return;
    for (const f of this.text.values()) f.postings.viewsReleased();
    for (const f of this.keyword.values()) f.postings.viewsReleased();
    // Under a compaction the copy leaves the retired values behind anyway; the fields it copies from stay as they are.
    if (this.compacting) return;
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
