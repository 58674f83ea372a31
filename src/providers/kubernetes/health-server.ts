import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../../config/flag-types.js';

/**
 * The operator's probes: `GET /healthz` answers 200 while the process runs; `GET /readyz` answers
 * 200 only once every watched resource was listed and the first snapshots were delivered, 503
 * with the reason before. Plain node:http: two fixed text answers need no framework.
 */

export interface HealthState {
  /** null when ready, else why not. */
  readonly notReadyReason: () => string | null;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(address: ListenAddress, state: HealthState): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (code: number, text: string) => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(`${text}\n`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
    if (path === '/healthz' || path === '/livez') return send(200, 'ok');
    if (path === '/readyz') {
      const reason = state.notReadyReason();
      return reason === null ? send(200, 'ok') : send(503, `not ready: ${reason}`);
    }
    return send(404, 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host === '' ? undefined : address.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
