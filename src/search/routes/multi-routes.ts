import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { queryOf, sendJson, type Params } from '../http/http-io.js';
import { requestMediaType } from '../http/media-type.js';
import { multiGet, multiGetDefaults, parseMultiGet } from '../requests/multi-get.js';
import { multiSearch, parseMultiSearch } from '../engine/multi-search.js';
import type { SearchService } from '../engine/search-service.js';
import { boolParam, checkParams, MGET_PARAMS, MSEARCH_PARAMS } from '../http/url-params.js';
import { readJsonBody } from './search-routes.js';
import { resolveDateMathName } from '../syntax/date-math-index-name.js';

/** `_mget` and `_msearch`, with and without an index in the path (HTTP translation only). */
export async function multiRoutes(app: FastifyInstance, opts: { service: SearchService; now: () => number }): Promise<void> {
  const { service, now } = opts;

  const mget = (req: FastifyRequest, reply: FastifyReply): void => {
    const params = queryOf(req);
    checkParams(req.url, params, MGET_PARAMS);
    // `realtime=false` reads what each index's last refresh shows; `refresh=true` refreshes each index named first.
    const realtime = boolParam(params.realtime, true);
    const refresh = boolParam(params.refresh, false);
    const items = readJsonBody(req, (body) => parseMultiGet(body, (req.params as Params).index));
    const refreshed = new Set<string>();
    const body = multiGet(items, multiGetDefaults(params), {
      indexUuid: (index) => service.get(index).uuid,
      mappings: (index) => service.get(index).mappings,
      getDoc: (index, id, routing) => {
        if (refresh && !refreshed.has(index)) {
          service.refresh([service.get(index)]);
          refreshed.add(index);
        }
        return realtime ? service.getDoc(index, id, routing) : service.getRefreshedDoc(index, id, routing);
      },
      resolveIndex: (index) => resolveDateMathName(index, now()),
    });
    sendJson(req, reply, 200, body, true);
  };
  // No HEAD: ES serves none on these paths, so `HEAD /_mget` falls through to `HEAD /{index}` (index
  // exists: 404) and `HEAD /i/_mget` is a 405, as the router does (see wrongMethodRouting in the test).
  for (const path of ['/_mget', '/:index/_mget']) {
    app.get(path, mget);
    app.post(path, mget);
  }

  const msearch = (req: FastifyRequest, reply: FastifyReply): void => {
    const params = queryOf(req);
    checkParams(req.url, params, MSEARCH_PARAMS);
    const raw = req.body;
    // The NDJSON as it came; `?source=` carries it in the query string.
    const text = Buffer.isBuffer(raw) && raw.length > 0 ? raw.toString('utf8') : params.source;
    if (text === undefined || text === '') throw errors.bodyRequired();
    if (Buffer.isBuffer(raw) && raw.length > 0) requestMediaType(req.headers['content-type']);
    const items = parseMultiSearch(text, (req.params as Params).index, params);
    sendJson(req, reply, 200, multiSearch(items, service, now), true);
  };
  for (const path of ['/_msearch', '/:index/_msearch']) {
    app.get(path, msearch);
    app.post(path, msearch);
  }
}
