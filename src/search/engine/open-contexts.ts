import { randomBytes, timingSafeEqual } from 'node:crypto';
import { errors, SearchError } from '../errors.js';
import type { SearchRequest } from '../requests/search-request.js';
import type { IndexState } from './index-state.js';
import { PitView } from './pit-view.js';
import type { ScrollHits } from './scroll-hits.js';
import { formatTimeValue } from '../syntax/time-value.js';

/**
 * The open search contexts (scrolls and points in time) and what keeps them a point-in-time view
 * while the indices change under them. In memory only: a restart frees them all, as in ES.
 *
 * How the index changes, and what is pinned for it: a write never edits a document in place; an
 * update gives the document a new ordinal and retires the old one (its `live` flag cleared), a
 * delete retires it, and ordinals are never reused while a context holds the index (the reclaimer,
 * index-reclaimer.ts, compacts no index a context pins: isPinned, onUnpinned). Ordinals, ids, versions and sequence numbers
 * of retired documents stay where they are. What does change is:
 * - the stored `_source` of an id (updated or deleted in the store): the source of every retired
 *   ordinal an open context may still show is kept here (`retiredSource`), copied at the write;
 * - the live set, the statistics BM25 reads (per field docCount and sums, per term docFreq) and
 *   each term's posting count and score bound (new postings are appended to existing terms), and
 *   the id → ordinal map: a scroll does not care (its hits, scores and sort values are computed
 *   once, when it begins), a point in time runs new queries and does. Before the first write after
 *   a point in time opens, it takes a frozen view of the index (InvertedIndex.frozenView: those
 *   copied, everything else shared, since writes only append past the view's ordinals and terms;
 *   removes leave doc values in place) and searches that view from then on; until then it shares
 *   the live index. Ids retired since are remembered as they are retired (PitView.retire). Points
 *   in time opened between the same two writes share one view.
 *
 * Memory: a scroll keeps 16 bytes per hit (ordinal, score, index position) plus its sort values
 * when it sorts on fields (8 bytes a hit per numeric key, see ScrollHits); a point in time keeps
 * nothing until its index is written, then its view: a byte per document, taken at once (0.3-0.5
 * ms at 63,666 Debian documents, bench/search-frozen-view-probe.ts), plus up to 64 bytes per term
 * of each text and keyword field written while it is open (the term's record as of the view,
 * logged by the first such write, PostingStore.frozenCopy; views taken later share those logs),
 * at most about 32 bytes per term of the fields (a view whose logs grow past half its terms takes
 * its own copy of the records at the next view taken, PostingStore.bound); both keep the `_source` of documents updated or deleted while they are open. README.md
 * (search, "Scroll and point in time") has measured figures.
 */

/** ES's default `search.max_open_scroll_context`. */
export const MAX_OPEN_SCROLL_CONTEXT = 500;
/** ES's default `search.max_keep_alive`: 24 hours, in milliseconds. */
export const MAX_KEEP_ALIVE_MS = 86_400_000;
/**
 * Views (see above) that points in time may hold per index at most. Each costs a byte per document
 * and up to 64 bytes per term written since it was taken, at most about 32 bytes per term (a few
 * percent of the index at most; it was a whole copy of the index, capped at 4): 32 of them stay at
 * most about as large as the index itself, plus the scratch memory each searched view keeps for
 * its queries (it grows with them). Opening a point in time that would need one more is refused.
 */
export const MAX_PIT_VIEWS_PER_INDEX = 32;

interface ContextBase {
  readonly num: number;
  readonly secret: Buffer;
  readonly id: string;
  keepAliveMs: number;
  lastAccessMs: number;
}

export interface ScrollContext extends ContextBase {
  readonly kind: 'scroll';
  readonly states: readonly IndexState[];
  /** The request that began the scroll (size, `_source`, version, …), total hits tracked exactly. */
  readonly request: SearchRequest;
  readonly hits: ScrollHits;
  readonly total: number;
  /** Position of the next batch's first hit. */
  next: number;
  /** With `terminate_after`: whether a shard stopped early, which ES repeats on every batch (each round collects again). */
  terminatedEarly?: boolean;
}

export interface PitContext extends ContextBase {
  readonly kind: 'pit';
  readonly views: readonly PitView[];
}

type Context = ScrollContext | PitContext;

/** What the contexts pin of one live index. */
interface IndexPins {
  /** Contexts holding this index. */
  refs: number;
  /** Ordinals at or above this were written after every context holding the index began. */
  bound: number;
  readonly retired: Map<number, string>;
  readonly views: PitView[];
}

