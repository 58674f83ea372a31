/**
 * The served form of a runtime configuration: per resource kind, entries sorted by name with the
 * fields that filters and sorts read, JSON bodies encoded on first use and kept, and sorted orders
 * cached per `sortBy`. Built once per applied snapshot and never mutated afterwards (except those
 * caches), so a page request costs O(page) and concurrent readers need no locks.
 */
import { goJson } from './go-json.js';
import { entryPointRecord } from './entry-points.js';
import * as rep from './representations.js';
import type { EntryPointDef, RuntimeConfiguration, Status } from './runtime.js';

export type Protocol = 'http' | 'tcp' | 'udp';
export type ResourceKind = 'routers' | 'services' | 'middlewares';

/** One record with the fields Traefik's filters and sorts look at. */
export class ViewEntry {
  private jsonText: string | undefined;
  private rawText: string | undefined;

  constructor(
    readonly name: string,
    readonly provider: string,
    readonly status: Status,
    /** Lower-cased texts `search` matches (rule and name for HTTP/TCP routers, else the name). */
    readonly searchIn: readonly string[],
    readonly sortFields: SortFields,
    /** Router only: its `service` and (qualified, once built) `middlewares`. */
    readonly service: string | undefined,
    readonly middlewares: readonly string[],
    private readonly record: () => Record<string, unknown>,
    private readonly rawRecord: () => Record<string, unknown>,
  ) {}

  /** The list/detail representation as Go would encode it (no trailing newline). */
  get json(): string {
    this.jsonText ??= goJson(this.record());
    return this.jsonText;
  }

  /** The `/api/rawdata` representation. */
  get raw(): string {
    this.rawText ??= goJson(this.rawRecord());
    return this.rawText;
  }

  /** The record as a plain object, for the dashboard and tests. */
  toRecord(): Record<string, unknown> {
    return this.record();
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

/** All records of one kind, sorted by name. */
export class KindView {
  readonly byName: ReadonlyMap<string, ViewEntry>;
  private readonly sorted = new Map<string, readonly ViewEntry[]>();

  constructor(readonly kind: ResourceKind, readonly entries: readonly ViewEntry[]) {
    this.byName = new Map(entries.map((e) => [e.name, e]));
    this.sorted.set('name', entries);
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

function byName<T extends { name: string }>(values: Iterable<T>): T[] {
  return [...values].sort((a, b) => compareStrings(a.name, b.name));
}

const EMPTY_FIELDS: SortFields = { priority: 0n, rule: '', service: '', entryPoints: 0, type: '', servers: 0 };

/** Everything the API serves, for one applied set of snapshots. */
export class RuntimeView {
  readonly http: { readonly routers: KindView; readonly services: KindView; readonly middlewares: KindView };
  readonly tcp: { readonly routers: KindView; readonly services: KindView; readonly middlewares: KindView };
  readonly udp: { readonly routers: KindView; readonly services: KindView };
  readonly entryPoints: readonly EntryPointEntry[];
  readonly entryPointsByName: ReadonlyMap<string, EntryPointEntry>;
  private rawdataText: string | undefined;

  constructor(rt: RuntimeConfiguration, entryPoints: readonly EntryPointDef[], readonly providers: readonly string[]) {
    const lower = (s: string | undefined) => (s ?? '').toLowerCase();
    this.http = {
      routers: new KindView('routers', byName(rt.routers.values()).map((r) => new ViewEntry(
        r.name, r.provider, r.status, [lower(r.config.rule), lower(r.name)],
        { ...EMPTY_FIELDS, priority: r.priority, rule: r.config.rule ?? '', service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 },
        r.config.service, r.config.middlewares ?? [], () => rep.httpRouterRecord(r), () => rep.httpRouterRaw(r),
      ))),
      services: new KindView('services', byName(rt.services.values()).map((s) => new ViewEntry(
        s.name, s.provider, s.status, [lower(s.name)],
        { ...EMPTY_FIELDS, type: rep.httpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 },
        undefined, [], () => rep.httpServiceRecord(s), () => rep.httpServiceRaw(s),
      ))),
      middlewares: new KindView('middlewares', byName(rt.middlewares.values()).map((m) => new ViewEntry(
        m.name, m.provider, m.status, [lower(m.name)], { ...EMPTY_FIELDS, type: rep.httpMiddlewareType(m) ?? '' },
        undefined, [], () => rep.httpMiddlewareRecord(m), () => rep.httpMiddlewareRaw(m),
      ))),
    };
    this.tcp = {
      routers: new KindView('routers', byName(rt.tcpRouters.values()).map((r) => new ViewEntry(
        r.name, r.provider, r.status, [lower(r.config.rule), lower(r.name)],
        { ...EMPTY_FIELDS, priority: r.priority, rule: r.config.rule ?? '', service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 },
        r.config.service, r.config.middlewares ?? [], () => rep.tcpRouterRecord(r), () => rep.tcpRouterRaw(r),
      ))),
      services: new KindView('services', byName(rt.tcpServices.values()).map((s) => new ViewEntry(
        s.name, s.provider, s.status, [lower(s.name)],
        { ...EMPTY_FIELDS, type: rep.tcpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 },
        undefined, [], () => rep.tcpServiceRecord(s), () => rep.tcpServiceRaw(s),
      ))),
      middlewares: new KindView('middlewares', byName(rt.tcpMiddlewares.values()).map((m) => new ViewEntry(
        m.name, m.provider, m.status, [lower(m.name)], { ...EMPTY_FIELDS, type: rep.tcpMiddlewareType(m) ?? '' },
        undefined, [], () => rep.tcpMiddlewareRecord(m), () => rep.tcpMiddlewareRaw(m),
      ))),
    };
    this.udp = {
      routers: new KindView('routers', byName(rt.udpRouters.values()).map((r) => new ViewEntry(
        r.name, r.provider, r.status, [lower(r.name)],
        { ...EMPTY_FIELDS, service: r.config.service ?? '', entryPoints: r.config.entryPoints?.length ?? 0 },
        r.config.service, [], () => rep.udpRouterRecord(r), () => rep.udpRouterRaw(r),
      ))),
      services: new KindView('services', byName(rt.udpServices.values()).map((s) => new ViewEntry(
        s.name, s.provider, s.status, [lower(s.name)],
        { ...EMPTY_FIELDS, type: rep.udpServiceType(s) ?? '', servers: s.config.loadBalancer?.servers?.length ?? 0 },
        undefined, [], () => rep.udpServiceRecord(s), () => rep.udpServiceRaw(s),
      ))),
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

  /** `/api/rawdata` body: maps keyed by qualified name (Go sorts map keys), empty maps omitted. */
  rawdata(): string {
    if (this.rawdataText === undefined) {
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
      this.rawdataText = `{${parts.join(',')}}`;
    }
    return this.rawdataText;
  }
}
