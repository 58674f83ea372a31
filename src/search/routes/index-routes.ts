import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { checkMappingParameters, type Mappings } from '../mapping/mapping.js';
import { jsonBody, queryOf, sendHead, sendJson, type Params } from '../http/http-io.js';
import { catBytes, sendCatTable, type CatColumn, type CatRow } from '../http/cat-table.js';
import { broadcastShards, type IndexState } from '../engine/index-state.js';
import type { SearchService } from '../engine/search-service.js';
import { boolParam, checkParams, CLEAR_CACHE_PARAMS } from '../http/url-params.js';
import { clusterHealth } from '../engine/cluster-health.js';

export interface ClusterInfo {
  readonly flavor: 'elasticsearch' | 'opensearch';
  readonly clusterUuid: string;
  readonly version: string;
}

/** A mapping as GET `_mapping` and GET `/<index>` answer it: ES renders no `properties` when there are none. */
function mappingBody(m: Mappings): Record<string, unknown> {
  const out = m.toJSON();
  if (Object.keys(m.properties).length === 0) delete out.properties;
  return out;
}

/** The defaults of the settings Portico interprets, as `include_defaults` shows those not set. */
const SETTING_DEFAULTS: Record<string, string> = { 'index.refresh_interval': '1s', 'index.search.idle.after': '30s', 'index.max_result_window': '10000' };

/** `settings` as ES renders them: nested by their dots, or flat (`flat_settings=true`, with the `index.` prefix). */
function renderSettings(flat: Record<string, unknown>, asFlat: boolean): Record<string, unknown> {
  if (asFlat) return flat;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = k.split('.');
    let at = out;
    for (const p of parts.slice(0, -1)) {
      const next = at[p];
      at = (next !== null && typeof next === 'object' ? next : (at[p] = {})) as Record<string, unknown>;
    }
    at[parts.at(-1) as string] = v;
  }
  return out;
}

/** One index's `GET _settings` member: its settings, and with `include_defaults` the defaults of those unset. */
function settingsMember(s: IndexState, params: Params): Record<string, unknown> {
  const flat = params.flat_settings === 'true';
  const body: Record<string, unknown> = { settings: renderSettings(flatSettingsOf(s), flat) };
  if (params.include_defaults === 'true') {
    const defaults: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(SETTING_DEFAULTS)) if (!Object.hasOwn(s.settings.raw, k)) defaults[k] = v;
    body.defaults = renderSettings(defaults, flat);
  }
  return body;
}

function flatSettingsOf(s: IndexState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settingsBody(s).index as Record<string, unknown>)) {
    if (k === 'version') out['index.version.created'] = (v as { created: string }).created;
    else out[`index.${k}`] = v;
  }
  return out;
}

function settingsBody(s: IndexState): Record<string, unknown> {
  const index: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.settings.raw)) index[k.slice('index.'.length)] = String(v);
  index.number_of_shards ??= String(s.settings.numberOfShards);
  index.number_of_replicas ??= String(s.settings.numberOfReplicas);
  index.uuid = s.uuid;
  index.creation_date = String(s.createdMs);
  index.provided_name = s.name;
  index.version = { created: '8500003' };
  return { index };
}

