import type { FastifyInstance } from 'fastify';
import type { AreaDeps } from '../area.js';
import type { ServeConfig } from '../config/flags.js';
import { createApp } from '../http/create-app.js';

export interface ManagementApps {
  /** The Traefik-compatible API and dashboard. */
  readonly api: FastifyInstance;
  /** The loopback-only listener where providers (the operator) deliver snapshots; null when off. */
  readonly internal: FastifyInstance | null;
}

/** Builds the management API listener and its internal snapshot listener, sharing one record store. */
export async function buildManagementApps(_config: ServeConfig, deps: AreaDeps): Promise<ManagementApps> {
  const api = createApp('management', deps.logger);
  api.get('/ping', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
  return { api, internal: null };
}
