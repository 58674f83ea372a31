import type { FastifyInstance } from 'fastify';
import { parseBasicAuthorization, type BasicAuthVerifier } from '../../http/basic-auth.js';
import { errors } from '../errors.js';
import { productHeader } from './http-io.js';
import { renderJson } from './json-render.js';
import { checkCompatibleVersions } from './media-type.js';
import { RouteMethods } from './route-methods.js';

/**
 * What the search listener does to every request before (and instead of) its route: how bodies
 * are read, the REST compatibility and Basic auth checks, and the answer on a path or method no
 * route serves. Every answer carries `X-Elastic-Product: Elasticsearch`: sendJson, sendHead and
 * the handlers here set it (productHeader in http-io.ts), not an onSend hook run for every response.
 */

/** Bodies as ES reads them: also on GET, as raw bytes for every content type, a BOM skipped. */
export function readBodies(app: FastifyInstance, maxBody: number): void {
  // ES reads a body on GET (`GET /_search` with a query), so GET must go through body parsing.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // We parse bodies ourselves: malformed JSON must give ES's error, NDJSON is split by _bulk.
  app.removeAllContentTypeParsers();
  // ES skips a UTF-8 byte order mark before the body (its content sniffing and Jackson both do):
  // dropped here, once per body, for every API (a view, not a copy). Only the body's first bytes:
  // a mark before a later `_bulk` or `_msearch` line is not looked for.
  const skipMark = (_req: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void =>
    done(null, Buffer.isBuffer(body) && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBody }, skipMark);
  // The same parser again under the media types clients send: Fastify caches the parser it finds
  // for a Content-Type value, but not the catch-all, so every request with a body paid for parsing
  // its Content-Type header into a media type and parameters to end up at '*' (2-3 % of the server's
  // CPU for a small `_search`). For these, the first request's lookup is kept.
  for (const type of CACHED_BODY_TYPES) app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: maxBody }, skipMark);
}

/** The Content-Types whose body parser Fastify keeps per header value (see readBodies). */
export const CACHED_BODY_TYPES: readonly string[] = ['application/json', 'application/x-ndjson'];

/** The REST compatibility check of every request and, with users, Basic auth. */
export function checkRequests(app: FastifyInstance, verifier: BasicAuthVerifier | undefined): void {
  // ES checks the REST compatibility versions of Accept and (with a body) Content-Type on every
  // request, after reading the body. Callback style: an async hook costs a promise and a
  // microtask turn on every request.
  app.addHook('preHandler', (req, _reply, done) => {
    try {
      const body = req.body;
      checkCompatibleVersions(req.headers.accept, req.headers['content-type'], Buffer.isBuffer(body) && body.length > 0);
    } catch (e) {
      done(e as Error);
      return;
    }
    done();
  });
  if (verifier !== undefined) {
    app.addHook('onRequest', async (req) => {
      const creds = parseBasicAuthorization(req.headers.authorization);
      if (creds === undefined) throw errors.missingAuth(req.url);
      if (!(await verifier.verify(creds))) throw errors.badCredentials(creds.user, req.url);
    });
  }
}

/**
 * ES's answers where no route matches: 405 (with `allow`) on a known path with another method,
 * 200 for OPTIONS there, else 400 "no handler found". Call before the routes are registered: it
 * learns each route pattern's methods as they are added (see route-methods.ts).
 */
export function answerUnrouted(app: FastifyInstance): void {
  const routeMethods = new RouteMethods();
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) routeMethods.add(method, route.url);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      reply.header('allow', allowed.join(','));
      if (req.method === 'OPTIONS') return productHeader(reply.code(200)).send();
      return productHeader(reply.code(405).header('content-type', 'application/json; charset=UTF-8'))
        .send(renderJson({ error: `Incorrect HTTP method for uri [${path}] and method [${req.method}], allowed: [${allowed.join(', ')}]`, status: 405 }, false));
    }
    return productHeader(reply.code(400).header('content-type', 'application/json; charset=UTF-8'))
      .send(renderJson({ error: `no handler found for uri [${path}] and method [${req.method}]`, status: 400 }, false));
  });
}
