/**
 * Objects the operator suites apply to the real control plane: a whoami Service with its
 * EndpointSlice, Ingresses and CRD objects, in the shapes the API server accepts.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from './chart-objects.js';

export const b64 = (s: string): string => Buffer.from(s).toString('base64');
/** The `{SHA}` hash Traefik shows for a basic-auth password. */
export const sha = (s: string): string => createHash('sha1').update(s).digest('base64');

export function service(name: string, namespace = 'default', spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...spec } };
}

/** An EndpointSlice of `svc`: each address with its ready flag. */
export function endpointSlice(svc: string, endpoints: readonly [string, boolean][], namespace = 'default', name = `${svc}-1`): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: endpoints.map(([ip, ready]) => ({ addresses: [ip], conditions: { ready, serving: ready } })),
  };
}

export function ingress(name: string, host: string, opts: { service?: string; namespace?: string; className?: string; annotations?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name, namespace: opts.namespace ?? 'default', ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      ...(opts.className !== undefined ? { ingressClassName: opts.className } : {}),
      rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: opts.service ?? 'whoami', port: { name: 'http' } } } }] } }],
    },
  };
}

export function crd(kind: string, name: string, spec: Record<string, unknown>, namespace = 'default'): KubeObject {
  return { apiVersion: 'portico.dev/v1alpha1', kind, metadata: { name, namespace }, spec };
}

export function ingressRoute(name: string, match: string, extra: Record<string, unknown> = {}, namespace = 'default'): KubeObject {
  return crd('IngressRoute', name, { entryPoints: ['web'], routes: [{ match, kind: 'Rule', services: [{ name: 'whoami', port: 80 }], ...extra }] }, namespace);
}

/** The `type` condition of a CRD object's status. */
export function condition(o: KubeObject | undefined, type: string): Record<string, any> | undefined { // eslint-disable-line @typescript-eslint/no-explicit-any -- a condition as the server stores it
  return ((o?.status?.conditions ?? []) as { type: string }[]).find((c) => c.type === type);
}
