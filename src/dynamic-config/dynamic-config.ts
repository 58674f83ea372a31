/**
 * Traefik v3 dynamic configuration, as providers deliver it, and the internal snapshot contract.
 *
 * This file is the contract between the management API (which serves these records the way
 * Traefik's API does) and every provider: the file provider in this process and the operator,
 * which PUTs a whole {@link ProviderSnapshot} to the internal listener. Field names are exactly
 * Traefik v3's JSON names, so a configuration written for Traefik's file provider, or a record
 * copied from Traefik's `/api/rawdata`, reads unchanged. Keep it stable: add optional fields only.
 *
 * Names (keys of `routers`, `services`, …) are written unqualified, as a provider writes them
 * (`default-whoami-80`); the server appends `@<provider>`. References inside records (a router's
 * `service`, `middlewares`) may be unqualified (resolved against the same provider) or qualified
 * (`api@internal`, `auth@kubernetescrd`).
 */

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

export interface Domain {
  main?: string;
  sans?: string[];
}

export interface RouterTLSConfig {
  options?: string;
  certResolver?: string;
  domains?: Domain[];
}

export interface RouterObservabilityConfig {
  accessLogs?: boolean;
  metrics?: boolean;
  tracing?: boolean;
  traceVerbosity?: string;
  /** v3.7: Ingress metadata the Kubernetes provider attaches. */
  metadata?: {
    ingress?: { namespace?: string; ingressName?: string; serviceName?: string; servicePort?: string };
  };
}

export interface Router {
  entryPoints?: string[];
  middlewares?: string[];
  service?: string;
  rule?: string;
  /** v3.6+: names of parent routers (multi-layer routing). */
  parentRefs?: string[];
  /** Deprecated in v3 (`v2` or `v3`). */
  ruleSyntax?: string;
  /** 0 or absent: computed as the length of `rule`, as Traefik v3 does. */
  priority?: number;
  tls?: RouterTLSConfig;
  observability?: RouterObservabilityConfig;
}

export interface Server {
  url?: string;
  weight?: number;
  preservePath?: boolean;
  fenced?: boolean;
}

export interface Cookie {
  name?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: string;
  maxAge?: number;
  path?: string;
  domain?: string;
}

export interface Sticky {
  cookie?: Cookie;
}

/** Durations are Go duration strings (`"100ms"`, `"10s"`, `"3m0s"`). */
export type Duration = string;

export interface ServerHealthCheck {
  scheme?: string;
  mode?: string;
  path?: string;
  method?: string;
  status?: number;
  port?: number;
  interval?: Duration;
  unhealthyInterval?: Duration;
  timeout?: Duration;
  hostname?: string;
  followRedirects?: boolean;
  headers?: Record<string, string>;
}

export interface PassiveServerHealthCheck {
  failureWindow?: Duration;
  maxFailedAttempts?: number;
}

export interface ResponseForwarding {
  flushInterval?: Duration;
}

export interface ServersLoadBalancer {
  sticky?: Sticky;
  servers?: Server[];
  /** v3.4+: `wrr`, `p2c`, `hrw`, `leasttime`. */
  strategy?: string;
  healthCheck?: ServerHealthCheck;
  passiveHealthCheck?: PassiveServerHealthCheck;
  /** Traefik writes `null` when unset (a *bool without omitempty). */
  passHostHeader?: boolean | null;
  responseForwarding?: ResponseForwarding;
  serversTransport?: string;
}

export interface WRRService {
  name?: string;
  weight?: number;
  /** Traefik: status code answered when the service is unhealthy. */
  status?: number;
}

export interface HealthCheck {
  [key: string]: unknown;
}

export interface WeightedRoundRobin {
  services?: WRRService[];
  sticky?: Sticky;
  healthCheck?: HealthCheck;
}

export interface HighestRandomWeight {
  services?: WRRService[];
  healthCheck?: HealthCheck;
}

export interface MirrorService {
  name?: string;
  percent?: number;
}

export interface Mirroring {
  service?: string;
  mirrorBody?: boolean;
  maxBodySize?: number;
  mirrors?: MirrorService[];
  healthCheck?: HealthCheck;
}

export interface Failover {
  service?: string;
  fallback?: string;
  healthCheck?: HealthCheck;
  errors?: { status?: string[]; maxRequestBodyBytes?: number };
}

/** Exactly one of the kinds must be set; `type` in the API is its lower-cased key. */
export interface Service {
  middlewares?: string[];
  loadBalancer?: ServersLoadBalancer;
  highestRandomWeight?: HighestRandomWeight;
  weighted?: WeightedRoundRobin;
  mirroring?: Mirroring;
  failover?: Failover;
}

/** The service kinds in Traefik's struct order (the order `type` is looked up in). */
export const HTTP_SERVICE_KINDS = ['loadBalancer', 'highestRandomWeight', 'weighted', 'mirroring', 'failover'] as const;

