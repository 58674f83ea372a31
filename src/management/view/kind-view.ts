/**
 * One kind of record as served (HTTP routers, TCP services, …): entries sorted by name with the
 * fields Traefik's filters and sorts read, JSON encoded on first use, and sorted orders cached per
 * `sortBy` (runtime-view.ts builds one per kind).
 */
import { findByName, lowerBoundByName } from '../../collections/sorted-array.js';
import { goJson } from '../go-json.js';
import type { Status } from '../runtime/runtime.js';
import { FilterIndex } from './filter-index.js';

export type Protocol = 'http' | 'tcp' | 'udp';
export type ResourceKind = 'routers' | 'services' | 'middlewares';

/** Anything a view entry wraps: a runtime record with its name, provider and status. */
export interface RecordInfo {
  readonly name: string;
  readonly provider: string;
  readonly status: Status;
  readonly config: object;
}

/**
 * How one kind of record is shown, sorted and searched. One shared codec per kind, so building a
 * view allocates one small object per record and no closures.
 */
export interface RecordCodec<I extends RecordInfo> {
  record(info: I): Record<string, unknown>;
  raw(info: I): Record<string, unknown>;
  /** Lower-cased texts `search` matches (rule and name for HTTP/TCP routers, else the name). */
  searchIn(info: I): string[];
  sortFields(info: I): SortFields;
  /** Routers only: the service and (qualified, once built) middlewares the filters read. */
  service?(info: I): string | undefined;
  middlewares?(info: I): readonly string[];
}

export const NO_NAMES: readonly string[] = Object.freeze([]);

/** One record with the fields Traefik's filters and sorts look at, its JSON encoded on first use. */
export class ViewEntry {
  private jsonText: string | undefined;
  private rawText: string | undefined;
  private search: string[] | undefined;
  private fields: SortFields | undefined;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one codec type per kind; the pair is checked where built
  constructor(readonly info: RecordInfo, private readonly codec: RecordCodec<any>) {}

  get name(): string {
    return this.info.name;
  }

  get provider(): string {
    return this.info.provider;
  }

  get status(): Status {
    return this.info.status;
  }

  get service(): string | undefined {
    return this.codec.service?.(this.info);
  }

  get middlewares(): readonly string[] {
    return this.codec.middlewares?.(this.info) ?? NO_NAMES;
  }

  get searchIn(): readonly string[] {
    this.search ??= this.codec.searchIn(this.info);
    return this.search;
  }

  get sortFields(): SortFields {
    this.fields ??= this.codec.sortFields(this.info);
    return this.fields;
  }

  /** The list/detail representation as Go would encode it (no trailing newline). */
  get json(): string {
    this.jsonText ??= goJson(this.codec.record(this.info));
    return this.jsonText;
  }

  /** The `/api/rawdata` representation. */
  get raw(): string {
    this.rawText ??= goJson(this.codec.raw(this.info));
    return this.rawText;
  }

  /** The record as a plain object, for the dashboard and tests. */
  toRecord(): Record<string, unknown> {
    return this.codec.record(this.info);
  }
}

export interface SortFields {
  readonly priority: bigint;
  readonly rule: string;
  readonly service: string;
  readonly entryPoints: number;
  readonly type: string;
  readonly servers: number;
}

/** The `sortBy` values each kind accepts (anything else sorts by name). */
export const SORT_KEYS: Record<ResourceKind, readonly string[]> = {
  routers: ['name', 'provider', 'priority', 'status', 'rule', 'service', 'entryPoints'],
  services: ['name', 'type', 'servers', 'provider', 'status'],
  middlewares: ['name', 'type', 'provider', 'status'],
};

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortValue(e: ViewEntry, key: string): string | number | bigint {
  switch (key) {
    case 'provider': return e.provider;
    case 'priority': return e.sortFields.priority;
    case 'status': return e.status;
    case 'rule': return e.sortFields.rule;
    case 'service': return e.sortFields.service;
    case 'entryPoints': return e.sortFields.entryPoints;
    case 'type': return e.sortFields.type;
    case 'servers': return e.sortFields.servers;
    default: return e.name;
  }
}

/** Ascending `sortBy` order, ties broken by name ascending. */
function compareBy(key: string): (a: ViewEntry, b: ViewEntry) => number {
  return (a, b) => {
    const va = sortValue(a, key);
    const vb = sortValue(b, key);
    return va < vb ? -1 : va > vb ? 1 : compareStrings(a.name, b.name);
  };
}

