import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { continueScroll, openPit } from '../engine/scroll-pit-search.js';
import { errors } from '../errors.js';
import { jsonBody, queryOf, rawBody, sendJson, type Params } from '../http/http-io.js';
import { jsonToken } from '../syntax/json-members.js';
import type { SearchService } from '../engine/search-service.js';
import { parseTimeValue } from '../syntax/time-value.js';
import { checkParams, CLEAR_SCROLL_PARAMS, CLOSE_PIT_PARAMS, OPEN_PIT_PARAMS, SCROLL_PARAMS, totalHitsAsInt } from '../http/url-params.js';

/**
 * The scroll API (`/_search/scroll`: next batch, clear) and point in time (`/<index>/_pit`,
 * `DELETE /_pit`). A `_search` begins a scroll or searches a point in time: see scroll-pit-search.ts.
 */

/** How often expired contexts are freed without being asked for (ES's `search.keep_alive_interval`), ms. */
export const SWEEP_INTERVAL_MS = 60_000;

export interface ScrollRoutesOptions {
  readonly service: SearchService;
  readonly now: () => number;
}

export async function scrollRoutes(app: FastifyInstance, opts: ScrollRoutesOptions): Promise<void> {
  const { service, now } = opts;
  const timer = setInterval(() => service.contexts.sweep(now()), SWEEP_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));

  const scroll = (req: FastifyRequest, reply: FastifyReply): void => {
    const started = now();
    const params = queryOf(req);
    checkParams(req.url, params, SCROLL_PARAMS);
    let id = (req.params as Params).scroll_id ?? params.scroll_id;
    let keepAlive = params.scroll;
    const body = objectBody(req);
    if (body !== undefined) {
      for (const [k, v] of Object.entries(body)) {
        if (k === 'scroll_id' && typeof v === 'string') id = v;
        else if (k === 'scroll' && typeof v === 'string') keepAlive = v;
        else throw unknownBodyParameter(k, v);
      }
    }
    const keepAliveMs = keepAlive === undefined ? undefined : parseTimeValue(keepAlive, 'scroll');
    if (id === undefined || id === '') throw errors.actionValidation(['scrollId is missing']);
    const answer = continueScroll(service, id, keepAliveMs, totalHitsAsInt(params), started, now());
    sendJson(req, reply, 200, answer, true);
  };
  for (const path of ['/_search/scroll', '/_search/scroll/:scroll_id']) {
    app.get(path, scroll);
    app.post(path, scroll);
  }

  const clear = (req: FastifyRequest, reply: FastifyReply): void => {
    const params = queryOf(req);
    checkParams(req.url, params, CLEAR_SCROLL_PARAMS);
    const fromUrl = (req.params as Params).scroll_id ?? params.scroll_id;
    let ids = fromUrl === undefined ? [] : fromUrl.split(',').filter((s) => s !== '');
    const body = objectBody(req);
    if (body !== undefined) {
      // ClearScrollRequest.fromXContent starts from no ids: a body's ids replace the URL's.
      ids = [];
      for (const [k, v] of Object.entries(body)) {
        if (k !== 'scroll_id') throw unknownBodyParameter(k, v);
        if (typeof v === 'string') ids = [...ids, v];
        else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) ids = [...ids, ...(v as string[])];
        else throw unknownBodyParameter(k, v);
      }
    }
    if (ids.length === 0) throw errors.actionValidation(['no scroll ids specified']);
    const nowMs = now();
    // `_all` alone clears every scroll (among other ids it is an id that does not parse), and
    // ClearScrollController then counts the nodes that cleared theirs (one), not the scrolls.
    const all = ids.length === 1 && ids[0] === '_all';
    let freed = 1;
    if (all) service.contexts.clearAllScrolls();
    else freed = service.contexts.clearScrolls(ids, nowMs);
    // ClearScrollResponse: 404 when nothing was freed, with the same body.
    sendJson(req, reply, freed === 0 ? 404 : 200, { succeeded: true, num_freed: freed });
  };
  app.delete('/_search/scroll', clear);
  app.delete('/_search/scroll/:scroll_id', clear);

  app.post('/:index/_pit', (req, reply) => {
    const params = queryOf(req);
    checkParams(req.url, params, OPEN_PIT_PARAMS);
    // index_filter (and anything else in the body) would narrow the point in time: not done here.
    if (rawBody(req) !== undefined) throw errors.contextUnsupported('A request body (index_filter) when opening a point in time');
    sendJson(req, reply, 200, openPit(service, (req.params as Params).index as string, params, now()));
  });

  app.delete('/_pit', (req, reply) => {
    checkParams(req.url, queryOf(req), CLOSE_PIT_PARAMS);
    const body = objectBody(req);
    const id = body?.id;
    if (body !== undefined) for (const [k, v] of Object.entries(body)) if (k !== 'id') throw unknownBodyParameter(k, v);
    if (typeof id !== 'string' || id === '') throw errors.illegalArgument('reader id must be specified');
    // TransportClosePointInTimeAction: one context per index (shard) of the point in time, and
    // `succeeded` only when all were freed; ClosePointInTimeResponse is 404 when neither.
    const freed = service.contexts.closePit(id, now());
    const succeeded = freed !== undefined;
    const numFreed = freed ?? 0;
    sendJson(req, reply, succeeded || numFreed > 0 ? 200 : 404, { succeeded, num_freed: numFreed });
  });
}

/** The JSON body as an object, undefined when there is none. */
function objectBody(req: FastifyRequest): Record<string, unknown> | undefined {
  const body = jsonBody(req);
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.parsing('Malformed content, must start with an object');
  return body as Record<string, unknown>;
}

/** SearchScrollRequest / ClearScrollRequest: a body member they do not read. */
function unknownBodyParameter(name: string, value: unknown): Error {
  return errors.illegalArgument(`Unknown parameter [${name}] in request body or parameter is of the wrong type[${jsonToken(value)}] `);
}
