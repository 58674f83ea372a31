import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Gateway } from '../http/gateway.js';

function text(reply: FastifyReply, code: number, body: string): FastifyReply {
  return reply.code(code).type('text/plain; charset=utf-8').send(body);
}

/**
 * /-/healthy and /-/ready ("OK": the store is never locked, there is no write queue to fill;
 * with Redis, /-/ready waits until the replica has read the shared groups once), and /-/quit
 * behind --web.enable-lifecycle.
 */
export function registerLifecycleRoutes(app: FastifyInstance, gw: Gateway): void {
  const p = gw.settings.prefix;
  app.get(`${p}/-/healthy`, { config: { handler: 'healthy' } }, async (_r, reply) => text(reply, 200, 'OK'));
  app.get(`${p}/-/ready`, { config: { handler: 'ready' } }, async (_r, reply) =>
    gw.store.ready === false ? text(reply, 503, 'Waiting for the shared store (Redis): this replica has not read the pushed groups yet.\n') : text(reply, 200, 'OK'),
  );
  app.route({
    method: ['PUT', 'POST'],
    url: `${p}/-/quit`,
    config: { handler: 'quit' },
    handler: async (_request, reply) => {
      if (!gw.settings.enableLifecycle) return text(reply, 403, 'Lifecycle API is not enabled.\n');
      // Shut down only once the answer is on its way.
      reply.raw.once('finish', () => gw.requestShutdown('/-/quit'));
      return text(reply, 200, 'Requesting termination... Goodbye!');
    },
  });
  app.get('/-/quit', async (_r, reply) => text(reply, 405, 'Only POST or PUT requests allowed.\n'));
}
