import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { EnvironmentError } from '../config/start-up-errors.js';
import type { AreaDeps } from '../area.js';
import type { SearchConfig } from './flags.js';
import { createApp } from '../http/create-app.js';
import { listenerLimits } from '../http/listener-flags.js';
import { loadHtpasswdVerifier } from '../http/users-file.js';
import { SqliteDocumentStore, type DocumentStore } from './store/document-store.js';
import { frameworkErrors, searchDialect, searchErrorHandler } from './http/error-handler.js';
import { answerUnrouted, checkRequests, readBodies } from './http/request-hooks.js';
import { parseUrlQuery } from './http/url-query-parser.js';
import { documentRoutes } from './routes/document-routes.js';
import { indexRoutes } from './routes/index-routes.js';
import { multiRoutes } from './routes/multi-routes.js';
import { scrollRoutes } from './routes/scroll-routes.js';
import { searchRoutes } from './routes/search-routes.js';
import { clusterRoutes } from './routes/cluster-routes.js';
import { analyzeRoutes } from './routes/analyze-routes.js';
import { byQueryRoutes } from './routes/by-query-routes.js';
import { closeOpenRoutes } from './routes/close-open-routes.js';
import { fieldCapsRoutes } from './routes/field-caps-routes.js';
import { resolveDateMathIndices } from './http/date-math-hook.js';
import { SearchService } from './engine/search-service.js';
import { warmIndexing } from './engine/warmup.js';
import { SearchActivityLog } from './engine/search-activity-log.js';

/**
 * The search listener (Elasticsearch-compatible), wired: the Fastify app and its request handling
 * (http/error-handler.ts, http/request-hooks.ts), the store and the engine over it, the routes.
 */

/** Options for building the search app without the CLI (tests pass their own store). */
export interface SearchAppOptions {
  /** Store to use instead of SQLite under `<data.dir>/search/`. */
  readonly store?: DocumentStore;
  /** The indexing warm-up to run at start (default: warmIndexing); tests pass one that fails. */
  readonly warmIndexing?: typeof warmIndexing;
}

/**
 * The SQLite store under `<data.dir>/search/`; a file there that is not a database stops start-up
 * with one line saying which and what to do, not better-sqlite3's stack.
 */
function openDocumentStore(dir: string, durability: SearchConfig['search.durability'], log: Logger): SqliteDocumentStore {
  try {
    return new SqliteDocumentStore(dir, durability, log);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new EnvironmentError(`--data.dir: ${join(dir, 'documents.db')} is not a readable SQLite database (${code}); move ${dir} away to start with no indices, or restore it from a backup`, { cause: err });
    }
    throw err;
  }
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
    nextRequestId: deps.nextRequestId,
    limits: listenerLimits(config),
    dialect: searchDialect,
    fastify: {
      // parseUrlQuery: a repeated parameter's last value, as ES reads it (an array was a 500).
      routerOptions: { maxParamLength: 4096, querystringParser: parseUrlQuery },
      // ES's router has no HEAD-to-GET fallback: HEAD is served only where a route says so (`/`,
      // `/<index>`, `_doc`, `_source`), elsewhere it is a 405 (or another pattern's HEAD, as
      // `HEAD /_search` is index-exists). Fastify's HEAD twin of every GET route would run the GET.
      exposeHeadRoutes: false,
      frameworkErrors,
    },
  });
  const verifier = loadHtpasswdVerifier('search.users-file', config['search.users-file']);

  const log = deps.logger.child({ area: 'search' });
  const store = options.store ?? openDocumentStore(join(config['data.dir'], 'search'), config['search.durability'], log);
  const service = new SearchService(store, deps.now, new SearchActivityLog({ logger: log, clock: () => performance.now() }));
  service.bulkSliceMs = config['search.bulk-slice'] > 0 ? config['search.bulk-slice'] : Infinity;
  service.requestCache.maxBytes = config['search.request-cache-size'];
  try {
    service.load();
  } catch (e) {
    store.close();
    throw e;
  }
  app.addHook('onClose', async () => {
    service.close();
    store.close();
  });
  try {
    const warmupMs = (options.warmIndexing ?? warmIndexing)(config['search.warmup-docs'], deps.now);
    if (warmupMs > 0) app.log.info({ docs: config['search.warmup-docs'], ms: Math.round(warmupMs) }, 'search indexing warmed up');
  } catch (e) {
    // Without the warm-up only the first _bulk is slower: a failed one (a bug in it, which its
    // test catches) must not keep all three listeners down, nor leave the store open as a throw
    // out of here did.
    app.log.error({ err: e }, 'search indexing warm-up failed; serving without it');
  }

  readBodies(app, maxBody);
  checkRequests(app, verifier);
  resolveDateMathIndices(app, deps.now);
  app.setErrorHandler(searchErrorHandler(maxBody));
  answerUnrouted(app);

  const clusterUuid = createHash('sha256').update(config['data.dir']).digest('base64url').slice(0, 22);
  const info = { flavor: config['search.flavor'], clusterUuid, version: '8.17.0' } as const;
  await app.register(indexRoutes, { service, info });
  await app.register(clusterRoutes, { service, info, now: deps.now });
  await app.register(analyzeRoutes, { service });
  await app.register(byQueryRoutes, { service });
  await app.register(closeOpenRoutes, { service });
  await app.register(fieldCapsRoutes, { service });
  await app.register(documentRoutes, { service });
  await app.register(searchRoutes, { service, now: deps.now });
  await app.register(multiRoutes, { service, now: deps.now });
  await app.register(scrollRoutes, { service, now: deps.now });
  return app;
}
