/**
 * The runtime view of the merged provider configurations, computed the way Traefik's runtime
 * does it: qualified names (`name@provider`), default entry points, `using`, `usedBy`, statuses
 * and error texts from the cross-checks Traefik makes while building routers, and v3's computed
 * priorities. Pure: no I/O, no Fastify; the record store calls it on every new snapshot.
 */
import type {
  DynamicConfiguration, Middleware, Router, Service, ServerState, TCPMiddleware, TCPRouter, TCPService, UDPRouter, UDPService,
} from './dynamic-config.js';
import { HTTP_MIDDLEWARE_KINDS, HTTP_SERVICE_KINDS, TCP_MIDDLEWARE_KINDS, TCP_SERVICE_KINDS, UDP_SERVICE_KINDS } from './dynamic-config.js';

export type Status = 'enabled' | 'disabled' | 'warning';

/** Traefik's `math.MaxInt64`; internal routers sit just below it. */
export const MAX_INT64 = 9223372036854775807n;
/** Above this a non-internal router is refused (Traefik's max user-defined priority). */
export const MAX_USER_PRIORITY = MAX_INT64 - 1000n;

/** One provider's configuration as the runtime consumes it. */
export interface ProviderInput {
  readonly provider: string;
  readonly configuration: DynamicConfiguration;
  /** service name (unqualified or qualified) -> server URL/address -> state; unlisted servers are UP. */
  readonly serverStatus?: Record<string, Record<string, ServerState>>;
  /** Exact int64 priorities by router name, for internal routers a JS number cannot hold. */
  readonly priorities?: Readonly<Record<string, bigint>>;
}

export interface EntryPointDef {
  readonly name: string;
  /** `host:port`, Traefik style (`:8080`, `:53/udp`). */
  readonly address: string;
  readonly protocol: 'tcp' | 'udp';
  /** Given to HTTP/TCP routers that name no entry point (Traefik's default entry points). */
  readonly isDefault: boolean;
}

export interface RuntimeOptions {
  /**
   * True (the default) reproduces a running Traefik, which qualifies router middleware names,
   * computes `priority = len(rule)` and checks services and middlewares while building routers.
   * False reproduces Traefik's API unit-test harness, which skips the build step (golden files).
   */
  readonly buildRouters?: boolean;
}

// Shared empty list for records with no errors, users or entry points (most of them): 20,000
// records would otherwise allocate 40,000 empty arrays on every snapshot. Never mutated.
const NONE: string[] = Object.freeze([]) as unknown as string[];

abstract class Info {
  errors: string[] = NONE;
  status: Status = 'enabled';
  constructor(readonly name: string, readonly provider: string) {}

  /** Traefik's AddError: de-duplicated; critical disables, otherwise a warning unless disabled. */
  addError(message: string, critical: boolean): void {
    if (this.errors === NONE) this.errors = [message];
    else if (!this.errors.includes(message)) this.errors.push(message);
    if (critical) this.status = 'disabled';
    else if (this.status !== 'disabled') this.status = 'warning';
  }
}

export class RouterInfo extends Info {
  using: string[] = NONE;
  constructor(name: string, provider: string, public config: Router, public priority: bigint) {
    super(name, provider);
  }
}

/** Server URL/address -> state, computed when first shown: unlisted servers are UP. */
function computeServerStatus(
  servers: readonly { url?: string; address?: string }[] | undefined, given: Record<string, ServerState> | undefined,
): Record<string, ServerState> {
  const out: Record<string, ServerState> = {};
  for (const s of servers ?? []) {
    const key = s.url ?? s.address;
    if (key !== undefined && key !== '') out[key] = given?.[key] ?? 'UP';
  }
  return out;
}

export class ServiceInfo extends Info {
  usedBy: string[] = NONE;
  private status_: Record<string, ServerState> | undefined;
  constructor(name: string, provider: string, readonly config: Service, private readonly given: Record<string, ServerState> | undefined) {
    super(name, provider);
  }

  get serverStatus(): Record<string, ServerState> {
    this.status_ ??= computeServerStatus(this.config.loadBalancer?.servers, this.given);
    return this.status_;
  }
}

export class MiddlewareInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: Middleware) {
    super(name, provider);
  }
}

export class TCPRouterInfo extends Info {
  using: string[] = NONE;
  constructor(name: string, provider: string, public config: TCPRouter, public priority: bigint) {
    super(name, provider);
  }
}