/** Index of the first entry of `list` not before `e` in `compare` order. */
function lowerBound(list: readonly ViewEntry[], e: ViewEntry, compare: (a: ViewEntry, b: ViewEntry) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(list[mid] as ViewEntry, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Changed names from which a patched view sorts its other orders again instead of patching them. */
const PATCH_SORTED_MAX = 64;

/** All records of one kind, sorted by name. */
export class KindView {
  private readonly sorted: Map<string, readonly ViewEntry[]>;
  /** Per sorted order other than by name: the name-order index of each of its entries. */
  private readonly positions = new Map<string, Int32Array>();
  private filters: FilterIndex | undefined;

  /**
   * @param filtersMiddlewares whether `middlewareName` applies (HTTP and TCP routers; UDP routers
   *   have no middlewares and Traefik ignores the parameter for them)
   * @param sorted orders by other `sortBy` keys, already made (patched from the previous view)
   */
  constructor(
    readonly kind: ResourceKind, readonly entries: readonly ViewEntry[], readonly filtersMiddlewares = kind === 'routers', sorted?: Map<string, readonly ViewEntry[]>,
  ) {
    this.sorted = sorted ?? new Map();
    this.sorted.set('name', entries);
  }

  /** The entry of a qualified name (a binary search: the entries are sorted by name). */
  get(name: string): ViewEntry | undefined {
    return findByName(this.entries, name);
  }

  /**
   * Entries in ascending `sortBy` order, ties broken by name ascending; a descending request walks
   * it backwards, which is exactly Traefik's descending order with ties by name descending.
   */
  ascending(sortBy: string): readonly ViewEntry[] {
    const key = SORT_KEYS[this.kind].includes(sortBy) ? sortBy : 'name';
    let list = this.sorted.get(key);
    if (list === undefined) {
      const withKeys = this.entries.map((e, i) => ({ e, v: sortValue(e, key), i }));
      withKeys.sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : compareStrings(a.e.name, b.e.name)));
      list = withKeys.map((x) => x.e);
      this.sorted.set(key, list);
      this.positions.set(key, Int32Array.from(withKeys, (x) => x.i));
    }
    return list;
  }

  /**
   * The name-order index of each entry of `ascending(sortBy)`, in that order; null for the order
   * by name itself (the identity). Made once per order, for filters that mark entries by index.
   */
  positionsOf(sortBy: string): Int32Array | null {
    const key = SORT_KEYS[this.kind].includes(sortBy) ? sortBy : 'name';
    if (key === 'name') return null;
    const list = this.ascending(key);
    let positions = this.positions.get(key);
    if (positions === undefined) {
      // A patched order (see patched) was not sorted here, so its positions are looked up.
      const index = new Map<ViewEntry, number>();
      this.entries.forEach((e, i) => index.set(e, i));
      positions = Int32Array.from(list, (e) => index.get(e) ?? -1);
      this.positions.set(key, positions);
    }
    return positions;
  }

  /**
   * The entries of `ascending(sortBy)` whose status equals `status` under Go's strings.EqualFold
   * (any when empty), one of whose search texts contains `needle` (lower-cased; any when empty),
   * and that `keep` keeps, in that order. Status and search are answered by the filter index as
   * indices in name order, rather than by reading every entry on every request (at 50,000
   * records that reading is most of a request's cost); `keep` reads only the entries they leave.
   */
  filtered(sortBy: string, status: string, needle: string, keep?: (e: ViewEntry) => boolean): ViewEntry[] {
    const list = this.ascending(sortBy);
    if (status === '' && needle === '') return keep === undefined ? list.slice() : list.filter(keep);
    const ids = this.filterIndex().select(status, needle);
    const positions = this.positionsOf(sortBy);
    const out: ViewEntry[] = [];
    if (positions === null) {
      // The order by name: the indices are the order.
      for (const id of ids) {
        const e = this.entries[id] as ViewEntry;
        if (keep === undefined || keep(e)) out.push(e);
      }
      return out;
    }
    const selected = new Uint8Array(this.entries.length);
    for (const id of ids) selected[id] = 1;
    for (let i = 0; i < list.length; i++) {
      if (selected[positions[i] as number] !== 1) continue;
      const e = list[i] as ViewEntry;
      if (keep === undefined || keep(e)) out.push(e);
    }
    return out;
  }

  /** The `status` and `search` index of these entries, made on the first filtered request. */
  filterIndex(): FilterIndex {
    this.filters ??= new FilterIndex(this.entries);
    return this.filters;
  }

  /**
   * The view of `infos`, a map that differs from the one this view was made of only at `names`
   * (qualified names recomputed, added or removed): the entries of other names are taken over in
   * their order, those of `names` merged in; the other sorted orders already made are patched
   * the same way when few names changed.
   */
  patched<I extends RecordInfo>(infos: ReadonlyMap<string, I>, codec: RecordCodec<I>, names: ReadonlySet<string>): KindView {
    const changed = [...names].sort(compareStrings);
    const gone: ViewEntry[] = [];
    const fresh: ViewEntry[] = [];
    const list = this.entries;
    const entries: ViewEntry[] = [];
    let from = 0;
    for (const name of changed) {
      // The unchanged entries before `name` are copied over without comparing their names.
      const lo = lowerBoundByName(list, name, from);
      for (let i = from; i < lo; i++) entries.push(list[i] as ViewEntry);
      from = lo;
      const old = list[lo]?.name === name ? list[lo] : undefined;
      if (old !== undefined) from = lo + 1;
      const info = infos.get(name);
      if (old !== undefined && info === old.info) {
        entries.push(old);
        continue;
      }
      if (old !== undefined) gone.push(old);
      if (info !== undefined) {
        const e = new ViewEntry(info, codec);
        fresh.push(e);
        entries.push(e);
      }
    }
    for (let i = from; i < list.length; i++) entries.push(list[i] as ViewEntry);
    let sorted: Map<string, readonly ViewEntry[]> | undefined;
    if (gone.length + fresh.length <= PATCH_SORTED_MAX) {
      sorted = new Map();
      for (const [key, list] of this.sorted) {
        if (key === 'name') continue;
        const compare = compareBy(key);
        const out = list.slice();
        for (const e of gone) {
          const at = lowerBound(out, e, compare);
          const found = out[at] === e ? at : out.indexOf(e);
          if (found !== -1) out.splice(found, 1);
        }
        for (const e of fresh) out.splice(lowerBound(out, e, compare), 0, e);
        sorted.set(key, out);
      }
    }
    return new KindView(this.kind, entries, this.filtersMiddlewares, sorted);
  }

  counts(): { total: number; warnings: number; errors: number } {
    let warnings = 0;
    let errors = 0;
    for (const e of this.entries) {
      if (e.status === 'warning') warnings++;
      else if (e.status === 'disabled') errors++;
    }
    return { total: this.entries.length, warnings, errors };
  }
}
