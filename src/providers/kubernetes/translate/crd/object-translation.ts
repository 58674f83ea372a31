import { HTTP_MIDDLEWARE_KINDS } from '../../../../dynamic-config/http.js';
import { TCP_MIDDLEWARE_KINDS } from '../../../../dynamic-config/tcp.js';
import type { Middleware, Router, RouterTLSConfig } from '../../../../dynamic-config/http.js';
import type { TCPMiddleware, TCPRouter } from '../../../../dynamic-config/tcp.js';
import type { CrdKind } from './kinds.js';
import {
  addHttpLoadBalancer, addTcpLoadBalancer, addUdpLoadBalancer, childServiceName, isTraefikServiceRef, l4ChildKey, str,
  traefikServiceRef, weightOf, type LoadBalancerSpec,
} from './services.js';
import type { ClusterView } from '../shared/endpoints-resolver.js';
import { isRecord, type KubeObject } from '../../client/kube-objects.js';
import { crdHttpRouterKey, crdObjectKey, crdReference, crdTcpRouterKey, crdUdpRouterKey, makeID } from '../shared/naming.js';
import { checkRule } from '../shared/rule-parser.js';
import { claim, type ObjectContext } from './object-context.js';
import type { ConfigBuilder } from '../shared/translation-types.js';
import {
  httpServiceRefusal, l4ServiceRefusal, middlewareRefusal, REF_NOT_PERMITTED, routeRefusal, tlsOptionRefusal, type ReferencePolicy,
} from '../shared/reference-policy.js';
import { authUsers } from '../shared/secret-credentials.js';

/**
 * One CRD object (IngressRoute, Middleware, TraefikService, …) translated into its own records, a
 * fragment, read through the inputs' cluster view; translator.ts runs it over every object and
 * merges the fragments.
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
export class CrdTranslation {
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
      if (isTraefikServiceRef(s)) {
        o.service = childServiceName(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, ctx.problems);
        ctx.pending.push({ table: 'httpServices', name: o.service as string, what: 'TraefikService' });
      } else {
        // Traefik gives an errors middleware a load balancer of its own, `<middleware>-errorpage-service`
        // (found by test/kube/traefik-providers.kube.test.ts), not the route's `ns-svc-port`.
        o.service = `${crdObjectKey(ctx.ns, ctx.name)}-errorpage-service`;
        addHttpLoadBalancer(this.out, this.inputs.view, this.inputs.policy, ctx.ns, s, o.service as string, ctx.problems);
      }
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
