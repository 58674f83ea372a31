import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger, LogFn } from 'pino';
import { requestIdSequence } from './request-ids.js';
import { DEFAULT_LISTENER_LIMITS, type ListenerLimits } from './listener-flags.js';
import { dialectClientErrorHandler, goPlainDialect, limitConnections, timeoutOptions, type ListenerDialect } from './listener-guard.js';
import { RateLimitedLog } from './rate-limited-log.js';
import { addShutdownGate } from './shutdown-gate.js';

export interface AppOptions {
  /** Largest request body in bytes (Fastify's bodyLimit). */
  readonly bodyLimit?: number;
  /** Extra Fastify options an area needs (e.g. routerOptions for its URL rules). */
  readonly fastify?: Pick<FastifyServerOptions, 'routerOptions' | 'trustProxy' | 'requestIdHeader' | 'frameworkErrors' | 'exposeHeadRoutes'>;
  /** Timeouts and connection limit (`--http.*`); default: the flags' defaults. */
  readonly limits?: ListenerLimits;
  /** How the HTTP layer's refusals are worded (408, 431, 400, too many connections); default: Go's plain text. */
  readonly dialect?: ListenerDialect;
  /** The process's request id sequence (AreaDeps.nextRequestId); default: this app's own. */
  readonly nextRequestId?: () => string;
}

/**
 * The logger of one request: Fastify asks for a pino child (bound to the request id) on every
 * request, which serializes the bindings and builds a logger object even though most requests
 * never log. This one makes the child on the first call that logs, so the lines are the same.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.opts) as FastifyBaseLogger);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: Parameters<LogFn>): void {
    this.real.fatal(...args);
  }

  error(...args: Parameters<LogFn>): void {
    this.real.error(...args);
  }

  warn(...args: Parameters<LogFn>): void {
    this.real.warn(...args);
  }

  info(...args: Parameters<LogFn>): void {
    this.real.info(...args);
  }

  // Levels usually off: no child is made just to drop the line.
  debug(...args: Parameters<LogFn>): void {
    if (this.made === undefined && !this.parent.isLevelEnabled('debug')) return;
    this.real.debug(...args);
  }

  trace(...args: Parameters<LogFn>): void {
    if (this.made === undefined && !this.parent.isLevelEnabled('trace')) return;
    this.real.trace(...args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * One Fastify instance per listener, sharing the process logger with an `area` binding.
 * Request lines are logged at debug level so that a push or search load does not flood the log;
 * errors are still logged by each area's error handler.
 */
export function createApp(area: string, logger: Logger, opts: AppOptions = {}): FastifyInstance {
  const areaLogger = logger.child({ area });
  const limits = opts.limits ?? DEFAULT_LISTENER_LIMITS;
  const dialect = opts.dialect ?? goPlainDialect;
  const warn = new RateLimitedLog(areaLogger);
  const app = Fastify({
    loggerInstance: areaLogger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (parent, bindings, childOpts) =>
      // A route's own level or serializers change the child's methods: make it as Fastify would.
      childOpts.level === undefined && childOpts.serializers === undefined
        ? new RequestLogger(parent as Logger, bindings, childOpts)
        : parent.child(bindings, childOpts),
    genReqId: opts.nextRequestId ?? requestIdSequence(),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    forceCloseConnections: 'idle',
    ...timeoutOptions(limits),
    clientErrorHandler: dialectClientErrorHandler(area, dialect, warn, (err) => areaLogger.trace({ err }, 'client error')),
    ...opts.fastify,
  });
  limitConnections(app.server, area, limits, dialect, warn);
  addShutdownGate(app, dialect);
  // The level is fixed for the life of the process: without debug the hook would only cost a
  // hook run per response. Callback style: an async hook costs a promise and a microtask turn.
  if (areaLogger.isLevelEnabled('debug')) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.debug(
        { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
        'request',
      );
      done();
    });
  }
  return app;
}
