import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBulkSliced, type BulkUpdateAction } from '../requests/bulk.js';
import { BulkResponseWriter } from '../engine/bulk-response.js';
import { errors, SearchError } from '../errors.js';
import { queryOf, rawBody, requiredJsonBody, sendHead, sendJson, sendJsonBytes, type Params } from '../http/http-io.js';
import { getSourceFilter, storedFieldsOf } from '../requests/multi-get.js';
import { boolParam, intParam, storedFieldsParam } from '../http/url-params.js';
import type { SearchService } from '../engine/search-service.js';
import { writeBody, type WriteOutcome } from '../engine/document-writes.js';
import { filterSource, isIdentity, sourceFilterFromParams, type SourceFilter } from '../requests/source-filter.js';
import { readUpdate } from '../requests/update-body.js';
import { refreshAfterWrite, refreshMode } from './refresh-param.js';
import type { BulkItem, GotDoc } from '../engine/document-writes.js';
import { casProblems, conditionsFromQuery, INTERNAL_VERSION_OCC, PRIMARY_TERM } from '../requests/write-conditions.js';

/** The URL's `_source*` parameters as a fetch context; undefined when it names none (FetchSourceContext.parseFromRestRequest). */
function urlFetchSource(q: Params): SourceFilter | undefined {
  const named = q._source !== undefined || q._source_includes !== undefined || q._source_excludes !== undefined || q._source_include !== undefined || q._source_exclude !== undefined;
  return named ? sourceFilterFromParams(q) : undefined;
}

/** `?routing=`: undefined when absent or empty (ES reads an empty routing as none). */
export function routingParam(q: Params): string | undefined {
  const r = q.routing;
  return r === undefined || r === '' ? undefined : r;
}

/**
 * The document a get reads: with `realtime=false` as the index's last refresh shows it, else the
 * latest write; `refresh=true` refreshes the index first (ES's get parameters).
 */
function readDoc(service: SearchService, q: Params, index: string, id: string): GotDoc | undefined {
  const realtime = boolParam(q.realtime, true);
  if (boolParam(q.refresh, false)) service.refresh([service.get(index)]);
  return realtime ? service.getDoc(index, id, routingParam(q)) : service.getRefreshedDoc(index, id, routingParam(q));
}

/** `GET /<index>/_doc/<id>`: the document with its version, its `_source` filtered as asked and its stored fields. */
async function getDocument(service: SearchService, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const p = req.params as Params;
  const index = p.index as string;
  const id = p.id as string;
  const q = queryOf(req);
  const doc = readDoc(service, q, index, id);
  if (doc === undefined) return sendJson(req, reply, 404, { _index: index, _id: id, found: false });
  const stored = storedFieldsParam(q.stored_fields);
  const mappings = service.get(index).mappings;
  const fields = storedFieldsOf(mappings, stored, doc.indexedSource);
  const filter = getSourceFilter(urlFetchSource(q), stored);
  const body: Record<string, unknown> = { _index: index, _id: id, _version: doc.version, _seq_no: doc.seqNo, _primary_term: 1 };
  if (doc.routing !== undefined) body._routing = doc.routing;
  body.found = true;
  // ES leaves `_source` out altogether for `_source=false` (and for stored fields without `_source`),
  // and always when the index keeps no source.
  if (filter.fetch && mappings.root.sourceEnabled) {
    const source = JSON.parse(doc.source) as unknown;
    body._source = isIdentity(filter) ? source : filterSource(source, filter);
  }
  if (fields !== undefined) body.fields = fields;
  return sendJson(req, reply, 200, body);
}