const KIND_SCROLL = 1;
const KIND_PIT = 2;
const SECRET_BYTES = 16;
const ID_BYTES = 1 + 8 + SECRET_BYTES;

export class SearchContexts {
  private readonly byNum = new Map<number, Context>();
  private readonly pins = new Map<IndexState, IndexPins>();
  private scrolls = 0;
  private nextNum = 1;
  /**
   * Per index with writes no refresh has shown yet: the view searches see, the index as of its last
   * refresh (Elasticsearch's near-real-time model, refresh-schedule.ts). Taken before the first
   * write after a refresh (so it is the refreshed index), dropped by the next refresh; it pins its
   * index as a point in time does (retired sources kept, no compaction) until then.
   */
  private readonly searchers = new Map<IndexState, PitView>();

  /**
   * @param maxScrolls open scroll contexts at most (default MAX_OPEN_SCROLL_CONTEXT)
   * @param maxKeepAliveMs longest keep-alive a request may ask for, ms (default MAX_KEEP_ALIVE_MS)
   */
  constructor(
    readonly maxScrolls = MAX_OPEN_SCROLL_CONTEXT,
    readonly maxKeepAliveMs = MAX_KEEP_ALIVE_MS,
  ) {}

  get size(): number {
    return this.byNum.size;
  }

  /** Called when an index goes (deleted, closed, reloaded): what is kept for its refreshes may go. */
  onDropped: ((state: IndexState) => void) | undefined;

  /** Called when an index gets its first write since its last refresh (a searcher view was taken). */
  onDirty: ((state: IndexState) => void) | undefined;

  /** The view searches of `state` see when it has writes no refresh has shown yet, else undefined (the live index is what they see). */
  searcher(state: IndexState): PitView | undefined {
    return this.searchers.get(state);
  }

  /** A refresh of `state`: its writes become visible (the searcher view, if any, is dropped); whether there was anything to show. */
  refreshed(state: IndexState): boolean {
    const view = this.searchers.get(state);
    if (view === undefined) return false;
    this.searchers.delete(state);
    this.dropView(view);
    return true;
  }

  /** Called when the last context holding an index is freed (its retired documents may be reclaimed now). */
  onUnpinned: ((state: IndexState) => void) | undefined;

  /**
   * Whether a scroll or point in time holds `state` (its ordinals must stay as they are). The
   * searcher of unrefreshed writes alone does not: a compaction may run under it, and its copy
   * waits for the next refresh to swap in (IndexReclaimer.refreshed).
   */
  isPinned(state: IndexState): boolean {
    const p = this.pins.get(state);
    return p !== undefined && (p.refs > 1 || !this.searchers.has(state));
  }

