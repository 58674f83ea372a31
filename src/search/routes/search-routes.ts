import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonBody, queryOf, sendJson, type Params } from '../http-io.js';
import { parseCountQuery, parseSearchRequest } from '../search-request.js';
import type { SearchService } from '../search-service.js';
import { checkParams, COUNT_PARAMS, SEARCH_PARAMS } from '../url-params.js';

/** `_search` and `_count` on one index, several (`a,b`, wildcards) or all. */
export async function searchRoutes(app: FastifyInstance, opts: { service: SearchService; now: () => number }): Promise<void> {
  const { service, now } = opts;

  // Synchronous handlers that return nothing: an async one returning the reply costs a promise, a
  // thenable job (the reply is a thenable) and Fastify's wrapThenable on every request. A throw
  // reaches the error handler the same way.
  const search = (req: FastifyRequest, reply: FastifyReply): void => {
    const started = now();
    const params = queryOf(req);
    checkParams(req.url, params, SEARCH_PARAMS);
    const request = parseSearchRequest(jsonBody(req), params);
    const states = service.resolve((req.params as Params).index, params.ignore_unavailable === 'true');
    const body = service.search(states, request, started);
    // Only hits carry RawJson (stored _source, long sort values): an empty page (past the last
    // hit, size 0) goes to JSON.stringify in one call instead of the walk that finds RawJson.
    sendJson(req, reply, 200, body, (body.hits as { hits: unknown[] }).hits.length > 0);
  };
  for (const path of ['/_search', '/:index/_search']) {
    app.get(path, search);
    app.post(path, search);
  }

  const count = (req: FastifyRequest, reply: FastifyReply): void => {
    checkParams(req.url, queryOf(req), COUNT_PARAMS);
    const query = parseCountQuery(jsonBody(req), queryOf(req));
    const states = service.resolve((req.params as Params).index);
    const n = service.count(states, query);
    sendJson(req, reply, 200, { count: n, _shards: { total: states.length, successful: states.length, skipped: 0, failed: 0 } });
  };
  for (const path of ['/_count', '/:index/_count']) {
    app.get(path, count);
    app.post(path, count);
  }
}
