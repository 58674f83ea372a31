import type { Service, ServersLoadBalancer } from '../../../../dynamic-config/http.js';
import type { TCPService } from '../../../../dynamic-config/tcp.js';
import type { UDPService } from '../../../../dynamic-config/udp.js';
import { resolveAddresses, resolveHttpServers, type ClusterView } from '../shared/endpoints-resolver.js';
import { isRecord } from '../../client/kube-objects.js';
import { crdReference, serviceKey } from '../shared/naming.js';
import type { ReferencePolicy } from '../shared/reference-policy.js';
import type { ConfigBuilder, Problem } from '../shared/translation-types.js';

/**
 * Traefik's `LoadBalancerSpec` (a service entry in an IngressRoute or a TraefikService) turned into
 * records. A `kind: Service` entry becomes a load balancer over the Service's endpoints; a
 * `kind: TraefikService` entry is a reference to another record.
 */

/** The fields of a LoadBalancerSpec we read; everything is checked, the object is user input. */
export type LoadBalancerSpec = Record<string, unknown>;

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function portOf(spec: LoadBalancerSpec): string | number | undefined {
  const p = spec.port;
  if (typeof p === 'number') return p;
  if (typeof p === 'string' && p !== '') return /^\d+$/.test(p) ? Number(p) : p;
  return undefined;
}

export function isTraefikServiceRef(spec: LoadBalancerSpec): boolean {
  return spec.kind === 'TraefikService';
}

/** `weight` as Traefik defaults it: 1 when unset. */
export function weightOf(spec: LoadBalancerSpec): number {
  return Number.isInteger(spec.weight) && (spec.weight as number) >= 0 ? (spec.weight as number) : 1;
}

/** The name a TraefikService reference resolves to. */
export function traefikServiceRef(spec: LoadBalancerSpec, ns: string): string {
  return crdReference(str(spec.name) ?? '', str(spec.namespace), ns);
}

/** Adds an HTTP load balancer for a `kind: Service` entry under `key`; problems go to `problems`. */
export function addHttpLoadBalancer(out: ConfigBuilder, view: ClusterView, policy: ReferencePolicy, ns: string, spec: LoadBalancerSpec, key: string, problems: Problem[]): void {
  if (out.httpServices[key]) return;
  const name = str(spec.name);
  if (!name) {
    problems.push({ kind: 'accept', reason: 'InvalidSpec', message: 'a service entry has no name' });
    return;
  }
  const namespace = str(spec.namespace) ?? ns;
  const resolved = resolveHttpServers(view, {
    namespace, name, port: portOf(spec), scheme: str(spec.scheme), nativeLB: spec.nativeLB === true,
    allowExternalName: policy.allowExternalNameServices, externalNameAnyPort: true,
  });
  if (resolved.error) {
    problems.push({ kind: 'refs', reason: resolved.error.reason, message: resolved.error.message });
    // A refused backend leaves no record: the router then shows "the service … does not exist".
    if (resolved.error.reason !== 'NoEndpoints' || !policy.allowEmptyServices) return;
  }
  const lb: ServersLoadBalancer = {};
  if (isRecord(spec.sticky)) lb.sticky = spec.sticky;
  lb.servers = resolved.servers;
  lb.strategy = str(spec.strategy) ?? 'wrr';
  if (isRecord(spec.healthCheck)) lb.healthCheck = spec.healthCheck;
  if (isRecord(spec.passiveHealthCheck)) lb.passiveHealthCheck = spec.passiveHealthCheck;
  lb.passHostHeader = typeof spec.passHostHeader === 'boolean' ? spec.passHostHeader : true;
  const flush = isRecord(spec.responseForwarding) ? str(spec.responseForwarding.flushInterval) : undefined;
  lb.responseForwarding = { flushInterval: flush ?? '100ms' };
  const transport = str(spec.serversTransport);
  if (transport) lb.serversTransport = crdReference(transport, undefined, ns);
  const svc: Service = { loadBalancer: lb };
  if (Array.isArray(spec.middlewares)) {
    svc.middlewares = spec.middlewares.filter(isRecord).map((m) => crdReference(str(m.name) ?? '', str(m.namespace), ns));
  }
  out.httpServices[key] = svc;
  if (Object.keys(resolved.status).length > 0) out.serverStatus[key] = resolved.status;
}

