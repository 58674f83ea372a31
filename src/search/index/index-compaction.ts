import { INITIAL } from './grow.js';
import type { InvertedIndex } from './inverted-index.js';
import type { KeywordField } from './keyword-field.js';
import type { NumericField } from './numeric-field.js';
import { PostingStore } from './posting-store.js';
import type { TextField } from './text-field.js';

/**
 * Reclaims what retired ordinals hold, as a Lucene merge reclaims deleted documents: a copy of the
 * index without the ordinals that were dead when the compaction began, the others renumbered in
 * order (write order, the tie-break of every result order, is kept), built while the index keeps
 * serving and taking writes, then swapped in at once (finish).
 *
 * Why a copy and a swap rather than editing in place: a search between two slices must see one
 * consistent numbering. The copy is built in slices (step) bounded by a deadline; between them
 * the index is searched and written as usual. Writes only append ordinals past the ones the copy
 * started from (copied at finish, shifted down by the number dropped) and retire ordinals (the
 * index reports them, see InvertedIndex.remove; finish marks them dead in the copy, where they
 * stay as tombstones until the next compaction). Term ids are kept (the dictionaries are shared),
 * so the per-term statistics are the source's at finish: docFreq, docCount and the sums count live
 * documents only, before and after, and a search scores the same on either side of the swap.
 *
 * Not here: the engine's per-ordinal versions and sequence numbers (renumber), points in time and
 * scrolls, which hold ordinals (the engine compacts no index they pin), and the scheduling.
 */

/** Slots a per-document array holds for `n` documents when it grew by doubling from INITIAL, as indexing grows them. */
export function capacityFor(n: number): number {
  let c = INITIAL;
  while (c < n) c *= 2;
  return c;
}

/** Ordinals copied per slice of the per-document phase between deadline checks. */
const ORD_CHUNK = 4096;
/** Terms copied between deadline checks. */
const TERM_CHUNK = 64;

interface PostingPlan {
  readonly store: PostingStore;
  /** Per term id (those there were at the start): postings of the source's list copied so far. */
  readonly copied: Int32Array;
}

interface TextPlan extends PostingPlan {
  readonly kind: 'text';
  readonly field: TextField;
  norms: Uint8Array<ArrayBuffer>;
  present: Uint8Array<ArrayBuffer>;
}

interface KeywordPlan extends PostingPlan {
  readonly kind: 'keyword';
  readonly field: KeywordField;
  single: Int32Array<ArrayBuffer>;
}

interface NumericPlan {
  readonly field: NumericField;
  min: Float64Array<ArrayBuffer>;
  max: Float64Array<ArrayBuffer>;
}

export class IndexCompaction {
  /** Ordinals when the compaction began; those below are renumbered through `remap`. */
  readonly startOrds: number;
  /** Per ordinal below startOrds: its new ordinal, -1 when it was dead at the start. */
  private readonly remap: Int32Array;
  /** Ordinals dead at the start: ordinals written since move down by this much. */
  readonly dropped: number;
  /** Ordinals retired since the start (InvertedIndex.remove appends them). */
  private readonly retired: number[] = [];
  /** Ordinals when finish ran (-1 before). */
  private endOrds = -1;
  private readonly ids: string[] = [];
  private readonly idToOrd = new Map<string, number>();
  private readonly postingPlans: (TextPlan | KeywordPlan)[] = [];
  private readonly numericPlans = new Map<string, NumericPlan>();
  private readonly textPlans = new Map<string, TextPlan>();
  private readonly keywordPlans = new Map<string, KeywordPlan>();
  private ordCursor = 0;
  private planCursor = 0;
  private termCursor = 0;
  private readonly scratch = { buf: new Int32Array(1024) };

  constructor(private readonly index: InvertedIndex) {
    const m = index.maxOrd;
    this.startOrds = m;
    this.remap = new Int32Array(m);
    let kept = 0;
    for (let o = 0; o < m; o++) this.remap[o] = index.live[o] === 1 ? kept++ : -1;
    this.dropped = m - kept;
    const cap = capacityFor(kept);
    for (const [path, field] of index.text) {
      const plan: TextPlan = { kind: 'text', field, ...postingPlan(field.postings), norms: new Uint8Array(cap), present: new Uint8Array(cap) };
      this.textPlans.set(path, plan);
      this.postingPlans.push(plan);
    }
    for (const [path, field] of index.keyword) {
      const plan: KeywordPlan = { kind: 'keyword', field, ...postingPlan(field.postings), single: new Int32Array(cap).fill(-1) };
      this.keywordPlans.set(path, plan);
      this.postingPlans.push(plan);
    }
    for (const [path, field] of index.numeric) this.numericPlans.set(path, { field, min: new Float64Array(cap).fill(Number.NaN), max: new Float64Array(cap).fill(Number.NaN) });
    index.beginCompaction(this.retired);
  }

