import { createHash } from 'node:crypto';

/**
 * Traefik's record naming for its Kubernetes providers (reference: traefik.md §5). The names are
 * what users see in the API and dashboard and what they write in cross-references
 * (`default-auth@kubernetescrd`), so they must match Traefik's exactly.
 */

/** Provider names as Traefik's API shows them after `@`. */
export const INGRESS_PROVIDER = 'kubernetes';
export const CRD_PROVIDER = 'kubernetescrd';

const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * Traefik's `provider.Normalize`: every run of characters that are neither Unicode letters nor
 * digits becomes one `-`, and leading or trailing separators vanish.
 */
export function normalize(name: string): string {
  return name.split(SEPARATORS).filter((part) => part.length > 0).join('-');
}

/** Traefik's `makeID`: `namespace-name`, or just the name without a namespace. Not normalized. */
export function makeID(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}-${name}`;
}

/** The first 10 bytes of SHA-256 as 20 hex characters (Go's `%.10x` of the digest). */
export function hex20(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 20);
}

/** HTTP IngressRoute router (and single-service) key: `Normalize(ns-name-hex20(match))`. */
export function crdHttpRouterKey(namespace: string, name: string, match: string): string {
  return normalize(`${namespace}-${name}-${hex20(match)}`);
}

/** IngressRouteTCP router and service key: `makeID(ns, name-hex20(match))`, dots kept. */
export function crdTcpRouterKey(namespace: string, name: string, match: string): string {
  return makeID(namespace, `${name}-${hex20(match)}`);
}

/** IngressRouteUDP router and service key: `ns-name-<route index>`, dots kept. */
export function crdUdpRouterKey(namespace: string, name: string, index: number): string {
  return makeID(namespace, `${name}-${index}`);
}

/** Middleware, MiddlewareTCP, TraefikService and ServersTransport keys: `Normalize(ns-name)`. */
export function crdObjectKey(namespace: string, name: string): string {
  return normalize(makeID(namespace, name));
}

/**
 * A reference written in a CRD (`middlewares: [{name, namespace}]`, a TraefikService name): a name
 * holding `@` is already qualified (`api@internal`) and kept; otherwise it is the object's key in
 * its namespace (the referrer's when none is given).
 */
export function crdReference(name: string, namespace: string | undefined, defaultNamespace: string): string {
  if (name.includes('@')) return name;
  return crdObjectKey(namespace !== undefined && namespace !== '' ? namespace : defaultNamespace, name);
}

/** A Kubernetes Service port as a load balancer child key: `Normalize(ns-service-port)`. */
export function serviceKey(namespace: string, service: string, port: string | number): string {
  return normalize(`${namespace}-${service}-${String(port)}`);
}

/** Ingress router key: `Normalize(ns-ingress-host+path)`, leading `-` trimmed. */
export function ingressRouterKey(namespace: string, ingress: string, host: string, path: string): string {
  return normalize(`${namespace}-${ingress}-${host}${path}`);
}

/** Traefik's second key for an Ingress path whose key collides: `<key>-<hex20(rule)>`. */
export function ingressRouterKeyWithHash(key: string, rule: string): string {
  return `${key}-${hex20(rule)}`;
}

/** The one default backend of the cluster (router and service). */
export const DEFAULT_BACKEND_ROUTER = 'default-router';
export const DEFAULT_BACKEND_SERVICE = 'default-backend';
/** Go's math.MinInt32: the default backend router's priority, below everything. */
export const DEFAULT_BACKEND_PRIORITY = -2147483648;

/** Plain code-unit order: deterministic and much faster than localeCompare on 10k keys. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
