import { HTTP_MIDDLEWARE_KINDS } from '../../../../dynamic-config/http.js';
import { TCP_MIDDLEWARE_KINDS } from '../../../../dynamic-config/tcp.js';
import type { Middleware, Router, RouterTLSConfig } from '../../../../dynamic-config/http.js';
import type { TCPMiddleware, TCPRouter } from '../../../../dynamic-config/tcp.js';
import { groupOf, type CrdKind } from './kinds.js';
import {
  addHttpLoadBalancer, addTcpLoadBalancer, addUdpLoadBalancer, childServiceName, isTraefikServiceRef, l4ChildKey, str,
  traefikServiceRef, weightOf, type LoadBalancerSpec,
} from './services.js';
import type { ClusterView } from '../shared/endpoints-resolver.js';
import { isRecord, objectKey, type KubeObject } from '../../client/kube-objects.js';
import { compareKeys, crdHttpRouterKey, crdObjectKey, crdReference, crdTcpRouterKey, crdUdpRouterKey, makeID } from '../shared/naming.js';
import { checkRule } from '../shared/rule-parser.js';
import type { TranslationMemo } from '../shared/translation-memo.js';
import { claim, conditions, mergeObject, ObjectContext, refOf, resolvePending, type ObjectResult, type Pending } from './object-context.js';
import { compactFragment, ConfigBuilder, type ObjectStatus, type OperatorEvent, type Problem } from '../shared/translation-types.js';
import {
  httpServiceRefusal, l4ServiceRefusal, middlewareRefusal, REF_NOT_PERMITTED, routeRefusal, tlsOptionRefusal, type ReferencePolicy,
} from '../shared/reference-policy.js';
import { authUsers } from '../shared/secret-credentials.js';

/**
 * Portico (and optionally Traefik) CRDs → provider `kubernetescrd` records, following Traefik's CRD
 * provider naming (reference §5.2) and spec fields (§6). Every object also gets a status: its
 * `Accepted` and `ResolvedRefs` conditions, and a Warning event per problem. A bad object never
 * stops the others: it is refused alone (Accepted=False) or kept with its broken references shown.
 * Traefik's reference options (shared/reference-policy.ts) decide which references may be followed, and
 * basicAuth/digestAuth users come from Secrets (shared/secret-credentials.ts), read through the view.
 */

export interface CrdInputs {
  readonly objects: Readonly<Record<CrdKind, readonly KubeObject[]>>;
  readonly view: ClusterView;
  readonly ingressClass: string;
  readonly maxObjectBytes: number;
  readonly maxRoutes: number;
  /** Cross-namespace, ExternalName and empty-service rules. */
  readonly policy: ReferencePolicy;
  /** Resolve basicAuth/digestAuth `secret` into `users` (the view serves Secrets). */
  readonly readSecrets: boolean;
}

export interface CrdOutput {
  readonly statuses: ObjectStatus[];
  readonly events: OperatorEvent[];
}

const DEFAULT_CLASSES: readonly string[] = ['', 'traefik', 'portico'];

export function shouldProcess(obj: KubeObject, spec: Record<string, unknown>, providerClass: string): boolean {
  const cls = str(spec.ingressClassName) ?? obj.metadata?.annotations?.['kubernetes.io/ingress.class'] ?? '';
  return providerClass === '' ? DEFAULT_CLASSES.includes(cls) : cls === providerClass;
}

function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out = v.filter((x): x is string => typeof x === 'string');
  return out.length > 0 ? out : undefined;
}

/** `middlewares: [{name, namespace}]` → record names, each checked once everything is built. */
function middlewareRefs(ctx: ObjectContext, v: unknown, table: 'httpMiddlewares' | 'tcpMiddlewares'): string[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out: string[] = [];
  for (const m of v) {
    const name = isRecord(m) ? str(m.name) : undefined;
    if (!name) {
      ctx.accept('InvalidSpec', 'a middleware reference has no name');
      continue;
    }
    const ref = crdReference(name, str((m as Record<string, unknown>).namespace), ctx.ns);
    out.push(ref);
    ctx.pending.push({ table, name: ref, what: 'middleware' });
  }
  return out.length > 0 ? out : undefined;
}

