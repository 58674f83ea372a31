import type { InvertedIndex } from '../index/inverted-index.js';
import type { Mappings } from '../mapping/mapping.js';
import { ScratchArena } from '../query/scratch-arena.js';
import type { IndexState } from './index-state.js';

/**
 * One index as a point in time sees it: the live index until the first write after the point in
 * time, then a frozen view of it (open-contexts.ts explains what is pinned and why).
 */

/**
 * What a frozen view answers for an id (the `ids` query, a hit's `_source`): the ordinal the id had
 * at the point in time. Only `get` is meaningful (the rest of Map is empty). An ordinal below the
 * view's that the live index still maps an id to was live then; one the live index retired since
 * is remembered when it is retired (PitView.retire).
 */
class PinnedIds extends Map<string, number> {
  /** Id → its ordinal at the point in time, for ids whose ordinal was retired since. */
  readonly retired = new Map<string, number>();
  constructor(
    private readonly current: Map<string, number>,
    private readonly maxOrd: number,
  ) {
    super();
  }

  override get(id: string): number | undefined {
    const old = this.retired.get(id);
    if (old !== undefined) return old;
    const ord = this.current.get(id);
    return ord !== undefined && ord < this.maxOrd ? ord : undefined;
  }
}

/** One index as a point in time sees it. */
export class PitView {
  /** The index at the point in time: the live one until the first write after, then a frozen view of it. */
  index: InvertedIndex;
  frozen = false;
  refs = 0;
  /** Ordinals the index had when the view was taken. */
  readonly maxOrd: number;
  private ids: PinnedIds | undefined;
  /**
   * The frozen view's own scratch memory: the live index's arena keeps a memo map per posting
   * store it has seen (scratch-arena.ts), and a view's stores would add maps to it for good.
   */
  private arena: ScratchArena | undefined;
  constructor(
    readonly origin: IndexState,
    readonly mappings: Mappings,
  ) {
    this.index = origin.index;
    this.maxOrd = origin.index.maxOrd;
  }

  /** Before the first write after the view was taken: from now on it searches a frozen view (InvertedIndex.frozenView). */
  freeze(): void {
    if (this.frozen) return;
    this.ids = new PinnedIds(this.origin.index.idToOrd, this.maxOrd);
    this.index = this.origin.index.frozenView(this.ids);
    this.arena = new ScratchArena();
    this.frozen = true;
  }

  /** The view is no longer used by any point in time: the live index may forget what it kept for it. */
  release(): void {
    if (this.frozen) this.origin.index.releaseView(this.index);
  }

  /** Before ordinal `ord` of the live index is retired (after freeze): the view keeps answering it for its id. */
  retire(ord: number): void {
    if (this.ids !== undefined && ord < this.maxOrd) this.ids.retired.set(this.origin.index.ids[ord] as string, ord);
  }

  /** The index state to search: the origin with the pinned index and mappings. */
  state(): PinnedState {
    return { ...this.origin, index: this.index, mappings: this.mappings, arena: this.arena ?? this.origin.arena, origin: this.origin };
  }
}

/** An index state as a context sees it; `origin` is the live state it was taken from. */
export interface PinnedState extends IndexState {
  readonly origin: IndexState;
}