/** A middleware's options: free-form beyond the common ones typed here. */
export type MiddlewareOptions = Record<string, unknown>;

/**
 * One middleware: exactly one key (`addPrefix`, `stripPrefix`, `basicAuth`, `headers`,
 * `ipAllowList`, `chain`, `plugin`, …) holding its options. `type` in the API is the lower-cased
 * key, or for `plugin` the lower-cased plugin name.
 */
export interface Middleware {
  addPrefix?: { prefix?: string };
  stripPrefix?: { prefixes?: string[]; forceSlash?: boolean };
  stripPrefixRegex?: { regex?: string[] };
  replacePath?: { path?: string };
  replacePathRegex?: { regex?: string; replacement?: string };
  chain?: { middlewares?: string[] };
  ipWhiteList?: MiddlewareOptions;
  ipAllowList?: { sourceRange?: string[]; ipStrategy?: MiddlewareOptions; rejectStatusCode?: number };
  headers?: MiddlewareOptions;
  errors?: { status?: string[]; statusRewrites?: Record<string, number>; service?: string; query?: string };
  rateLimit?: MiddlewareOptions;
  redirectRegex?: { regex?: string; replacement?: string; permanent?: boolean };
  redirectScheme?: { scheme?: string; port?: string; permanent?: boolean };
  basicAuth?: { users?: string[]; usersFile?: string; realm?: string; removeHeader?: boolean; headerField?: string };
  digestAuth?: MiddlewareOptions;
  forwardAuth?: MiddlewareOptions;
  inFlightReq?: MiddlewareOptions;
  buffering?: MiddlewareOptions;
  circuitBreaker?: MiddlewareOptions;
  compress?: MiddlewareOptions;
  passTLSClientCert?: MiddlewareOptions;
  retry?: MiddlewareOptions;
  contentType?: MiddlewareOptions;
  grpcWeb?: MiddlewareOptions;
  encodedCharacters?: MiddlewareOptions;
  plugin?: Record<string, MiddlewareOptions>;
  [kind: string]: unknown;
}

/** The middleware kinds in Traefik's struct order (`dynamic.Middleware`). */
export const HTTP_MIDDLEWARE_KINDS = [
  'addPrefix', 'stripPrefix', 'stripPrefixRegex', 'replacePath', 'replacePathRegex', 'chain', 'ipWhiteList',
  'ipAllowList', 'headers', 'errors', 'rateLimit', 'redirectRegex', 'redirectScheme', 'basicAuth', 'digestAuth',
  'forwardAuth', 'inFlightReq', 'buffering', 'circuitBreaker', 'compress', 'passTLSClientCert', 'retry',
  'contentType', 'grpcWeb', 'encodedCharacters', 'plugin',
] as const;

export interface ServersTransport {
  serverName?: string;
  insecureSkipVerify?: boolean;
  rootCAs?: string[];
  certificates?: { certFile?: string; keyFile?: string }[];
  maxIdleConnsPerHost?: number;
  forwardingTimeouts?: { dialTimeout?: Duration; responseHeaderTimeout?: Duration; idleConnTimeout?: Duration; readIdleTimeout?: Duration; pingTimeout?: Duration };
  disableHTTP2?: boolean;
  peerCertURI?: string;
  spiffe?: { ids?: string[]; trustDomain?: string };
  [key: string]: unknown;
}

export interface HTTPConfiguration {
  routers?: Record<string, Router>;
  services?: Record<string, Service>;
  middlewares?: Record<string, Middleware>;
  serversTransports?: Record<string, ServersTransport>;
}

// ---------------------------------------------------------------------------------------------
// TCP
// ---------------------------------------------------------------------------------------------

export interface RouterTCPTLSConfig {
  passthrough?: boolean;
  options?: string;
  certResolver?: string;
  domains?: Domain[];
}

export interface TCPRouter {
  entryPoints?: string[];
  middlewares?: string[];
  service?: string;
  rule?: string;
  ruleSyntax?: string;
  /** 0 or absent: `len(rule)`, or -1 for ``HostSNI(`*`)``, as Traefik v3 computes it. */
  priority?: number;
  tls?: RouterTCPTLSConfig;
}

export interface TCPServer {
  address?: string;
  tls?: boolean;
}

export interface TCPServersLoadBalancer {
  servers?: TCPServer[];
  serversTransport?: string;
  proxyProtocol?: { version?: number };
  terminationDelay?: number;
  healthCheck?: Record<string, unknown>;
}

export interface TCPWRRService {
  name?: string;
  weight?: number;
}

export interface TCPWeightedRoundRobin {
  services?: TCPWRRService[];
  healthCheck?: Record<string, unknown>;
}

