import type { FastifyInstance } from 'fastify';
import type { AreaDeps } from '../area.js';
import type { ServeConfig } from '../config/flags.js';
import { createApp } from '../http/create-app.js';

/** Builds the search listener's app (Elasticsearch-compatible). */
export async function buildSearchApp(_config: ServeConfig, deps: AreaDeps): Promise<FastifyInstance> {
  const app = createApp('search', deps.logger);
  app.addHook('onSend', async (_req, reply) => {
    reply.header('X-Elastic-Product', 'Elasticsearch');
  });
  return app;
}
