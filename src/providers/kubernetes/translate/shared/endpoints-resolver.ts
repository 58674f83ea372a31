import type { ServerState } from '../../../../dynamic-config/configuration.js';
import type { Server } from '../../../../dynamic-config/http.js';
import type { EndpointSlice, Secret, Service, ServicePort } from '../../client/kube-objects.js';

/** Read access to the cached Services and EndpointSlices (the translation never calls the API). */
export interface ClusterView {
  service(namespace: string, name: string): Service | undefined;
  /**
   * Every EndpointSlice labelled `kubernetes.io/service-name: <name>` in the namespace. A view
   * that returns the same array while a Service's slices are unchanged lets `memo` work.
   */
  endpointSlices(namespace: string, serviceName: string): readonly EndpointSlice[];
  /** The cached Secret, when Secrets are read (middleware credentials); objects are immutable. */
  secret?(namespace: string, name: string): Secret | undefined;
  /**
   * Resolutions kept between translations: reused while the Service object and its slice array
   * are the same instances (objects are immutable once cached, so identity is version).
   */
  readonly memo?: Map<string, MemoEntry>;
}

export interface MemoEntry {
  readonly service: Service | undefined;
  readonly slices: readonly EndpointSlice[];
  readonly result: ResolvedServers<unknown>;
}

function memoized<S>(view: ClusterView, kind: string, ref: BackendRef, compute: () => ResolvedServers<S>): ResolvedServers<S> {
  const memo = view.memo;
  if (!memo) return compute();
  const service = view.service(ref.namespace, ref.name);
  const slices = view.endpointSlices(ref.namespace, ref.name);
  // A declared port is keyed by its place in the Service: a reference by name (an Ingress's
  // `http`) and one by number (an IngressRoute's `80`) share one result (and its servers).
  const declared = service ? (service.spec?.ports ?? []).indexOf(findPort(service, ref.port) as ServicePort) : -1;
  const port = declared >= 0 ? `#${declared}` : String(ref.port);
  const key = `${kind}|${ref.namespace}|${ref.name}|${port}|${ref.scheme ?? ''}|${ref.nativeLB === true ? 1 : 0}|${ref.allowExternalName === false ? 0 : 1}|${ref.externalNameAnyPort === true ? 1 : 0}`;
  const hit = memo.get(key);
  if (hit && hit.service === service && hit.slices === slices) return hit.result as ResolvedServers<S>;
  const result = compute();
  memo.set(key, { service, slices, result });
  return result;
}

/** Why a backend could not be resolved; `reason` is the CamelCase condition reason. */
export interface BackendError {
  readonly reason: 'ServiceNotFound' | 'PortNotFound' | 'NoEndpoints' | 'InvalidBackend' | 'ExternalNameNotAllowed';
  readonly message: string;
}

export interface ResolvedServers<S> {
  readonly servers: S[];
  /** URL or address → UP/DOWN, from endpoint readiness. */
  readonly status: Record<string, ServerState>;
  /** Set when the backend is missing or empty; `servers` is then empty. */
  readonly error?: BackendError;
  /** The Service port used (for Ingress metadata). */
  readonly port?: ServicePort;
}

export interface BackendRef {
  readonly namespace: string;
  readonly name: string;
  /** A port number or a port name; undefined takes the Service's only port. */
  readonly port: string | number | undefined;
  /** `http`, `https` or `h2c`; default from the port (443 or a name starting with `https`). */
  readonly scheme?: string;
  /** Use the Service's cluster IP instead of its endpoints. */
  readonly nativeLB?: boolean;
  /** False refuses ExternalName Services (Traefik's `allowExternalNameServices`); default true. */
  readonly allowExternalName?: boolean;
  /**
   * A numeric port an ExternalName Service does not declare (such Services often declare none) is
   * used as given, as Traefik's CRD provider does; its Ingress provider requires a declared port.
   * Default false.
   */
  readonly externalNameAnyPort?: boolean;
}

function findPort(service: Service, port: string | number | undefined): ServicePort | undefined {
  const ports = service.spec?.ports ?? [];
  if (port === undefined || port === '') return ports.length === 1 ? ports[0] : undefined;
  if (typeof port === 'number') return ports.find((p) => p.port === port);
  if (/^\d+$/.test(port)) return ports.find((p) => p.port === Number(port)) ?? ports.find((p) => p.name === port);
  return ports.find((p) => p.name === port);
}

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function describePort(port: string | number | undefined): string {
  return port === undefined ? '(none)' : String(port);
}

/** Called once per distinct endpoint address and port, in slice order; see walkEndpoints. */
type EndpointVisitor = (hostPort: string, ready: boolean, terminating: boolean) => void;

/**
 * Resolves a Service port to its endpoints: Traefik's EndpointSlice walk (§5.1 "Servers"). Each
 * endpoint goes to `visit` as `address:port` (`[v6]:port`); the caller drops repeats (the same
 * address in two slices), which its own server table already tells apart: a Set and an array of
 * endpoint objects per Service in between were a third of the resolution's time.
 */
