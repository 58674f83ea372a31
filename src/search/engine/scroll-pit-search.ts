import { Highlighter } from '../highlight/highlight-phase.js';
import { float32ForJson } from '../query/bm25.js';
import { errors } from '../errors.js';
import { contextMissing, type PitContext, type ScrollContext } from './open-contexts.js';
import { sortColumnsOf, sortValuesAt, type ScrollHits } from './scroll-hits.js';
import { renderHit, sortsByScore, type Candidate, type SearchEnv } from './search-phase.js';
import type { PitReference, SearchRequest, SortKey } from '../requests/search-request.js';
import type { QueryParams } from '../http/url-params.js';
import type { IndexState } from './index-state.js';
import { withSearchType, type SearchService } from './search-service.js';
import { parseTimeValue } from '../syntax/time-value.js';

/**
 * Scroll and point in time over the search service, as ES 8 does them (no HTTP here: the routes in
 * routes/scroll-routes.ts and `_search` call these). A scroll runs its query once, when it begins,
 * and keeps every hit in order; each batch renders the next `size` of them. A point in time runs
 * each search on the indices as they were when it opened (open-contexts.ts pins them).
 */

/** Where a `_search` was sent (its path's index expression and the indices options). */
export interface SearchTarget {
  readonly index: string | undefined;
  readonly ignoreUnavailable: boolean;
  readonly allowNoIndices: boolean;
  /** `expand_wildcards`, `routing` and `preference` as given (a point in time refuses them). */
  readonly expandWildcards?: string | undefined;
  readonly routing?: string | undefined;
  readonly preference?: string | undefined;
  /** `search_type` (withSearchType: over the point in time's shards too). */
  readonly searchType?: string | undefined;
}

/**
 * RestSearchAction.preparePointInTime, which `_search` runs, and `_msearch` on each search with a
 * `pit` as it reads it: the point in time names its indices, and searches them with its own
 * options, so an index, indices options other than the defaults, routing or preference (and, in
 * `_msearch`, `ccs_minimize_roundtrips`) are refused, not ignored. ES's problems, in its order.
 */
export function pitProblems(target: SearchTarget, ccsMinimizeRoundtrips = false): string[] {
  const problems: string[] = [];
  if (target.index !== undefined) problems.push('[indices] cannot be used with point in time. Do not specify any index with point in time.');
  if (target.ignoreUnavailable || !target.allowNoIndices || (target.expandWildcards !== undefined && target.expandWildcards !== 'open')) {
    problems.push('[indicesOptions] cannot be used with point in time');
  }
  if (target.routing !== undefined) problems.push('[routing] cannot be used with point in time');
  if (target.preference !== undefined) problems.push('[preference] cannot be used with point in time');
  if (ccsMinimizeRoundtrips) problems.push('[ccs_minimize_roundtrips] cannot be used with point in time');
  return problems;
}

/**
 * A `_search` that begins a scroll (`?scroll`) or searches a point in time (`pit`), as its
 * response body (the caller runs any other search as usual).
 */
export function searchInContext(service: SearchService, req: SearchRequest, target: SearchTarget, startedMs: number, nowMs: number, shards?: readonly IndexState[]): Record<string, unknown> {
  if (req.pit !== undefined) {
    const problems = pitProblems(target);
    if (problems.length > 0) throw errors.actionValidation(problems);
    return pitSearch(service, req, req.pit, startedMs, nowMs, target.searchType);
  }
  if (req.scrollMs === undefined) throw new Error('searchInContext: the request has neither scroll nor pit');
  // The shards the scroll runs on: those given (the caller picked them), else the target's.
  shards ??= service.searchShards(service.resolve(target.index, target.ignoreUnavailable, target.allowNoIndices), target.routing, target.preference);
  return startScroll(service, shards, req, req.scrollMs, startedMs, nowMs);
}

function startScroll(service: SearchService, states: readonly IndexState[], req: SearchRequest, keepAliveMs: number, startedMs: number, nowMs: number): Record<string, unknown> {
  const contexts = service.contexts;
  const first = states[0]?.name ?? '_all';
  contexts.checkKeepAlive(keepAliveMs, first);
  contexts.checkScrollRoom(nowMs, first);
  // A scroll always counts its hits exactly (SearchRequest.resolveTrackTotalHitsUpTo).
  const request: SearchRequest = { ...req, trackTotalHits: Infinity };
  let page: readonly Candidate[] = [];
  // The scroll sees the indices as of their last refresh, and pins them (their origin) from now on.
  const seen = states.map((s) => service.searchable(s));
  const body = service.searchPinned(seen, request, startedMs, (all) => {
    page = all;
  });
  const n = page.length;
  const hits: ScrollHits = {
    shards: new Uint32Array(n),
    ords: new Int32Array(n),
    scores: new Float64Array(n),
    sortColumns: sortColumnsOf(n, (i) => page[i]?.sortValues),
  };
  page.forEach((c, i) => {
    hits.shards[i] = c.shard;
    hits.ords[i] = c.ord;
    hits.scores[i] = c.score;
  });
  const total = totalOf(body);
  const ctx = contexts.openScroll(states, request, hits, total, keepAliveMs, nowMs);
  ctx.next = Math.min(req.size, n);
  if (typeof body.terminated_early === 'boolean') ctx.terminatedEarly = body.terminated_early;
  return { _scroll_id: ctx.id, ...body };
}

