/**
 * The served form of a runtime configuration: per resource kind, entries sorted by name with the
 * fields that filters and sorts read, JSON bodies encoded on first use and kept, and sorted orders
 * cached per `sortBy`. Built once per applied snapshot and never mutated afterwards (except those
 * caches), so a page request costs O(page) and concurrent readers need no locks.
 */
import { compareByName, findByName, lowerBoundByName } from '../../collections/sorted-array.js';
import { goJson } from '../go-json.js';
import { entryPointRecord } from '../runtime/entry-points.js';
import * as rep from './representations.js';
import type { RuntimeChanges } from '../runtime/incremental.js';
import type {
  EntryPointDef, MiddlewareInfo, RouterInfo, RuntimeConfiguration, ServiceInfo, Status, TCPMiddlewareInfo, TCPRouterInfo,
  TCPServiceInfo, UDPRouterInfo, UDPServiceInfo,
} from '../runtime/runtime.js';

export type Protocol = 'http' | 'tcp' | 'udp';
export type ResourceKind = 'routers' | 'services' | 'middlewares';

/** Anything a view entry wraps: a runtime record with its name, provider and status. */
interface RecordInfo {
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

const NO_NAMES: readonly string[] = Object.freeze([]);

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

function compareStrings(a: string, b: string): number {
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
      const withKeys = this.entries.map((e) => ({ e, v: sortValue(e, key) }));
      withKeys.sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : compareStrings(a.e.name, b.e.name)));
      list = withKeys.map((x) => x.e);
      this.sorted.set(key, list);
    }
    return list;
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

export interface EntryPointEntry {
  readonly name: string;
  readonly json: string;
}

/** The values in the order `findByName` and `lowerBoundByName` expect. */
function byName<T extends { name: string }>(values: Iterable<T>): T[] {
  return [...values].sort(compareByName);
}

function fields(f: Partial<SortFields>): SortFields {
  return { priority: f.priority ?? 0n, rule: f.rule ?? '', service: f.service ?? '', entryPoints: f.entryPoints ?? 0, type: f.type ?? '', servers: f.servers ?? 0 };
}

const lower = (s: string | undefined) => (s ?? '').toLowerCase();

const httpRouterCodec: RecordCodec<RouterInfo> = {
  record: rep.httpRouterRecord,
  raw: rep.httpRouterRaw,
  searchIn: (r) => [lower(r.config.rule), lower(r.name)],
  sortFields: (r) => fields({ priority: r.priority, rule: r.config.rule ?? '', service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 }),
  service: (r) => r.config.service,
  middlewares: (r) => r.config.middlewares ?? NO_NAMES,
};
const httpServiceCodec: RecordCodec<ServiceInfo> = {
  record: rep.httpServiceRecord,
  raw: rep.httpServiceRaw,
  searchIn: (s) => [lower(s.name)],
  sortFields: (s) => fields({ type: rep.httpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 }),
};
const httpMiddlewareCodec: RecordCodec<MiddlewareInfo> = {
  record: rep.httpMiddlewareRecord,
  raw: rep.httpMiddlewareRaw,
  searchIn: (m) => [lower(m.name)],
  sortFields: (m) => fields({ type: rep.httpMiddlewareType(m) ?? '' }),
};
const tcpRouterCodec: RecordCodec<TCPRouterInfo> = {
  record: rep.tcpRouterRecord,
  raw: rep.tcpRouterRaw,
  searchIn: (r) => [lower(r.config.rule), lower(r.name)],
  sortFields: (r) => fields({ priority: r.priority, rule: r.config.rule ?? '', service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 }),
  service: (r) => r.config.service,
  middlewares: (r) => r.config.middlewares ?? NO_NAMES,
};
const tcpServiceCodec: RecordCodec<TCPServiceInfo> = {
  record: rep.tcpServiceRecord,
  raw: rep.tcpServiceRaw,
  searchIn: (s) => [lower(s.name)],
  sortFields: (s) => fields({ type: rep.tcpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 }),
};
const tcpMiddlewareCodec: RecordCodec<TCPMiddlewareInfo> = {
  record: rep.tcpMiddlewareRecord,
  raw: rep.tcpMiddlewareRaw,
  searchIn: (m) => [lower(m.name)],
  sortFields: (m) => fields({ type: rep.tcpMiddlewareType(m) ?? '' }),
};
const udpRouterCodec: RecordCodec<UDPRouterInfo> = {
  record: rep.udpRouterRecord,
  raw: rep.udpRouterRaw,
  searchIn: (r) => [lower(r.name)],
  sortFields: (r) => fields({ service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 }),
  service: (r) => r.config.service,
};
const udpServiceCodec: RecordCodec<UDPServiceInfo> = {
  record: rep.udpServiceRecord,
  raw: rep.udpServiceRaw,
  searchIn: (s) => [lower(s.name)],
  sortFields: (s) => fields({ type: rep.udpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 }),
};

/**
 * The entries sorted by name. Usually nearly the same names as in the previous view (an operator
 * changes a few records at a time): then that order is reused, the few new names sorted and
 * merged in, instead of sorting everything again. An entry whose runtime record is the very
 * object of the previous view's entry is taken over with its encoded JSON.
 */
