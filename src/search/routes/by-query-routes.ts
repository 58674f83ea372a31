import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonBodyAndText, queryOf, sendJson, type Params } from '../http/http-io.js';
import { boolParam, checkNoOpParams, checkParams, DELETE_BY_QUERY_PARAMS, intParam, REINDEX_PARAMS, UPDATE_BY_QUERY_PARAMS } from '../http/url-params.js';
import { parseByQuery, parseReindex, type ByQueryRequest, type ReindexRequest } from '../requests/by-query-request.js';
import type { BulkAction } from '../requests/bulk.js';
import { filterSource } from '../requests/source-filter.js';
import { shownSource } from '../engine/stored-source.js';
import { MATCH_ANY, PRIMARY_TERM, UNASSIGNED_PRIMARY_TERM, UNASSIGNED_SEQ_NO, type WriteConditions } from '../requests/write-conditions.js';
import type { IndexState } from '../engine/index-state.js';
import type { SearchService } from '../engine/search-service.js';
import { routingOf, shardSlice } from '../engine/search-phase.js';
import { sliceOf } from '../query/id-slice.js';

/**
 * `_delete_by_query`, `_update_by_query` and `_reindex`, run at once on this node (no background
 * task): the query picks each index's documents in write order (ES's scroll order), up to
 * `max_docs`, and they are written as bulks (in slices, as `_bulk`) whose items carry the sequence
 * number each document had when it matched, so a document changed in between is a version
 * conflict, counted or fatal as `conflicts` says. The answer is ES's BulkByScrollResponse.
 */

/** One matched document: where it is and what it held. */
interface Matched {
  readonly state: IndexState;
  readonly ord: number;
}

/**
 * The documents the query matches (`ordsOf`, a shard's matches) on the shards `searched` (in their
 * natural order), index by index of `states` in write order; the shards of an index of several
 * merged as ES's scroll sorted on `_doc` merges them (ordinal, then shard), up to `maxDocs`. With
 * `slice`, those of that slice only: spread over the shards searched as a sliced scroll spreads it
 * (search-phase.ts's shardSlice), then by `_id` on a shard; a shard the slice does not reach is not
 * searched.
 */
function matched(searched: readonly IndexState[], states: readonly IndexState[], ordsOf: (shard: IndexState) => Int32Array, slice: { readonly id: number; readonly max: number } | undefined, maxDocs: number | undefined): Matched[] {
  const out: Matched[] = [];
  for (const index of states) {
    // `routing` searches only the shards it routes to (`searched`), as the by-query search does in ES.
    const perShard = searched.flatMap((state, position) => {
      if (!index.shards.includes(state)) return [];
      const part = slice === undefined ? 'all' : shardSlice(slice, position, searched.length);
      if (part === 'none') return [];
      const all = ordsOf(state);
      const ords = part === 'all' ? all : all.filter((ord) => sliceOf(state.index.ids[ord] as string, part.max) === part.id);
      return [{ state, ords, at: 0 }];
    });
    for (;;) {
      let next: (typeof perShard)[number] | undefined;
      for (const s of perShard) if (s.at < s.ords.length && (next === undefined || (s.ords[s.at] as number) < (next.ords[next.at] as number))) next = s;
      if (next === undefined) break;
      if (maxDocs !== undefined && out.length >= maxDocs) return out;
      out.push({ state: next.state, ord: next.ords[next.at++] as number });
    }
  }
  return out;
}

/** How many slices the request runs as: `slices=auto` is one per shard (the fewest shards of the indices), as in ES. */
function sliceCount(r: ByQueryRequest, states: readonly IndexState[]): number {
  if (r.slices !== 'auto') return r.slices;
  return states.length === 0 ? 1 : Math.min(...states.map((s) => s.shards.length));
}

/** One slice's work (ES's BulkByScrollTask status of a worker). */
interface SliceRun {
  readonly total: number;
  readonly tally: Tally;
  readonly batches: number;
}

/**
 * Runs the request as `slices` slices, one after the other (ES runs them at once; each is its own
 * scroll and bulks, so the outcome is the same): each takes its slice of the documents and
 * `max_docs / slices` of them (rounded down, as ES splits it), and stops at its own first failure.
 * `keepsSources`: an update or reindex re-writes each document from its `_source`, checked over
 * every slice's documents before any is written.
 */