/** `POST /<index>/_update/<id>`: one update, applied as a one-item bulk, with `get` when `_source` asks for it. */
async function updateDocument(service: SearchService, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const p = req.params as Params;
  const q = queryOf(req);
  // A repeated parameter's last value counts (url-query-parser.ts), as in ES.
  const retryOnConflict = intParam(q, 'retry_on_conflict') ?? 0;
  // RestUpdateAction refuses these before it reads the body.
  if (q.version !== undefined || q.version_type !== undefined) {
    throw errors.actionValidation([INTERNAL_VERSION_OCC]);
  }
  // The update API reads only the sequence-number conditions from the URL, also before the body.
  const urlCond = conditionsFromQuery({ if_seq_no: q.if_seq_no, if_primary_term: q.if_primary_term });
  const { value, text } = requiredJsonBody(req);
  // UpdateRequest's parser refuses a body that is no object, unknown fields and mistyped ones
  // before any validation; the body's sequence-number conditions override the URL's.
  const { problems, fields, source } = readUpdate(text, value, urlCond, retryOnConflict);
  if (problems.length > 0) throw errors.actionValidation(problems);
  const requireAlias = boolParam(q.require_alias, false);
  const routing = routingParam(q);
  const mode = refreshMode(req);
  const [item] = service.bulk([{ op: 'update', index: p.index as string, id: p.id as string, ...fields, requireAlias, ...(routing === undefined ? {} : { routing }) }]);
  if (item === undefined) throw errors.internal();
  if ('error' in item) throw item.error;
  // A noop writes nothing, so nothing is refreshed: ES's answer has no `forced_refresh` then.
  const forced = await refreshAfterWrite(service, item.outcome.result === 'noop' ? 'false' : mode, [item.outcome.index]);
  const body = writeBody(item.outcome, forced);
  // The body's `_source` over the URL's (RestUpdateAction, then the body's parser): ES then adds
  // `get` (UpdateHelper.extractGetResult) with the document as the update left it, noop included.
  const get = updateGet(service, item.outcome, source ?? urlFetchSource(q));
  if (get !== undefined) body.get = get;
  return sendJson(req, reply, item.outcome.result === 'created' ? 201 : 200, body);
}

/** `_bulk`: the body's items applied in order, each answer rendered as soon as it is applied. */
async function bulkRequest(service: SearchService, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const started = performance.now();
  // The body's bytes as they came (see parseBulk); a `?source=` query string as text.
  const body = Buffer.isBuffer(req.body) ? req.body : rawBody(req);
  if (body === undefined) throw errors.actionValidation(['no requests added']);
  const q = queryOf(req);
  const mode = refreshMode(req);
  // Parsed in slices, as it is applied (see parseBulkSliced).
  const actions = await parseBulkSliced(body, (req.params as Params).index, boolParam(q.require_alias, false), urlFetchSource(q), routingParam(q), service.bulkSliceMs);
  if (actions.length === 0) throw errors.actionValidation(['no requests added']);
  // Each item is rendered as soon as it is applied (see BulkResponseWriter), but under `wait_for`:
  // its items say `forced_refresh: true` when their index's wait forced a refresh (past
  // index.max_refresh_listeners), as ES sets it on a shard's items (BulkShardResponse), so they are
  // rendered once it is known (their update `get`s are read as they are applied).
  const waits = mode === 'wait_for';
  const response = new BulkResponseWriter(mode === 'true', actions.length);
  const held: [BulkItem, unknown][] = [];
  /** Per index written, the refresh generation of its last write: a wait_for waits for a refresh past it. */
  const written = new Map<string, number>();
  /** The indices of every item applied (noops too): `refresh=true` refreshes them. */
  const applied = new Set<string>();
  // Applied in slices, so that searches run between them; bulkEachSliced hands over one item per
  // action, in order: an update's item gets its `get`.
  let at = 0;
  await service.bulkEachSliced(actions, (item) => {
    const a = actions[at++];
    const fetch = a !== undefined && !(a instanceof SearchError) && a.op === 'update' ? (a as BulkUpdateAction).fetchSource : undefined;
    // A noop writes nothing (ES gives it no translog location): it waits for no refresh.
    if (!('error' in item)) {
      applied.add(item.outcome.index);
      if (item.outcome.result !== 'noop') written.set(item.outcome.index, service.refreshGeneration(item.outcome.index));
    }
    const get = fetch === undefined || 'error' in item ? undefined : updateGet(service, item.outcome, fetch);
    if (waits) held.push([item, get]);
    else response.add(item, get);
  });
  if (mode === 'true') await refreshAfterWrite(service, mode, applied);
  else if (waits) {
    const forced = await service.waitForRefresh(written);
    for (const [item, get] of held) response.add(item, get, !('error' in item) && forced.has(item.outcome.index));
  }
  return sendJsonBytes(req, reply, 200, response.finish(Math.round(performance.now() - started)));
}

