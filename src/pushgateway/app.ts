import type { FastifyInstance } from 'fastify';
import type { AreaDeps } from '../area.js';
import type { ServeConfig } from '../config/flags.js';
import { createApp } from '../http/create-app.js';

/** Builds the push gateway listener's app (Pushgateway-compatible). */
export async function buildPushgatewayApp(_config: ServeConfig, deps: AreaDeps): Promise<FastifyInstance> {
  const app = createApp('pushgateway', deps.logger);
  app.get('/-/healthy', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
  app.get('/-/ready', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('OK'));
  return app;
}
