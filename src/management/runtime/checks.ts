/**
 * The cross-checks Traefik makes while building its runtime, as pure functions over the runtime
 * records: `usedBy`, the router tree, entry points (`using` and their warnings) and, when routers
 * are built, services, middlewares and priorities with Traefik's error texts.
 */
import { HTTP_MIDDLEWARE_KINDS, HTTP_SERVICE_KINDS } from '../../dynamic-config/http.js';
import { TCP_MIDDLEWARE_KINDS, TCP_SERVICE_KINDS } from '../../dynamic-config/tcp.js';
import { UDP_SERVICE_KINDS } from '../../dynamic-config/udp.js';
import {
  copyRecord, type Info, MAX_USER_PRIORITY, NONE, qualify, type RouterInfo, type RuntimeConfiguration, type ServiceInfo,
} from './records.js';

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

// The computed priorities of usual rules (their lengths), made once: a bigint is a heap object,
// and 50,000 routers per snapshot would otherwise allocate as many.
const SMALL_PRIORITIES: readonly bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/** Traefik's computed HTTP priority, `len(rule)` in bytes. */
function rulePriority(rule: string): bigint {
  const n = utf8Length(rule);
  return SMALL_PRIORITIES[n] ?? BigInt(n);
}

function definedKinds(obj: object, kinds: readonly string[]): string[] {
  const rec = obj as Record<string, unknown>;
  return kinds.filter((k) => rec[k] != null);
}

/** How many of `kinds` a record defines (definedKinds' length, without the list). */
function countKinds(obj: object, kinds: readonly string[]): number {
  const rec = obj as Record<string, unknown>;
  let n = 0;
  for (const k of kinds) if (rec[k] != null) n++;
  return n;
}

/** Sorted without duplicates; usually already so (one or two entry points), then returned as is. */
function uniqueSorted(values: string[]): string[] {
  let ordered = true;
  for (let i = 1; i < values.length && ordered; i++) ordered = (values[i - 1] as string) < (values[i] as string);
  if (ordered) return values;
  return [...new Set(values)].sort();
}

const DEAD_END = 'router has no service and no child routers';

const MULTI_SERVICE = 'cannot create service: multi-types service not supported, consider declaring two different pieces of service instead';