function tlsOf(ctx: ObjectContext, tls: unknown): RouterTLSConfig & { passthrough?: boolean } | undefined {
  if (!isRecord(tls)) return undefined;
  const out: RouterTLSConfig & { passthrough?: boolean } = {};
  if (typeof tls.passthrough === 'boolean') out.passthrough = tls.passthrough;
  if (isRecord(tls.options) && str(tls.options.name)) {
    const name = str(tls.options.name) as string;
    out.options = name.includes('@') ? name : makeID(str(tls.options.namespace) ?? ctx.ns, name);
  }
  if (str(tls.certResolver)) out.certResolver = str(tls.certResolver);
  if (Array.isArray(tls.domains)) out.domains = tls.domains.filter(isRecord).map((d) => ({
    ...(str(d.main) !== undefined ? { main: str(d.main) } : {}),
    ...(strings(d.sans) ? { sans: strings(d.sans) } : {}),
  }));
  return out;
}

/** Only the typed observability fields, so a stray field cannot make the server refuse the snapshot. */
function observabilityOf(o: Record<string, unknown>): NonNullable<Router['observability']> {
  const out: NonNullable<Router['observability']> = {};
  for (const k of ['accessLogs', 'metrics', 'tracing'] as const) if (typeof o[k] === 'boolean') out[k] = o[k];
  if (typeof o.traceVerbosity === 'string') out.traceVerbosity = o.traceVerbosity;
  return out;
}

function routesOf(ctx: ObjectContext, spec: Record<string, unknown>, max: number): Record<string, unknown>[] {
  if (!Array.isArray(spec.routes)) {
    ctx.accept('InvalidSpec', 'spec.routes must be a list');
    return [];
  }
  if (spec.routes.length > max) {
    ctx.accept('TooLarge', `spec.routes has ${spec.routes.length} routes, more than the ${max} accepted`);
    return [];
  }
  return spec.routes.map((r, i) => {
    if (!isRecord(r)) ctx.accept('InvalidSpec', `spec.routes[${i}] is not an object`);
    return isRecord(r) ? r : {};
  });
}

/** Translates one object into its own records (a fragment), read through `inputs.view`. */
class CrdTranslation {
  constructor(private readonly inputs: CrdInputs, private readonly out: ConfigBuilder) {}

