/**
 * Whether a recomputed runtime record shows exactly what the record it replaces shows. An
 * incremental computation (incremental.ts) recomputes every record a change can reach: a
 * changed router's service, its other users, the components of composite records. Most of them
 * come out as they were; those stay the old objects, so the view keeps their entries with their
 * encoded JSON and its sorted orders need no patching for them.
 *
 * Exact by construction: every field a runtime record shows (see view/representations.ts and the
 * view's codecs) is compared; the only fields left out are the router's per-record work
 * (`prepared`, read by the cross-checks of its own computation only) and the service's server
 * status, computed on first use from the compared `config` and `given`. The test of this file
 * changes each field of each record class in turn, so a field added later is not left out
 * unnoticed.
 *
 * Not used for computations from scratch (whole replacements): there every record would be
 * compared, and at 50,000 records the comparisons (memory reads of both records and their
 * configurations) cost more than the records and view entries they save (see bench/README.md).
 */
import {
  type Info, type MiddlewareInfo, type RouterInfo, type RuntimeConfiguration, type ServiceInfo, type TCPMiddlewareInfo, type TCPRouterInfo,
  type TCPServiceInfo, type UDPRouterInfo, type UDPServiceInfo,
} from './records.js';
import { sameJson } from './router-memo.js';

/** Fields of runtime records that are not compared (see the file comment). */
export const NOT_COMPARED: readonly string[] = ['prepared', 'status_'];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameInfo(a: Info, b: Info): boolean {
  return a.name === b.name && a.provider === b.provider && a.status === b.status && sameList(a.errors, b.errors);
}

/** Compares a record's configuration, the rule first when it has one (what changes most). */
function sameConfig(a: object, b: object): boolean {
  if (a === b) return true;
  const ra: unknown = (a as { rule?: unknown }).rule;
  const rb: unknown = (b as { rule?: unknown }).rule;
  if (ra !== rb && typeof ra !== 'object' && typeof rb !== 'object') return false;
  return sameJson(a, b);
}

const sameRouter = (a: RouterInfo, b: RouterInfo): boolean => a.priority === b.priority && a.splitFrom === b.splitFrom
  && sameConfig(a.config, b.config) && sameInfo(a, b) && sameList(a.using, b.using);
const sameService = (a: ServiceInfo, b: ServiceInfo): boolean => sameInfo(a, b) && sameList(a.usedBy, b.usedBy)
  && sameConfig(a.config, b.config) && sameJson(a.given, b.given);
const sameMiddleware = (a: MiddlewareInfo | TCPMiddlewareInfo, b: MiddlewareInfo | TCPMiddlewareInfo): boolean => sameInfo(a, b)
  && sameList(a.usedBy, b.usedBy) && sameConfig(a.config, b.config);
const sameTcpRouter = (a: TCPRouterInfo, b: TCPRouterInfo): boolean => a.priority === b.priority && sameConfig(a.config, b.config)
  && sameInfo(a, b) && sameList(a.using, b.using);
const sameTcpService = (a: TCPServiceInfo, b: TCPServiceInfo): boolean => sameInfo(a, b) && sameList(a.usedBy, b.usedBy)
  && sameConfig(a.config, b.config) && sameJson(a.given, b.given);
const sameUdpRouter = (a: UDPRouterInfo, b: UDPRouterInfo): boolean => sameConfig(a.config, b.config) && sameInfo(a, b) && sameList(a.using, b.using);
const sameUdpService = (a: UDPServiceInfo, b: UDPServiceInfo): boolean => sameInfo(a, b) && sameList(a.usedBy, b.usedBy)
  && sameConfig(a.config, b.config);

type Same = (a: never, b: never) => boolean;

/** Per runtime map, whether a new record shows exactly what an old one shows. */
const SAME: { readonly [K in keyof RuntimeConfiguration]: Same } = {
  routers: sameRouter, services: sameService, middlewares: sameMiddleware,
  tcpRouters: sameTcpRouter, tcpServices: sameTcpService, tcpMiddlewares: sameMiddleware,
  udpRouters: sameUdpRouter, udpServices: sameUdpService,
};

/** Whether `fresh` shows exactly what `old` shows. */
export function showsSame(key: keyof RuntimeConfiguration, old: Info, fresh: Info): boolean {
  return old === fresh || (old.constructor === fresh.constructor && (SAME[key] as (a: Info, b: Info) => boolean)(old, fresh));
}
