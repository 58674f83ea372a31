/**
 * The served form of a runtime configuration: per resource kind, entries sorted by name with the
 * fields that filters and sorts read, JSON bodies encoded on first use and kept, and sorted orders
 * cached per `sortBy`. Built once per applied snapshot and never mutated afterwards (except those
 * caches), so a page request costs O(page) and concurrent readers need no locks.
 */
import { compareByName } from '../../collections/sorted-array.js';
import { goJson } from '../go-json.js';
import { entryPointRecord } from '../runtime/entry-points.js';
import * as rep from './representations.js';
import {
  compareStrings, KindView, NO_NAMES, ViewEntry, type Protocol, type RecordCodec, type RecordInfo, type ResourceKind, type SortFields,
} from './kind-view.js';
import type { RuntimeChanges } from '../runtime/incremental.js';
import type {
  EntryPointDef, MiddlewareInfo, RouterInfo, RuntimeConfiguration, ServiceInfo, TCPMiddlewareInfo, TCPRouterInfo,
  TCPServiceInfo, UDPRouterInfo, UDPServiceInfo,
} from '../runtime/runtime.js';

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

  /** Every kind of record, under its `/api/rawdata` key, in the order rawdata writes them. */
  private sections(): [string, KindView][] {
    return [
      ['routers', this.http.routers], ['middlewares', this.http.middlewares], ['services', this.http.services],
      ['tcpRouters', this.tcp.routers], ['tcpMiddlewares', this.tcp.middlewares], ['tcpServices', this.tcp.services],
      ['udpRouters', this.udp.routers], ['udpServices', this.udp.services],
    ];
  }

  /** How many records the view holds, of every protocol and kind. */
  recordCount(): number {
    let n = 0;
    for (const [, view] of this.sections()) n += view.entries.length;
    return n;
  }

  /** Whether `/api/rawdata`'s body is built already (it is built once per view). */
  get rawdataBuilt(): boolean {
    return this.rawdataBody !== undefined;
  }

  /** `/api/rawdata` body with the Encoder's newline: maps keyed by qualified name (Go sorts map keys), empty maps omitted. */
  rawdata(): Buffer {
    if (this.rawdataBody === undefined) {
      const parts: string[] = [];
      for (const [key, view] of this.sections()) {
        if (view.entries.length === 0) continue;
        parts.push(`"${key}":{${view.entries.map((e) => `${goJson(e.name, false)}:${e.raw}`).join(',')}}`);
      }
      this.rawdataBody = Buffer.from(`{${parts.join(',')}}\n`, 'utf8');
    }
    return this.rawdataBody;
  }
}
