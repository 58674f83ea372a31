/**
 * Shape checks for what providers deliver: a {@link ProviderSnapshot} on the internal endpoint and
 * a dynamic configuration from the file provider. They check types, not meaning: a router naming
 * a missing service is valid input and becomes a `disabled` record, as in Traefik. The first
 * problem found is reported with its path and value, and nothing is applied.
 */
import type { DynamicConfiguration, ProviderSnapshot } from './configuration.js';
import { isObj, quickRouter, quickService, type Obj } from './quick-checks.js';

export class SnapshotValidationError extends Error {
  override readonly name = 'SnapshotValidationError';
}

function show(v: unknown): string {
  const text = JSON.stringify(v);
  if (text === undefined) return String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${show(v)}`;
}

function fail(path: string, what: string, v: unknown): never {
  throw new SnapshotValidationError(`${path} must be ${what}, got ${describe(v)}`);
}

/**
 * Stands for "some path" in the fast first pass: building a path string for each of the ~100,000
 * values of an operator-sized snapshot cost more than checking them. Paths are only needed for
 * the error message, so a failing fast pass is re-run with real paths (see {@link checked}).
 */
const NO_PATH = '\u0000';

function keyPath(path: string, key: string): string {
  if (path === NO_PATH) return NO_PATH;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function indexPath(path: string, index: number): string {
  return path === NO_PATH ? NO_PATH : `${path}[${index}]`;
}

function object(v: unknown, path: string): Obj {
  if (!isObj(v)) fail(path, 'an object', v);
  return v;
}

function onlyKeys(o: Obj, path: string, allowed: readonly string[]): void {
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
    if (!allowed.includes(k)) throw new SnapshotValidationError(`${keyPath(path, k)} is not a known field (expected one of: ${allowed.join(', ')})`);
  }
}

/**
 * Values known to be valid already (records taken over unchanged from a snapshot accepted
 * before, see snapshot/lines.ts): a name -> record map skips their check.
 */
export type KnownValid = ReadonlySet<object>;

type Check = (v: unknown, path: string, known?: KnownValid) => void;

const str: Check = (v, p) => {
  if (typeof v !== 'string') fail(p, 'a string', v);
};
const bool: Check = (v, p) => {
  if (typeof v !== 'boolean') fail(p, 'a boolean', v);
};
const int: Check = (v, p) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(p, 'an integer', v);
};
const num: Check = (v, p) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, 'a number', v);
};
const anyObj: Check = (v, p) => {
  object(v, p);
};
const strList: Check = (v, p) => {
  if (!Array.isArray(v)) fail(p, 'a list of strings', v);
  for (let i = 0; i < v.length; i++) str(v[i], indexPath(p, i));
};
const listOf = (item: Check): Check => (v, p) => {
  if (!Array.isArray(v)) fail(p, 'a list', v);
  for (let i = 0; i < v.length; i++) item(v[i], indexPath(p, i));
};
const nullableBool: Check = (v, p) => {
  if (v !== null) bool(v, p);
};

/** An object whose listed fields (all optional) are checked; unknown fields refused when strict. */
function shape(fields: Record<string, Check>, strict = true): Check {
  const allowed = Object.keys(fields);
  const checks = Object.entries(fields);
  return (v, p, known) => {
    const o = object(v, p);
    if (strict) onlyKeys(o, p, allowed);
    for (const [k, check] of checks) {
      if (o[k] !== undefined) check(o[k], keyPath(p, k), known);
    }
  };
}

/** A name -> record map; names are unqualified (the server adds `@provider`). */
function named(item: Check): Check {
  return (v, p, known) => {
    const o = object(v, p);
    for (const name in o) {
      if (!Object.prototype.hasOwnProperty.call(o, name)) continue;
      const rec = o[name];
      const at = keyPath(p, name);
      if (name === '') throw new SnapshotValidationError(`${p} holds an empty name`);
      if (name.includes('@')) throw new SnapshotValidationError(`${at}: a name may not contain "@" (the server appends @provider)`);
      if (known !== undefined && typeof rec === 'object' && rec !== null && known.has(rec)) continue;
      item(rec, at);
    }
  };
}

/** A check that takes a quick look first (see quick-checks.ts). */
function quickly(quick: (v: unknown) => boolean, full: Check): Check {
  return (v, p, known) => {
    if (!quick(v)) full(v, p, known);
  };
}

const domains = listOf(shape({ main: str, sans: strList }));
const wrrServices = listOf(shape({ name: str, weight: int, status: int }, false));

/** The full check of a router (exported for tests: the quick one must never pass what it refuses). */
export const fullRouter = shape({
  entryPoints: strList, middlewares: strList, service: str, rule: str, parentRefs: strList, ruleSyntax: str, priority: int,
  tls: shape({ options: str, certResolver: str, domains }),
  observability: shape({ accessLogs: bool, metrics: bool, tracing: bool, traceVerbosity: str, metadata: anyObj }),
});
const router = quickly(quickRouter, fullRouter);

const server = shape({ url: str, weight: int, preservePath: bool, fenced: bool });

/** The full check of a service (exported for tests, as {@link fullRouter}). */
export const fullService = shape({
  middlewares: strList,
  loadBalancer: shape({
    sticky: anyObj, servers: listOf(server), strategy: str, healthCheck: anyObj, passiveHealthCheck: anyObj,
    passHostHeader: nullableBool, responseForwarding: shape({ flushInterval: str }), serversTransport: str,
  }),
  highestRandomWeight: shape({ services: wrrServices, healthCheck: anyObj }),
  weighted: shape({ services: wrrServices, sticky: anyObj, healthCheck: anyObj }),
  mirroring: shape({ service: str, mirrorBody: bool, maxBodySize: int, mirrors: listOf(shape({ name: str, percent: num })), healthCheck: anyObj }),
  failover: shape({ service: str, fallback: str, healthCheck: anyObj, errors: anyObj }),
});
const service = quickly(quickService, fullService);

/** Middleware kinds are open-ended (plugins): each must hold an options object. */
const middleware: Check = (v, p) => {
  const o = object(v, p);
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) object(o[k], keyPath(p, k));
};

const tcpRouter = shape({
  entryPoints: strList, middlewares: strList, service: str, rule: str, ruleSyntax: str, priority: int,
  tls: shape({ passthrough: bool, options: str, certResolver: str, domains }),
});
const tcpService = shape({
  loadBalancer: shape({ servers: listOf(shape({ address: str, tls: bool })), serversTransport: str, proxyProtocol: anyObj, terminationDelay: int, healthCheck: anyObj }),
  weighted: shape({ services: listOf(shape({ name: str, weight: int })), healthCheck: anyObj }),
});
const tcpMiddleware = shape({ inFlightConn: anyObj, ipWhiteList: anyObj, ipAllowList: anyObj });
const udpRouter = shape({ entryPoints: strList, service: str });
const udpService = shape({
  loadBalancer: shape({ servers: listOf(shape({ address: str })) }),
  weighted: shape({ services: listOf(shape({ name: str, weight: int })) }),
});

const configuration = shape({
  http: shape({ routers: named(router), services: named(service), middlewares: named(middleware), serversTransports: named(anyObj) }),
  tcp: shape({ routers: named(tcpRouter), services: named(tcpService), middlewares: named(tcpMiddleware), serversTransports: named(anyObj) }),
  udp: shape({ routers: named(udpRouter), services: named(udpService) }),
  tls: shape({ certificates: listOf(anyObj), options: named(anyObj), stores: named(anyObj) }),
});

/**
 * Runs `check` without paths first; only when it fails, again with them, so the error names the
 * same first problem with its full path. Checks are pure and deterministic, so both passes fail
 * at the same value.
 */
function checked(check: Check, value: unknown, path: string, known?: KnownValid): void {
  try {
    check(value, NO_PATH, known);
  } catch (err) {
    if (!(err instanceof SnapshotValidationError)) throw err;
    check(value, path, known);
    throw err;
  }
}

/** Checks a dynamic configuration (a null/empty document is an empty configuration). */
export function validateDynamicConfiguration(value: unknown, path = 'configuration', known?: KnownValid): DynamicConfiguration {
  if (value === null || value === undefined) return {};
  checked(configuration, value, path, known);
  return value as DynamicConfiguration;
}

const serverStates: Check = (v, p) => {
  const o = object(v, p);
  for (const k in o) {
    const state = o[k];
    if (Object.prototype.hasOwnProperty.call(o, k) && state !== 'UP' && state !== 'DOWN') fail(keyPath(p, k), '"UP" or "DOWN"', state);
  }
};
const serverStatus = named(serverStates);

/** A record's source object (`sources`, Portico's own field): kind and name required. */
const sourceRef: Check = (v, p) => {
  shape({ apiVersion: str, kind: str, namespace: str, name: str, uid: str, resourceVersion: str })(v, p);
  const o = v as Obj;
  for (const k of ['kind', 'name']) {
    if (o[k] === undefined || o[k] === '') throw new SnapshotValidationError(`${keyPath(p, k)} is required (a non-empty string)`);
  }
};
const sourceMaps = shape({ routers: named(sourceRef), services: named(sourceRef), middlewares: named(sourceRef) });
const sources = shape({ http: sourceMaps, tcp: sourceMaps, udp: shape({ routers: named(sourceRef), services: named(sourceRef) }) });

/**
 * The name -> record maps of a configuration, by protocol section and key, with the check of one
 * record: what {@link validateChangedLines} checks a changed record line against. The same
 * checks as in {@link configuration}.
 */
const RECORD_MAPS: Readonly<Record<string, Readonly<Record<string, Check>>>> = {
  http: { routers: router, services: service, middlewares: middleware, serversTransports: anyObj },
  tcp: { routers: tcpRouter, services: tcpService, middlewares: tcpMiddleware, serversTransports: anyObj },
  udp: { routers: udpRouter, services: udpService },
  tls: { options: anyObj, stores: anyObj },
};

/** The record maps of `sources`, by protocol: each entry is one record's source. */
const SOURCE_MAPS: Readonly<Record<string, readonly string[]>> = { http: ['routers', 'services', 'middlewares'], tcp: ['routers', 'services', 'middlewares'], udp: ['routers', 'services'] };

/**
 * The check of a record line's value: `["configuration",<section>,<map>,<name>]`,
 * `["sources",<protocol>,<kind>,<name>]` or `["serverStatus",<name>]`.
 */
function recordCheck(path: readonly string[]): Check | undefined {
  if (path.length === 4 && path[0] === 'sources') {
    const kinds = Object.prototype.hasOwnProperty.call(SOURCE_MAPS, path[1] as string) ? SOURCE_MAPS[path[1] as string] : undefined;
    return kinds?.includes(path[2] as string) === true ? sourceRef : undefined;
  }
  if (path.length === 4 && path[0] === 'configuration') {
    const section = RECORD_MAPS[path[1] as string];
    if (section === undefined || !Object.prototype.hasOwnProperty.call(RECORD_MAPS, path[1] as string)) return undefined;
    return Object.prototype.hasOwnProperty.call(section, path[2] as string) ? section[path[2] as string] : undefined;
  }
  if (path.length === 2 && path[0] === 'serverStatus') return serverStates;
  return undefined;
}

function topLevel(value: unknown): Obj {
  const o = object(value, 'body');
  onlyKeys(o, 'body', ['configuration', 'serverStatus', 'sources', 'version']);
  if (o.configuration === undefined) throw new SnapshotValidationError('body.configuration is required (use {} for an empty configuration)');
  if (o.version !== undefined) {
    str(o.version, 'version');
    if ((o.version as string).length > 256) throw new SnapshotValidationError('version is longer than 256 characters');
  }
  return o;
}

/**
 * Checks a snapshot that differs from one accepted before only by the given lines (snapshot
 * lines, format 2): when every changed line is the version or one record of a record map, only
 * the records added are checked, with the snapshot's top level. Undefined when that does not
 * decide it (another kind of line changed, or a record is bad): then the caller checks the whole
 * snapshot with {@link validateProviderSnapshot}, which names the first problem as it always does.
 */
export function validateChangedLines(
  value: unknown, added: readonly { readonly path: readonly string[]; readonly value: unknown }[], removed: readonly { readonly path: readonly string[] }[],
): ProviderSnapshot | undefined {
  for (const line of removed) {
    if (line.path.length === 1 && line.path[0] === 'version') continue;
    if (recordCheck(line.path) === undefined) return undefined;
  }
  for (const line of added) {
    if (line.path.length === 1 && line.path[0] === 'version') continue;
    const check = recordCheck(line.path);
    if (check === undefined) return undefined;
    const name = line.path[line.path.length - 1] as string;
    if (name === '' || name.includes('@')) return undefined;
    try {
      check(line.value, NO_PATH);
    } catch (err) {
      if (err instanceof SnapshotValidationError) return undefined;
      throw err;
    }
  }
  if (!isObj(value)) return undefined;
  let o: Obj;
  try {
    o = topLevel(value);
  } catch (err) {
    if (err instanceof SnapshotValidationError) return undefined;
    throw err;
  }
  if (!isObj(o.configuration) || (o.serverStatus !== undefined && !isObj(o.serverStatus))) return undefined;
  return { ...(o as unknown as ProviderSnapshot), configuration: o.configuration as DynamicConfiguration };
}

/**
 * Checks a snapshot body; throws {@link SnapshotValidationError} naming the first problem.
 * Records in `known` are taken as valid without a look.
 */
export function validateProviderSnapshot(value: unknown, known?: KnownValid): ProviderSnapshot {
  const o = object(value, 'body');
  onlyKeys(o, 'body', ['configuration', 'serverStatus', 'sources', 'version']);
  if (o.configuration === undefined) throw new SnapshotValidationError('body.configuration is required (use {} for an empty configuration)');
  const config = validateDynamicConfiguration(o.configuration, 'configuration', known);
  if (o.serverStatus !== undefined) checked(serverStatus, o.serverStatus, 'serverStatus', known);
  if (o.sources !== undefined) checked(sources, o.sources, 'sources');
  topLevel(o);
  return { ...(o as unknown as ProviderSnapshot), configuration: config };
}
