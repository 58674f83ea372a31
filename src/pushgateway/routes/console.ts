import type { FastifyInstance, FastifyReply } from 'fastify';
import { renderConsolePage } from '../console/console-page.js';
import type { Gateway } from '../http/gateway.js';

/** The web console at `<prefix>/` (and `<prefix>/status`, as Pushgateway serves both). */
export function registerConsoleRoutes(app: FastifyInstance, gw: Gateway): void {
  const p = gw.settings.prefix;
  const page = async (_request: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').send(
      renderConsolePage({
        prefix: p,
        groups: gw.store.groups(gw.now()),
        enableAdminApi: gw.settings.enableAdminApi,
        version: gw.settings.version,
        startTimeMs: gw.settings.startTimeMs,
        flags: gw.settings.flags,
        ...(gw.store.replica !== undefined && { replica: gw.store.replica }),
      }),
    );
  app.get(`${p}/`, { config: { handler: 'status' } }, page);
  if (p !== '') app.get(p, { config: { handler: 'status' } }, page);
  app.get(`${p}/status`, { config: { handler: 'status' } }, page);
}
