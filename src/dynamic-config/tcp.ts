/** Traefik v3's TCP dynamic configuration (`dynamic.TCPConfiguration`). */
import type { Domain, Duration } from './http.js';

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