/** `_cat/indices` columns (ES 8.11+ prints those shown without `h`) and the aliases `h` and `s` accept. */
const CAT_INDICES_COLUMNS: CatColumn[] = [
  { name: 'health', aliases: ['h'], shown: true },
  { name: 'status', aliases: ['s'], shown: true },
  { name: 'index', aliases: ['i', 'idx'], shown: true },
  { name: 'uuid', aliases: ['id'], shown: true },
  { name: 'pri', aliases: ['p', 'shards.primary'], shown: true, right: true, numeric: true },
  { name: 'rep', aliases: ['r', 'shards.replica'], shown: true, right: true, numeric: true },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], shown: true, right: true, numeric: true },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], shown: true, right: true, numeric: true },
  { name: 'store.size', aliases: ['ss', 'storeSize'], shown: true, right: true },
  { name: 'pri.store.size', shown: true, right: true },
  { name: 'dataset.size', shown: true, right: true },
  { name: 'creation.date', aliases: ['cd'], shown: false, right: true, numeric: true },
  { name: 'creation.date.string', aliases: ['cds'], shown: false },
  // The shard request cache (request-cache.ts): the primaries' figures are the index's (one shard, no replica assigned).
  { name: 'request_cache.memory_size', aliases: ['rcm', 'requestCacheMemory'], shown: false, right: true },
  { name: 'pri.request_cache.memory_size', shown: false, right: true },
  { name: 'request_cache.evictions', aliases: ['rce', 'requestCacheEvictions'], shown: false, right: true, numeric: true },
  { name: 'pri.request_cache.evictions', shown: false, right: true, numeric: true },
  { name: 'request_cache.hit_count', aliases: ['rchc', 'requestCacheHitCount'], shown: false, right: true, numeric: true },
  { name: 'pri.request_cache.hit_count', shown: false, right: true, numeric: true },
  { name: 'request_cache.miss_count', aliases: ['rcmc', 'requestCacheMissCount'], shown: false, right: true, numeric: true },
  { name: 'pri.request_cache.miss_count', shown: false, right: true, numeric: true },
];

/** `GET /`: the cluster's name and version, as the flavor it speaks answers them. */
function infoBody(info: ClusterInfo): Record<string, unknown> {
  return info.flavor === 'opensearch'
    ? {
        name: 'portico',
        cluster_name: 'portico',
        cluster_uuid: info.clusterUuid,
        version: {
          distribution: 'opensearch',
          number: '2.17.1',
          build_type: 'portico',
          build_hash: 'portico',
          build_date: '2024-01-01T00:00:00.000000Z',
          build_snapshot: false,
          lucene_version: '9.11.1',
          minimum_wire_compatibility_version: '7.10.0',
          minimum_index_compatibility_version: '7.0.0',
        },
        tagline: 'The OpenSearch Project: https://opensearch.org/',
      }
    : {
        name: 'portico',
        cluster_name: 'portico',
        cluster_uuid: info.clusterUuid,
        version: {
          number: '8.17.0',
          build_flavor: 'default',
          build_type: 'portico',
          build_hash: 'portico',
          build_date: '2024-01-01T00:00:00.000000Z',
          build_snapshot: false,
          lucene_version: '9.12.0',
          minimum_wire_compatibility_version: '7.17.0',
          minimum_index_compatibility_version: '7.0.0',
        },
        tagline: 'You Know, for Search',
      };
}

/** `_cat/indices`: a row per index, as JSON or ES's text table (`v`, `h`, `s`, `health` as ES reads them). */
async function catIndices(service: SearchService, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const q = queryOf(req);
  let states = service.resolveWithClosed((req.params as Params).index);
  const health = (s: IndexState) => (s.settings.numberOfReplicas > 0 ? 'yellow' : 'green');
  if (q.health !== undefined) {
    const wanted = q.health.toLowerCase();
    if (!['green', 'yellow', 'red'].includes(wanted)) throw errors.illegalArgument(`unknown cluster health status [${q.health}]`);
    states = states.filter((s) => health(s) === wanted);
  }
  const rows = states.map((s): CatRow => {
    // The bytes its documents take in the store: the one copy there is (no replica holds another).
    const size = catBytes(service.storedBytes(s));
    // As of the last refresh (ES counts the documents its searcher sees).
    const seen = service.refreshedDocs(s);
    const cache = service.requestCache.stats(s);
    const cacheBytes = catBytes(cache.memory_size_in_bytes);
    return {
      health: health(s),
      status: s.settings.closed ? 'close' : 'open',
      index: s.name,
      uuid: s.uuid,
      pri: String(s.settings.numberOfShards),
      rep: String(s.settings.numberOfReplicas),
      'docs.count': String(seen.live),
      'docs.deleted': String(seen.deleted),
      'creation.date': String(s.createdMs),
      'creation.date.string': new Date(s.createdMs).toISOString(),
      'store.size': size,
      'pri.store.size': size,
      'dataset.size': size,
      'request_cache.memory_size': cacheBytes,
      'pri.request_cache.memory_size': cacheBytes,
      'request_cache.evictions': String(cache.evictions),
      'pri.request_cache.evictions': String(cache.evictions),
      'request_cache.hit_count': String(cache.hit_count),
      'pri.request_cache.hit_count': String(cache.hit_count),
      'request_cache.miss_count': String(cache.miss_count),
      'pri.request_cache.miss_count': String(cache.miss_count),
    };
  });
  return sendCatTable(req, reply, CAT_INDICES_COLUMNS, rows);
}