function totalOf(body: Record<string, unknown>): number {
  const t = (body.hits as { total?: unknown }).total;
  if (typeof t === 'number') return t;
  return (t as { value: number }).value;
}

/** The next batch of scroll `id`; `keepAliveMs`, when given, replaces its keep-alive. */
export function continueScroll(service: SearchService, id: string, keepAliveMs: number | undefined, restTotalHitsAsInt: boolean, startedMs: number, nowMs: number): Record<string, unknown> {
  const ctx = service.contexts.scroll(id, nowMs);
  renew(service, ctx, ctx.states, keepAliveMs, nowMs);
  const hits = renderBatch(service, ctx);
  const n = ctx.states.length;
  return {
    _scroll_id: ctx.id,
    took: Math.max(0, Math.round(nowMs - startedMs)),
    timed_out: false,
    ...(ctx.terminatedEarly === undefined ? {} : { terminated_early: ctx.terminatedEarly }),
    _shards: { total: n, successful: n, skipped: 0, failed: 0 },
    hits: {
      total: restTotalHitsAsInt ? ctx.total : { value: ctx.total, relation: 'eq' },
      max_score: hits.maxScore,
      hits: hits.rendered,
    },
  };
}

/**
 * A use of context `ctx` over the live indices `origins`: gone (404) when one of them was deleted
 * or replaced since; else its keep-alive replaced by `keepAliveMs` when given, and its clock reset.
 */
function renew(service: SearchService, ctx: ScrollContext | PitContext, origins: readonly IndexState[], keepAliveMs: number | undefined, nowMs: number): void {
  if (!origins.every((s) => service.isCurrent(s))) {
    service.contexts.free(ctx);
    throw contextMissing(ctx.num);
  }
  if (keepAliveMs !== undefined) {
    service.contexts.checkKeepAlive(keepAliveMs, origins[0]?.name ?? '_all');
    ctx.keepAliveMs = keepAliveMs;
  }
  ctx.lastAccessMs = nowMs;
}

/** Renders the scroll's next `size` hits and moves past them. */
function renderBatch(service: SearchService, ctx: ScrollContext): { rendered: unknown[]; maxScore: number | null } {
  const req = ctx.request;
  const { shards, ords, scores, sortColumns } = ctx.hits;
  const start = ctx.next;
  const end = Math.min(start + req.size, ords.length);
  ctx.next = end;
  const showScore = sortsByScore(req) || req.trackScores;
  // renderHit asks for a source by id: the hit being rendered says which ordinal (and so which
  // version of the document) that is.
  let ord = 0;
  const env: SearchEnv = {
    ctx: () => {
      throw new Error('a scroll batch runs no query');
    },
    sourceText: (state, id) => service.pinnedSource(state, ord, id),
    now: () => 0,
  };
  const rendered: unknown[] = [];
  let max = -Infinity;
  const highlighter = req.highlight === undefined ? undefined : new Highlighter(req.highlight, req.query);
  for (let i = start; i < end; i++) {
    ord = ords[i] as number;
    const score = scores[i] as number;
    if (score > max) max = score;
    const state = ctx.states[shards[i] as number] as IndexState;
    rendered.push(renderHit(env, state, ord, showScore ? score : null, sortValuesAt(sortColumns, i), req, highlighter));
  }
  return { rendered, maxScore: showScore && end > start && max > -Infinity ? float32ForJson(max) : null };
}

/** `POST /<index>/_pit?keep_alive=…`: ES's answer, the id and the shards it covers. */
export function openPit(service: SearchService, index: string, params: QueryParams, nowMs: number): Record<string, unknown> {
  const raw = params.keep_alive;
  if (raw === undefined) throw errors.actionValidation(['[keep_alive] is not specified']);
  const keepAliveMs = parseTimeValue(raw, 'keep_alive');
  // Every shard of the indices, or those `routing` and `preference` name (ES's open request reads both).
  const states = service.searchShards(service.resolve(index, params.ignore_unavailable === 'true', params.allow_no_indices !== 'false'), params.routing, params.preference);
  service.contexts.checkKeepAlive(keepAliveMs, states[0]?.name ?? index);
  // Opened on the indices as of their last refresh (a search-idle one is refreshed first).
  for (const s of states) service.searchable(s);
  const ctx = service.contexts.openPit(states, keepAliveMs, nowMs);
  const n = states.length;
  return { id: ctx.id, _shards: { total: n, successful: n, skipped: 0, failed: 0 } };
}

/** The implicit tiebreaker ES adds to a sorted search on a point in time (SearchRequest.rewrite). */
const SHARD_DOC: SortKey = { field: '_shard_doc', order: 'asc', missing: undefined, mode: undefined, unmappedType: 'long' };

function pitSearch(service: SearchService, request: SearchRequest, ref: PitReference, startedMs: number, nowMs: number, searchType?: string): Record<string, unknown> {
  const pit = service.contexts.pit(ref.id, nowMs);
  const origins = pit.views.map((v) => v.origin);
  const req = withSearchType(request, searchType, origins);
  renew(service, pit, origins, ref.keepAliveMs, nowMs);
  let sort = req.sort;
  const last = sort?.at(-1);
  if (sort !== undefined && last !== undefined && last.field !== '_shard_doc' && (req.searchAfter === undefined || req.searchAfter.length === sort.length + 1)) {
    sort = [...sort, SHARD_DOC];
  }
  const body = service.searchPinned(pit.views.map((v) => v.state()), { ...req, sort }, startedMs);
  return { pit_id: pit.id, ...body };
}
