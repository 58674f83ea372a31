/** Traefik v3's UDP dynamic configuration (`dynamic.UDPConfiguration`). */

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