  /** The ordinal `ord` gets: -1 when it was dead at the start. */
  newOrd(ord: number): number {
    return ord < this.startOrds ? (this.remap[ord] as number) : ord - this.dropped;
  }

  /**
   * Copies until performance.now() passes `deadline` (ms) or the copy is complete; true when only
   * finish is left. At least one chunk of work is done per call, so a short deadline still ends.
   */
  step(deadline: number): boolean {
    for (let first = true; first || performance.now() < deadline; first = false) {
      if (this.ordCursor < this.startOrds) this.copyDocs(this.ordCursor, Math.min(this.startOrds, this.ordCursor + ORD_CHUNK));
      else if (this.planCursor < this.postingPlans.length) this.copyTerms();
      else return true;
    }
    return this.ordCursor >= this.startOrds && this.planCursor >= this.postingPlans.length;
  }

  /** The per-document data of ordinals [from, to) below startOrds. */
  private copyDocs(from: number, to: number): void {
    const { index, remap } = this;
    for (let o = from; o < to; o++) {
      const r = remap[o] as number;
      if (r < 0) continue;
      const id = index.ids[o] as string;
      this.ids.push(id);
      this.idToOrd.set(id, r);
    }
    for (const plan of this.textPlans.values()) copyTextDocs(plan, remap, from, to);
    for (const plan of this.keywordPlans.values()) copyKeywordDocs(plan, remap, from, to);
    for (const plan of this.numericPlans.values()) copyNumericDocs(plan, remap, from, to);
    this.ordCursor = to;
  }

  /** The next TERM_CHUNK terms' postings. */
  private copyTerms(): void {
    const plan = this.postingPlans[this.planCursor] as TextPlan | KeywordPlan;
    const end = Math.min(plan.copied.length, this.termCursor + TERM_CHUNK);
    const src = plan.field.postings;
    const norms = plan.kind === 'text' ? plan.field.norms : undefined;
    for (let t = this.termCursor; t < end; t++) plan.copied[t] = plan.store.copyList(src, t, 0, this.remap, this.dropped, norms, this.scratch);
    this.termCursor = end;
    if (end === plan.copied.length) {
      this.planCursor++;
      this.termCursor = 0;
    }
  }

  /**
   * Completes the copy (whatever step has not done, and what was written since the start) and
   * swaps it into the index. Costs the terms of every field plus the documents written and retired
   * since the start. The index must not be batching (InvertedIndex.beginBatch).
   */
  finish(): void {
    const index = this.index;
    if (index.isBatching) throw new Error('an index is not compacted while it batches postings');
    while (!this.step(0));
    const n = index.maxOrd;
    this.endOrds = n;
    const m = this.startOrds;
    const d = this.dropped;
    const size = m - d + (n - m);
    for (let o = m; o < n; o++) this.ids.push(index.ids[o] as string);
    for (const x of this.retired) {
      const r = this.newOrd(x);
      if (x < m && r >= 0 && this.idToOrd.get(index.ids[x] as string) === r) this.idToOrd.delete(index.ids[x] as string);
    }
    for (let o = m; o < n; o++) if (index.live[o] === 1) this.idToOrd.set(index.ids[o] as string, o - d);
    const live = new Uint8Array(capacityFor(size));
    for (let o = 0; o < n; o++) {
      const r = this.newOrd(o);
      if (r >= 0) live[r] = index.live[o] as number;
    }
    const cap = capacityFor(size);
    for (const [path, field] of index.text) this.finishText(this.textPlans.get(path) ?? this.newTextPlan(field), cap, live);
    for (const [path, field] of index.keyword) this.finishKeyword(this.keywordPlans.get(path) ?? this.newKeywordPlan(field), cap, live);
    for (const [path, field] of index.numeric) this.finishNumeric(this.numericPlans.get(path) ?? { field, min: new Float64Array(0), max: new Float64Array(0) }, cap, live);
    index.adoptCompacted(this.ids, live, this.idToOrd);
  }

  /** Stops without changing the index (the copy is dropped). */
  abandon(): void {
    this.index.endCompaction(this.retired);
  }

  /**
   * Renumbers a per-ordinal array of the engine's (versions, sequence numbers) in place as finish
   * renumbered the index: new ordinals are never above old ones, so one pass from the start.
   */
  renumber<T>(values: T[]): void {
    if (this.endOrds < 0) throw new Error('renumber before finish');
    for (let o = 0; o < this.endOrds; o++) {
      const r = this.newOrd(o);
      if (r >= 0) values[r] = values[o] as T;
    }
    values.length = this.endOrds - this.dropped;
  }

  private newTextPlan(field: TextField): TextPlan {
    return { kind: 'text', field, ...postingPlan(new PostingStore()), norms: new Uint8Array(0), present: new Uint8Array(0) };
  }

  private newKeywordPlan(field: KeywordField): KeywordPlan {
    return { kind: 'keyword', field, ...postingPlan(new PostingStore()), single: new Int32Array(0) };
  }