/** Traefik's computed TCP priority: `len(rule)`, except the catch-all ``HostSNI(`*`)`` at -1. */
function tcpRulePriority(rule: string): bigint {
  return /^\s*HostSNI\(\s*[`"]\*[`"]\s*\)\s*$/.test(rule) ? -1n : BigInt(utf8Length(rule));
}

/** Traefik's PopulateUsedBy: services and HTTP middlewares list the routers that reference them. */
export function populateUsedBy(rt: RuntimeConfiguration): void {
  const link = (users: Map<string, { usedBy: string[] }>, ref: string | undefined, provider: string, router: string) => {
    if (ref === undefined || ref === '') return;
    const target = users.get(qualify(ref, provider));
    if (target === undefined) return;
    if (target.usedBy === NONE) target.usedBy = [router];
    else target.usedBy.push(router);
  };
  const linkQualified = (users: Map<string, { usedBy: string[] }>, ref: string, router: string) => {
    const target = users.get(ref);
    if (target === undefined) return;
    if (target.usedBy === NONE) target.usedBy = [router];
    else target.usedBy.push(router);
  };
  // forEach rather than for-of: no iterator result per record (50,000 routers, several passes).
  rt.routers.forEach((r) => {
    for (const m of r.prepared.middlewareRefs) linkQualified(rt.middlewares, m, r.name);
    if (r.prepared.service !== '') linkQualified(rt.services, r.prepared.service, r.name);
  });
  // Traefik links TCP routers to their services only: a TCP middleware's usedBy stays empty
  // (found by the differential suite against Traefik 3.7.13).
  for (const r of rt.tcpRouters.values()) link(rt.tcpServices, r.config.service, r.provider, r.name);
  for (const r of rt.udpRouters.values()) link(rt.udpServices, r.config.service, r.provider, r.name);
  const sortUsers = (m: Map<string, { usedBy: string[] }>) => {
    m.forEach((v) => {
      if (v.usedBy.length > 1) v.usedBy = uniqueSorted(v.usedBy);
    });
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
export function checkRouterTree(routers: Map<string, RouterInfo>): void {
  const parents = new Set<string>();
  routers.forEach((r) => {
    const refs = r.config.parentRefs;
    if (refs != null) for (const p of refs) parents.add(qualify(p, r.provider));
  });
  routers.forEach((r) => {
    const hasChildren = parents.size > 0 && parents.has(r.name);
    const hasService = (r.config.service ?? '') !== '';
    if (!hasService && !hasChildren) r.addError(DEAD_END, true);
    else if (hasService && hasChildren) r.addError('router has both a service and is referenced as a parent by other routers', true);
  });
}

/** Traefik's GetRoutersByEntryPoints: unknown entry points warn; none valid disables. */
export function checkEntryPoints(routers: Map<string, Info & { using: string[]; config: { entryPoints?: string[] } }>, known: Set<string>): void {
  routers.forEach((r) => {
    const eps = r.config.entryPoints ?? NONE;
    let valid = 0;
    for (const ep of eps) if (known.has(ep)) valid++;
    // Usually every entry point is known and the list sorted without duplicates: then `using` is
    // the list itself (records are never mutated once computed), not one array per router.
    if (valid === eps.length && valid > 0 && uniqueSorted(eps) === eps) {
      r.using = eps;
      return;
    }
    const using = valid === eps.length ? eps.slice() : [];
    if (valid !== eps.length) {
      for (const ep of eps) {
        if (!known.has(ep)) r.addError(`entryPoint "${ep}" doesn't exist`, false);
        else using.push(ep);
      }
    }
    if (using.length === 0) r.addError('no valid entryPoint for this router', true);
    else r.using = uniqueSorted(using);
  });
}

type BuildResult = string | null;

/** Builds the service of a qualified name, `stack` the services that lead to it (for cycles). */
type ServiceBuild = (qname: string, stack: readonly string[]) => BuildResult;

/**
 * Traefik's HTTP and TCP service build, once per qualified name: a missing service or a cycle is
 * the referrer's error; `check` gives the service's own problem or its first failing child's
 * (built with `build`), which also disables the service.
 */
function memoizedServiceBuild<I extends Info>(
  services: ReadonlyMap<string, I>, check: (info: I, stack: readonly string[], build: ServiceBuild) => BuildResult, pathPrefix = '',
  simple?: (info: I) => boolean,
): ServiceBuild {
  const results = new Map<string, BuildResult>();
  const build: ServiceBuild = (qname, stack) => {
    const info = services.get(qname);
    if (info === undefined) return `the service "${qname}" does not exist`;
    // A service `simple` accepts builds without error, references no other and so is on no
    // stack: no result to keep (a map of 50,000 results per snapshot otherwise).
    if (simple !== undefined && simple(info)) return null;
    const cached = results.get(qname);
    if (cached !== undefined) return cached;
    if (stack.includes(qname)) {
      return `could not instantiate service ${qname}: recursion detected in ${[...stack, qname].map((n) => pathPrefix + n).join('->')}`;
    }
    const result = check(info, stack, build);
    if (result !== null) info.addError(result, true);
    results.set(qname, result);
    return result;
  };
  return build;
}

/**
 * Traefik's error for a middleware that does not define exactly one kind; null when it does. Its
 * HTTP builder refuses two kinds with an unprefixed text; its TCP builder takes the last kind it
 * knows and refuses none (found by the differential suite against Traefik 3.7.13).
 */
function middlewareKindsError(qname: string, kinds: number, protocol: 'http' | 'tcp'): BuildResult {
  if (kinds > 1 && protocol === 'http') {
    return 'cannot create middleware: multi-types middleware not supported, consider declaring two different pieces of middleware instead';
  }
  if (kinds === 0) return `invalid middleware "${qname}" configuration: invalid middleware type or middleware does not exist`;
  return null;
}

/** A service the check below accepts without reading another: internal, or a load balancer alone. */
function isPlainLoadBalancer(info: ServiceInfo): boolean {
  if (info.provider === 'internal') return true;
  const c = info.config;
  return Boolean(c.loadBalancer) && countKinds(c, HTTP_SERVICE_KINDS) === 1;
}

export function buildHttp(rt: RuntimeConfiguration): void {
  const middlewareResults = new Map<string, BuildResult>();

  const buildService = memoizedServiceBuild(rt.services, (info: ServiceInfo, stack, build): BuildResult => {
    // Traefik serves internal services from its own handlers, before any type check.
    if (info.provider === 'internal') return null;
    if (countKinds(info.config, HTTP_SERVICE_KINDS) > 1) return MULTI_SERVICE;
    const c = info.config;
    // The usual service, a load balancer alone: no list of children to make.
    if (c.loadBalancer && !c.weighted && !c.highestRandomWeight && !c.mirroring && !c.failover) return null;
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
      const err = build(qualify(child, info.provider), next);
      if (err !== null) return err;
    }
    return null;
    // Traefik's HTTP service manager names each step of a recursion `service:<name>`.
  }, 'service:', isPlainLoadBalancer);

  const buildMiddleware = (qname: string, stack: readonly string[]): BuildResult => {
    const info = rt.middlewares.get(qname);
    if (info === undefined) return `middleware "${qname}" does not exist`;
    if (stack.includes(qname)) {
      const err = `could not instantiate middleware ${qname}: recursion detected in ${[...stack, qname].map((n) => `middleware:${n}`).join('->')}`;
      info.addError(err, true);
      return err;
    }
    const cached = middlewareResults.get(qname);
    if (cached !== undefined) return cached;
    let result = middlewareKindsError(qname, definedKinds(info.config, HTTP_MIDDLEWARE_KINDS).length, 'http');
    if (result === null && info.config.chain) {
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

  rt.routers.forEach((r) => {
    if (r.using.length === 0) return;
    r.config = r.prepared.built;
    if (r.priority === 0n) r.priority = rulePriority(r.config.rule ?? '');
    if (r.priority > MAX_USER_PRIORITY && r.provider !== 'internal') {
      r.addError(`the router priority ${r.priority} exceeds the max user-defined priority ${MAX_USER_PRIORITY}`, true);
      return;
    }
    if (r.prepared.service === '') {
      // A root router that checkRouterTree found a dead end is still built in Traefik 3.7.13,
      // whose handler builder refuses it a second time (router.go buildHTTPHandler).
      if (r.errors.includes(DEAD_END) && (r.config.parentRefs ?? []).length === 0) r.addError('router must have either a service or child routers', true);
      return;
    }
    const serviceErr = buildService(r.prepared.service, NONE);
    if (serviceErr !== null) {
      r.addError(serviceErr, true);
      return;
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
  });
}

export function buildTcp(rt: RuntimeConfiguration): void {
  const buildService = memoizedServiceBuild(rt.tcpServices, (info, stack, build): BuildResult => {
    const kinds = definedKinds(info.config, TCP_SERVICE_KINDS);
    if (kinds.length > 1) return MULTI_SERVICE;
    if (kinds.length === 0) return `the service "${info.name}" does not have any type defined`;
    for (const child of info.config.weighted?.services ?? []) {
      if (child.name === undefined || child.name === '') continue;
      const err = build(qualify(child.name, info.provider), [...stack, info.name]);
      if (err !== null) return err;
    }
    return null;
  });
  const buildMiddleware = (qname: string): BuildResult => {
    const info = rt.tcpMiddlewares.get(qname);
    if (info === undefined) return `middleware "${qname}" does not exist`;
    const result = middlewareKindsError(qname, definedKinds(info.config, TCP_MIDDLEWARE_KINDS).length, 'tcp');
    if (result !== null) info.addError(result, true);
    return result;
  };
  for (const r of rt.tcpRouters.values()) {
    if (r.using.length === 0) continue;
    const mws = r.config.middlewares;
    if (mws !== undefined && mws.length > 0) {
      const config = copyRecord(r.config);
      config.middlewares = mws.map((m) => qualify(m, r.provider));
      r.config = config;
    }
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

export function buildUdp(rt: RuntimeConfiguration): void {
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
