import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDeps } from '../area.js';
import type { SearchConfig } from './flags.js';
import { BasicAuthVerifier, parseBasicAuthorization } from '../http/basic-auth.js';
import { ConfigError } from '../config/flag-types.js';
import { createApp } from '../http/create-app.js';
import { parseHtpasswd } from '../http/users-file.js';
import { SqliteDocumentStore, type DocumentStore } from './store/document-store.js';
import { errors, SearchError } from './errors.js';
import { productHeader, sendError, sendHead } from './http/http-io.js';
import { renderJson } from './http/json-render.js';
import { checkCompatibleVersions, responseContentType } from './http/media-type.js';
import { RouteMethods } from './http/route-methods.js';
import { documentRoutes } from './routes/document-routes.js';
import { indexRoutes } from './routes/index-routes.js';
import { multiRoutes } from './routes/multi-routes.js';
import { scrollRoutes } from './routes/scroll-routes.js';
import { searchRoutes } from './routes/search-routes.js';
import { SearchService } from './engine/search-service.js';
import { parseUrlQuery } from './http/url-query-parser.js';
import { warmIndexing } from './engine/warmup.js';

/** Options for building the search app without the CLI (tests pass their own store). */
export interface SearchAppOptions {
  /** Store to use instead of SQLite under `<data.dir>/search/`. */
  readonly store?: DocumentStore;
  /** The indexing warm-up to run at start (default: warmIndexing); tests pass one that fails. */
  readonly warmIndexing?: typeof warmIndexing;
}