  /** The postings written since a plan's copy of each list, and the terms added since the start. */
  private finishPostings(plan: TextPlan | KeywordPlan): void {
    const src = plan.field.postings;
    const norms = plan.kind === 'text' ? plan.field.norms : undefined;
    plan.store.ensureTerms(src.termCount);
    for (let t = 0; t < src.termCount; t++) {
      const from = t < plan.copied.length ? (plan.copied[t] as number) : 0;
      if (src.count(t) > from) plan.store.copyList(src, t, from, this.remap, this.dropped, norms, this.scratch);
    }
    plan.store.takeDocFreqs(src);
  }

  private finishText(plan: TextPlan, cap: number, live: Uint8Array): void {
    const src = plan.field;
    plan.norms = sized(plan.norms, cap, 0);
    plan.present = sized(plan.present, cap, 0);
    const d = this.dropped;
    for (let o = this.startOrds; o < Math.min(this.endOrds, src.norms.length); o++) {
      plan.norms[o - d] = src.norms[o] as number;
      plan.present[o - d] = src.present[o] ?? 0;
    }
    for (const r of this.deadSinceStart(live)) plan.present[r] = 0;
    this.finishPostings(plan);
    src.adoptCompacted(plan.store, plan.norms, plan.present);
  }

  private finishKeyword(plan: KeywordPlan, cap: number, live: Uint8Array): void {
    const src = plan.field;
    plan.single = sized(plan.single, cap, -1);
    const d = this.dropped;
    const single = src.singleIds;
    for (let o = this.startOrds; o < Math.min(this.endOrds, single.length); o++) plan.single[o - d] = single[o] as number;
    for (const r of this.deadSinceStart(live)) plan.single[r] = -1;
    const multi = new Map<number, readonly string[]>();
    for (const [o, values] of src.multiValues) {
      const r = this.newOrd(o);
      if (r >= 0 && live[r] === 1) multi.set(r, values);
    }
    this.finishPostings(plan);
    src.adoptCompacted(plan.store, plan.single, multi);
  }

  private finishNumeric(plan: NumericPlan, cap: number, live: Uint8Array): void {
    const src = plan.field;
    plan.min = sized(plan.min, cap, Number.NaN);
    plan.max = sized(plan.max, cap, Number.NaN);
    const d = this.dropped;
    for (let o = this.startOrds; o < Math.min(this.endOrds, src.min.length); o++) {
      plan.min[o - d] = src.min[o] as number;
      plan.max[o - d] = src.max[o] as number;
    }
    for (const r of this.deadSinceStart(live)) {
      plan.min[r] = Number.NaN;
      plan.max[r] = Number.NaN;
    }
    const multi = new Map<number, readonly number[]>();
    for (const [o, values] of src.multi) {
      const r = this.newOrd(o);
      if (r >= 0 && live[r] === 1) multi.set(r, values);
    }
    src.min = plan.min;
    src.max = plan.max;
    src.multi = multi;
  }

  /** New ordinals of the documents retired since the start that the copy holds. */
  private *deadSinceStart(live: Uint8Array): IterableIterator<number> {
    for (const x of this.retired) {
      const r = this.newOrd(x);
      if (r >= 0 && live[r] !== 1) yield r;
    }
  }
}

function postingPlan(src: PostingStore): { store: PostingStore; copied: Int32Array } {
  const store = new PostingStore();
  store.ensureTerms(src.termCount);
  return { store, copied: new Int32Array(src.termCount) };
}

/** `arr` with at least `cap` slots, new ones `fill`. */
function sized<T extends Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(arr: T, cap: number, fill: number): T {
  if (arr.length >= cap) return arr;
  const next = new (arr.constructor as new (n: number) => T)(cap);
  if (fill !== 0) next.fill(fill);
  next.set(arr);
  return next;
}

function copyTextDocs(plan: TextPlan, remap: Int32Array, from: number, to: number): void {
  const { norms, present } = plan.field;
  const end = Math.min(to, norms.length);
  for (let o = from; o < end; o++) {
    const r = remap[o] as number;
    if (r < 0) continue;
    plan.norms[r] = norms[o] as number;
    plan.present[r] = present[o] ?? 0;
  }
}

function copyKeywordDocs(plan: KeywordPlan, remap: Int32Array, from: number, to: number): void {
  const single = plan.field.singleIds;
  const end = Math.min(to, single.length);
  for (let o = from; o < end; o++) {
    const r = remap[o] as number;
    if (r >= 0) plan.single[r] = single[o] as number;
  }
}

function copyNumericDocs(plan: NumericPlan, remap: Int32Array, from: number, to: number): void {
  const { min, max } = plan.field;
  const end = Math.min(to, min.length);
  for (let o = from; o < end; o++) {
    const r = remap[o] as number;
    if (r < 0) continue;
    plan.min[r] = min[o] as number;
    plan.max[r] = max[o] as number;
  }
}