async function runSlices(service: SearchService, states: readonly IndexState[], r: ByQueryRequest, routing: string | undefined, slices: number, keepsSources: boolean, actionsOf: (docs: readonly Matched[]) => BulkAction[]): Promise<SliceRun[]> {
  const maxDocs = r.maxDocs === undefined || slices === 1 ? r.maxDocs : Math.floor(r.maxDocs / slices);
  const searched = service.searchShards(states, routing);
  // Each shard's matches, found once however many slices read them.
  const found = new Map<IndexState, Int32Array>();
  const ordsOf = (shard: IndexState): Int32Array => {
    let ords = found.get(shard);
    if (ords === undefined) found.set(shard, (ords = service.matchingOrds(shard, r.query)));
    return ords;
  };
  const parts = Array.from({ length: slices }, (_, id) => matched(searched, states, ordsOf, slices === 1 ? undefined : { id, max: slices }, maxDocs));
  if (keepsSources) checkSourcesKept(parts.flat());
  const runs: SliceRun[] = [];
  for (const docs of parts) {
    const tally = await inBatches(service, actionsOf(docs), r);
    runs.push({ total: docs.length, tally, batches: docs.length === 0 ? 0 : Math.ceil(docs.length / Math.max(1, r.batchSize)) });
  }
  return runs;
}

/** The condition that the document is still the one that matched (its sequence number then). */
function asMatched(m: Matched): WriteConditions {
  return { version: MATCH_ANY, versionType: 'internal', ifSeqNo: m.state.seqNos[m.ord] as number, ifPrimaryTerm: PRIMARY_TERM };
}

interface Tally {
  created: number;
  updated: number;
  deleted: number;
  noops: number;
  conflicts: number;
  failures: Record<string, unknown>[];
}

/**
 * Applies `actions` as one bulk, in slices like `_bulk` (other requests run between them; a
 * document another request changes meanwhile is a version conflict, as in ES): conflicts are
 * counted, and are failures unless they are to proceed.
 */
async function apply(service: SearchService, actions: BulkAction[], proceed: boolean, t: Tally): Promise<void> {
  await service.bulkEachSliced(actions, (item) => {
    if ('error' in item) {
      const conflict = item.error.type === 'version_conflict_engine_exception';
      if (conflict) t.conflicts++;
      if (!conflict || !proceed) t.failures.push({ index: item.index, id: item.id, cause: item.error.toBody().error, status: item.error.status });
      return;
    }
    const r = item.outcome.result;
    if (r === 'created') t.created++;
    else if (r === 'updated') t.updated++;
    else if (r === 'deleted') t.deleted++;
    else if (r === 'noop') t.noops++;
  });
}

/**
 * Writes `actions` batch by batch (ES's scroll batches of `batchSize`), each as one bulk; after a
 * batch with a failure it stops, as ES does (the whole batch is written, later ones are not).
 */
async function inBatches(service: SearchService, actions: BulkAction[], r: ByQueryRequest): Promise<Tally> {
  const t: Tally = { created: 0, updated: 0, deleted: 0, noops: 0, conflicts: 0, failures: [] };
  const size = Math.max(1, r.batchSize);
  for (let at = 0; at < actions.length && t.failures.length === 0; at += size) await apply(service, actions.slice(at, at + size), r.conflicts === 'proceed', t);
  return t;
}

/**
 * ES's BulkByScrollResponse: `took`, `timed_out`, the status (summed over the slices, with a
 * `slices` list of each slice's own when there are several, as ES's leader task reports them) and
 * the failures of every slice.
 */
function answer(req: FastifyRequest, reply: FastifyReply, started: number, r: ByQueryRequest, runs: readonly SliceRun[], shown: readonly ('updated' | 'created')[]): FastifyReply {
  const sum = (f: (run: SliceRun) => number): number => runs.reduce((n, run) => n + f(run), 0);
  // Each slice throttles to its share (ES splits requests_per_second between them); unlimited is -1.
  const rps = (share: number): number => (r.requestsPerSecond === -1 ? -1 : share);
  const status = (run: SliceRun | undefined, sliceId?: number): Record<string, unknown> => {
    const totalOf = run === undefined ? sum((x) => x.total) : run.total;
    const t = (k: keyof Omit<Tally, 'failures'>): number => (run === undefined ? sum((x) => x.tally[k]) : run.tally[k]);
    const body: Record<string, unknown> = sliceId === undefined ? {} : { slice_id: sliceId };
    body.total = totalOf;
    if (shown.includes('updated')) body.updated = t('updated');
    if (shown.includes('created')) body.created = t('created');
    body.deleted = t('deleted');
    body.batches = run === undefined ? sum((x) => x.batches) : run.batches;
    body.version_conflicts = t('conflicts');
    body.noops = t('noops');
    body.retries = { bulk: 0, search: 0 };
    body.throttled_millis = 0;
    body.requests_per_second = rps(run === undefined ? r.requestsPerSecond : r.requestsPerSecond / runs.length);
    body.throttled_until_millis = 0;
    return body;
  };
  const body: Record<string, unknown> = { took: Math.max(0, Math.round(performance.now() - started)), timed_out: false, ...status(undefined) };
  if (runs.length > 1) body.slices = runs.map((run, i) => status(run, i));
  const failures = runs.flatMap((run) => run.tally.failures);
  body.failures = failures;
  const code = failures.reduce((s, f) => Math.max(s, f.status as number), 200);
  return sendJson(req, reply, code, body);
}