/** Document APIs: `_doc`, `_create`, `_update`, `_bulk`. */
export async function documentRoutes(app: FastifyInstance, opts: { service: SearchService }): Promise<void> {
  const { service } = opts;

  const indexDoc = (op: 'index' | 'create') => async (req: FastifyRequest, reply: FastifyReply) => {
    const p = req.params as Params;
    const index = p.index as string;
    const { value, text } = requiredJsonBody(req);
    const requested = queryOf(req).op_type;
    if (requested !== undefined && requested !== 'create' && requested !== 'index') {
      throw errors.illegalArgument(`opType must be 'create' or 'index', found: [${requested}]`);
    }
    const opType = requested === 'create' ? 'create' : op;
    const q = queryOf(req);
    const mode = refreshMode(req);
    const outcome = service.indexDoc(index, p.id, value, text, opType, conditionsFromQuery(q), boolParam(q.require_alias, false), routingParam(q));
    const forced = await refreshAfterWrite(service, mode, [outcome.index]);
    return sendJson(req, reply, outcome.result === 'created' ? 201 : 200, writeBody(outcome, forced));
  };
  app.put('/:index/_doc/:id', indexDoc('index'));
  app.post('/:index/_doc/:id', indexDoc('index'));
  app.post('/:index/_doc', indexDoc('index'));
  app.put('/:index/_create/:id', indexDoc('create'));
  app.post('/:index/_create/:id', indexDoc('create'));

  app.get('/:index/_doc/:id', async (req, reply) => getDocument(service, req, reply));
  // The get-source API: the stored source alone (filtered as the get API filters it).
  app.get('/:index/_source/:id', async (req, reply) => {
    const p = req.params as Params;
    const index = p.index as string;
    const id = p.id as string;
    const q = queryOf(req);
    const doc = readDoc(service, q, index, id);
    if (doc === undefined) throw errors.resourceNotFound(`Document not found [${index}]/[${id}]`);
    if (!service.get(index).mappings.root.sourceEnabled) throw errors.resourceNotFound(`Source not found [${index}]/[${id}]`);
    const filter = sourceFilterFromParams(q);
    const source = JSON.parse(doc.source) as unknown;
    return sendJson(req, reply, 200, isIdentity(filter) ? source : filterSource(source, filter));
  });
  app.head('/:index/_source/:id', async (req, reply) => {
    const p = req.params as Params;
    const found = readDoc(service, queryOf(req), p.index as string, p.id as string) !== undefined && service.get(p.index as string).mappings.root.sourceEnabled;
    return sendHead(reply, found ? 200 : 404, 'application/json');
  });
  app.head('/:index/_doc/:id', async (req, reply) => {
    const p = req.params as Params;
    const doc = readDoc(service, queryOf(req), p.index as string, p.id as string);
    // The same lookup as GET: an object among `stored_fields` is its 400 (without a body).
    if (doc !== undefined) storedFieldsOf(service.get(p.index as string).mappings, storedFieldsParam(queryOf(req).stored_fields), doc.indexedSource);
    return sendHead(reply, doc !== undefined ? 200 : 404, 'application/json');
  });
  app.delete('/:index/_doc/:id', async (req, reply) => {
    const p = req.params as Params;
    // DeleteRequest.validate.
    const cond = conditionsFromQuery(queryOf(req));
    const problems = cond === undefined ? [] : casProblems(cond);
    if (problems.length > 0) throw errors.actionValidation(problems);
    const mode = refreshMode(req);
    const outcome = service.deleteDoc(p.index as string, p.id as string, cond, routingParam(queryOf(req)));
    // A delete that found nothing still refreshes and answers forced_refresh, as the node does (and as before).
    const forced = await refreshAfterWrite(service, mode, [outcome.index]);
    return sendJson(req, reply, outcome.result === 'not_found' ? 404 : 200, writeBody(outcome, forced));
  });
  app.post('/:index/_update/:id', async (req, reply) => updateDocument(service, req, reply));

  const bulk = async (req: FastifyRequest, reply: FastifyReply) => bulkRequest(service, req, reply);
  app.post('/_bulk', bulk);
  app.put('/_bulk', bulk);
  app.post('/:index/_bulk', bulk);
  app.put('/:index/_bulk', bulk);
}

/**
 * The `get` member of an update's answer (UpdateHelper.extractGetResult): the document as the
 * update left it (a noop included), its `_source` filtered by `fetch`; undefined when the update did
 * not ask for the source (`fetch` undefined or `_source: false`).
 */
function updateGet(service: SearchService, outcome: WriteOutcome, fetch: SourceFilter | undefined): Record<string, unknown> | undefined {
  if (fetch?.fetch !== true) return undefined;
  const doc = service.getDoc(outcome.index, outcome.id, outcome.routing);
  if (doc === undefined) return undefined;
  // As ES's UpdateHelper, the document the update built (its merge, its upsert), before the mapping's
  // `_source` includes/excludes filter what is kept (stored-source.ts); a noop's is the kept one.
  const parsed = JSON.parse(outcome.result === 'noop' ? doc.source : doc.indexedSource) as unknown;
  return { _seq_no: doc.seqNo, _primary_term: PRIMARY_TERM, found: true, _source: isIdentity(fetch) ? parsed : filterSource(parsed, fetch) };
}
