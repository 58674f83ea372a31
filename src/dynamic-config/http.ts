/** Traefik v3's HTTP dynamic configuration (`dynamic.HTTPConfiguration`): routers, services, middlewares, transports. */

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
