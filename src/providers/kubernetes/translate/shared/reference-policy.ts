import { isRecord } from '../../client/kube-objects.js';
import { CRD_PROVIDER } from './naming.js';

/**
 * Traefik's reference options (providers.kubernetesCRD / providers.kubernetesIngress), with its
 * defaults (all off) and its error texts:
 * - `allowCrossNamespace`: a CRD object may reference Services, TraefikServices, Middlewares and
 *   TLSOptions in other namespaces; without it such a route (or errors middleware, or
 *   TraefikService) is not built, as in Traefik, and the object's `ResolvedRefs` condition says
 *   why. A chain's members are never checked, as in Traefik;
 * - `allowExternalNameServices`: ExternalName Services may be backends; without it the backend is
 *   refused like a missing Service (no service record, so the router shows the error);
 * - `allowEmptyServices`: a Service without endpoints still gets a load balancer with no servers;
 *   without it the backend is refused the same way.
 */
export interface ReferencePolicy {
  /** Default false (Traefik's). */
  readonly allowCrossNamespace: boolean;
  /** Default false (Traefik's). */
  readonly allowExternalNameServices: boolean;
  /** Default false (Traefik's). */
  readonly allowEmptyServices: boolean;
}

export const DEFAULT_REFERENCE_POLICY: ReferencePolicy = {
  allowCrossNamespace: false,
  allowExternalNameServices: false,
  allowEmptyServices: false,
};

/** The condition reason of a refused cross-namespace reference (Gateway API's word for it). */
export const REF_NOT_PERMITTED = 'RefNotPermitted';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The kinds whose middleware references Traefik names in its messages. */
export type RouteKind = 'IngressRoute' | 'IngressRouteTCP';

/**
 * Why a `middlewares: [{name, namespace}]` entry is refused, or undefined when it is allowed.
 * Cross-provider names (`x@file`) are always allowed; `x@kubernetescrd` would hide a namespace,
 * so Traefik refuses it for HTTP routes unless cross-namespace references are allowed.
 */
export function middlewareRefRefusal(policy: ReferencePolicy, parentNs: string, ref: unknown, routeKind: RouteKind): string | undefined {
  if (policy.allowCrossNamespace || !isRecord(ref)) return undefined;
  const name = str(ref.name) ?? '';
  const namespace = str(ref.namespace) ?? '';
  if (routeKind === 'IngressRoute' && name.endsWith(`@${CRD_PROVIDER}`)) {
    return `invalid reference to middleware ${name}: with crossnamespace disallowed, the namespace field needs to be explicitly specified`;
  }
  if (name.includes('@') || namespace === '' || namespace === parentNs) return undefined;
  return `middleware ${namespace}/${name} is not in the ${routeKind} namespace ${parentNs}`;
}

/** Why an HTTP service entry (LoadBalancerSpec, kind Service or TraefikService) is refused. */
export function httpServiceRefusal(policy: ReferencePolicy, parentNs: string, spec: Record<string, unknown>): string | undefined {
  if (policy.allowCrossNamespace) return undefined;
  const name = str(spec.name) ?? '';
  const namespace = str(spec.namespace) ?? '';
  if (namespace !== '' && namespace !== parentNs) return `service ${namespace}/${name} not in the parent resource namespace ${parentNs}`;
  return serversTransportRefusal(spec);
}

/** Why a TCP or UDP service entry is refused. */
export function l4ServiceRefusal(policy: ReferencePolicy, parentNs: string, spec: Record<string, unknown>, protocol: 'tcp' | 'udp'): string | undefined {
  if (policy.allowCrossNamespace) return undefined;
  const name = str(spec.name) ?? '';
  const namespace = str(spec.namespace) ?? '';
  if (namespace !== '' && namespace !== parentNs) return `${protocol} service ${namespace}/${name} is not in the parent resource namespace ${parentNs}`;
  return protocol === 'tcp' ? serversTransportRefusal(spec) : undefined;
}

/** `serversTransport: ns-name@kubernetescrd` would hide a namespace. Called only when cross-namespace is off. */
function serversTransportRefusal(spec: Record<string, unknown>): string | undefined {
  const transport = str(spec.serversTransport) ?? '';
  if (!transport.endsWith(`@${CRD_PROVIDER}`)) return undefined;
  return `invalid reference to serversTransport ${transport}: namespace-name@kubernetescrd format is not allowed when crossnamespace is disallowed`;
}

/** Why `tls.options: {name, namespace}` is refused. */
export function tlsOptionRefusal(policy: ReferencePolicy, parentNs: string, options: unknown, routeKind: RouteKind): string | undefined {
  if (policy.allowCrossNamespace || !isRecord(options)) return undefined;
  const name = str(options.name) ?? '';
  const namespace = str(options.namespace) ?? '';
  if (name === '' || name.includes('@') || namespace === '' || namespace === parentNs) return undefined;
  return `TLSOption ${namespace}/${name} is not in the ${routeKind} namespace ${parentNs}`;
}

/**
 * The first reference of a route the policy refuses, for which Traefik skips the whole route: its
 * middlewares, and for an IngressRoute its services. A refused IngressRouteTCP/UDP service entry
 * is not one: Traefik skips that entry only (`l4ServiceRefusal`) and still builds the router.
 */
export function routeRefusal(policy: ReferencePolicy, parentNs: string, route: Record<string, unknown>, kind: RouteKind | 'IngressRouteUDP'): string | undefined {
  if (policy.allowCrossNamespace) return undefined;
  if (kind !== 'IngressRouteUDP' && Array.isArray(route.middlewares)) {
    for (const m of route.middlewares) {
      const refusal = middlewareRefRefusal(policy, parentNs, m, kind);
      if (refusal) return refusal;
    }
  }
  if (kind !== 'IngressRoute') return undefined;
  for (const s of Array.isArray(route.services) ? route.services.filter(isRecord) : []) {
    const refusal = httpServiceRefusal(policy, parentNs, s);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * Why a Middleware's own references are refused. Only an errors middleware's service is checked,
 * with the text of Traefik's load balancer builder (`buildServersLB`), which it goes through.
 * A chain's members are not: Traefik's chain builder turns them into `ns-name` without any
 * namespace check (with or without `allowCrossNamespace`), and the routes using the chain are
 * judged on their own references only.
 */
export function middlewareRefusal(policy: ReferencePolicy, parentNs: string, kind: string, options: Record<string, unknown>): string | undefined {
  if (policy.allowCrossNamespace || kind !== 'errors' || !isRecord(options.service)) return undefined;
  const spec = options.service;
  const name = str(spec.name) ?? '';
  const namespace = str(spec.namespace) ?? '';
  if (namespace !== '' && namespace !== parentNs) return `load balancer service ${namespace}/${name} is not in the parent resource namespace ${parentNs}`;
  return serversTransportRefusal(spec);
}
