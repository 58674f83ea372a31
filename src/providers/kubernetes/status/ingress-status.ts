import type { AccessProblems } from '../client/access-problems.js';
import type { Logger } from 'pino';
import type { KubeApi } from '../client/kube-client.js';
import { isRecord, type KubeObject, type Service } from '../client/kube-objects.js';
import type { ObjectRef } from '../translate/shared/translation-types.js';

/**
 * `status.loadBalancer.ingress` of the Ingresses the operator serves, as Traefik's
 * `ingressEndpoint` options write it, so `kubectl get ingress` shows an ADDRESS and tools that
 * wait for one (Argo CD health, external-dns) work:
 * - `publishedService` (`<namespace>/<name>`) copies that Service's `status.loadBalancer.ingress`;
 *   a Service with none (a ClusterIP Service) gives nothing to write, as in Traefik: publishing a
 *   private cluster IP would mislead external-dns and fight any other controller's status;
 * - otherwise `ip` and/or `hostname` are written as one entry.
 * Written by the leader only, and only when it differs from what the Ingress already shows.
 */

/** Traefik's `ingressEndpoint`; '' means unset. */
export interface IngressEndpoint {
  readonly ip: string;
  readonly hostname: string;
  /** `<namespace>/<name>`; wins over `ip` and `hostname`. */
  readonly publishedService: string;
}

/**
 * One entry of an Ingress's `status.loadBalancer.ingress` (networking.k8s.io/v1
 * IngressLoadBalancerIngress): `ip`, `hostname` and `ports` only. A Service's entries also carry
 * `ipMode` (Kubernetes 1.29+, set on every LoadBalancer IP from 1.30); the Ingress type has no
 * such field, so the API server drops it and it must not be written or compared.
 */
export interface LoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
  readonly ports?: readonly PortStatus[];
}

/** IngressPortStatus: the port, its protocol, and the error the load balancer reports for it, if any. */
export interface PortStatus {
  readonly port: number;
  readonly protocol: string;
  readonly error?: string;
}

/** True when at least one option is set (otherwise Ingress status is left alone). */
export function ingressEndpointEnabled(e: IngressEndpoint): boolean {
  return e.ip !== '' || e.hostname !== '' || e.publishedService !== '';
}

/** `<namespace>/<name>` split, or an error text naming the bad value (Traefik's wording). */
export function parsePublishedService(value: string): { namespace: string; name: string } | { error: string } {
  const parts = value.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    return { error: `invalid publishedService format (expected 'namespace/service' format): ${value}` };
  }
  return { namespace: parts[0] as string, name: parts[1] as string };
}

/**
 * A `status.loadBalancer.ingress` list (a Service's or an Ingress's) as the Ingress API stores it:
 * known fields only, in the API's field order, empty values left out. Used both to build what is
 * written and to read what an Ingress shows, so the comparison sees what the server keeps.
 */
function lbIngressList(status: unknown): LoadBalancerIngress[] {
  const lb = isRecord(status) && isRecord(status.loadBalancer) ? status.loadBalancer : undefined;
  const list = lb && Array.isArray(lb.ingress) ? lb.ingress.filter(isRecord) : [];
  return list.map((e) => {
    const out: { ip?: string; hostname?: string; ports?: PortStatus[] } = {};
    if (typeof e.ip === 'string' && e.ip !== '') out.ip = e.ip;
    if (typeof e.hostname === 'string' && e.hostname !== '') out.hostname = e.hostname;
    const ports = Array.isArray(e.ports) ? e.ports.filter(isRecord).map(portStatus) : [];
    if (ports.length > 0) out.ports = ports;
    return out;
  });
}

function portStatus(p: Record<string, unknown>): PortStatus {
  const out: { port: number; protocol: string; error?: string } = {
    port: typeof p.port === 'number' ? p.port : 0,
    protocol: typeof p.protocol === 'string' ? p.protocol : '',
  };
  if (typeof p.error === 'string' && p.error !== '') out.error = p.error;
  return out;
}

/**
 * The addresses to write, given how to find the published Service. `addresses` undefined with no
 * error means "write nothing" (a published Service with no address yet).
 */
export function desiredAddresses(endpoint: IngressEndpoint, service: (namespace: string, name: string) => Service | undefined):
  { addresses?: LoadBalancerIngress[]; error?: string } {
  if (endpoint.publishedService === '') {
    if (endpoint.ip === '' && endpoint.hostname === '') return {};
    return { addresses: [{ ...(endpoint.ip !== '' ? { ip: endpoint.ip } : {}), ...(endpoint.hostname !== '' ? { hostname: endpoint.hostname } : {}) }] };
  }
  const ref = parsePublishedService(endpoint.publishedService);
  if ('error' in ref) return { error: ref.error };
  const svc = service(ref.namespace, ref.name);
  if (!svc) return { error: `missing service: ${endpoint.publishedService}` };
  const lb = lbIngressList(svc.status);
  return lb.length > 0 ? { addresses: lb } : {};
}