function sortedEntries<I extends RecordInfo>(infos: ReadonlyMap<string, I>, codec: RecordCodec<I>, previous: KindView | undefined): ViewEntry[] {
  const entry = (info: I, old: ViewEntry | undefined) => (old !== undefined && old.info === info ? old : new ViewEntry(info, codec));
  if (previous === undefined || previous.entries.length === 0) return byName(infos.values()).map((info) => entry(info, undefined));
  const kept: ViewEntry[] = [];
  for (const e of previous.entries) {
    const info = infos.get(e.name);
    if (info !== undefined) kept.push(entry(info, e));
  }
  if (kept.length === infos.size) return kept;
  const added: I[] = [];
  for (const [name, info] of infos) if (previous.get(name) === undefined) added.push(info);
  const fresh = byName(added);
  const out: ViewEntry[] = [];
  let i = 0;
  for (const e of kept) {
    while (i < fresh.length && compareStrings((fresh[i] as I).name, e.name) < 0) out.push(entry(fresh[i++] as I, undefined));
    out.push(e);
  }
  while (i < fresh.length) out.push(entry(fresh[i++] as I, undefined));
  return out;
}

/**
 * One kind's view: the previous one itself when its runtime map is unchanged, patched at the
 * changed names when the runtime says which (see runtime/incremental.ts RuntimeChanges), else
 * made from the map.
 */
function kindView<I extends RecordInfo>(
  kind: ResourceKind, infos: ReadonlyMap<string, I>, codec: RecordCodec<I>, previous: KindView | undefined, changed: ReadonlySet<string> | undefined | false,
): KindView {
  if (previous !== undefined && changed !== false) return changed === undefined ? previous : previous.patched(infos, codec, changed);
  return new KindView(kind, sortedEntries(infos, codec, previous), codec.middlewares !== undefined);
}

/** Everything the API serves, for one applied set of snapshots. */
export class RuntimeView {
  readonly http: { readonly routers: KindView; readonly services: KindView; readonly middlewares: KindView };
  readonly tcp: { readonly routers: KindView; readonly services: KindView; readonly middlewares: KindView };
  readonly udp: { readonly routers: KindView; readonly services: KindView };
  readonly entryPoints: readonly EntryPointEntry[];
  readonly entryPointsByName: ReadonlyMap<string, EntryPointEntry>;
  /** The runtime this view was made from (an identity: see RuntimeChanges). */
  readonly runtime: RuntimeConfiguration;
  private rawdataBody: Buffer | undefined;

  /**
   * @param previous the view this one replaces, whose entries and orders are reused where still valid
   * @param changes what the runtime recomputed since `previous` was made (when it knows)
   */
  constructor(
    rt: RuntimeConfiguration, entryPoints: readonly EntryPointDef[], readonly providers: readonly string[], previous?: RuntimeView, changes?: RuntimeChanges,
  ) {
    this.runtime = rt;
    // Patched from the previous view when the runtime says what changed since it: per map, false
    // when unknown, undefined when unchanged, else the changed names.
    const known = previous !== undefined && changes !== undefined && previous.runtime === changes.base;
    const changed = (key: keyof RuntimeConfiguration) => (known ? changes.names.get(key) : false);
    this.http = {
      routers: kindView('routers', rt.routers, httpRouterCodec, previous?.http.routers, changed('routers')),
      services: kindView('services', rt.services, httpServiceCodec, previous?.http.services, changed('services')),
      middlewares: kindView('middlewares', rt.middlewares, httpMiddlewareCodec, previous?.http.middlewares, changed('middlewares')),
    };
    this.tcp = {
      routers: kindView('routers', rt.tcpRouters, tcpRouterCodec, previous?.tcp.routers, changed('tcpRouters')),
      services: kindView('services', rt.tcpServices, tcpServiceCodec, previous?.tcp.services, changed('tcpServices')),
      middlewares: kindView('middlewares', rt.tcpMiddlewares, tcpMiddlewareCodec, previous?.tcp.middlewares, changed('tcpMiddlewares')),
    };
    this.udp = {
      routers: kindView('routers', rt.udpRouters, udpRouterCodec, previous?.udp.routers, changed('udpRouters')),
      services: kindView('services', rt.udpServices, udpServiceCodec, previous?.udp.services, changed('udpServices')),
    };
    this.entryPoints = byName(entryPoints).map((ep) => ({ name: ep.name, json: goJson(entryPointRecord(ep), false) }));
    this.entryPointsByName = new Map(this.entryPoints.map((e) => [e.name, e]));
  }

  kind(protocol: Protocol, kind: ResourceKind): KindView | undefined {
    if (protocol === 'udp') return kind === 'middlewares' ? undefined : this.udp[kind];
    return this[protocol][kind];
  }

  /** `/api/overview` body (Go field order; `providers` omitted when empty). */
  overview(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      http: { routers: this.http.routers.counts(), services: this.http.services.counts(), middlewares: this.http.middlewares.counts() },
      tcp: { routers: this.tcp.routers.counts(), services: this.tcp.services.counts(), middlewares: this.tcp.middlewares.counts() },
      udp: { routers: this.udp.routers.counts(), services: this.udp.services.counts() },
      features: { tracing: '', metrics: '', accessLog: false },
    };
    if (this.providers.length > 0) out.providers = this.providers;
    return out;
  }

  /** `/api/rawdata` body with the Encoder's newline: maps keyed by qualified name (Go sorts map keys), empty maps omitted. */
  rawdata(): Buffer {
    if (this.rawdataBody === undefined) {
      const sections: [string, KindView][] = [
        ['routers', this.http.routers], ['middlewares', this.http.middlewares], ['services', this.http.services],
        ['tcpRouters', this.tcp.routers], ['tcpMiddlewares', this.tcp.middlewares], ['tcpServices', this.tcp.services],
        ['udpRouters', this.udp.routers], ['udpServices', this.udp.services],
      ];
      const parts: string[] = [];
      for (const [key, view] of sections) {
        if (view.entries.length === 0) continue;
        parts.push(`"${key}":{${view.entries.map((e) => `${goJson(e.name, false)}:${e.raw}`).join(',')}}`);
      }
      this.rawdataBody = Buffer.from(`{${parts.join(',')}}\n`, 'utf8');
    }
    return this.rawdataBody;
  }
}