  ingressRoute(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const entryPoints = strings(spec.entryPoints);
    const routes = routesOf(ctx, spec, this.inputs.maxRoutes);
    const tlsRefusal = tlsOptionRefusal(this.inputs.policy, ctx.ns, isRecord(spec.tls) ? spec.tls.options : undefined, 'IngressRoute');
    routes.forEach((route, i) => {
      const match = str(route.match);
      if (!match) return ctx.accept('InvalidSpec', `spec.routes[${i}].match is required`);
      if (this.refused(ctx, tlsRefusal ?? routeRefusal(this.inputs.policy, ctx.ns, route, 'IngressRoute'))) return;
      const check = checkRule(match, 'http');
      if (!check.ok) ctx.accept('InvalidRule', check.error);
      const key = crdHttpRouterKey(ctx.ns, ctx.name, match);
      const rt: Router = {};
      if (entryPoints) rt.entryPoints = entryPoints;
      const mws = middlewareRefs(ctx, route.middlewares, 'httpMiddlewares');
      if (mws) rt.middlewares = mws;
      const services = Array.isArray(route.services) ? route.services.filter(isRecord) as LoadBalancerSpec[] : [];
      if (services.length === 1 && isTraefikServiceRef(services[0] as LoadBalancerSpec)) {
        rt.service = traefikServiceRef(services[0] as LoadBalancerSpec, ctx.ns);
        ctx.pending.push({ table: 'httpServices', name: rt.service, what: 'TraefikService' });
      } else if (services.length === 1) {
        addHttpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, services[0] as LoadBalancerSpec, key, ctx.problems);
        rt.service = key;
      } else if (services.length > 1) {
        const children = services.map((s) => {
          const name = childServiceName(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, ctx.problems);
          if (isTraefikServiceRef(s)) ctx.pending.push({ table: 'httpServices', name, what: 'TraefikService' });
          return { name, weight: weightOf(s) };
        });
        this.out.httpServices[key] ??= { weighted: { services: children } };
        rt.service = key;
      }
      rt.rule = match;
      if (str(route.syntax)) rt.ruleSyntax = str(route.syntax);
      if (route.priority !== undefined && !Number.isInteger(route.priority)) ctx.accept('InvalidSpec', `spec.routes[${i}].priority must be an integer`);
      else if (typeof route.priority === 'number' && route.priority !== 0) rt.priority = route.priority;
      const tls = tlsOf(ctx, spec.tls);
      if (tls) {
        delete tls.passthrough;
        rt.tls = tls;
      }
      if (isRecord(route.observability)) rt.observability = observabilityOf(route.observability);
      claim(ctx, this.out, 'httpRouters', key, rt, 'router');
    });
  }

  ingressRouteTCP(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const entryPoints = strings(spec.entryPoints);
    const tlsRefusal = tlsOptionRefusal(this.inputs.policy, ctx.ns, isRecord(spec.tls) ? spec.tls.options : undefined, 'IngressRouteTCP');
    routesOf(ctx, spec, this.inputs.maxRoutes).forEach((route, i) => {
      const match = str(route.match);
      if (!match) return ctx.accept('InvalidSpec', `spec.routes[${i}].match is required`);
      if (this.refused(ctx, tlsRefusal ?? routeRefusal(this.inputs.policy, ctx.ns, route, 'IngressRouteTCP'))) return;
      const check = checkRule(match, 'tcp');
      if (!check.ok) ctx.accept('InvalidRule', check.error);
      const key = crdTcpRouterKey(ctx.ns, ctx.name, match);
      const rt: TCPRouter = {};
      if (entryPoints) rt.entryPoints = entryPoints;
      const mws = middlewareRefs(ctx, route.middlewares, 'tcpMiddlewares');
      if (mws) rt.middlewares = mws;
      const services = Array.isArray(route.services) ? route.services.filter(isRecord) as LoadBalancerSpec[] : [];
      // As in Traefik, a refused entry is left out and the router is still built: with one entry
      // it then points at a service that does not exist, which the API shows as its error.
      const allowed = (s: LoadBalancerSpec) => !this.refused(ctx, l4ServiceRefusal(this.inputs.policy, ctx.ns, s, 'tcp'));
      if (services.length === 0) ctx.accept('InvalidSpec', `spec.routes[${i}].services is empty`);
      else if (services.length === 1) {
        if (allowed(services[0] as LoadBalancerSpec)) addTcpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, services[0] as LoadBalancerSpec, key, ctx.problems);
      } else {
        const children = services.filter(allowed).map((s) => {
          const child = l4ChildKey(key, s);
          addTcpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, child, ctx.problems);
          return { name: child, weight: weightOf(s) };
        });
        if (children.length > 0) this.out.tcpServices[key] ??= { weighted: { services: children } };
      }
      if (services.length > 0) rt.service = key;
      rt.rule = match;
      if (str(route.syntax)) rt.ruleSyntax = str(route.syntax);
      if (route.priority !== undefined && !Number.isInteger(route.priority)) ctx.accept('InvalidSpec', `spec.routes[${i}].priority must be an integer`);
      else if (typeof route.priority === 'number' && route.priority !== 0) rt.priority = route.priority;
      const tls = tlsOf(ctx, spec.tls);
      if (tls) rt.tls = { passthrough: tls.passthrough ?? false, ...tls };
      claim(ctx, this.out, 'tcpRouters', key, rt, 'TCP router');
    });
  }

  ingressRouteUDP(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const entryPoints = strings(spec.entryPoints);
    routesOf(ctx, spec, this.inputs.maxRoutes).forEach((route, i) => {
      const key = crdUdpRouterKey(ctx.ns, ctx.name, i);
      if (this.refused(ctx, routeRefusal(this.inputs.policy, ctx.ns, route, 'IngressRouteUDP'))) return;
      const services = Array.isArray(route.services) ? route.services.filter(isRecord) as LoadBalancerSpec[] : [];
      if (services.length === 0) return ctx.accept('InvalidSpec', `spec.routes[${i}].services is empty`);
      // A refused entry is left out, the router kept (as for TCP above).
      const allowed = (s: LoadBalancerSpec) => !this.refused(ctx, l4ServiceRefusal(this.inputs.policy, ctx.ns, s, 'udp'));
      if (services.length === 1) {
        if (allowed(services[0] as LoadBalancerSpec)) addUdpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, services[0] as LoadBalancerSpec, key, ctx.problems);
      } else {
        const children = services.filter(allowed).map((s) => {
          const child = l4ChildKey(key, s);
          addUdpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, child, ctx.problems);
          return { name: child, weight: weightOf(s) };
        });
        if (children.length > 0) this.out.udpServices[key] ??= { weighted: { services: children } };
      }
      claim(ctx, this.out, 'udpRouters', key, { ...(entryPoints ? { entryPoints } : {}), service: key }, 'UDP router');
    });
  }

  middleware(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const mw: Middleware = {};
    const kinds = HTTP_MIDDLEWARE_KINDS.filter((k) => spec[k] !== undefined && spec[k] !== null);
    if (kinds.length === 0) return ctx.accept('InvalidSpec', 'the middleware has no type (addPrefix, headers, basicAuth, …)');
    if (kinds.length > 1) ctx.accept('InvalidSpec', `multi-types middleware not supported (${kinds.join(', ')}); declare one middleware per type`);
    for (const k of kinds) {
      const v = spec[k];
      if (!isRecord(v)) {
        ctx.accept('InvalidSpec', `spec.${k} must be an object`);
        continue;
      }
      // As in Traefik, a middleware whose references or secret cannot be used is not built at
      // all: routers using it then show `middleware "…" does not exist`.
      if (this.refused(ctx, middlewareRefusal(this.inputs.policy, ctx.ns, k, v))) return;
      const options = this.middlewareOptions(ctx, k, v);
      if (options === undefined) return;
      (mw as Record<string, unknown>)[k] = options;
    }
    claim(ctx, this.out, 'httpMiddlewares', crdObjectKey(ctx.ns, ctx.name), mw, 'middleware');
  }

  /** Records a refused reference; true when there was one. */
  private refused(ctx: ObjectContext, refusal: string | undefined): boolean {
    if (refusal === undefined) return false;
    ctx.problems.push({ kind: 'refs', reason: REF_NOT_PERMITTED, message: refusal });
    return true;
  }

  /**
   * Turns Kubernetes-shaped options (references, secrets) into Traefik's dynamic ones; undefined
   * when the middleware cannot be built (its secret is missing or unusable).
   */
  private middlewareOptions(ctx: ObjectContext, kind: string, v: Record<string, unknown>): Record<string, unknown> | undefined {
    const o = { ...v };
    if (kind === 'chain') {
      o.middlewares = middlewareRefs(ctx, v.middlewares, 'httpMiddlewares') ?? [];
    } else if (kind === 'errors' && isRecord(v.service)) {
      const s = v.service as LoadBalancerSpec;
      o.service = childServiceName(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, ctx.problems);
      if (isTraefikServiceRef(s)) ctx.pending.push({ table: 'httpServices', name: o.service as string, what: 'TraefikService' });
    } else if ((kind === 'basicAuth' || kind === 'digestAuth') && !this.inputs.readSecrets) {
      if (o.secret !== undefined) {
        // Secrets are not read (--operator.read-secrets=false): the secret name stays visible, no users.
        ctx.problems.push({ kind: 'refs', reason: 'SecretNotRead', message: `spec.${kind}.secret ${String(o.secret)} is not resolved by the operator` });
      }
    } else if (kind === 'basicAuth' || kind === 'digestAuth') {
      const name = str(v.secret) ?? '';
      const result = authUsers(kind, ctx.ns, name, name === '' ? undefined : this.inputs.view.secret?.(ctx.ns, name));
      if (result.error) {
        ctx.problems.push({ kind: 'refs', reason: result.error.reason, message: result.error.message });
        return undefined;
      }
      // Traefik's dynamic options: users first, the other fields as given, no `secret`.
      const { secret: _secret, users: _users, usersFile: _file, ...rest } = v;
      return { users: result.users, ...rest };
    } else if (kind === 'forwardAuth' && isRecord(v.tls)) {
      const { caSecret: _ca, certSecret: _cert, ...rest } = v.tls;
      o.tls = rest;
    }
    return o;
  }

  middlewareTCP(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const mw: TCPMiddleware = {};
    const kinds = TCP_MIDDLEWARE_KINDS.filter((k) => isRecord(spec[k]));
    if (kinds.length === 0) return ctx.accept('InvalidSpec', 'the TCP middleware has no type (inFlightConn, ipAllowList)');
    if (kinds.length > 1) ctx.accept('InvalidSpec', `multi-types middleware not supported (${kinds.join(', ')})`);
    for (const k of kinds) (mw as Record<string, unknown>)[k] = spec[k];
    claim(ctx, this.out, 'tcpMiddlewares', crdObjectKey(ctx.ns, ctx.name), mw, 'TCP middleware');
  }

  traefikService(ctx: ObjectContext, spec: Record<string, unknown>): void {
    const key = crdObjectKey(ctx.ns, ctx.name);
    const child = (s: LoadBalancerSpec) => {
      const name = childServiceName(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, ctx.problems);
      if (isTraefikServiceRef(s)) ctx.pending.push({ table: 'httpServices', name, what: 'TraefikService' });
      return name;
    };
    const list = (v: unknown) => (Array.isArray(v) ? v.filter(isRecord) as LoadBalancerSpec[] : []);
    const kinds = ['weighted', 'mirroring', 'highestRandomWeight', 'failover'].filter((k) => isRecord(spec[k]));
    if (kinds.length !== 1) {
      return ctx.accept('InvalidSpec', kinds.length === 0
        ? 'the TraefikService has no type (weighted, mirroring, highestRandomWeight, failover)'
        : `multi-types service not supported (${kinds.join(', ')})`);
    }
    const entries = [
      ...list(isRecord(spec.weighted) ? spec.weighted.services : undefined),
      ...list(isRecord(spec.highestRandomWeight) ? spec.highestRandomWeight.services : undefined),
      ...(isRecord(spec.mirroring) ? [spec.mirroring, ...list(spec.mirroring.mirrors)] : []),
    ];
    for (const entry of entries) if (this.refused(ctx, httpServiceRefusal(this.inputs.policy, ctx.ns, entry))) return;
    if (isRecord(spec.weighted)) {
      const w = spec.weighted;
      const services = list(w.services).map((s) => ({ name: child(s), weight: weightOf(s) }));
      claim(ctx, this.out, 'httpServices', key, { weighted: { services, ...(isRecord(w.sticky) ? { sticky: w.sticky } : {}) } }, 'service');
    } else if (isRecord(spec.highestRandomWeight)) {
      const services = list(spec.highestRandomWeight.services).map((s) => ({ name: child(s), weight: weightOf(s) }));
      claim(ctx, this.out, 'httpServices', key, { highestRandomWeight: { services } }, 'service');
    } else if (isRecord(spec.mirroring)) {
      const m = spec.mirroring as LoadBalancerSpec;
      const mirrors = list(m.mirrors).map((s) => ({ name: child(s), percent: typeof s.percent === 'number' && Number.isFinite(s.percent) ? s.percent : 0 }));
      const mirroring: Record<string, unknown> = { service: child(m) };
      if (typeof m.mirrorBody === 'boolean') mirroring.mirrorBody = m.mirrorBody;
      if (Number.isInteger(m.maxBodySize)) mirroring.maxBodySize = m.maxBodySize;
      mirroring.mirrors = mirrors;
      claim(ctx, this.out, 'httpServices', key, { mirroring }, 'service');
    } else if (isRecord(spec.failover)) {
      const f = spec.failover;
      const failover: Record<string, unknown> = {};
      for (const field of ['service', 'fallback'] as const) {
        const name = str(f[field]);
        if (!name) continue;
        failover[field] = crdReference(name, undefined, ctx.ns);
        ctx.pending.push({ table: 'httpServices', name: failover[field] as string, what: 'TraefikService' });
      }
      if (isRecord(f.errors)) failover.errors = f.errors;
      claim(ctx, this.out, 'httpServices', key, { failover }, 'service');
    }
  }

  run(kind: CrdKind, ctx: ObjectContext, spec: Record<string, unknown>): void {
    switch (kind) {
      case 'IngressRoute': return this.ingressRoute(ctx, spec);
      case 'IngressRouteTCP': return this.ingressRouteTCP(ctx, spec);
      case 'IngressRouteUDP': return this.ingressRouteUDP(ctx, spec);
      case 'Middleware': return this.middleware(ctx, spec);
      case 'MiddlewareTCP': return this.middlewareTCP(ctx, spec);
      case 'TraefikService': return this.traefikService(ctx, spec);
    }
  }
}

