import { INITIAL } from './grow.js';
import { KeywordTerms } from './keyword-terms.js';
import { PostingStore } from './posting-store.js';

/** A `keyword` (or `boolean`) field: exact values, a posting list per value, values per document. */
export class KeywordField {
  postings = new PostingStore();
  readonly terms = new KeywordTerms(this.postings);
  /** Per ordinal: the term id of its single value; -1 none, -2 several (in `multi`). */
  private single = new Int32Array(INITIAL).fill(-1);
  private multi = new Map<number, readonly string[]>();
  docCount = 0;
  sumDocFreq = 0;

  /** Per ordinal: the term id of its single value; -1 none, -2 several (see multiValues). Read-only. */
  get singleIds(): Int32Array {
    return this.single;
  }

  /** The values of documents with several, by ordinal. Read-only. */
  get multiValues(): ReadonlyMap<number, readonly string[]> {
    return this.multi;
  }

  /** Takes the compacted postings and doc values (index-compaction.ts): same term ids and statistics, documents renumbered. */
  adoptCompacted(postings: PostingStore, single: Int32Array<ArrayBuffer>, multi: Map<number, readonly string[]>): void {
    this.postings = postings;
    this.terms.rebind(postings);
    this.single = single;
    this.multi = multi;
  }

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