export class TCPServiceInfo extends Info {
  usedBy: string[] = NONE;
  private status_: Record<string, ServerState> | undefined;
  constructor(name: string, provider: string, readonly config: TCPService, private readonly given: Record<string, ServerState> | undefined) {
    super(name, provider);
  }

  get serverStatus(): Record<string, ServerState> {
    this.status_ ??= computeServerStatus(this.config.loadBalancer?.servers, this.given);
    return this.status_;
  }
}

export class TCPMiddlewareInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: TCPMiddleware) {
    super(name, provider);
  }
}

export class UDPRouterInfo extends Info {
  using: string[] = NONE;
  constructor(name: string, provider: string, public config: UDPRouter) {
    super(name, provider);
  }
}

export class UDPServiceInfo extends Info {
  usedBy: string[] = NONE;
  constructor(name: string, provider: string, readonly config: UDPService) {
    super(name, provider);
  }
}

/** Every runtime record, keyed by qualified name. */
export interface RuntimeConfiguration {
  readonly routers: Map<string, RouterInfo>;
  readonly services: Map<string, ServiceInfo>;
  readonly middlewares: Map<string, MiddlewareInfo>;
  readonly tcpRouters: Map<string, TCPRouterInfo>;
  readonly tcpServices: Map<string, TCPServiceInfo>;
  readonly tcpMiddlewares: Map<string, TCPMiddlewareInfo>;
  readonly udpRouters: Map<string, UDPRouterInfo>;
  readonly udpServices: Map<string, UDPServiceInfo>;
}

/** `name@provider`, unless the name is already qualified (Traefik's GetQualifiedName). */
export function qualify(name: string, provider: string): string {
  return name.includes('@') ? name : `${name}@${provider}`;
}

/** The provider part of a qualified name: what follows the first `@`. */
export function providerOf(qualifiedName: string): string {
  const at = qualifiedName.indexOf('@');
  return at === -1 ? '' : qualifiedName.slice(at + 1);
}

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

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function givenStatus(input: ProviderInput, name: string): Record<string, ServerState> | undefined {
  const all = input.serverStatus;
  return all === undefined ? undefined : (all[name] ?? all[`${name}@${input.provider}`]);
}

function definedKinds(obj: object, kinds: readonly string[]): string[] {
  const rec = obj as Record<string, unknown>;
  return kinds.filter((k) => rec[k] != null);
}

function uniqueSorted(values: string[]): string[] {
  if (values.length < 2) return values;
  return [...new Set(values)].sort();
}

const MULTI_SERVICE = 'cannot create service: multi-types service not supported, consider declaring two different pieces of service instead';

// Shared by every router that sets none: records are never mutated after the runtime is computed.
const DEFAULT_OBSERVABILITY = Object.freeze({ accessLogs: true, metrics: true, tracing: true, traceVerbosity: 'minimal' });

