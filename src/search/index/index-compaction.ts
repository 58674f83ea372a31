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
 * started from (shifted down by the number dropped) and postings to the lists' ends, and retire
 * ordinals (the index reports them, see InvertedIndex.remove; finish marks them dead in the copy,
 * where they stay as tombstones until the next compaction). What was written during the copy is
 * copied by catch-up rounds, in slices too, each over what the previous one left, until a round
 * would have little to do (CATCH_UP_ORDS): finish, the one step that cannot be sliced, then copies
 * only that little plus a scan of the term records. Term ids are kept (the dictionaries are shared),
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
/** Terms copied between deadline checks at most (those whose lists grew since their last copy; the others are skipped in one scan)... */
const TERM_CHUNK = 64;
/** ... and postings read (a chunk of frequent terms holds millions). */
const POSTING_CHUNK = 1 << 15;
/** A catch-up round ends the copy (finish copies the rest) when fewer ordinals than this were written during the last one. */
export const CATCH_UP_ORDS = 2000;
/** Catch-up rounds at most, whatever the writes (each is shorter than the last while writes are slower than copying). */
const MAX_ROUNDS = 8;

interface PostingPlan {
  readonly store: PostingStore;
  /** Per term id: postings of the source's list copied so far (grown by doubling: slots past `terms` are 0). */
  copied: Int32Array<ArrayBuffer>;
  /** Terms there were at the round's start: those this round copies. */
  terms: number;
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
  /** Ordinals whose per-document data is copied: [0, docsTo). */
  private docsTo = 0;
  /** The current round copies per-document data up to here, then the postings written so far. */
  private roundOrds: number;
  private rounds = 0;
  private planCursor = 0;
  private termCursor = 0;
  private readonly scratch = { buf: new Int32Array(1024) };
  /** New ordinals of one chunk of copyDocs (reused). */
  private chunkMap = new Int32Array(ORD_CHUNK);

  /** @param catchUpOrds see CATCH_UP_ORDS (tests make every write start a round) */
  constructor(
    private readonly index: InvertedIndex,
    private readonly catchUpOrds = CATCH_UP_ORDS,
  ) {
    const m = index.maxOrd;
    this.startOrds = m;
    this.remap = new Int32Array(m);
    let kept = 0;
    for (let o = 0; o < m; o++) this.remap[o] = index.live[o] === 1 ? kept++ : -1;
    this.dropped = m - kept;
    this.roundOrds = m;
    this.addPlans();
    index.beginCompaction(this.retired);
  }

  /**
   * Plans for the fields that have none yet (all of them at the start; later, fields a write
   * created), sized for the current round. A field created since the round began has values only
   * at ordinals written since, which no round has copied yet (they are past docsTo).
   */
  private addPlans(): void {
    const index = this.index;
    const cap = capacityFor(this.newSize(this.roundOrds));
    for (const [path, field] of index.text) {
      if (this.textPlans.has(path)) continue;
      const plan: TextPlan = { kind: 'text', field, ...postingPlan(field.postings), norms: new Uint8Array(cap), present: new Uint8Array(cap) };
      this.textPlans.set(path, plan);
      this.postingPlans.push(plan);
    }
    for (const [path, field] of index.keyword) {
      if (this.keywordPlans.has(path)) continue;
      const plan: KeywordPlan = { kind: 'keyword', field, ...postingPlan(field.postings), single: new Int32Array(cap).fill(-1) };
      this.keywordPlans.set(path, plan);
      this.postingPlans.push(plan);
    }
    for (const [path, field] of index.numeric) {
      if (this.numericPlans.has(path)) continue;
      const plan: NumericPlan = { field, min: new Float64Array(cap).fill(Number.NaN), max: new Float64Array(cap).fill(Number.NaN) };
      this.numericPlans.set(path, plan);
    }
  }

  /** Documents in the copy when it covers ordinals [0, ords). */
  private newSize(ords: number): number {
    return ords <= this.startOrds ? this.startOrds - this.dropped : ords - this.dropped;
  }

  /** The ordinal `ord` gets: -1 when it was dead at the start. */
  newOrd(ord: number): number {
    return ord < this.startOrds ? (this.remap[ord] as number) : ord - this.dropped;
  }

  /**
   * Copies until performance.now() passes `deadline` (ms) or the copy is complete; true when only
   * finish is left. At least one chunk of work is done per call, so a short deadline still ends.
   * With `follow` (the copy is complete and waits to be swapped in, see IndexReclaimer), every
   * write since the last round starts another round, however few: the copy keeps up with the
   * index, so that finish has only the last few writes to copy when the swap comes.
   */
  step(deadline: number, follow = false): boolean {
    for (let first = true; first || performance.now() < deadline; first = false) {
      if (this.docsTo < this.roundOrds) this.copyDocs(Math.min(this.roundOrds, this.docsTo + ORD_CHUNK));
      else if (this.planCursor < this.postingPlans.length) this.copyTerms();
      else if (!this.nextRound(follow)) return true;
    }
    return false;
  }

