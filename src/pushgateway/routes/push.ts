import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError, parseDuration } from '../../config/flag-types.js';
import { isProtobufContentType, parseProtobufDelimited } from '../exposition/protobuf.js';
import { parseText } from '../exposition/text-parser.js';
import type { Gateway } from '../http/gateway.js';
import { trailingSlashRedirect } from '../http/trailing-slash.js';
import { ExpositionError, badTtlHeader } from '../errors.js';
import type { SnappyBody } from '../http/snappy-frames.js';
import { methodNotAllowed } from './options.js';
import { parseGroupingKey } from '../store/grouping-key.js';
import type { MetricFamily } from '../model.js';

/** Request header with a per-push group time to live (a Portico extension). */
export const TTL_HEADER = 'x-portico-group-ttl';

/**
 * Parses a push body whose decoding stopped at `readError` after `body` (a damaged snappy body).
 * Pushgateway's parser reads as it decodes, so the read error answers unless the parser fails
 * before it needs a byte past `body`: a protobuf message that is complete in `body` but does not
 * decode, or a text error that no continuation of `body` changes (one that needs more input, like
 * `unexpected end of input stream`, or a token running up to the end, does change).
 */
function decodeCutBody(body: Buffer, contentType: string | undefined, readError: Error): never {
  const protobuf = contentType !== undefined && isProtobufContentType(contentType);
  const verdict = (bytes: Buffer): string | undefined => {
    try {
      decodePushBody(bytes, contentType);
      return undefined;
    } catch (err) {
      if (!(err instanceof ExpositionError)) throw err;
      return err.message;
    }
  };
  const own = verdict(body);
  if (own === undefined || (protobuf && own === 'unexpected EOF')) throw readError;
  if (!protobuf) {
    for (const more of ['\n', ' ', 'a', '"', '{', '}', '#']) {
      if (verdict(Buffer.concat([body, Buffer.from(more)])) !== own) throw readError;
    }
  }
  throw new ExpositionError(own);
}

/** Parses a push body: delimited protobuf when the Content-Type says so, text 0.0.4 otherwise (like Pushgateway). */
export function decodePushBody(body: Buffer, contentType: string | undefined): MetricFamily[] {
  if (body.length === 0) return [];
  if (contentType !== undefined && isProtobufContentType(contentType)) {
    // Families are keyed by name, so a repeated family replaces the earlier one (Pushgateway's rule).
    const byName = new Map<string, MetricFamily>();
    for (const f of parseProtobufDelimited(new Uint8Array(body.buffer, body.byteOffset, body.length))) byName.set(f.name, f);
    return [...byName.values()];
  }
  // Bytes, not a string: the parser refuses invalid UTF-8 in label values with Go's text.
  return parseText(body);
}

/** The part of the URL after `<prefix>/metrics/`, still percent-encoded, without the query. */
function groupingPath(request: FastifyRequest, prefix: string): string {
  const url = request.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.slice(prefix.length + '/metrics/'.length);
}

function ttlOf(request: FastifyRequest, defaultMs: number): number {
  const raw = request.headers[TTL_HEADER];
  if (raw === undefined) return defaultMs;
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  try {
    return parseDuration(value);
  } catch (err) {
    if (err instanceof ConfigError) throw badTtlHeader(value);
    throw err;
  }
}

const PUSH_PATH = /^job(@base64)?\/[^/]/;

/**
 * PUT, POST and DELETE on `<prefix>/metrics/job/<job>{/<label>/<value>}`, with Pushgateway's
 * answers: 200 (202 with the consistency check disabled) for pushes, 202 for deletes, 400 with
 * Pushgateway's text for a bad key, body or inconsistent push, 405 for other methods.
 */
export function registerPushRoutes(app: FastifyInstance, gw: Gateway): void {
  const { prefix, checkConsistency, groupTtlMs, utf8Names } = gw.settings;
  const url = `${prefix}/metrics/*`;

  // Pushgateway's router answers `/metrics/job/` with a 307 before any handler (trailing-slash.ts).
  const redirected = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const redirect = trailingSlashRedirect(request.method, request.url, prefix);
    if (redirect === undefined) return false;
    void reply.code(redirect.status).header('location', redirect.location).send();
    return true;
  };

  const push = (replace: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (redirected(request, reply)) return reply;
    const started = process.hrtime.bigint();
    const raw = (request.body as Buffer | SnappyBody | undefined) ?? Buffer.alloc(0);
    const body = Buffer.isBuffer(raw) ? raw : raw.data;
    try {
      const grouping = parseGroupingKey(groupingPath(request, prefix), utf8Names);
      const ttlMs = ttlOf(request, groupTtlMs);
      const contentType = request.headers['content-type'];
      const families = Buffer.isBuffer(raw) || raw.error === undefined ? decodePushBody(body, contentType) : decodeCutBody(body, contentType, raw.error);
      await gw.store.push({ grouping, families, replace, nowMs: gw.now(), ttlMs });
    } finally {
      gw.own.observePush(request.method, Number(process.hrtime.bigint() - started) / 1e9, body.length);
    }
    return reply.code(checkConsistency ? 200 : 202).send();
  };

  app.route({ method: 'PUT', url, config: { handler: 'push' }, handler: push(true) });
  app.route({ method: 'POST', url, config: { handler: 'push' }, handler: push(false) });
  app.route({
    method: 'DELETE',
    url,
    config: { handler: 'delete' },
    handler: async (request, reply) => {
      if (redirected(request, reply)) return reply;
      const grouping = parseGroupingKey(groupingPath(request, prefix), utf8Names);
      await gw.store.delete(grouping, gw.now());
      return reply.code(202).send();
    },
  });
  // httprouter answers OPTIONS itself with the allowed methods.
  app.route({
    method: 'OPTIONS',
    url,
    handler: async (request, reply) => {
      if (!PUSH_PATH.test(groupingPath(request, prefix))) return reply.callNotFound();
      return reply.code(200).header('allow', 'DELETE, OPTIONS, POST, PUT').send();
    },
  });
  app.route({
    method: ['GET', 'HEAD'],
    url,
    handler: async (request, reply) => {
      if (!PUSH_PATH.test(groupingPath(request, prefix))) return reply.callNotFound();
      return methodNotAllowed(reply, 'DELETE, OPTIONS, POST, PUT');
    },
  });
}
