/**
 * The runtime view of the merged provider configurations, computed the way Traefik's runtime
 * does it: qualified names (`name@provider`), default entry points, `using`, `usedBy`, statuses
 * and error texts from the cross-checks Traefik makes while building routers, and v3's computed
 * priorities. Pure: no I/O, no Fastify; the record store calls it on every new snapshot.
 */
import type { ServerState } from '../../dynamic-config/configuration.js';
import type { TCPRouter } from '../../dynamic-config/tcp.js';
import { buildHttp, buildTcp, buildUdp, checkEntryPoints, checkRouterTree, populateUsedBy } from './checks.js';
import {
  copyRecord, MiddlewareInfo, RouterInfo, ServiceInfo, TCPMiddlewareInfo, TCPRouterInfo, TCPServiceInfo, UDPRouterInfo, UDPServiceInfo,
  type EntryPointDef, type ProviderInput, type RuntimeConfiguration, type RuntimeOptions,
} from './records.js';
import { prepareRouter, type PrepareContext, type RouterMemo } from './router-memo.js';
import { tlsConflictCopies, warnConflictCopies } from './tls-conflicts.js';
import { QualifiedNames } from './qualified-names.js';

export * from './records.js';

/**
 * Visits a provider's name -> record map without Object.entries' pair arrays
 * (20,000 of them per snapshot otherwise).
 */
function forEachEntry<V>(map: Record<string, V> | undefined, fn: (name: string, value: V) => void): void {
  if (map == null) return;
  for (const name in map) {
    if (Object.prototype.hasOwnProperty.call(map, name)) fn(name, map[name] as V);
  }
}

function toPriority(value: number | undefined): bigint {
  if (value === undefined || value === 0 || !Number.isFinite(value)) return 0n;
  return BigInt(Math.trunc(value));
}

function givenStatus(input: ProviderInput, name: string): Record<string, ServerState> | undefined {
  const all = input.serverStatus;
  return all === undefined ? undefined : (all[name] ?? all[`${name}@${input.provider}`]);
}

/**
 * Computes the whole runtime view from every provider's configuration. With a `memo` (one per
 * record store), routers equal to those of the previous call reuse their per-record work; the
 * result is the same either way.
 * @param partial `inputs` are only some of the providers (the memo keeps the others' entries)
 */
export function computeRuntime(
  inputs: readonly ProviderInput[], entryPoints: readonly EntryPointDef[], options: RuntimeOptions = {}, memo?: RouterMemo, partial = false,
): RuntimeConfiguration {
  const build = options.buildRouters ?? true;
  const rt: RuntimeConfiguration = {
    routers: new Map(), services: new Map(), middlewares: new Map(),
    tcpRouters: new Map(), tcpServices: new Map(), tcpMiddlewares: new Map(),
    udpRouters: new Map(), udpServices: new Map(),
  };
  const tcpEntryPoints = new Set(entryPoints.filter((e) => e.protocol === 'tcp').map((e) => e.name));
  const udpEntryPoints = new Set(entryPoints.filter((e) => e.protocol === 'udp').map((e) => e.name));
  const defaults = entryPoints.filter((e) => e.isDefault && e.protocol === 'tcp').map((e) => e.name).sort();
  const names = memo?.names ?? new QualifiedNames();
  const ctx: PrepareContext = { defaults, build, names };
  memo?.begin(ctx, partial);

  for (const input of inputs) {
    const { provider, configuration: c } = input;
    forEachEntry(c.http?.services, (name, svc) => {
      const q = names.of(name, provider);
      rt.services.set(q, new ServiceInfo(q, provider, svc, givenStatus(input, name)));
    });
    forEachEntry(c.http?.middlewares, (name, mw) => {
      const q = names.of(name, provider);
      rt.middlewares.set(q, new MiddlewareInfo(q, provider, mw));
    });
    forEachEntry(c.http?.routers, (name, r) => {
      const prepared = memo === undefined ? prepareRouter(r, provider, ctx) : memo.prepare(r, name, provider, ctx);
      const priority = input.priorities?.[name] ?? toPriority(r.priority);
      const q = names.of(name, provider);
      const copies = tlsConflictCopies(q, prepared);
      if (copies === undefined) {
        rt.routers.set(q, new RouterInfo(q, provider, prepared.config, priority, prepared));
        return;
      }
      for (const c of copies) {
        const info = new RouterInfo(c.name, provider, c.prepared.config, priority, c.prepared);
        info.splitFrom = q;
        rt.routers.set(c.name, info);
      }
    });
    forEachEntry(c.tcp?.services, (name, svc) => {
      const q = names.of(name, provider);
      rt.tcpServices.set(q, new TCPServiceInfo(q, provider, svc, givenStatus(input, name)));
    });
    forEachEntry(c.tcp?.middlewares, (name, mw) => {
      const q = names.of(name, provider);
      rt.tcpMiddlewares.set(q, new TCPMiddlewareInfo(q, provider, mw));
    });
    forEachEntry(c.tcp?.routers, (name, r) => {
      let config: TCPRouter = r;
      if ((r.entryPoints ?? []).length === 0 && defaults.length > 0) {
        config = copyRecord(r);
        config.entryPoints = defaults;
      }
      const q = names.of(name, provider);
      rt.tcpRouters.set(q, new TCPRouterInfo(q, provider, config, toPriority(r.priority)));
    });
    forEachEntry(c.udp?.services, (name, svc) => {
      const q = names.of(name, provider);
      rt.udpServices.set(q, new UDPServiceInfo(q, provider, svc));
    });
    forEachEntry(c.udp?.routers, (name, r) => {
      const q = names.of(name, provider);
      rt.udpRouters.set(q, new UDPRouterInfo(q, provider, r));
    });
  }

  names.reserve(rt.routers.size + rt.services.size + rt.middlewares.size);
  populateUsedBy(rt);
  if (build) checkRouterTree(rt.routers);
  checkEntryPoints(rt.routers, tcpEntryPoints);
  checkEntryPoints(rt.tcpRouters, tcpEntryPoints);
  checkEntryPoints(rt.udpRouters, udpEntryPoints);
  if (build) {
    buildHttp(rt);
    warnConflictCopies(rt.routers);
    buildTcp(rt);
    buildUdp(rt);
  }
  memo?.commit();
  return rt;
}