function walkEndpoints(view: ClusterView, ref: BackendRef, service: Service, svcPort: ServicePort, visit: EndpointVisitor): { external: string } | undefined {
  const spec = service.spec ?? {};
  const port = svcPort.port ?? 0;
  if (spec.type === 'ExternalName') return { external: hostPort(spec.externalName ?? '', port) };
  if (ref.nativeLB === true && spec.clusterIP && spec.clusterIP !== 'None') {
    visit(hostPort(spec.clusterIP, port), true, false);
    return undefined;
  }
  const wantName = svcPort.name ?? '';
  for (const slice of view.endpointSlices(ref.namespace, ref.name)) {
    const slicePort = (slice.ports ?? []).find((p) => (p.name ?? '') === wantName);
    if (!slicePort || typeof slicePort.port !== 'number') continue;
    for (const ep of slice.endpoints ?? []) {
      const c = ep.conditions ?? {};
      const ready = c.ready !== false;
      const terminating = c.terminating === true;
      for (const address of ep.addresses ?? []) visit(hostPort(address, slicePort.port), ready, terminating);
    }
  }
  return undefined;
}

function undeclaredExternalNamePort(service: Service, ref: BackendRef): ServicePort | undefined {
  if (ref.externalNameAnyPort !== true || service.spec?.type !== 'ExternalName') return undefined;
  const n = typeof ref.port === 'number' ? ref.port : typeof ref.port === 'string' && /^\d+$/.test(ref.port) ? Number(ref.port) : 0;
  return n > 0 && n <= 65535 ? { port: n } : undefined;
}

function lookup(view: ClusterView, ref: BackendRef): { service: Service; port: ServicePort } | BackendError {
  const service = view.service(ref.namespace, ref.name);
  if (!service) return { reason: 'ServiceNotFound', message: `service ${ref.namespace}/${ref.name} not found` };
  // Before the port, as Traefik does: an ExternalName Service often declares no port at all.
  if (service.spec?.type === 'ExternalName' && ref.allowExternalName === false) {
    return { reason: 'ExternalNameNotAllowed', message: `externalName services not allowed: ${ref.namespace}/${ref.name}` };
  }
  const port = findPort(service, ref.port) ?? undeclaredExternalNamePort(service, ref);
  if (!port) {
    return { reason: 'PortNotFound', message: `service port ${describePort(ref.port)} not found in service ${ref.namespace}/${ref.name}` };
  }
  return { service, port };
}

/** The URL scheme Traefik picks: explicit, else https for port 443 or a port name starting with `https`. */
export function schemeFor(port: ServicePort, explicit: string | undefined): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  return port.port === 443 || (port.name ?? '').startsWith('https') ? 'https' : 'http';
}

/**
 * HTTP servers (`<scheme>://<ip>:<port>`). Every endpoint is a server, `status` UP when it is ready
 * and DOWN when not, and a terminating one is `fenced`. Traefik leaves endpoints that are not
 * serving out of the list; we keep them, marked DOWN, so the API shows which pods are not ready
 * instead of hiding them (the management API reports `serverStatus` for listed servers only).
 */
export function resolveHttpServers(view: ClusterView, ref: BackendRef): ResolvedServers<Server> {
  return memoized(view, 'http', ref, () => computeHttpServers(view, ref));
}

function computeHttpServers(view: ClusterView, ref: BackendRef): ResolvedServers<Server> {
  const found = lookup(view, ref);
  if ('reason' in found) return { servers: [], status: {}, error: found };
  const prefix = `${schemeFor(found.port, ref.scheme)}://`;
  const servers: Server[] = [];
  const status = serverStates();
  const external = walkEndpoints(view, ref, found.service, found.port, (address, ready, terminating) => {
    const url = prefix + address;
    if (status[url] !== undefined) return;
    status[url] = ready ? 'UP' : 'DOWN';
    servers.push(terminating ? { url, fenced: true } : { url });
  });
  if (external) {
    const url = prefix + external.external;
    return { servers: [{ url }], status: { [url]: 'UP' }, port: found.port };
  }
  if (servers.length === 0) {
    return {
      servers, status, port: found.port,
      error: { reason: 'NoEndpoints', message: `no servers found for ${ref.namespace}/${ref.name}` },
    };
  }
  return { servers, status, port: found.port };
}

/**
 * A server → state table. Its keys (server addresses) are unique to it: built on `{}`, every one
 * of thousands of tables walked V8's hidden-class transitions from the empty object (about twice
 * the time, and more memory); a prototype-less object is a plain dictionary from the start.
 */
function serverStates(): Record<string, ServerState> {
  return Object.create(null) as Record<string, ServerState>;
}

/** TCP/UDP servers (`<ip>:<port>`), with the same readiness rules as HTTP. */
export function resolveAddresses(view: ClusterView, ref: BackendRef): ResolvedServers<{ address: string }> {
  return memoized(view, 'l4', ref, () => computeAddresses(view, ref));
}

function computeAddresses(view: ClusterView, ref: BackendRef): ResolvedServers<{ address: string }> {
  const found = lookup(view, ref);
  if ('reason' in found) return { servers: [], status: {}, error: found };
  const servers: { address: string }[] = [];
  const status = serverStates();
  const external = walkEndpoints(view, ref, found.service, found.port, (address, ready) => {
    if (status[address] !== undefined) return;
    status[address] = ready ? 'UP' : 'DOWN';
    servers.push({ address });
  });
  if (external) return { servers: [{ address: external.external }], status: { [external.external]: 'UP' }, port: found.port };
  if (servers.length === 0) {
    return {
      servers, status, port: found.port,
      error: { reason: 'NoEndpoints', message: `no servers found for ${ref.namespace}/${ref.name}` },
    };
  }
  return { servers, status, port: found.port };
}