/** True when an Ingress's `status` already shows `desired` (compared as the API stores both). */
export function showsAddresses(status: unknown, desired: readonly LoadBalancerIngress[]): boolean {
  return JSON.stringify(lbIngressList(status)) === JSON.stringify(lbIngressList({ loadBalancer: { ingress: desired } }));
}

export interface IngressStatusDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly now: () => number;
  /** Where a refused write (RBAC) is noted and logged once instead of once per Ingress. */
  readonly access?: AccessProblems;
  /** The cached Ingress, to compare its current status. */
  readonly current: (ref: ObjectRef) => KubeObject | undefined;
  /** The cached Service, when its namespace is watched. */
  readonly cachedService: (namespace: string, name: string) => Service | undefined;
  /** Whether Services in `namespace` are watched (else the published Service is fetched). */
  readonly watchesNamespace: (namespace: string) => boolean;
}

/** Status PATCHes in flight at once. */
const PARALLEL_PATCHES = 8;

/** How long a fetched (not watched) published Service is reused, in ms. */
const FETCHED_SERVICE_TTL_MS = 10_000;

export class IngressStatusWriter {
  private fetched: { at: number; service: Service | undefined } | undefined;
  private lastError: string | undefined;

  constructor(private readonly endpoint: IngressEndpoint, private readonly deps: IngressStatusDeps) {}

  private async publishedService(namespace: string, name: string): Promise<Service | undefined> {
    if (this.deps.watchesNamespace(namespace)) return this.deps.cachedService(namespace, name);
    const now = this.deps.now();
    if (this.fetched && now - this.fetched.at < FETCHED_SERVICE_TTL_MS) return this.fetched.service;
    const res = await this.deps.api.request('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`cannot get service ${namespace}/${name}, received HTTP ${res.status}`);
    const service = res.status === 200 ? res.body as Service : undefined;
    this.fetched = { at: now, service };
    return service;
  }

  /** Writes the addresses to every served Ingress that does not show them; returns how many were written. */
  async write(served: readonly ObjectRef[]): Promise<number> {
    let resolved: { addresses?: LoadBalancerIngress[]; error?: string };
    try {
      const ref = parsePublishedService(this.endpoint.publishedService);
      const svc = this.endpoint.publishedService !== '' && !('error' in ref) ? await this.publishedService(ref.namespace, ref.name) : undefined;
      resolved = desiredAddresses(this.endpoint, () => svc);
    } catch (err) {
      resolved = { error: err instanceof Error ? err.message : String(err) };
    }
    if (resolved.error !== undefined) {
      // Logged once per distinct problem: the operator re-checks on every change.
      if (resolved.error !== this.lastError) this.deps.logger.warn({ error: resolved.error }, 'cannot update Ingress status');
      this.lastError = resolved.error;
      return 0;
    }
    this.lastError = undefined;
    const addresses = resolved.addresses;
    if (addresses === undefined) return 0;
    const todo = served.filter((ref) => {
      const obj = this.deps.current(ref);
      return obj !== undefined && !showsAddresses(obj.status, addresses);
    });
    let written = 0;
    let next = 0;
    const worker = async () => {
      while (next < todo.length) written += await this.patch(todo[next++] as ObjectRef, addresses);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_PATCHES, todo.length) }, worker));
    return written;
  }

  /** One merge patch of the `/status` subresource (a list in a merge patch replaces the list). */
  private async patch(ref: ObjectRef, addresses: readonly LoadBalancerIngress[]): Promise<number> {
    const path = `/apis/networking.k8s.io/v1/namespaces/${encodeURIComponent(ref.namespace)}/ingresses/${encodeURIComponent(ref.name)}/status`;
    try {
      const res = await this.deps.api.request('PATCH', path, { body: { status: { loadBalancer: { ingress: addresses } } }, contentType: 'application/merge-patch+json', discardBody: true });
      const key = { verb: 'patch', resource: 'ingresses.networking.k8s.io/status', namespace: ref.namespace };
      const refused = this.deps.access?.note(key, res.status, res.body) === true;
      if (res.status === 200) return 1;
      if (!refused && res.status !== 404) this.deps.logger.warn({ ingress: `${ref.namespace}/${ref.name}`, status: res.status }, 'Ingress status update failed');
    } catch (err) {
      this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'Ingress status update failed');
    }
    return 0;
  }
}