/**
 * The name a list entry of an IngressRoute, weighted or mirroring TraefikService contributes:
 * a reference for TraefikService entries, else a child load balancer `Normalize(ns-svc-port)`.
 */
export function childServiceName(out: ConfigBuilder, view: ClusterView, policy: ReferencePolicy, ns: string, spec: LoadBalancerSpec, problems: Problem[]): string {
  if (isTraefikServiceRef(spec)) return traefikServiceRef(spec, ns);
  const namespace = str(spec.namespace) ?? ns;
  const port = portOf(spec);
  const key = serviceKey(namespace, str(spec.name) ?? '', port ?? '');
  addHttpLoadBalancer(out, view, policy, ns, spec, key, problems);
  return key;
}

/**
 * Resolves a TCP or UDP service entry to addresses, recording why it cannot be used; undefined
 * when no record should be made (a Service with no endpoints still gets one, with no servers).
 */
function resolveL4Entry(view: ClusterView, policy: ReferencePolicy, ns: string, spec: LoadBalancerSpec, problems: Problem[]): ReturnType<typeof resolveAddresses> | undefined {
  const name = str(spec.name);
  if (name?.includes('@')) {
    problems.push({ kind: 'accept', reason: 'InvalidSpec', message: `service name "${name}" is not a Kubernetes Service name` });
    return undefined;
  }
  if (!name) {
    problems.push({ kind: 'accept', reason: 'InvalidSpec', message: 'a service entry has no name' });
    return undefined;
  }
  const resolved = resolveAddresses(view, {
    namespace: str(spec.namespace) ?? ns, name, port: portOf(spec), nativeLB: spec.nativeLB === true, allowExternalName: policy.allowExternalNameServices,
    externalNameAnyPort: true,
  });
  if (resolved.error) {
    problems.push({ kind: 'refs', reason: resolved.error.reason, message: resolved.error.message });
    if (resolved.error.reason !== 'NoEndpoints' || !policy.allowEmptyServices) return undefined;
  }
  return resolved;
}

/** TCP load balancer for one IngressRouteTCP service entry. */
export function addTcpLoadBalancer(out: ConfigBuilder, view: ClusterView, policy: ReferencePolicy, ns: string, spec: LoadBalancerSpec, key: string, problems: Problem[]): void {
  if (out.tcpServices[key]) return;
  const resolved = resolveL4Entry(view, policy, ns, spec, problems);
  if (!resolved) return;
  const tls = spec.tls === true;
  const lb: NonNullable<TCPService['loadBalancer']> = { servers: resolved.servers.map((s) => (tls ? { address: s.address, tls } : s)) };
  const transport = str(spec.serversTransport);
  if (transport) lb.serversTransport = crdReference(transport, undefined, ns);
  if (isRecord(spec.proxyProtocol)) lb.proxyProtocol = spec.proxyProtocol;
  if (Number.isInteger(spec.terminationDelay)) lb.terminationDelay = spec.terminationDelay as number;
  out.tcpServices[key] = { loadBalancer: lb };
  if (Object.keys(resolved.status).length > 0) out.serverStatus[key] = resolved.status;
}

/** UDP load balancer for one IngressRouteUDP service entry (UDP records have no serverStatus). */
export function addUdpLoadBalancer(out: ConfigBuilder, view: ClusterView, policy: ReferencePolicy, ns: string, spec: LoadBalancerSpec, key: string, problems: Problem[]): void {
  if (out.udpServices[key]) return;
  const resolved = resolveL4Entry(view, policy, ns, spec, problems);
  if (!resolved) return;
  const svc: UDPService = { loadBalancer: { servers: resolved.servers } };
  out.udpServices[key] = svc;
}

/** `<key>-<svc>-<port>`: the child names of a TCP/UDP route with several services. */
export function l4ChildKey(key: string, spec: LoadBalancerSpec): string {
  // Record names may not hold `@` (the server appends `@provider`); such entries are refused above.
  return `${key}-${str(spec.name) ?? ''}-${String(portOf(spec) ?? '')}`.replaceAll('@', '-');
}