/** Builds the search listener's app (Elasticsearch-compatible). */
export async function buildSearchApp(config: SearchConfig, deps: AreaDeps, options: SearchAppOptions = {}): Promise<FastifyInstance> {
  const maxBody = config['search.max-body-size'];
  // ES takes ids up to 512 bytes and refuses longer ones by its own validation ("id [...] is too
  // long"), for any id its request line can carry (http.max_initial_line_length, 4 KB): the router
  // must let every parameter that long through (its default of 100 characters, and 2,048 since,
  // answered longer ones with the router's refusal instead).
  const app = createApp('search', deps.logger, {
    bodyLimit: maxBody,
    fastify: {
      // parseUrlQuery: a repeated parameter's last value, as ES reads it (an array was a 500).
      routerOptions: { maxParamLength: 4096, querystringParser: parseUrlQuery },
      // ES's router has no HEAD-to-GET fallback: HEAD is served only where a route says so (`/`,
      // `/<index>`, `_doc`, `_source`), elsewhere it is a 405 (or another pattern's HEAD, as
      // `HEAD /_search` is index-exists). Fastify's HEAD twin of every GET route would run the GET.
      exposeHeadRoutes: false,
      // Refusals made before routing (a malformed percent-escape, a parameter over the limit above):
      // Fastify would answer them itself, without the product header and in its own body shape.
      // The request has no query here (no ?pretty), so the body is rendered compact.
      frameworkErrors: (error, req, reply) => {
        const e = errors.illegalArgument(error.message);
        if (req.method === 'HEAD') return sendHead(reply, e.status, 'application/json');
        const type = responseContentType(req.headers.accept, req.headers['content-type']);
        return productHeader(reply.header('content-type', type)).code(e.status).send(renderJson(e.toBody(), false));
      },
      // Requests the HTTP parser refuses (a content-length that is no number, headers or URL over
      // the size limit, a request line that is not HTTP): Fastify's default writes its own body
      // without the product header. Same statuses and socket handling as Fastify's default.
      clientErrorHandler: (error, socket) => {
        if (error.code === 'ECONNRESET' || socket.destroyed) return;
        app.log.trace({ err: error }, 'client error');
        const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
        const reason = status === 431 ? 'request headers are larger than the limit' : status === 408 ? 'request timed out' : `malformed HTTP request: ${error.message}`;
        const body = renderJson({ ...errors.illegalArgument(reason).toBody(), status }, false);
        if (socket.writable) {
          socket.write(
            `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=UTF-8\r\nx-elastic-product: Elasticsearch\r\n` +
              `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
          );
        }
        socket.destroy(error);
      },
    },
  });
  const usersFile = config['search.users-file'];
  let verifier: BasicAuthVerifier | undefined;
  if (usersFile !== '') {
    let text: string;
    try {
      text = readFileSync(usersFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`--search.users-file: cannot read "${usersFile}": ${(e as Error).message}`, { cause: e });
    }
    try {
      verifier = new BasicAuthVerifier(parseHtpasswd(text, usersFile));
    } catch (e) {
      throw new ConfigError(`--search.users-file: ${(e as Error).message}`, { cause: e });
    }
  }

  const store = options.store ?? new SqliteDocumentStore(join(config['data.dir'], 'search'), config['search.durability']);
  const service = new SearchService(store, deps.now);
  try {
    service.load();
  } catch (e) {
    store.close();
    throw e;
  }
  app.addHook('onClose', async () => store.close());
  try {
    const warmupMs = (options.warmIndexing ?? warmIndexing)(config['search.warmup-docs'], deps.now);
    if (warmupMs > 0) app.log.info({ docs: config['search.warmup-docs'], ms: Math.round(warmupMs) }, 'search indexing warmed up');
  } catch (e) {
    // Without the warm-up only the first _bulk is slower: a failed one (a bug in it, which its
    // test catches) must not keep all three listeners down, nor leave the store open as a throw
    // out of here did.
    app.log.error({ err: e }, 'search indexing warm-up failed; serving without it');
  }

  // ES reads a body on GET (`GET /_search` with a query), so GET must go through body parsing.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // We parse bodies ourselves: malformed JSON must give ES's error, NDJSON is split by _bulk.
  app.removeAllContentTypeParsers();
  // ES skips a UTF-8 byte order mark before the body (its content sniffing and Jackson both do):
  // dropped here, once per body, for every API (a view, not a copy). Only the body's first bytes:
  // a mark before a later `_bulk` or `_msearch` line is not looked for.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBody }, (_req, body, done) =>
    done(null, Buffer.isBuffer(body) && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body),
  );

  // Every answer carries `X-Elastic-Product: Elasticsearch`: sendJson, sendHead and the handlers
  // below set it (productHeader in http-io.ts), not an onSend hook run for every response.

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

  app.setErrorHandler((error: FastifyError | SearchError, req: FastifyRequest, reply: FastifyReply) => {
    let e: SearchError;
    if (error instanceof SearchError) e = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = errors.bodyTooLarge(Number(req.headers['content-length'] ?? 0), maxBody);
    else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') e = errors.unsupportedContentType(req.headers['content-type'] ?? '');
    else if (typeof error.statusCode === 'number' && error.statusCode < 500) e = errors.illegalArgument(error.message);
    else {
      req.log.error({ err: error }, 'search request failed');
      e = errors.internal();
    }
    if (e.status >= 500) req.log.error({ err: error }, 'search request failed');
    for (const [k, v] of Object.entries(e.headers ?? {})) reply.header(k, v);
    if (req.method === 'HEAD') return sendHead(reply, e.status, 'application/json');
    return sendError(req, reply, e.status, e.toBody());
  });

  // The methods each route pattern serves, for 405 on a known path (see route-methods.ts).
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

  const clusterUuid = createHash('sha256').update(config['data.dir']).digest('base64url').slice(0, 22);
  await app.register(indexRoutes, { service, info: { flavor: config['search.flavor'], clusterUuid, version: '8.17.0' } });
  await app.register(documentRoutes, { service });
  await app.register(searchRoutes, { service, now: deps.now });
  await app.register(multiRoutes, { service, now: deps.now });
  await app.register(scrollRoutes, { service, now: deps.now });
  return app;
}