  /** Ordinals written since the current round began (what a round started now would copy). */
  get behind(): number {
    return this.index.maxOrd - this.roundOrds;
  }

  /**
   * Starts a catch-up round over what was written during the last one (ordinals past it, postings
   * past each list's copied count, fields and terms created since); false when that is little
   * enough for finish, or after MAX_ROUNDS; with `follow`, false only when nothing was written.
   */
  private nextRound(follow: boolean): boolean {
    const n = this.index.maxOrd;
    if (follow ? n === this.roundOrds : n - this.roundOrds < this.catchUpOrds || this.rounds >= MAX_ROUNDS) return false;
    this.rounds++;
    this.roundOrds = n;
    this.planCursor = 0;
    this.termCursor = 0;
    this.growPlans();
    return true;
  }

  /** Sizes every plan for the current round: per-document arrays, new fields, new terms. */
  private growPlans(): void {
    this.addPlans();
    const cap = capacityFor(this.newSize(this.roundOrds));
    for (const plan of this.textPlans.values()) {
      plan.norms = sized(plan.norms, cap, 0);
      plan.present = sized(plan.present, cap, 0);
    }
    for (const plan of this.keywordPlans.values()) plan.single = sized(plan.single, cap, -1);
    for (const plan of this.numericPlans.values()) {
      plan.min = sized(plan.min, cap, Number.NaN);
      plan.max = sized(plan.max, cap, Number.NaN);
    }
    for (const plan of this.postingPlans) {
      const terms = plan.field.postings.termCount;
      plan.store.ensureTerms(terms);
      // Doubled, not sized to the count: a round starts every FOLLOW_ORDS writes while a copy
      // waits for a refresh, and most rounds add terms.
      if (plan.copied.length < terms) plan.copied = sized(plan.copied, Math.max(terms, 2 * plan.copied.length), 0);
      plan.terms = terms;
    }
  }

  /** The per-document data of ordinals [docsTo, to). */
  private copyDocs(to: number): void {
    const from = this.docsTo;
    const { index } = this;
    for (let o = from; o < to; o++) {
      const r = this.newOrd(o);
      if (r < 0) continue;
      // In ordinal order: an id's later ordinal replaces its earlier one; finish unmaps retired ones.
      const id = index.ids[o] as string;
      this.ids.push(id);
      this.idToOrd.set(id, r);
    }
    this.copyDocsOf(this.textPlans.values(), this.keywordPlans.values(), this.numericPlans.values(), from, to);
    this.docsTo = to;
  }

  /** The per-document data of ordinals [from, to) for the plans given. */
  private copyDocsOf(text: Iterable<TextPlan>, keyword: Iterable<KeywordPlan>, numeric: Iterable<NumericPlan>, from: number, to: number): void {
    for (let at = from; at < to; at += ORD_CHUNK) {
      const end = Math.min(to, at + ORD_CHUNK);
      const map = this.chunkMap;
      for (let o = at; o < end; o++) map[o - at] = this.newOrd(o);
      for (const plan of text) copyTextDocs(plan, map, at, end);
      for (const plan of keyword) copyKeywordDocs(plan, map, at, end);
      for (const plan of numeric) copyNumericDocs(plan, map, at, end);
    }
  }

  /**
   * The postings written since the last round's copy of the next TERM_CHUNK terms whose lists
   * grew, or of fewer holding POSTING_CHUNK.
   */
  private copyTerms(): void {
    const plan = this.postingPlans[this.planCursor] as TextPlan | KeywordPlan;
    this.termCursor = this.copyPostings(plan, this.termCursor, plan.terms, TERM_CHUNK, POSTING_CHUNK);
    if (this.termCursor === plan.terms) {
      this.planCursor++;
      this.termCursor = 0;
    }
  }