/** Index management (`PUT|GET|HEAD|DELETE /<index>`, `_refresh`, `_mapping`), `_cat/indices`, `GET /`. */
export async function indexRoutes(app: FastifyInstance, opts: { service: SearchService; info: ClusterInfo }): Promise<void> {
  const { service, info } = opts;

  // Synchronous, returning nothing (see search-routes.ts): the client ping and info requests.
  app.get('/', (req, reply) => {
    sendJson(req, reply, 200, infoBody(info));
  });
  app.head('/', (_req, reply) => {
    sendHead(reply, 200, 'application/json');
  });
  // ES's rule on one node (clusterHealth): yellow while an index has replicas, as `_cat/health` says.
  app.get('/_cluster/health', async (req, reply) => {
    const h = clusterHealth(service.list());
    return sendJson(req, reply, 200, {
      cluster_name: 'portico', status: h.status, timed_out: false, number_of_nodes: 1, number_of_data_nodes: 1,
      active_primary_shards: h.primaries, active_shards: h.primaries, relocating_shards: 0, initializing_shards: 0,
      unassigned_shards: h.unassigned, delayed_unassigned_shards: 0, number_of_pending_tasks: 0, number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0, active_shards_percent_as_number: h.activePercent,
    });
  });

  app.put('/:index', async (req, reply) => {
    const name = (req.params as Params).index as string;
    // `PUT /` lands here with an empty name (it made an index named ""): 405, as for DELETE / below.
    if (name === '') return reply.callNotFound();
    const body = jsonBody(req);
    if (body !== null && typeof body === 'object') checkMappingParameters((body as Record<string, unknown>).mappings);
    service.createIndex(name, body);
    return sendJson(req, reply, 200, { acknowledged: true, shards_acknowledged: true, index: name });
  });
  app.delete('/:index', async (req, reply) => {
    const expr = (req.params as Params).index as string;
    // `DELETE /` lands here with an empty expression, which resolves to every index: ES serves
    // only GET and HEAD on `/`, so it gets the not-found handler's 405.
    if (expr === '') return reply.callNotFound();
    // ES 8 defaults action.destructive_requires_name to true: deletes must name every index.
    if (expr.split(',').some((part) => part.trim() === '_all' || part.includes('*'))) {
      throw errors.illegalArgument('Wildcard expressions or all indices are not allowed');
    }
    service.deleteIndex(expr);
    return sendJson(req, reply, 200, { acknowledged: true });
  });
  app.head('/:index', async (req, reply) => {
    const expr = (req.params as Params).index as string;
    let ok: boolean;
    try {
      ok = service.resolveWithClosed(expr).length > 0;
    } catch {
      ok = false;
    }
    return sendHead(reply, ok ? 200 : 404, 'application/json');
  });
  app.get('/:index', async (req, reply) => {
    const states = service.resolveWithClosed((req.params as Params).index);
    const body: Record<string, unknown> = {};
    for (const s of states) body[s.name] = { aliases: {}, mappings: mappingBody(s.mappings), settings: renderSettings(flatSettingsOf(s), false) };
    return sendJson(req, reply, 200, body);
  });
  // Without an index: every index (the clients' getMapping/getSettings with no index).
  const getMapping = async (req: FastifyRequest, reply: FastifyReply) => {
    const body: Record<string, unknown> = {};
    for (const s of service.resolveWithClosed((req.params as Params).index)) body[s.name] = { mappings: mappingBody(s.mappings) };
    return sendJson(req, reply, 200, body);
  };
  app.get('/_mapping', getMapping);
  app.get('/:index/_mapping', getMapping);
  app.put('/:index/_mapping', async (req, reply) => {
    const body = jsonBody(req);
    checkMappingParameters(body);
    service.putMapping((req.params as Params).index as string, body);
    return sendJson(req, reply, 200, { acknowledged: true });
  });
  const getSettings = async (req: FastifyRequest, reply: FastifyReply) => {
    const body: Record<string, unknown> = {};
    for (const s of service.resolveWithClosed((req.params as Params).index)) body[s.name] = settingsMember(s, queryOf(req));
    return sendJson(req, reply, 200, body);
  };
  const putSettings = async (req: FastifyRequest, reply: FastifyReply) => {
    service.updateSettings((req.params as Params).index, jsonBody(req));
    return sendJson(req, reply, 200, { acknowledged: true });
  };
  app.put('/_settings', putSettings);
  app.put('/:index/_settings', putSettings);
  app.get('/_settings', getSettings);
  app.get('/:index/_settings', getSettings);

  // Every write so far becomes visible to searches (refresh-schedule.ts).
  const refresh = async (req: FastifyRequest, reply: FastifyReply) => {
    const states = service.resolve((req.params as Params).index);
    service.refresh(states);
    // Every copy counted, the primaries answering (ES's broadcast response on one node).
    return sendJson(req, reply, 200, { _shards: broadcastShards(states) });
  };
  for (const path of ['/_refresh', '/:index/_refresh']) {
    app.post(path, refresh);
    app.get(path, refresh);
  }

  clearCacheRoutes(app, service);

  // Resizing makes an index of another shard count (or a copy): ES's shrink, split and clone are
  // not implemented, and refused after the source index is found, as ES looks it up first.
  for (const op of ['_shrink', '_split', '_clone']) {
    const resize = async (req: FastifyRequest) => {
      service.get((req.params as Params).index as string);
      throw errors.contextUnsupported(`[${op}] (resizing or cloning an index)`);
    };
    app.put(`/:index/${op}/:target`, resize);
    app.post(`/:index/${op}/:target`, resize);
  }

  const cat = async (req: FastifyRequest, reply: FastifyReply) => catIndices(service, req, reply);
  app.get('/_cat/indices', cat);
  app.get('/_cat/indices/:index', cat);
}

/**
 * ES's clear-cache API. Of its caches only the request cache is kept here (request-cache.ts):
 * `request=true` clears it, as does naming none of `query`, `fielddata`, `request` and no `fields`
 * (ES clears every cache then); `query` or `fielddata` alone clear nothing kept here.
 */
function clearCacheRoutes(app: FastifyInstance, service: SearchService): void {
  const clearCache = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = queryOf(req);
    checkParams(req.url, params, CLEAR_CACHE_PARAMS);
    const query = boolParam(params.query, false);
    const fielddata = boolParam(params.fielddata, false);
    const request = boolParam(params.request, false);
    const states = service.resolve((req.params as Params).index, boolParam(params.ignore_unavailable, false), boolParam(params.allow_no_indices, true));
    const fields = params.fields === undefined ? [] : params.fields.split(',').filter((f) => f !== '');
    if (request || (!query && !fielddata && fields.length === 0)) for (const s of states) for (const shard of s.shards) service.requestCache.clear(shard);
    // Every copy counted, the primaries answering, as for `_refresh`.
    return sendJson(req, reply, 200, { _shards: broadcastShards(states) });
  };
  for (const path of ['/_cache/clear', '/:index/_cache/clear']) app.post(path, clearCache);
}