  /** ES's check of a requested keep-alive (a shard-level failure of `index`). */
  checkKeepAlive(keepAliveMs: number, index: string): void {
    if (keepAliveMs <= this.maxKeepAliveMs) return;
    throw errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason:
        `Keep alive for request (${formatTimeValue(keepAliveMs)}) is too large. It must be less than (${formatTimeValue(this.maxKeepAliveMs)}). ` +
        'This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
    });
  }

  /** Throws ES's 429 when no scroll context can be opened any more. */
  checkScrollRoom(nowMs: number, index: string): void {
    this.sweep(nowMs);
    if (this.scrolls < this.maxScrolls) return;
    const reason = `Trying to create too many scroll contexts. Must be less than or equal to: [${this.maxScrolls}]. This limit can be set by changing the [search.max_open_scroll_context] setting.`;
    const inner = { type: 'too_many_scroll_contexts_exception', reason };
    const e = errors.shardFailure(index, inner);
    throw new SearchError(429, e.cause_, e.rootCauses);
  }

  openScroll(states: readonly IndexState[], request: SearchRequest, hits: ScrollHits, total: number, keepAliveMs: number, nowMs: number): ScrollContext {
    const base = this.newBase(KIND_SCROLL, keepAliveMs, nowMs);
    const ctx: ScrollContext = { ...base, kind: 'scroll', states, request, hits, total, next: 0 };
    for (const s of states) this.pin(s);
    this.byNum.set(ctx.num, ctx);
    this.scrolls++;
    return ctx;
  }

  /** Opens a point in time over `states`; refused when an index holds MAX_PIT_VIEWS_PER_INDEX views. */
  openPit(states: readonly IndexState[], keepAliveMs: number, nowMs: number): PitContext {
    this.sweep(nowMs);
    for (const s of states) {
      const p = this.pins.get(s);
      // Each new view is frozen at the next write (and costs memory from then on).
      if (p !== undefined && p.views.length >= MAX_PIT_VIEWS_PER_INDEX && sharedView(p, s) === undefined && !this.searchers.has(s)) {
        throw errors.illegalArgument(
          `Trying to open a point in time over [${s.name}] which already has [${MAX_PIT_VIEWS_PER_INDEX}] points in time taken at different times ` +
            '(each keeps a view of the index): close one, or let one expire, first',
        );
      }
    }
    const views = states.map((s) => {
      const p = this.pin(s);
      // A point in time sees the index as of its last refresh, as a search does.
      let view = this.searchers.get(s) ?? sharedView(p, s);
      if (view === undefined) {
        view = new PitView(s, s.mappings);
        p.views.push(view);
      }
      view.refs++;
      return view;
    });
    const ctx: PitContext = { ...this.newBase(KIND_PIT, keepAliveMs, nowMs), kind: 'pit', views };
    this.byNum.set(ctx.num, ctx);
    return ctx;
  }

  /** The scroll `id` names: ES's 400 when it is no scroll id, 404 when it is gone. */
  scroll(id: string, nowMs: number): ScrollContext {
    const parsed = decodeId(id, KIND_SCROLL);
    if (parsed === undefined) throw errors.illegalArgument('Cannot parse scroll id');
    const ctx = this.live(parsed, nowMs);
    if (ctx?.kind !== 'scroll') throw contextMissing(parsed.num);
    return ctx;
  }

  pit(id: string, nowMs: number): PitContext {
    const parsed = decodeId(id, KIND_PIT);
    if (parsed === undefined) throw errors.illegalArgument(`invalid id: [${id}]`);
    const ctx = this.live(parsed, nowMs);
    if (ctx?.kind !== 'pit') throw contextMissing(parsed.num);
    return ctx;
  }

  /** Frees the scrolls named (malformed ids: ES's 400, before any is freed); how many were open. */
  clearScrolls(ids: readonly string[], nowMs: number): number {
    const parsed = ids.map((id) => decodeId(id, KIND_SCROLL) ?? id);
    const bad = parsed.find((p) => typeof p === 'string');
    if (bad !== undefined) throw errors.illegalArgument('Cannot parse scroll id');
    let freed = 0;
    for (const p of parsed) {
      const ctx = this.live(p as DecodedId, nowMs);
      if (ctx?.kind === 'scroll') {
        this.free(ctx);
        freed++;
      }
    }
    return freed;
  }

  clearAllScrolls(): number {
    let freed = 0;
    for (const ctx of [...this.byNum.values()]) {
      if (ctx.kind === 'scroll') {
        this.free(ctx);
        freed++;
      }
    }
    return freed;
  }

  /** Frees a point in time: how many index contexts it held, undefined when it was gone. */
  closePit(id: string, nowMs: number): number | undefined {
    const parsed = decodeId(id, KIND_PIT);
    if (parsed === undefined) throw errors.illegalArgument(`invalid id: [${id}]`);
    const ctx = this.live(parsed, nowMs);
    if (ctx?.kind !== 'pit') return undefined;
    this.free(ctx);
    return ctx.views.length;
  }

  /**
   * Frees every context that holds `state` (its index was deleted, or the indices were reloaded):
   * ES frees a shard's contexts with the shard, and the index they pin is then no longer kept.
   */
  dropIndex(state: IndexState): void {
    this.refreshed(state);
    this.onDropped?.(state);
    if (!this.pins.has(state)) return;
    for (const ctx of [...this.byNum.values()]) {
      if (ctx.kind === 'scroll' ? ctx.states.includes(state) : ctx.views.some((v) => v.origin === state)) this.free(ctx);
    }
  }

  /** Frees every context. */
  clear(): void {
    for (const ctx of [...this.byNum.values()]) this.free(ctx);
    for (const s of [...this.searchers.keys()]) {
      this.refreshed(s);
      this.onDropped?.(s);
    }
  }

  /** Frees every context whose keep-alive ran out at `nowMs` (ES's reaper). */
  sweep(nowMs: number): void {
    for (const ctx of [...this.byNum.values()]) if (expired(ctx, nowMs)) this.free(ctx);
  }

  /** Frees a context (one whose indices went away, or one cleared). */
  free(ctx: Context): void {
    if (!this.byNum.delete(ctx.num)) return;
    if (ctx.kind === 'scroll') {
      this.scrolls--;
      for (const s of ctx.states) this.unpin(s);
      return;
    }
    for (const v of ctx.views) this.dropView(v);
  }

  /** One holder of `v` (a point in time, or the searcher of its index) lets it go. */
  private dropView(v: PitView): void {
    v.refs--;
    const p = this.pins.get(v.origin);
    if (v.refs === 0) {
      if (p !== undefined) p.views.splice(p.views.indexOf(v), 1);
      v.release();
    }
    this.unpin(v.origin);
  }

  /**
   * Called before any change to `state`'s index: a write of a new document (`ord` undefined) or of
   * one that retires ordinal `ord`. Freezes the points in time that still share the live index and
   * keeps the retired document's source for the contexts that may show it.
   */
  beforeWrite(state: IndexState, ord: number | undefined, source: () => string | undefined): void {
    if (!this.searchers.has(state)) {
      // The first write since the last refresh: searches keep seeing the index as it is now (with
      // the points in time opened since the last write, whose view it shares).
      const p = this.pin(state);
      let view = sharedView(p, state);
      if (view === undefined) {
        view = new PitView(state, state.mappings);
        p.views.push(view);
      }
      view.refs++;
      this.searchers.set(state, view);
      this.onDirty?.(state);
    }
    const p = this.pins.get(state);
    if (p === undefined) return;
    for (const v of p.views) {
      v.freeze();
      if (ord !== undefined) v.retire(ord);
    }
    if (ord !== undefined && ord < p.bound && !p.retired.has(ord)) {
      const text = source();
      if (text !== undefined) p.retired.set(ord, text);
    }
  }

  /** The `_source` kept for a retired ordinal of `state`. */
  retiredSource(state: IndexState, ord: number): string | undefined {
    return this.pins.get(state)?.retired.get(ord);
  }

  private pin(state: IndexState): IndexPins {
    let p = this.pins.get(state);
    if (p === undefined) this.pins.set(state, (p = { refs: 0, bound: 0, retired: new Map(), views: [] }));
    p.refs++;
    p.bound = Math.max(p.bound, state.index.maxOrd);
    return p;
  }

  private unpin(state: IndexState): void {
    const p = this.pins.get(state);
    if (p !== undefined && --p.refs === 0) {
      this.pins.delete(state);
      this.onUnpinned?.(state);
    } else if (p?.refs === 1 && this.searchers.has(state)) {
      // Only the view of the last refresh holds it now, which a compaction may run under (isPinned).
      this.onUnpinned?.(state);
    }
  }

  private newBase(kind: number, keepAliveMs: number, nowMs: number): ContextBase {
    const num = this.nextNum++;
    const secret = randomBytes(SECRET_BYTES);
    return { num, secret, id: encodeId(kind, num, secret), keepAliveMs, lastAccessMs: nowMs };
  }

  /** The open context an id names (its secret checked), undefined when gone or expired. */
  private live(parsed: DecodedId, nowMs: number): Context | undefined {
    const ctx = this.byNum.get(parsed.num);
    if (ctx === undefined || !timingSafeEqual(ctx.secret, parsed.secret)) return undefined;
    if (expired(ctx, nowMs)) {
      this.free(ctx);
      return undefined;
    }
    return ctx;
  }
}