/** Traefik's computed TCP priority: `len(rule)`, except the catch-all ``HostSNI(`*`)`` at -1. */
function tcpRulePriority(rule: string): bigint {
  return /^\s*HostSNI\(\s*[`"]\*[`"]\s*\)\s*$/.test(rule) ? -1n : BigInt(utf8Length(rule));
}

/** Computes the whole runtime view from every provider's configuration. */
export function computeRuntime(
  inputs: readonly ProviderInput[], entryPoints: readonly EntryPointDef[], options: RuntimeOptions = {},
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

  for (const input of inputs) {
    const { provider, configuration: c } = input;
    forEachEntry(c.http?.services, (name, svc) => {
      const q = `${name}@${provider}`;
      rt.services.set(q, new ServiceInfo(q, provider, svc, givenStatus(input, name)));
    });
    forEachEntry(c.http?.middlewares, (name, mw) => {
      rt.middlewares.set(`${name}@${provider}`, new MiddlewareInfo(`${name}@${provider}`, provider, mw));
    });
    forEachEntry(c.http?.routers, (name, r) => {
      const needsEntryPoints = (r.entryPoints ?? []).length === 0 && defaults.length > 0;
      const needsObservability = build && r.parentRefs == null;
      let config: Router = r;
      if (needsEntryPoints || needsObservability) {
        config = { ...r };
        if (needsEntryPoints) config.entryPoints = defaults;
        if (needsObservability) config.observability = r.observability == null ? DEFAULT_OBSERVABILITY : { ...DEFAULT_OBSERVABILITY, ...withoutUndefined(r.observability) };
      }
      const priority = input.priorities?.[name] ?? toPriority(r.priority);
      const q = `${name}@${provider}`;
      rt.routers.set(q, new RouterInfo(q, provider, config, priority));
    });
    forEachEntry(c.tcp?.services, (name, svc) => {
      rt.tcpServices.set(`${name}@${provider}`, new TCPServiceInfo(`${name}@${provider}`, provider, svc, givenStatus(input, name)));
    });
    forEachEntry(c.tcp?.middlewares, (name, mw) => {
      rt.tcpMiddlewares.set(`${name}@${provider}`, new TCPMiddlewareInfo(`${name}@${provider}`, provider, mw));
    });
    forEachEntry(c.tcp?.routers, (name, r) => {
      const config: TCPRouter = (r.entryPoints ?? []).length === 0 && defaults.length > 0 ? { ...r, entryPoints: defaults } : r;
      rt.tcpRouters.set(`${name}@${provider}`, new TCPRouterInfo(`${name}@${provider}`, provider, config, toPriority(r.priority)));
    });
    forEachEntry(c.udp?.services, (name, svc) => {
      rt.udpServices.set(`${name}@${provider}`, new UDPServiceInfo(`${name}@${provider}`, provider, svc));
    });
    forEachEntry(c.udp?.routers, (name, r) => {
      rt.udpRouters.set(`${name}@${provider}`, new UDPRouterInfo(`${name}@${provider}`, provider, r));
    });
  }

  populateUsedBy(rt);
  if (build) checkRouterTree(rt.routers);
  checkEntryPoints(rt.routers, tcpEntryPoints);
  checkEntryPoints(rt.tcpRouters, tcpEntryPoints);
  checkEntryPoints(rt.udpRouters, udpEntryPoints);
  if (build) {
    buildHttp(rt);
    buildTcp(rt);
    buildUdp(rt);
  }
  return rt;
}

function withoutUndefined<T extends object>(obj: T | undefined): Partial<T> {
  if (obj == null) return {};
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(obj)) if (v != null && v !== '') (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Traefik's PopulateUsedBy: services and middlewares list the routers that reference them. */
function populateUsedBy(rt: RuntimeConfiguration): void {
  const link = (users: Map<string, { usedBy: string[] }>, ref: string | undefined, provider: string, router: string) => {
    if (ref === undefined || ref === '') return;
    const target = users.get(qualify(ref, provider));
    if (target === undefined) return;
    if (target.usedBy === NONE) target.usedBy = [router];
    else target.usedBy.push(router);
  };
  for (const r of rt.routers.values()) {
    for (const m of r.config.middlewares ?? []) link(rt.middlewares, m, r.provider, r.name);
    link(rt.services, r.config.service, r.provider, r.name);
  }
  for (const r of rt.tcpRouters.values()) {
    for (const m of r.config.middlewares ?? []) link(rt.tcpMiddlewares, m, r.provider, r.name);
    link(rt.tcpServices, r.config.service, r.provider, r.name);
  }
  for (const r of rt.udpRouters.values()) link(rt.udpServices, r.config.service, r.provider, r.name);
  const sortUsers = (m: Map<string, { usedBy: string[] }>) => {
    for (const v of m.values()) if (v.usedBy.length > 1) v.usedBy = uniqueSorted(v.usedBy);
  };
  sortUsers(rt.services);
  sortUsers(rt.middlewares);
  sortUsers(rt.tcpServices);
  sortUsers(rt.tcpMiddlewares);
  sortUsers(rt.udpServices);
}

/**
 * Traefik v3.6+'s router tree check (multi-layer routing): a router with neither a service nor
 * child routers is a dead end, and one with both is refused. Children name parents in `parentRefs`.
 */
function checkRouterTree(routers: Map<string, RouterInfo>): void {
  const parents = new Set<string>();
  for (const r of routers.values()) {
    for (const p of r.config.parentRefs ?? []) parents.add(qualify(p, r.provider));
  }
  for (const r of routers.values()) {
    const hasChildren = parents.has(r.name);
    const hasService = (r.config.service ?? '') !== '';
    if (!hasService && !hasChildren) r.addError('router has no service and no child routers', true);
    else if (hasService && hasChildren) r.addError('router has both a service and is referenced as a parent by other routers', true);
  }
}

/** Traefik's GetRoutersByEntryPoints: unknown entry points warn; none valid disables. */
function checkEntryPoints(routers: Map<string, Info & { using: string[]; config: { entryPoints?: string[] } }>, known: Set<string>): void {
  for (const r of routers.values()) {
    const using: string[] = [];
    for (const ep of r.config.entryPoints ?? []) {
      if (!known.has(ep)) r.addError(`entryPoint "${ep}" doesn't exist`, false);
      else using.push(ep);
    }
    if (using.length === 0) r.addError('no valid entryPoint for this router', true);
    else r.using = uniqueSorted(using);
  }
}

type BuildResult = string | null;

function buildHttp(rt: RuntimeConfiguration): void {
  const serviceResults = new Map<string, BuildResult>();
  const middlewareResults = new Map<string, BuildResult>();

  const buildService = (qname: string, stack: readonly string[]): BuildResult => {
    const cached = serviceResults.get(qname);
    if (cached !== undefined) return cached;
    const info = rt.services.get(qname);
    if (info === undefined) return `the service "${qname}" does not exist`;
    if (stack.includes(qname)) return `could not instantiate service ${qname}: recursion detected in ${[...stack, qname].join('->')}`;
    const result = checkService(info, stack);
    if (result !== null) info.addError(result, true);
    serviceResults.set(qname, result);
    return result;
  };

  const checkService = (info: ServiceInfo, stack: readonly string[]): BuildResult => {
    // Traefik serves internal services from its own handlers, before any type check.
    if (info.provider === 'internal') return null;
    const kinds = definedKinds(info.config, HTTP_SERVICE_KINDS);
    if (kinds.length > 1) return MULTI_SERVICE;
    const c = info.config;
    const children: (string | undefined)[] = [];
    if (c.weighted) children.push(...(c.weighted.services ?? []).map((s) => s.name));
    else if (c.highestRandomWeight) children.push(...(c.highestRandomWeight.services ?? []).map((s) => s.name));
    else if (c.mirroring) children.push(c.mirroring.service, ...(c.mirroring.mirrors ?? []).map((m) => m.name));
    else if (c.failover) children.push(c.failover.service, c.failover.fallback);
    else if (!c.loadBalancer) return `the service "${info.name}" does not have any type defined`;
    if (children.length === 0) return null;
    const next = [...stack, info.name];
    for (const child of children) {
      if (child === undefined || child === '') continue;
      const err = buildService(qualify(child, info.provider), next);
      if (err !== null) return err;
    }
    return null;
  };

  const buildMiddleware = (qname: string, stack: readonly string[]): BuildResult => {
    const info = rt.middlewares.get(qname);
    if (info === undefined) return `middleware "${qname}" does not exist`;
    if (stack.includes(qname)) {
      const err = `could not instantiate middleware ${qname}: recursion detected in ${[...stack, qname].join('->')}`;
      info.addError(err, true);
      return err;
    }
    const cached = middlewareResults.get(qname);
    if (cached !== undefined) return cached;
    let result: BuildResult = null;
    const kinds = definedKinds(info.config, HTTP_MIDDLEWARE_KINDS);
    if (kinds.length > 1) {
      result = `invalid middleware "${qname}" configuration: cannot create middleware: multi-types middleware not supported, consider declaring two different pieces of middleware instead`;
    } else if (kinds.length === 0) {
      result = `invalid middleware "${qname}" configuration: invalid middleware type or middleware does not exist`;
    } else if (info.config.chain) {
      const children = info.config.chain.middlewares ?? [];
      const next = [...stack, qname];
      for (let i = children.length - 1; i >= 0 && result === null; i--) {
        result = buildMiddleware(qualify(children[i] as string, info.provider), next);
      }
    }
    if (result !== null) info.addError(result, true);
    middlewareResults.set(qname, result);
    return result;
  };

  for (const r of rt.routers.values()) {
    if (r.using.length === 0) continue;
    const mws = r.config.middlewares;
    if (mws !== undefined && mws.length > 0) r.config = { ...r.config, middlewares: mws.map((m) => qualify(m, r.provider)) };
    if (r.priority === 0n) r.priority = BigInt(utf8Length(r.config.rule ?? ''));
    if (r.priority > MAX_USER_PRIORITY && r.provider !== 'internal') {
      r.addError(`the router priority ${r.priority} exceeds the max user-defined priority ${MAX_USER_PRIORITY}`, true);
      continue;
    }
    const service = r.config.service ?? '';
    // Reported by checkRouterTree; Traefik stops there too.
    if (service === '') continue;
    const serviceErr = buildService(qualify(service, r.provider), NONE);
    if (serviceErr !== null) {
      r.addError(serviceErr, true);
      continue;
    }
    // alice builds a chain from the last constructor to the first: the last failing one reports.
    const qualified = r.config.middlewares ?? [];
    for (let i = qualified.length - 1; i >= 0; i--) {
      const err = buildMiddleware(qualified[i] as string, NONE);
      if (err !== null) {
        r.addError(err, true);
        break;
      }
    }
  }
}

function buildTcp(rt: RuntimeConfiguration): void {
  const serviceResults = new Map<string, BuildResult>();
  const buildService = (qname: string, stack: readonly string[]): BuildResult => {
    const cached = serviceResults.get(qname);
    if (cached !== undefined) return cached;
    const info = rt.tcpServices.get(qname);
    if (info === undefined) return `the service "${qname}" does not exist`;
    if (stack.includes(qname)) return `could not instantiate service ${qname}: recursion detected in ${[...stack, qname].join('->')}`;
    let result: BuildResult = null;
    const kinds = definedKinds(info.config, TCP_SERVICE_KINDS);
    if (kinds.length > 1) result = MULTI_SERVICE;
    else if (kinds.length === 0) result = `the service "${qname}" does not have any type defined`;
    else {
      for (const child of info.config.weighted?.services ?? []) {
        if (child.name === undefined || child.name === '') continue;
        result = buildService(qualify(child.name, info.provider), [...stack, qname]);
        if (result !== null) break;
      }
    }
    if (result !== null) info.addError(result, true);
    serviceResults.set(qname, result);
    return result;
  };
  const buildMiddleware = (qname: string): BuildResult => {
    const info = rt.tcpMiddlewares.get(qname);
    if (info === undefined) return `middleware "${qname}" does not exist`;
    const kinds = definedKinds(info.config, TCP_MIDDLEWARE_KINDS);
    let result: BuildResult = null;
    if (kinds.length > 1) {
      result = `invalid middleware "${qname}" configuration: cannot create middleware: multi-types middleware not supported, consider declaring two different pieces of middleware instead`;
    } else if (kinds.length === 0) {
      result = `invalid middleware "${qname}" configuration: invalid middleware type or middleware does not exist`;
    }
    if (result !== null) info.addError(result, true);
    return result;
  };
  for (const r of rt.tcpRouters.values()) {
    if (r.using.length === 0) continue;
    const mws = r.config.middlewares;
    if (mws !== undefined && mws.length > 0) r.config = { ...r.config, middlewares: mws.map((m) => qualify(m, r.provider)) };
    if (r.priority === 0n) r.priority = tcpRulePriority(r.config.rule ?? '');
    if (r.priority > MAX_USER_PRIORITY && r.provider !== 'internal') {
      r.addError(`the router priority ${r.priority} exceeds the max user-defined priority ${MAX_USER_PRIORITY}`, true);
      continue;
    }
    const service = r.config.service ?? '';
    if (service === '') {
      r.addError('the service is missing on the router', true);
      continue;
    }
    if ((r.config.rule ?? '') === '') {
      r.addError('router has no rule', true);
      continue;
    }
    const serviceErr = buildService(qualify(service, r.provider), []);
    if (serviceErr !== null) {
      r.addError(serviceErr, true);
      continue;
    }
    const qualified = r.config.middlewares ?? [];
    for (let i = qualified.length - 1; i >= 0; i--) {
      const err = buildMiddleware(qualified[i] as string);
      if (err !== null) {
        r.addError(err, true);
        break;
      }
    }
  }
}

function buildUdp(rt: RuntimeConfiguration): void {
  const check = (qname: string, stack: readonly string[]): BuildResult => {
    const info = rt.udpServices.get(qname);
    if (info === undefined) return `the UDP service "${qname}" does not exist`;
    if (stack.includes(qname)) return `could not instantiate service ${qname}: recursion detected`;
    let result: BuildResult = null;
    const kinds = definedKinds(info.config, UDP_SERVICE_KINDS);
    if (kinds.length > 1) result = MULTI_SERVICE;
    else if (kinds.length === 0) result = `the UDP service "${qname}" does not have any type defined`;
    else {
      for (const child of info.config.weighted?.services ?? []) {
        if (child.name === undefined || child.name === '') continue;
        result = check(qualify(child.name, info.provider), [...stack, qname]);
        if (result !== null) break;
      }
    }
    if (result !== null) info.addError(result, true);
    return result;
  };
  for (const r of rt.udpRouters.values()) {
    if (r.using.length === 0) continue;
    const service = r.config.service ?? '';
    if (service === '') {
      r.addError('the service is missing on the udp router', true);
      continue;
    }
    const err = check(qualify(service, r.provider), []);
    if (err !== null) r.addError(err, true);
  }
}
