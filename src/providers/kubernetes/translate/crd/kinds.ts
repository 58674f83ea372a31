/** The CRD kinds the operator reads, in Portico's group and (optionally) Traefik's. */

export const PORTICO_GROUP = 'portico.dev';
export const TRAEFIK_GROUP = 'traefik.io';
export const CRD_VERSION = 'v1alpha1';

export type CrdKind = 'IngressRoute' | 'IngressRouteTCP' | 'IngressRouteUDP' | 'Middleware' | 'MiddlewareTCP' | 'TraefikService';

export const CRD_KINDS: readonly { readonly kind: CrdKind; readonly plural: string; readonly singular: string; readonly short?: string }[] = [
  { kind: 'IngressRoute', plural: 'ingressroutes', singular: 'ingressroute' },
  { kind: 'IngressRouteTCP', plural: 'ingressroutetcps', singular: 'ingressroutetcp' },
  { kind: 'IngressRouteUDP', plural: 'ingressrouteudps', singular: 'ingressrouteudp' },
  { kind: 'Middleware', plural: 'middlewares', singular: 'middleware' },
  { kind: 'MiddlewareTCP', plural: 'middlewaretcps', singular: 'middlewaretcp' },
  { kind: 'TraefikService', plural: 'traefikservices', singular: 'traefikservice' },
];

export function pluralOf(kind: CrdKind): string {
  return (CRD_KINDS.find((k) => k.kind === kind) as { plural: string }).plural;
}

/** `group/version` → group, for objects whose apiVersion says where they came from. */
export function groupOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const slash = v.indexOf('/');
  return slash < 0 ? '' : v.slice(0, slash);
}
