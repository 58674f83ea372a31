import { STATUS_CODES, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { ListenerLimits } from './listener-flags.js';
import type { RateLimitedLog } from './rate-limited-log.js';

/** A refusal written before or instead of routing, in a listener's dialect. */
export interface Refusal {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * How a listener words the refusals of its HTTP layer: a client too slow (408), headers too large
 * (431), a request the parser refuses (400), and too many connections (`overloadStatus`).
 */
export interface ListenerDialect {
  /** 503 for the Go servers (Pushgateway, Traefik), 429 for Elasticsearch (`es_rejected_execution_exception`). */
  readonly overloadStatus: 429 | 503;
  refusal(status: number, reason: string): Refusal;
}

/** Go's net/http wording, which Pushgateway and Traefik answer with: `408 Request Timeout` as text. */
export const goPlainDialect: ListenerDialect = {
  overloadStatus: 503,
  refusal: (status, reason) => ({
    status,
    contentType: 'text/plain; charset=utf-8',
    body: `${status} ${STATUS_CODES[status] ?? ''}: ${reason}\n`,
  }),
};

/** Fastify's JSON error shape: the internal listener's dialect. */
export const fastifyDialect: ListenerDialect = {
  overloadStatus: 503,
  refusal: (status, reason) => ({
    status,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({ statusCode: status, error: STATUS_CODES[status] ?? '', message: reason }),
  }),
};

/** A whole HTTP/1.1 response that closes the connection. */
export function rawResponse(r: Refusal): string {
  let head = `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\ncontent-type: ${r.contentType}\r\n`;
  for (const [k, v] of Object.entries(r.headers ?? {})) head += `${k}: ${v}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(r.body)}\r\nconnection: close\r\n\r\n${r.body}`;
}

/** The Fastify options that apply the timeouts (Node's HTTP server enforces them). */
export function timeoutOptions(limits: ListenerLimits): Pick<FastifyServerOptions, 'keepAliveTimeout' | 'requestTimeout'> & { http: ServerOptions } {
  // Node checks the header and request timeouts on a timer (every 30 s by default): check often
  // enough that a slow client is cut within a quarter of its timeout past it.
  const shortest = limits.requestTimeoutMs > 0 ? Math.min(limits.headerTimeoutMs, limits.requestTimeoutMs) : limits.headerTimeoutMs;
  const connectionsCheckingInterval = Math.max(25, Math.min(30_000, Math.floor(shortest / 4)));
  return {
    keepAliveTimeout: limits.idleTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: limits.headerTimeoutMs, requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.idleTimeoutMs, connectionsCheckingInterval },
  };
}

/** The response a socket is writing, if Node has started one (then nothing may be written raw). */
function responseStarted(socket: Socket): boolean {
  // Node's own default clientError handler reads the same private field for the same reason.
  const message = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return message?.headersSent === true;
}

/**
 * The clientError handler: requests the HTTP parser refuses, and clients too slow to send their
 * headers or body, answered in the dialect and disconnected. Timeouts are logged (rate-limited):
 * many of them are what a slowloris looks like.
 */
export function dialectClientErrorHandler(name: string, dialect: ListenerDialect, warn: RateLimitedLog, trace: (err: Error) => void): NonNullable<FastifyServerOptions['clientErrorHandler']> {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (status === 408) warn.warn('timeout', { listener: name, remote: socket.remoteAddress }, 'a client was too slow sending its request (--http.header-timeout, --http.request-timeout); disconnected');
    else trace(error);
    const reason = status === 431 ? 'request headers are larger than the limit' : status === 408 ? 'request timed out' : `malformed HTTP request: ${error.message}`;
    if (socket.writable && !responseStarted(socket)) socket.write(rawResponse(dialect.refusal(status, reason)));
    socket.destroy(error);
  };
}

/** Answers a connection over the limit and closes it, reading (and dropping) what it sends meanwhile. */
function refuseConnection(socket: Socket, refusal: Refusal): void {
  socket.on('error', () => undefined);
  socket.resume();
  socket.end(rawResponse(refusal));
  setTimeout(() => socket.destroy(), 2000).unref();
}

/**
 * Limits the listener's open connections: one over the limit is answered at once in the dialect
 * and closed, before Node's HTTP layer sees it, so it costs no parser and holds no file for long.
 * Also logs (rate-limited) the listener's accept failures, such as running out of open files.
 */
export function limitConnections(server: Server, name: string, limits: ListenerLimits, dialect: ListenerDialect, warn: RateLimitedLog): { readonly open: () => number } {
  const http = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  let open = 0;
  const reason = `too many open connections (at most ${limits.maxConnections}, --http.max-connections)`;
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      warn.warn('connections', { listener: name, limit: limits.maxConnections }, 'listener at its connection limit (--http.max-connections); refusing connections');
      refuseConnection(socket, dialect.refusal(dialect.overloadStatus, reason));
      return;
    }
    open++;
    socket.once('close', () => open--);
    for (const listener of http) listener.call(server, socket);
  });
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (server.listening) warn.warn('accept', { listener: name, code: err.code, err: err.message }, 'listener cannot accept a connection');
  });
  return { open: () => open };
}
