import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { noShardSearched } from '../engine/no-shard-search.js';
import { searchInContext } from '../engine/scroll-pit-search.js';
import { jsonBodyAndText, queryOf, sendJson, type Params } from '../http/http-io.js';
import { parseCountQuery, parseSearchRequest, readSearchBody, terminateAfterOf } from '../requests/search-request.js';
import { withIndexBoosts, withSearchType, type SearchService } from '../engine/search-service.js';
import { requestCacheKey } from '../engine/request-cache.js';
import { checkNoOpParams, checkParams, checkPreference, checkTerminateAfter, COUNT_PARAMS, floatParam, SEARCH_PARAMS, type QueryParams } from '../http/url-params.js';
import type { IndexState } from '../engine/index-state.js';

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
    const sent = jsonBodyAndText(req, false);
    const request = sent === undefined ? parseSearchRequest(undefined, params) : readSearchBody(sent.text, sent.value, (body) => parseSearchRequest(body, params));
    checkTerminateAfter(params);
    checkNoOpParams(req.url, params);
    checkPreference(params);
    const index = (req.params as Params).index;
    // The shards searched (a point in time has its own): every shard of the indices resolved, or
    // those `routing` and `preference` name.
    const shards = request.pit === undefined ? searchShards(service, index, params) : undefined;
    // Marked for dfs over several shards (a point in time marks it over its own).
    const typed = shards === null || shards === undefined ? request : withSearchType(request, params.search_type, shards);
    const searched = withIndexBoosts(service, typed, params.ignore_unavailable === 'true', params.allow_no_indices !== 'false');
    let body: Record<string, unknown>;
    if (shards === null) {
      body = noShardSearched(request, started, now());
    } else if (request.scrollMs === undefined && shards !== undefined) {
      body = service.search(shards, searched, started, { key: () => requestCacheKey(params, sent?.text), param: params.request_cache });
    } else {
      body = searchInContext(
        service,
        searched,
        {
          index,
          ignoreUnavailable: params.ignore_unavailable === 'true',
          allowNoIndices: params.allow_no_indices !== 'false',
          expandWildcards: params.expand_wildcards,
          routing: params.routing,
          preference: params.preference,
          searchType: params.search_type,
        },
        started,
        now(),
        shards,
      );
    }
    // Only hits carry RawJson (stored _source, long sort values): an empty page (past the last
    // hit, size 0) is written from a template instead.
    // Hits and top_hits aggregations carry stored _source text (RawJson).
    if ((body.hits as { hits: unknown[] }).hits.length > 0 || body.aggregations !== undefined) sendJson(req, reply, 200, body, true);
    else sendJson(req, reply, 200, body, false, renderEmptyPage(body));
  };
  for (const path of ['/_search', '/:index/_search']) {
    app.get(path, search);
    app.post(path, search);
  }

  const count = (req: FastifyRequest, reply: FastifyReply): void => {
    const params = queryOf(req);
    checkParams(req.url, params, COUNT_PARAMS);
    const query = readJsonBody(req, (body) => parseCountQuery(body, params));
    checkTerminateAfter(params);
    checkNoOpParams(req.url, params);
    checkPreference(params);
    // `preference=_shards:…` naming none of the shards counts on none (noShardSearched).
    const searched = searchShards(service, (req.params as Params).index, params) ?? [];
    const terminateAfter = terminateAfterOf({}, params);
    const counted = searched.length === 0 ? { count: 0, terminated: false } : service.countCollected(searched, query, floatParam(params, 'min_score'), terminateAfter);
    // ES writes `terminated_early` first, whenever a limit was set.
    const body = terminateAfter === undefined ? {} : { terminated_early: counted.terminated };
    sendJson(req, reply, 200, { ...body, count: counted.count, _shards: { total: searched.length, successful: searched.length, skipped: 0, failed: 0 } });
  };
  for (const path of ['/_count', '/:index/_count']) {
    app.get(path, count);
    app.post(path, count);
  }
}

/**
 * The shards a `_search` or `_count` runs on (SearchService.searchShards over the indices its path
 * names); null when its `preference` names none of them (the indices are resolved all the same: a
 * missing one is the node's 404).
 */
function searchShards(service: SearchService, index: string | undefined, params: QueryParams): IndexState[] | null {
  return service.searchShardsOrNone(service.resolve(index, params.ignore_unavailable === 'true', params.allow_no_indices !== 'false'), params.routing, params.preference);
}

/**
 * `read` of the JSON body (undefined when none), refused as ES's parser refuses it when an object
 * in it repeats a key before anything `read` refuses (readInTextOrder). Only an object can hold
 * one: the text is read a second time only then.
 */
export function readJsonBody<T>(req: FastifyRequest, read: (body: unknown) => T): T {
  // Nesting is checked in the order ES's parser meets it, with the query's own limit.
  const body = jsonBodyAndText(req, false);
  if (body === undefined) return read(undefined);
  return readSearchBody(body.text, body.value, read);
}

/**
 * The compact JSON of a search response without hits, as runSearch builds it (`took`, `timed_out`,
 * `_shards` without failures, `hits` with an optional total, `max_score` and an empty `hits`),
 * written from a template: JSON.stringify spends most of its time on the thirteen keys. Exactly
 * JSON.stringify's bytes (test/search/routes/search-routes.test.ts compares them); anything else
 * (shard failures, other members) returns undefined and is rendered by renderJson.
 */
export function renderEmptyPage(body: Record<string, unknown>): string | undefined {
  const shards = body._shards as Record<string, unknown>;
  const hits = body.hits as Record<string, unknown>;
  const took = body.took;
  if (typeof took !== 'number' || !Number.isInteger(took) || body.timed_out !== false || shards.failures !== undefined) return undefined;
  // Any member the template does not write (a new one in runSearch's envelope) takes renderJson.
  if (keyCount(body) !== 4 || keyCount(shards) !== 4 || keyCount(hits) !== (hits.total === undefined ? 2 : 3)) return undefined;
  const { total, successful, skipped, failed } = shards;
  if (!isInt(total) || !isInt(successful) || !isInt(skipped) || !isInt(failed)) return undefined;
  const t = hits.total;
  let totalText: string;
  if (t === undefined) totalText = '';
  else if (isInt(t)) totalText = `"total":${t},`;
  else {
    const { value, relation } = t as { value: unknown; relation: unknown };
    if (!isInt(value) || (relation !== 'eq' && relation !== 'gte')) return undefined;
    totalText = `"total":{"value":${value},"relation":"${relation}"},`;
  }
  const maxScore = hits.max_score;
  if (maxScore !== null && typeof maxScore !== 'number') return undefined;
  // String() of a finite number is JSON.stringify's text; non-finite ones are null in JSON.
  const maxText = typeof maxScore === 'number' && Number.isFinite(maxScore) ? String(maxScore) : 'null';
  return (
    `{"took":${took},"timed_out":false,"_shards":{"total":${total},"successful":${successful},"skipped":${skipped},"failed":${failed}},` +
    `"hits":{${totalText}"max_score":${maxText},"hits":[]}}`
  );
}

/** How many own enumerable keys `o` has (a loop: no array made on every empty page). */
function keyCount(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}