export interface TCPService {
  loadBalancer?: TCPServersLoadBalancer;
  weighted?: TCPWeightedRoundRobin;
}

export const TCP_SERVICE_KINDS = ['loadBalancer', 'weighted'] as const;

export interface TCPMiddleware {
  inFlightConn?: { amount?: number };
  /** Deprecated: use ipAllowList. */
  ipWhiteList?: { sourceRange?: string[] };
  ipAllowList?: { sourceRange?: string[] };
}

export const TCP_MIDDLEWARE_KINDS = ['inFlightConn', 'ipWhiteList', 'ipAllowList'] as const;

export interface TCPServersTransport {
  dialTimeout?: Duration;
  dialKeepAlive?: Duration;
  terminationDelay?: Duration;
  proxyProtocol?: { version?: number };
  tls?: Record<string, unknown>;
}

export interface TCPConfiguration {
  routers?: Record<string, TCPRouter>;
  services?: Record<string, TCPService>;
  middlewares?: Record<string, TCPMiddleware>;
  serversTransports?: Record<string, TCPServersTransport>;
}

// ---------------------------------------------------------------------------------------------
// UDP
// ---------------------------------------------------------------------------------------------

export interface UDPRouter {
  entryPoints?: string[];
  service?: string;
}

export interface UDPServer {
  address?: string;
}

export interface UDPService {
  loadBalancer?: { servers?: UDPServer[] };
  weighted?: { services?: { name?: string; weight?: number }[] };
}

export const UDP_SERVICE_KINDS = ['loadBalancer', 'weighted'] as const;

export interface UDPConfiguration {
  routers?: Record<string, UDPRouter>;
  services?: Record<string, UDPService>;
}

// ---------------------------------------------------------------------------------------------
// TLS
// ---------------------------------------------------------------------------------------------

export interface TLSConfiguration {
  certificates?: { certFile?: string; keyFile?: string; stores?: string[] }[];
  options?: Record<string, Record<string, unknown>>;
  stores?: Record<string, Record<string, unknown>>;
}

// ---------------------------------------------------------------------------------------------
// What a provider delivers
// ---------------------------------------------------------------------------------------------

export interface DynamicConfiguration {
  http?: HTTPConfiguration;
  tcp?: TCPConfiguration;
  udp?: UDPConfiguration;
  tls?: TLSConfiguration;
}

export type ServerState = 'UP' | 'DOWN';

/**
 * One provider's complete state, replaced as a whole on every delivery.
 * `serverStatus` maps a service name (as written in `configuration`, unqualified) to the state
 * of each of its servers, keyed by URL (HTTP) or address (TCP). Servers not listed are `UP`, as
 * Traefik marks every server UP when it builds the load balancer. `version` is the provider's
 * own label for this snapshot (e.g. a content hash); the server computes one when absent.
 */
export interface ProviderSnapshot {
  configuration: DynamicConfiguration;
  serverStatus?: Record<string, Record<string, ServerState>>;
  version?: string;
}

// ---------------------------------------------------------------------------------------------
// Internal endpoint contract (the `internal` listener, loopback by default)
// ---------------------------------------------------------------------------------------------

/**
 * `PUT {INTERNAL_PROVIDERS_PATH}/{provider}` with `Authorization: Bearer <token>` and a
 * {@link ProviderSnapshot} body replaces that provider's snapshot → 200 {@link ProviderPutResponse}.
 * The body is format 1, one JSON document (`Content-Type: application/json`), or format 2, the same
 * snapshot as one line per record (`application/vnd.portico.snapshot.v2+jsonl`, see
 * snapshot-lines.ts), which the operator sends so that unchanged records cost the server nothing;
 * 400 `{"message"}` naming what is invalid (nothing applied); 401 `{"message"}` without a valid token.
 * `GET …/{provider}` → 200 {@link ProviderStatusResponse} or 404 `{"message"}` (a restarted server
 * has none: re-deliver). `DELETE …/{provider}` → 200 {@link ProviderPutResponse} or 404.
 * The token is the trimmed content of `--internal.token-file` (default `<data.dir>/internal-token`).
 */
export const INTERNAL_PROVIDERS_PATH = '/internal/v1/providers';

/** Provider names the internal endpoint accepts: lower-case letters, digits and dashes. */
export const PROVIDER_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Names the internal endpoint refuses to write: built-in records and the in-process file provider. */
export const RESERVED_PROVIDERS: readonly string[] = ['internal', 'file'];

export interface ProviderPutResponse {
  provider: string;
  version: string;
}

export interface ProviderStatusResponse {
  provider: string;
  version: string;
  /** RFC 3339 time the server accepted the snapshot. */
  receivedAt: string;
  /** Set for the file provider when the last read failed (the previous good snapshot is kept). */
  lastError?: string;
}