/** Middlewares and services first, so that references made by routes can be checked. */
export const ORDER: readonly CrdKind[] = ['Middleware', 'MiddlewareTCP', 'TraefikService', 'IngressRoute', 'IngressRouteTCP', 'IngressRouteUDP'];

export function sortKey(obj: KubeObject): string {
  // Portico's group sorts before Traefik's, so a Portico object wins a name clash.
  return `${groupOf(obj.apiVersion) === 'traefik.io' ? '1' : '0'}|${objectKey(obj)}`;
}

export function translateObject(inputs: CrdInputs, kind: CrdKind, obj: KubeObject): ObjectResult {
  const records = new ConfigBuilder();
  const ctx = new ObjectContext(obj, kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
  const size = JSON.stringify(obj.spec ?? null).length;
  if (size > inputs.maxObjectBytes) {
    ctx.accept('TooLarge', `the spec is ${size} bytes, more than the ${inputs.maxObjectBytes} accepted`);
  } else if (!isRecord(obj.spec)) {
    ctx.accept('InvalidSpec', 'spec must be an object');
  } else {
    try {
      new CrdTranslation(inputs, records).run(kind, ctx, obj.spec);
    } catch (err) {
      // A translation bug must cost one object, never the snapshot.
      ctx.accept('InternalError', `translation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { ctx, records: compactFragment(records) };
}

/**
 * What a CRD object's records depend on: its spec, whose changes bump `generation`. Labels and
 * annotations are read outside the memo (selection and class), status never.
 */
export function specVersion(obj: KubeObject): unknown {
  const md = obj.metadata;
  return md?.uid !== undefined && md.generation !== undefined ? `${md.uid}/${md.generation}` : obj;
}

/**
 * Translates the CRD objects into `out`, with a status and events per object. With a memo, an
 * object whose instance and backends did not change reuses its previous fragment.
 */
export function translateCrds(inputs: CrdInputs, out: ConfigBuilder, memo?: TranslationMemo, recorder?: CrdRecorder): CrdOutput {
  const owners = new Map<string, string>();
  const done: { key: string; kind: CrdKind; obj: KubeObject; result: ObjectResult; problems: Problem[] }[] = [];
  for (const kind of ORDER) {
    const objects = inputs.objects[kind].map((o) => [sortKey(o), o] as const).sort((a, b) => compareKeys(a[0], b[0]));
    for (const [key, obj] of objects) {
      const spec = isRecord(obj.spec) ? obj.spec : {};
      if (!shouldProcess(obj, spec, inputs.ingressClass)) continue;
      const result = memo
        ? memo.getVersioned(crdMemoKey(kind, key), specVersion(obj), null, inputs.view, (view) => translateObject({ ...inputs, view }, kind, obj))
        : translateObject(inputs, kind, obj);
      done.push({ key: crdMemoKey(kind, key), kind, obj, result, problems: mergeObject(result, out, owners) });
    }
  }
  const statuses: ObjectStatus[] = [];
  const events: OperatorEvent[] = [];
  const exists = (table: Pending['table'], name: string) => out[table][name] !== undefined;
  for (const { key, kind, obj, result, problems: mergeProblems } of done) {
    const { status, events: own } = crdStatus(result.ctx, mergeProblems, exists);
    statuses.push(status);
    events.push(...own);
    recorder?.({ key, kind, object: obj, result, mergeProblems, status, events: own });
  }
  return { statuses, events };
}

/** The memo key of a CRD object; keys sort in the order translateCrds visits objects (ORDER, then sortKey). */
export function crdMemoKey(kind: CrdKind, objectSortKey: string): string {
  return `crd|${ORDER.indexOf(kind)}${kind}|${objectSortKey}`;
}

/** One object's status and Warning events, from its own problems, the merge's and its references. */
export function crdStatus(ctx: ObjectContext, mergeProblems: readonly Problem[], exists: (table: Pending['table'], name: string) => boolean): {
  status: ObjectStatus; events: OperatorEvent[];
} {
  const problems = [...ctx.problems, ...mergeProblems, ...resolvePending(ctx, exists)];
  const ref = refOf(ctx);
  const status: ObjectStatus = { ref, observedGeneration: ctx.obj.metadata?.generation, conditions: conditions(problems) };
  const events: OperatorEvent[] = [];
  const seen = new Set<string>();
  for (const p of problems) {
    const id = `${p.reason}|${p.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    events.push({ ref, type: 'Warning', reason: p.reason, message: p.message });
  }
  return { status, events };
}

/** What the full translation did with one CRD object (for the incremental translation's state). */
export interface CrdRecord {
  /** The memo key, which sorts as the objects are visited. */
  readonly key: string;
  readonly kind: CrdKind;
  readonly object: KubeObject;
  readonly result: ObjectResult;
  /** Name clashes with objects visited before it. */
  readonly mergeProblems: readonly Problem[];
  readonly status: ObjectStatus;
  readonly events: readonly OperatorEvent[];
}

export type CrdRecorder = (record: CrdRecord) => void;
