import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';

export interface AppOptions {
  /** Largest request body in bytes (Fastify's bodyLimit). */
  readonly bodyLimit?: number;
  /** Extra Fastify options an area needs (e.g. routerOptions for its URL rules). */
  readonly fastify?: Pick<FastifyServerOptions, 'routerOptions' | 'trustProxy' | 'requestIdHeader' | 'genReqId' | 'frameworkErrors' | 'exposeHeadRoutes'>;
}

/**
 * One Fastify instance per listener, sharing the process logger with an `area` binding.
 * Request lines are logged at debug level so that a push or search load does not flood the log;
 * errors are still logged by each area's error handler.
 */
export function createApp(area: string, logger: Logger, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger.child({ area }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    forceCloseConnections: 'idle',
    ...opts.fastify,
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
  });
  return app;
}
