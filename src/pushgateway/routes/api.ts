import type { FastifyInstance, FastifyReply } from 'fastify';
import { groupJson, formatRfc3339Nano } from '../http/api-json.js';
import type { Gateway } from '../http/gateway.js';

const CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'Accept, Authorization, Content-Type, Origin',
  'access-control-expose-headers': 'Date',
  'cache-control': 'no-cache, no-store, must-revalidate',
};

function json(reply: FastifyReply, data: unknown): FastifyReply {
  // A Buffer, so that Fastify does not append a charset: Pushgateway sends plain application/json.
  return reply.headers(CORS).type('application/json').send(Buffer.from(JSON.stringify({ status: 'success', data })));
}

/** Pushgateway's build_information, with Node's version where Go's would be. */
export function buildInformation(gw: Gateway): Record<string, string> {
  return { branch: '', buildDate: '', buildUser: '', goVersion: process.version, revision: '', version: gw.settings.version };
}

/** /api/v1/metrics, /api/v1/status, OPTIONS /api/v1/*, and PUT /api/v1/admin/wipe when enabled. */
export function registerApiRoutes(app: FastifyInstance, gw: Gateway): void {
  const p = gw.settings.prefix;
  app.route({
    method: 'GET',
    url: `${p}/api/v1/metrics`,
    config: { handler: 'api/v1/metrics' },
    handler: async (_request, reply) => json(reply, gw.store.groups(gw.now()).map(groupJson)),
  });
  app.route({
    method: 'GET',
    url: `${p}/api/v1/status`,
    config: { handler: 'api/v1/status' },
    handler: async (_request, reply) =>
      json(reply, {
        build_information: buildInformation(gw),
        flags: gw.settings.flags,
        start_time: formatRfc3339Nano(gw.settings.startTimeMs),
      }),
  });
  app.route({
    method: 'OPTIONS',
    url: `${p}/api/v1/*`,
    config: { handler: 'api/v1/options' },
    handler: async (_request, reply) => reply.headers(CORS).code(200).send(),
  });
  if (gw.settings.enableAdminApi) {
    app.route({
      method: 'PUT',
      url: `${p}/api/v1/admin/wipe`,
      config: { handler: 'wipe' },
      handler: async (_request, reply) => {
        await gw.store.wipe();
        return reply.code(202).send();
      },
    });
  }
}
