/**
 * Records as Traefik's API writes them: Go struct field order (embedded runtime info first, then
 * `name`, `provider`, …), empty fields omitted, `tls.options` defaulted. Two forms per record:
 * the list/detail representation and the `/api/rawdata` one (no name, provider, type, priorityStr).
 */
import { HTTP_MIDDLEWARE_KINDS, HTTP_SERVICE_KINDS } from '../../dynamic-config/http.js';
import { TCP_MIDDLEWARE_KINDS, TCP_SERVICE_KINDS } from '../../dynamic-config/tcp.js';
import { UDP_SERVICE_KINDS } from '../../dynamic-config/udp.js';
import type {
  MiddlewareInfo, RouterInfo, ServiceInfo, TCPMiddlewareInfo, TCPRouterInfo, TCPServiceInfo, UDPRouterInfo, UDPServiceInfo,
} from '../runtime/runtime.js';

type Obj = Record<string, unknown>;

/** A priority as JSON writes it: a plain number when exact, a BigInt (exact int64 text) otherwise. */
function priorityValue(p: bigint): number | bigint | undefined {
  if (p === 0n) return undefined;
  return p <= 9007199254740991n && p >= -9007199254740991n ? Number(p) : p;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Copies `keys` from `src` in that order, omitting empty values, then any other keys as given. */
function ordered(src: Obj | undefined, keys: readonly string[], keepNull: readonly string[] = []): Obj {
  const out: Obj = {};
  if (src == null) return out;
  for (const k of keys) {
    const v = src[k];
    if (keepNull.includes(k) && (v === undefined || v === null)) out[k] = null;
    else if (!isEmpty(v)) out[k] = v;
  }
  for (const k of Object.keys(src)) if (!(k in out) && !keys.includes(k) && !isEmpty(src[k])) out[k] = src[k];
  return out;
}

const ROUTER_KEYS = ['entryPoints', 'middlewares', 'service', 'rule', 'parentRefs', 'ruleSyntax', 'priority', 'tls', 'observability'];
const ROUTER_TLS_KEYS = ['options', 'certResolver', 'domains'];
const OBSERVABILITY_KEYS = ['accessLogs', 'metrics', 'tracing', 'traceVerbosity', 'metadata'];
const LB_KEYS = ['sticky', 'servers', 'strategy', 'healthCheck', 'passiveHealthCheck', 'passHostHeader', 'responseForwarding', 'serversTransport'];
const SERVER_KEYS = ['url', 'weight', 'preservePath', 'fenced'];
const TCP_ROUTER_KEYS = ['entryPoints', 'middlewares', 'service', 'rule', 'ruleSyntax', 'priority', 'tls'];
const TCP_TLS_KEYS = ['passthrough', 'options', 'certResolver', 'domains'];
const TCP_LB_KEYS = ['servers', 'serversTransport', 'proxyProtocol', 'terminationDelay', 'healthCheck'];

function sortedMap<V>(m: Record<string, V>): Record<string, V> | undefined {
  const keys = Object.keys(m);
  if (keys.length === 0) return undefined;
  const out: Record<string, V> = {};
  for (const k of keys.sort()) out[k] = m[k] as V;
  return out;
}

/**
 * The runtime fields Traefik writes after the config: `error`, `status`, then who uses the record
 * when anyone does (routers: `using`, their entry points; services and middlewares: `usedBy`).
 */
function runtimeTail(info: { errors: string[]; status: string }, out: Obj, usersKey: 'using' | 'usedBy', users: readonly string[]): Obj {
  if (info.errors.length > 0) out.error = info.errors;
  out.status = info.status;
  if (users.length > 0) out[usersKey] = users;
  return out;
}

/** The fields the list/detail form adds after the runtime ones: `name`, `provider`, `type` when known. */
function identify(out: Obj, info: { name: string; provider: string }, type?: string): Obj {
  out.name = info.name;
  out.provider = info.provider;
  if (type !== undefined) out.type = type;
  return out;
}

/**
 * A load-balanced service's runtime fields and server status, after its body. With `identity` (the
 * list/detail form) the name, provider and type go between the two, where Traefik writes them.
 */
function serviceForm(body: Obj, s: ServiceInfo | TCPServiceInfo, identity?: { type: string | undefined }): Obj {
  runtimeTail(s, body, 'usedBy', s.usedBy);
  if (identity !== undefined) identify(body, s, identity.type);
  const status = sortedMap(s.serverStatus);
  if (status) body.serverStatus = status;
  return body;
}

/** The HTTP router's runtime record (`/api/rawdata` form). */
export function httpRouterRaw(r: RouterInfo): Obj {
  const c = r.config as Obj;
  let tls: Obj | undefined;
  if (c.tls != null) {
    tls = ordered(c.tls as Obj, ROUTER_TLS_KEYS);
    // Traefik's representation rewrites empty options to "default" on the shared object, so
    // rawdata shows it too; we show it consistently everywhere.
    if (isEmpty(tls.options)) tls = ordered({ ...tls, options: 'default' }, ROUTER_TLS_KEYS);
  }
  const observability = c.observability == null ? undefined : ordered(c.observability as Obj, OBSERVABILITY_KEYS);
  const out = ordered({ ...c, priority: priorityValue(r.priority), tls, observability }, ROUTER_KEYS);
  return runtimeTail(r, out, 'using', r.using);
}

export function httpRouterRecord(r: RouterInfo): Obj {
  const out = identify(httpRouterRaw(r), r);
  out.priorityStr = r.priority.toString();
  return out;
}

function lowerType(config: object, kinds: readonly string[]): string | undefined {
  const rec = config as Obj;
  for (const k of kinds) {
    if (rec[k] == null) continue;
    if (k === 'plugin') {
      const first = Object.keys(rec[k] as Obj)[0];
      return first === undefined ? 'plugin' : first.toLowerCase();
    }
    return k.toLowerCase();
  }
  return undefined;
}

function serviceBody(config: Obj, kinds: readonly string[]): Obj {
  const out = ordered(config, ['middlewares', ...kinds]);
  if (config.loadBalancer != null) {
    const lb = config.loadBalancer as Obj;
    const o = ordered(lb, LB_KEYS, ['passHostHeader']);
    if (Array.isArray(lb.servers)) o.servers = (lb.servers as Obj[]).map((s) => ordered(s, SERVER_KEYS));
    out.loadBalancer = ordered(o, LB_KEYS, ['passHostHeader']);
  }
  return out;
}

export function httpServiceRaw(s: ServiceInfo): Obj {
  return serviceForm(serviceBody(s.config as Obj, HTTP_SERVICE_KINDS), s);
}

export function httpServiceRecord(s: ServiceInfo): Obj {
  return serviceForm(serviceBody(s.config as Obj, HTTP_SERVICE_KINDS), s, { type: httpServiceType(s) });
}

export function httpServiceType(s: ServiceInfo): string | undefined {
  return lowerType(s.config, HTTP_SERVICE_KINDS);
}

export function httpMiddlewareRaw(m: MiddlewareInfo): Obj {
  const out = ordered(m.config as Obj, HTTP_MIDDLEWARE_KINDS);
  return runtimeTail(m, out, 'usedBy', m.usedBy);
}

export function httpMiddlewareType(m: MiddlewareInfo): string | undefined {
  return lowerType(m.config, HTTP_MIDDLEWARE_KINDS);
}

export function httpMiddlewareRecord(m: MiddlewareInfo): Obj {
  return identify(httpMiddlewareRaw(m), m, httpMiddlewareType(m));
}

export function tcpRouterRaw(r: TCPRouterInfo): Obj {
  const c = r.config as Obj;
  // TCP's passthrough has no omitempty: it is written whenever tls is.
  const tls = c.tls == null ? undefined : { passthrough: (c.tls as Obj).passthrough === true, ...ordered(c.tls as Obj, TCP_TLS_KEYS) };
  const out = ordered({ ...c, priority: priorityValue(r.priority), tls }, TCP_ROUTER_KEYS);
  return runtimeTail(r, out, 'using', r.using);
}

export function tcpRouterRecord(r: TCPRouterInfo): Obj {
  const out = identify(tcpRouterRaw(r), r);
  out.priorityStr = r.priority.toString();
  return out;
}

function tcpServiceBody(config: Obj): Obj {
  const out = ordered(config, TCP_SERVICE_KINDS);
  if (config.loadBalancer != null) out.loadBalancer = ordered(config.loadBalancer as Obj, TCP_LB_KEYS);
  return out;
}

export function tcpServiceType(s: TCPServiceInfo): string | undefined {
  return lowerType(s.config, TCP_SERVICE_KINDS);
}

export function tcpServiceRaw(s: TCPServiceInfo): Obj {
  return serviceForm(tcpServiceBody(s.config as Obj), s);
}

export function tcpServiceRecord(s: TCPServiceInfo): Obj {
  return serviceForm(tcpServiceBody(s.config as Obj), s, { type: tcpServiceType(s) });
}

export function tcpMiddlewareType(m: TCPMiddlewareInfo): string | undefined {
  return lowerType(m.config, TCP_MIDDLEWARE_KINDS);
}

export function tcpMiddlewareRaw(m: TCPMiddlewareInfo): Obj {
  const out = ordered(m.config as Obj, TCP_MIDDLEWARE_KINDS);
  return runtimeTail(m, out, 'usedBy', m.usedBy);
}

export function tcpMiddlewareRecord(m: TCPMiddlewareInfo): Obj {
  return identify(tcpMiddlewareRaw(m), m, tcpMiddlewareType(m));
}

export function udpRouterRaw(r: UDPRouterInfo): Obj {
  const out = ordered(r.config as Obj, ['entryPoints', 'service']);
  return runtimeTail(r, out, 'using', r.using);
}

export function udpRouterRecord(r: UDPRouterInfo): Obj {
  return identify(udpRouterRaw(r), r);
}

export function udpServiceType(s: UDPServiceInfo): string | undefined {
  return lowerType(s.config, UDP_SERVICE_KINDS);
}

export function udpServiceRaw(s: UDPServiceInfo): Obj {
  return runtimeTail(s, ordered(s.config as Obj, UDP_SERVICE_KINDS), 'usedBy', s.usedBy);
}

export function udpServiceRecord(s: UDPServiceInfo): Obj {
  return identify(udpServiceRaw(s), s, udpServiceType(s));
}