  /**
   * Terms [from, to) of a plan: the postings past what was copied of each, for `lists` grown
   * lists at most holding `postings` or more; where it stopped (`to` when done).
   */
  private copyPostings(plan: TextPlan | KeywordPlan, from: number, to: number, lists = Infinity, postings = Infinity): number {
    const src = plan.field.postings;
    const norms = plan.kind === 'text' ? plan.field.norms : undefined;
    const copied = plan.copied;
    let t = from;
    for (let n = 0, budget = postings; n < lists && budget > 0; n++) {
      t = src.nextGrown(copied, t, to);
      if (t === to) break;
      const done = copied[t] as number;
      copied[t] = plan.store.copyList(src, t, done, this.remap, this.dropped, norms, this.scratch);
      budget -= (copied[t] as number) - done;
      t++;
    }
    return t;
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
    // The last catch-up: what was written since the last round.
    const n = index.maxOrd;
    this.endOrds = n;
    this.roundOrds = n;
    this.growPlans();
    this.copyDocs(n);
    for (const plan of this.postingPlans) this.copyPostings(plan, 0, plan.terms);
    const size = this.newSize(n);
    for (const x of this.retired) {
      const r = this.newOrd(x);
      const id = index.ids[x] as string;
      if (r >= 0 && this.idToOrd.get(id) === r) this.idToOrd.delete(id);
    }
    const live = new Uint8Array(capacityFor(size));
    for (let o = 0; o < n; o++) {
      const r = this.newOrd(o);
      if (r >= 0) live[r] = index.live[o] as number;
    }
    // The copy's ordinals of documents retired during the copy (their doc values are cleared).
    const dead: number[] = [];
    for (const x of this.retired) {
      const r = this.newOrd(x);
      if (r >= 0 && live[r] !== 1) dead.push(r);
    }
    for (const plan of this.textPlans.values()) this.finishText(plan, dead);
    for (const plan of this.keywordPlans.values()) this.finishKeyword(plan, dead, live);
    for (const plan of this.numericPlans.values()) this.finishNumeric(plan, dead, live);
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

  private finishText(plan: TextPlan, dead: readonly number[]): void {
    for (const r of dead) plan.present[r] = 0;
    plan.store.takeDocFreqs(plan.field.postings);
    plan.field.adoptCompacted(plan.store, plan.norms, plan.present);
  }

  private finishKeyword(plan: KeywordPlan, dead: readonly number[], live: Uint8Array): void {
    for (const r of dead) plan.single[r] = -1;
    const multi = new Map<number, readonly string[]>();
    for (const [o, values] of plan.field.multiValues) {
      const r = this.newOrd(o);
      if (r >= 0 && live[r] === 1) multi.set(r, values);
    }
    plan.store.takeDocFreqs(plan.field.postings);
    plan.field.adoptCompacted(plan.store, plan.single, multi);
  }

  private finishNumeric(plan: NumericPlan, dead: readonly number[], live: Uint8Array): void {
    for (const r of dead) {
      plan.min[r] = Number.NaN;
      plan.max[r] = Number.NaN;
    }
    const src = plan.field;
    const multi = new Map<number, readonly number[]>();
    for (const [o, values] of src.multi) {
      const r = this.newOrd(o);
      if (r >= 0 && live[r] === 1) multi.set(r, values);
    }
    src.min = plan.min;
    src.max = plan.max;
    src.multi = multi;
  }
}

function postingPlan(src: PostingStore): { store: PostingStore; copied: Int32Array<ArrayBuffer>; terms: number } {
  const store = new PostingStore();
  store.ensureTerms(src.termCount);
  return { store, copied: new Int32Array(src.termCount), terms: src.termCount };
}

/** `arr` with at least `cap` slots, new ones `fill`. */
function sized<T extends Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(arr: T, cap: number, fill: number): T {
  if (arr.length >= cap) return arr;
  const next = new (arr.constructor as new (n: number) => T)(cap);
  if (fill !== 0) next.fill(fill);
  next.set(arr);
  return next;
}

function copyTextDocs(plan: TextPlan, map: Int32Array, from: number, to: number): void {
  const { norms, present } = plan.field;
  const end = Math.min(to, norms.length);
  for (let o = from; o < end; o++) {
    const r = map[o - from] as number;
    if (r < 0) continue;
    plan.norms[r] = norms[o] as number;
    plan.present[r] = present[o] ?? 0;
  }
}

function copyKeywordDocs(plan: KeywordPlan, map: Int32Array, from: number, to: number): void {
  const single = plan.field.singleIds;
  const end = Math.min(to, single.length);
  for (let o = from; o < end; o++) {
    const r = map[o - from] as number;
    if (r >= 0) plan.single[r] = single[o] as number;
  }
}

function copyNumericDocs(plan: NumericPlan, map: Int32Array, from: number, to: number): void {
  const { min, max } = plan.field;
  const end = Math.min(to, min.length);
  for (let o = from; o < end; o++) {
    const r = map[o - from] as number;
    if (r < 0) continue;
    plan.min[r] = min[o] as number;
    plan.max[r] = max[o] as number;
  }
}