/**
 * The view a point in time opened now over `s` shares: the newest one, when no write (and no
 * mapping change) came since it was taken; undefined when a new one is needed.
 */
function sharedView(p: IndexPins, s: IndexState): PitView | undefined {
  const last = p.views.at(-1);
  return last === undefined || last.frozen || last.mappings !== s.mappings ? undefined : last;
}

function expired(ctx: Context, nowMs: number): boolean {
  return nowMs - ctx.lastAccessMs > ctx.keepAliveMs;
}

/** ES's 404 for a scroll or point in time that is gone (expired, cleared or never there). */
export function contextMissing(num: number): SearchError {
  const inner = { type: 'search_context_missing_exception', reason: `No search context found for id [${num}]` };
  return new SearchError(
    404,
    {
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      meta: { phase: 'query', grouped: true, failed_shards: [{ shard: -1, index: null, reason: inner }] },
      causedBy: inner,
    },
    [inner],
  );
}

interface DecodedId {
  readonly num: number;
  readonly secret: Buffer;
}

/** Ids are URL-safe base64 of a kind byte, the context number and a random secret. */
function encodeId(kind: number, num: number, secret: Buffer): string {
  const buf = Buffer.alloc(ID_BYTES);
  buf[0] = kind;
  buf.writeBigUInt64BE(BigInt(num), 1);
  secret.copy(buf, 9);
  return buf.toString('base64url');
}

function decodeId(id: string, kind: number): DecodedId | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const buf = Buffer.from(id, 'base64url');
  if (buf.length !== ID_BYTES || buf[0] !== kind || buf.toString('base64url') !== id) return undefined;
  return { num: Number(buf.readBigUInt64BE(1)), secret: buf.subarray(9) };
}