/**
 * An update by query or reindex re-writes each document from its `_source`: one from an index that
 * keeps none fails the request before anything is written, with ES's error
 * (AbstractAsyncBulkByScrollAction: "[index][id] didn't store _source").
 */
function checkSourcesKept(docs: readonly Matched[]): void {
  const m = docs.find((d) => !d.state.mappings.root.sourceEnabled);
  if (m !== undefined) throw errors.illegalArgument(`[${m.state.name}][${m.state.index.ids[m.ord] as string}] didn't store _source`);
}

/** A matched document's routing, as its re-write keeps it (`{}` without one). */
function routed(m: Matched): { routing?: string } {
  const routing = routingOf(m.state, m.ord);
  return routing === undefined ? {} : { routing };
}

function reindexActions(service: SearchService, r: ReindexRequest, docs: readonly Matched[]): BulkAction[] {
  return docs.map((m) => {
    const id = m.state.index.ids[m.ord] as string;
    let raw = shownSource(m.state.mappings.root, service.pinnedSource(m.state, m.ord, id));
    if (r.sourceFilter !== undefined) raw = JSON.stringify(filterSource(JSON.parse(raw), r.sourceFilter));
    const cond: WriteConditions | undefined = r.versionType === 'internal'
      ? undefined
      : { version: m.state.versions[m.ord] as number, versionType: r.versionType, ifSeqNo: UNASSIGNED_SEQ_NO, ifPrimaryTerm: UNASSIGNED_PRIMARY_TERM };
    // `dest.routing: keep` (the only value taken): the document's routing goes with it.
    return { op: r.opType, index: r.dest, id, source: undefined, raw, cond, ...routed(m) };
  });
}

export async function byQueryRoutes(app: FastifyInstance, opts: { service: SearchService }): Promise<void> {
  const { service } = opts;

  const byQuery = (update: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const params = queryOf(req);
    const body = jsonBodyAndText(req);
    const r = parseByQuery(body?.text, body?.value, params, update);
    checkParams(req.url, params, update ? UPDATE_BY_QUERY_PARAMS : DELETE_BY_QUERY_PARAMS);
    // The parameters of the search they run that would change which documents are taken: refused
    // where Portico would not act on them (an analyzer, wildcard analysis, a per-shard limit).
    checkNoOpParams(req.url, params);
    if ((intParam(params, 'terminate_after') ?? 0) > 0) throw errors.contextUnsupported('[terminate_after] in _delete_by_query and _update_by_query');
    const states = service.resolve((req.params as Params).index, params.ignore_unavailable === 'true', params.allow_no_indices !== 'false');
    const actionsOf = (docs: readonly Matched[]): BulkAction[] => docs.map((m) => {
      const id = m.state.index.ids[m.ord] as string;
      // Each document is written with the routing it has (as ES copies a hit's routing).
      if (!update) return { op: 'delete', index: m.state.name, id, cond: asMatched(m), ...routed(m) };
      // Without a script an update by query writes each document again as it is (a new version).
      // From the `_source` the index keeps (stored-source.ts): ES re-indexes what `_source` holds.
      return { op: 'index', index: m.state.name, id, source: undefined, raw: shownSource(m.state.mappings.root, service.pinnedSource(m.state, m.ord, id)), cond: asMatched(m), ...routed(m) };
    });
    const refresh = boolParam(params.refresh, false);
    const runs = await runSlices(service, states, r, params.routing, sliceCount(r, states), update, actionsOf);
    // `refresh=true` refreshes the indices written (a boolean here, as in ES's by-query requests).
    if (refresh) service.refresh(states.filter((s) => service.isCurrent(s)));
    return answer(req, reply, started, r, runs, update ? ['updated'] : []);
  };
  for (const [path, update] of [['/:index/_delete_by_query', false], ['/:index/_update_by_query', true]] as const) app.post(path, byQuery(update));

  app.post('/_reindex', async (req, reply) => {
    const started = performance.now();
    const params = queryOf(req);
    const body = jsonBodyAndText(req);
    const r = parseReindex(body?.text, body?.value, params);
    checkParams(req.url, params, REINDEX_PARAMS);
    const states = service.resolve(r.sourceIndices);
    if (states.some((s) => s.name === r.dest)) throw errors.actionValidation([`reindex cannot write into an index its reading from [${r.dest}]`]);
    const refresh = boolParam(params.refresh, false);
    const runs = await runSlices(service, states, r, undefined, sliceCount(r, states), true, (docs) => reindexActions(service, r, docs));
    if (refresh && service.exists(r.dest)) service.refresh([service.get(r.dest)]);
    return answer(req, reply, started, r, runs, ['updated', 'created']);
  });
}
