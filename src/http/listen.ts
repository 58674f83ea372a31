import type { FastifyInstance } from 'fastify';
import type { ListenAddress } from '../config/flag-types.js';

/**
 * Listens on a parsed address. An empty host means every interface, like Go's `:9091`: we try
 * the dual-stack `::` first and fall back to `0.0.0.0` on hosts without IPv6.
 * Returns the bound port (useful with port 0).
 */
export async function listenOn(app: FastifyInstance, address: ListenAddress): Promise<number> {
  // Fastify's own line when a listener is up ("Server listening at ..."), worded as Portico's are.
  const listenTextResolver = (url: string) => `listening on ${url}`;
  if (address.host !== '') {
    await app.listen({ host: address.host, port: address.port, listenTextResolver });
  } else {
    try {
      await app.listen({ host: '::', port: address.port, listenTextResolver });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL') throw err;
      await app.listen({ host: '0.0.0.0', port: address.port, listenTextResolver });
    }
  }
  const bound = app.server.address();
  return typeof bound === 'object' && bound !== null ? bound.port : address.port;
}

/** `host:port` text of a listen address, for logs. */
export function formatAddress(address: ListenAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
