import { mergePhrase, phraseSuggest } from '../query/phrase-suggester.js';
import { mergeSuggestions, termSuggest } from '../query/term-suggester.js';
import type { Suggestion } from '../requests/suggest-request.js';
import { float32ForJson } from '../query/bm25.js';
import { errors, SearchError } from '../errors.js';
import { GatheredStats, StatsRecorder } from '../query/scoring-stats.js';
import { collectedPrefix, countedWithoutCollecting } from './terminate-after.js';
import { EMPTY as EMPTY_HITS, scale, type Hits } from '../query/hit-lists.js';
import { javaDouble } from '../syntax/java-double.js';
import { RawJson } from '../http/json-render.js';
import { ShardFailures } from './shard-failures.js';
import { fastMatchField, matchTopK } from '../query/match-top-k.js';
import { execute, type ExecContext } from '../query/query-exec.js';
import type { SearchRequest, SortKey } from '../requests/search-request.js';
import type { IndexState } from './index-state.js';
import { planSort, type SortValue } from '../query/sort.js';
import { filterSource, isIdentity } from '../requests/source-filter.js';
import { byScore, selectWindow, selectWindowByScore, type Before } from '../query/top-k.js';
import { Highlighter } from '../highlight/highlight-phase.js';
import type { Query } from '../requests/query-dsl.js';
import type { DocSet } from './aggs/aggregate.js';
import { checkAggs, runAggregations } from './aggs/agg-phase.js';
import { collapsedHit, collapseKeys, collapseWindow, type CollapseKey, type CollapseShard } from './collapse.js';
import { checkFetchFields, hitFields } from './hit-fields.js';
import { sliceOf } from '../query/id-slice.js';
import { ROUTING_FIELD } from '../mapping/routing-field.js';
import { shownSource } from './stored-source.js';
import { storedFieldValues } from '../requests/multi-get.js';
import { checkRescore, collectedHits, rescoreTop } from './rescore.js';

/**
 * The query and fetch phases of `_search`: run the query on every index, pick each index's window
 * in the total order, merge (score or sort values, then index position, then ordinal), render hits
 * with their stored `_source`, and build ES's response envelope.
 */

/** What a search needs from the service. */
export interface SearchEnv {
  ctx(state: IndexState): ExecContext;
  /** Stored `_source` JSON text of a live document. */
  sourceText(state: IndexState, id: string): string;
  /** Runs `fn`, which renders a page of hits, so that its source reads share one store read (see DocumentStore.reading). */
  fetching?<T>(fn: () => T): T;
  now(): number;
  /** Told when the search reads `now` (date math in a query or an aggregation): its answer depends on the time. */
  readsNow?(): void;
}

/**
 * Largest from + size that matchTopK answers with its bounded heap, which pays log(k) per accepted
 * hit (measured in-process on the Debian corpus: about 30 % less CPU than the general path at from 0
 * and 20 % at from 100, 50 % more at from 1000). Deeper windows score term at a time (skipping,
 * with several terms, what cannot reach the window) and select by score buckets (about 40 % less
 * than the general path at from 9,990 before that skipping). Measured again with the skipping
 * (search-topk-probe): 0 (always deep) and 128 cost the same within noise at from 0 and 100.
 */
const FAST_WINDOW = 128;

/** ES's `index.max_slices_per_scroll` default. */
const MAX_SLICES = 1024;

// Long.MAX_VALUE as the nearest double (the exact text is written with RawJson).
const LONG_MAX = 2 ** 63;

/** Whether hits go in relevance order: no sort, or `_score` descending alone. */
export function sortsByScore(req: SearchRequest): boolean {
  return req.sort === undefined || (req.sort.length === 1 && req.sort[0]?.field === '_score' && req.sort[0].order === 'desc');
}

/** One hit of a search before it is rendered: its index (and position), ordinal, score and sort values. */
export interface Candidate {
  readonly state: IndexState;
  readonly shard: number;
  readonly ord: number;
  readonly score: number;
  readonly sortValues: SortValue[] | undefined;
  /** With `collapse`: the hit's group value. */
  readonly collapseKey?: CollapseKey;
}

/**
 * Runs a search over the resolved indices and builds ES's response body. With `capture` (a scroll
 * beginning) every hit is selected, in order, and handed to it; the response holds the first
 * `size`, and each index's window check is ES's scroll batch-size check.
 */
export function runSearch(states: readonly IndexState[], req: SearchRequest, startedMs: number, env: SearchEnv, capture?: (page: readonly Candidate[]) => void): Record<string, unknown> {
  // The window selected: the page, or (capture) every live document of the indices.
  const from = capture === undefined ? req.from : 0;
  const size = capture === undefined ? req.size : states.reduce((n, s) => n + s.index.liveCount, 0);
  const sortByScore = sortsByScore(req);
  const scored = sortByScore || req.trackScores || (req.sort?.some((k) => k.field === '_score') ?? false);
  let q: ShardQuery = { req, env, from, size, end: from + size, sortByScore, scored, single: states.length === 1, shardCount: states.length, capturing: capture !== undefined };
  // dfs_query_then_fetch: every shard's statistics first, and each shard's query scores with their sums.
  if (req.dfs === true && states.length > 1 && req.suggestOnly !== true) {
    const checked = q;
    q = { ...q, env: gatheredStatsEnv(states, req, env, (state) => checkShard(checked, state)) };
  }
  const phase: QueryPhase = { perIndex: [], total: 0, maxScore: -Infinity, plan0: undefined, aggSets: [], collapse: new Map(), terminated: false };
  const failures = new ShardFailures();
  // A suggest-only search runs no query (ES's hasOnlySuggest): no hits, a total of 0.
  if (req.suggestOnly !== true) states.forEach(failures.guard((state, shard) => queryShard(q, phase, state, shard)));
  failures.throwIfAllFailed(states.length);
  let page = mergePages(q, phase);
  if (capture !== undefined) {
    capture(page);
    page = page.slice(0, req.size);
  }
  const body: Record<string, unknown> = { took: 0, timed_out: false };
  // Shown whenever a limit was set: whether any shard stopped early (terminate-after.ts).
  if (req.terminateAfter !== undefined) body.terminated_early = phase.terminated;
  body._shards = failures.shardsBody(states.length);
  body.hits = hitsBody(q, phase, page);
  if (req.suggest !== undefined) body.suggest = suggestBody(states, req.suggest, env);
  if (req.aggs !== undefined) body.aggregations = runAggregations(req.aggs, phase.aggSets, aggEnv(env, req), req.typedKeys === true);
  body.took = Math.max(0, Math.round(env.now() - startedMs));
  return body;
}

/**
 * ES's DFS phase: each shard makes the query's weights, and the statistics they ask for (each
 * field's document count and length sum, each term's document frequency) are summed over the
 * shards (AggregatedDfs). The query phase then reads the sums on every shard, falling back to a
 * shard's own for what no shard recorded. Here the query runs once on each shard with a recorder
 * (scoring-stats.ts), and so do the rescore queries. A shard that fails its checks (`check`,
 * those of the query phase) or its query records nothing; it fails again in the query phase,
 * where ES's shard would have failed the DFS phase, and its failure is listed the same way.
 */
function gatheredStatsEnv(states: readonly IndexState[], req: SearchRequest, env: SearchEnv, check: (state: IndexState) => void): SearchEnv {
  const recorders = states.map((state) => {
    const stats = new StatsRecorder();
    try {
      // A shard that fails its checks fails the DFS phase: its statistics are in no sum.
      check(state);
      const ctx = { ...env.ctx(state), stats };
      // An index boost of 0 makes the shard's query constant-scored (Lucene rewrites a BoostQuery
      // of 0 so that no score is needed): its weights ask for no statistics.
      if (req.indexBoosts?.get(state.name) !== 0) execute(req.query, ctx);
      // ES's DFS phase makes the rescore queries' weights too: their statistics are gathered alike.
      for (const r of req.rescore ?? []) execute(r.query, ctx);
    } catch (e) {
      if (!(e instanceof SearchError)) throw e;
    }
    return stats;
  });
  const stats = new GatheredStats(recorders);
  return { ...env, ctx: (state) => ({ ...env.ctx(state), stats }) };
}

/** What the aggregation phase reads of the search: filter queries run on an index (once per request), hits rendered as the search's. */
function aggEnv(env: SearchEnv, req: SearchRequest): Parameters<typeof runAggregations>[2] {
  const matched = new Map<Query, Map<IndexState, Int32Array>>();
  let nowMs: number | undefined;
  return {
    // Taken at the first read (one value for the whole search), which the service is told of.
    get now(): number {
      if (nowMs === undefined) {
        env.readsNow?.();
        nowMs = Date.now();
      }
      return nowMs;
    },
    matching(query, set: DocSet) {
      let byIndex = matched.get(query);
      if (byIndex === undefined) matched.set(query, (byIndex = new Map()));
      let docs = byIndex.get(set.state);
      if (docs === undefined) {
        const hits = execute(query, set.ctx);
        docs = hits.docs.slice(0, hits.length);
        byIndex.set(set.state, docs);
      }
      return docs;
    },
    renderHit: (state, ord, score, sortValues, opts) =>
      renderHit(env, state, ord, score, sortValues === undefined ? undefined : [...sortValues], { ...req, fetchFields: undefined, source: opts.source, version: opts.version, seqNoPrimaryTerm: opts.seqNoPrimaryTerm }),
  };
}

/** The `suggest` section: each suggestion over every index, merged (term-suggester.ts, phrase-suggester.ts). */
function suggestBody(states: readonly IndexState[], suggestions: readonly Suggestion[], env: SearchEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of suggestions) {
    out[s.name] = s.kind === 'phrase' ? mergePhrase(states.map((state) => phraseSuggest(env.ctx(state), s)), s) : mergeSuggestions(states.map((state) => termSuggest(env.ctx(state), s)), s);
  }
  return out;
}

/** One search as each shard runs it: the request, the window over all shards and how hits are ordered. */
interface ShardQuery {
  readonly req: SearchRequest;
  readonly env: SearchEnv;
  readonly from: number;
  readonly size: number;
  readonly end: number;
  /** Relevance order (sortsByScore). */
  readonly sortByScore: boolean;
  /** Whether scores are computed for the best score (max_score). */
  readonly scored: boolean;
  /** One shard: only the requested page is materialized. */
  readonly single: boolean;
  /** The shards searched (a slice spreads over them: shardSlice). */
  readonly shardCount: number;
  /** A scroll beginning (runSearch's `capture`). */
  readonly capturing: boolean;
}

type SortPlan = ReturnType<typeof planSort>;

/** What the query phase gathers from the shards, in shard order. */
interface QueryPhase {
  /** Each shard's window, in its order. */
  readonly perIndex: Candidate[][];
  /** Matching documents, every shard that got as far as counting them. */
  total: number;
  maxScore: number;
  /** The sort plan of the first shard that made one: it compares the shards' sort values. */
  plan0: SortPlan | undefined;
  /** Each shard's matching documents (before post_filter), when the search aggregates. */
  readonly aggSets: DocSet[];
  /** With `collapse`: each shard's hits, for the inner hits. */
  readonly collapse: Map<IndexState, CollapseShard>;
  /** With `terminate_after`: whether a shard stopped collecting early. */
  terminated: boolean;
}

/** The query phase of one shard: its window of candidates, its hits counted, its best score. */
function queryShard(q: ShardQuery, phase: QueryPhase, state: IndexState, shard: number): void {
  const { req } = q;
  checkShard(q, state);
  const ctx = q.env.ctx(state);
  // The common case, a relevance-ordered `match` on one index: only the window is computed.
  if (q.single && plainMatch(req) && req.query.kind === 'match' && req.query.fuzzy === undefined) {
    const field = fastMatchField(req.query, state.mappings, state.index);
    const top = field === undefined ? undefined : matchTopK(req.query, field, state.index.live, q.from, q.size, req.trackTotalHits === false ? 0 : req.trackTotalHits, ctx.arena, FAST_WINDOW);
    if (top !== undefined) {
      phase.total += top.total;
      if (top.maxScore > phase.maxScore) phase.maxScore = top.maxScore;
      phase.perIndex.push(Array.from(top.docs, (ord, i) => ({ state, shard, ord, score: top.scores[i] as number, sortValues: undefined })));
      return;
    }
  }
  const { hits, before, plan, groups } = matchAndSort(q, phase, state, ctx, shard);
  phase.plan0 ??= plan;
  if (req.rescore !== undefined) {
    rescoreShard(q, phase, state, ctx, shard, hits);
    return;
  }
  // max_score is shown only with hits (hitsBody): a size 0 search never reads it.
  if (q.scored && req.size > 0) phase.maxScore = maxScore(hits.scores, hits.length, phase.maxScore);
  // Each index contributes its own top from+size, as each shard does in ES; with one index
  // only the requested page is materialized.
  const scratch = (n: number): Int32Array => ctx.arena.int32(n);
  const collapsed = req.collapse === undefined ? undefined : collapseShard(q, phase, state, ctx, hits, before, groups ?? hits);
  const window = collapsed !== undefined ? collapsed.window : req.sort === undefined || q.sortByScore
    ? selectWindowByScore(hits.docs, hits.scores, hits.length, q.single ? q.from : 0, q.single ? q.size : q.end, scratch)
    : selectWindow(hits.length, q.single ? q.from : 0, q.single ? q.size : q.end, before, scratch);
  phase.perIndex.push(
    Array.from(window, (i, k) => ({
      state,
      shard,
      ord: hits.docs[i] as number,
      score: hits.scores[i] as number,
      // A lone descending _score sort is no sort at all in ES (SortBuilder drops it): no sort arrays.
      sortValues: req.sort !== undefined && !q.sortByScore ? plan?.sortValues(i) : undefined,
      ...(collapsed === undefined ? {} : { collapseKey: collapsed.keys[k] ?? null }),
    })),
  );
}

/** A request of nothing but a query and a page (no sort, filter, aggregation, collapse, rescore, limit or index boost): the fast path may answer it. */
function plainMatch(req: SearchRequest): boolean {
  return req.rescore === undefined && req.sort === undefined && req.minScore === undefined && req.postFilter === undefined && req.slice === undefined && req.searchAfter === undefined
    && req.aggs === undefined && req.collapse === undefined && req.terminateAfter === undefined && req.indexBoosts === undefined;
}

/**
 * A shard's window with rescorers (ES's query and rescore phases): its top hits by score, as many
 * as the page's end or the largest window, rescored (rescore.ts); its best score is the best
 * rescored one (ES's RescorePhase sets it), and its part of the page is cut from them.
 */
function rescoreShard(q: ShardQuery, phase: QueryPhase, state: IndexState, ctx: ExecContext, shard: number, hits: Hits): void {
  const rescorers = q.req.rescore ?? [];
  // No hits are collected for a size 0 search, and then nothing is rescored.
  const n = q.req.size === 0 ? 0 : Math.min(hits.length, collectedHits(q.end, rescorers));
  const window = selectWindowByScore(hits.docs, hits.scores, hits.length, 0, n, (k) => ctx.arena.int32(k));
  const first = { docs: Int32Array.from(window, (i) => hits.docs[i] as number), scores: Float32Array.from(window, (i) => hits.scores[i] as number) };
  const top = rescoreTop(state, first, rescorers, ctx);
  const best = top.scores[0];
  if (best !== undefined && best > phase.maxScore) phase.maxScore = best;
  const from = q.single ? q.from : 0;
  const to = Math.min(top.docs.length, q.end);
  const page: Candidate[] = [];
  for (let i = from; i < to; i++) page.push({ state, shard, ord: top.docs[i] as number, score: top.scores[i] as number, sortValues: undefined });
  phase.perIndex.push(page);
}

/** `indices_boost`: ES wraps the shard's query in a BoostQuery, which refuses a negative boost (Lucene: finite and not below 0, Float.compare putting -0.0 below 0.0). */
function checkIndexBoost(req: SearchRequest, state: IndexState): void {
  const boost = req.indexBoosts?.get(state.name);
  if (boost === undefined || (boost >= 0 && boost !== Infinity && !Object.is(boost, -0))) return;
  const reason = `boost must be a positive float, got ${Number.isFinite(boost) ? javaDouble(float32ForJson(boost)) : String(boost)}`;
  throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason });
}

/** `indices_boost`: the shard's scores times its index's boost (checked by checkIndexBoost). */
function boosted(hits: Hits, req: SearchRequest, state: IndexState, ctx: ExecContext): Hits {
  const boost = req.indexBoosts?.get(state.name);
  return boost === undefined || boost === 1 ? hits : scale(hits, boost, ctx.arena);
}

/** `terminate_after`: the documents the shard collected before it stopped (terminate-after.ts); `allowed`, post_filter's documents. */
function collected(hits: Hits, req: SearchRequest, state: IndexState, phase: QueryPhase, allowed: ReadonlySet<number> | undefined, sliced: boolean): Hits {
  const limit = req.terminateAfter;
  if (limit === undefined) return hits;
  if (req.size === 0) {
    // The hit counter of a size 0 search stops at track_total_hits (terminate-after.ts).
    const counted = req.trackTotalHits === false ? 0 : req.trackTotalHits;
    if (counted === 0) return hits;
    if (allowed === undefined && req.minScore === undefined && !sliced && countedWithoutCollecting(req.query, state)) return hits;
    if (req.aggs === undefined && limit > counted) return hits;
  }
  const cut = collectedPrefix(hits, limit, allowed === undefined ? undefined : (ord) => allowed.has(ord));
  if (cut.terminated) phase.terminated = true;
  return { docs: hits.docs, scores: hits.scores, length: cut.length };
}

/**
 * The largest of `best` and the first `n` scores. A function of its own: the loop, run once per
 * request over every match (63,666 of them for a match_all), would otherwise run in queryShard's
 * unoptimized code, at several times the cost.
 */
function maxScore(scores: Float32Array, n: number, best: number): number {
  for (let i = 0; i < n; i++) if ((scores[i] as number) > best) best = scores[i] as number;
  return best;
}

/**
 * What a shard checks as it builds its search context, in ES's order (parseSource, then
 * DefaultSearchContext.preProcess), before it runs anything (the DFS phase too): a failure fails
 * that shard alone.
 */
function checkShard(q: ShardQuery, state: IndexState): void {
  const { req } = q;
  // ES builds the search_after point from the sort (SearchAfterBuilder.buildFieldDoc): without a
  // sort, or with `_score` descending alone (which ES drops), there is none to build.
  if (req.searchAfter !== undefined && req.searchAfter.length > 0 && sortsByScore(req)) throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: 'Sort must contain at least one field.' });
  // An index over its window fails only its own shard.
  if (!q.capturing ? q.end > state.settings.maxResultWindow : req.size > state.settings.maxResultWindow) {
    if (q.capturing) throw errors.batchTooLarge(state.name, state.settings.maxResultWindow, req.size);
    throw errors.resultWindowTooLarge(state.name, state.settings.maxResultWindow, q.end);
  }
  checkOnShard(req, state);
  if (req.rescore !== undefined) checkRescore(state, req.rescore, !q.sortByScore, req.collapse !== undefined);
  checkIndexBoost(req, state);
}

/** What each shard checks of the request before running it (a failure fails that shard alone). */
function checkOnShard(req: SearchRequest, state: IndexState): void {
  if (req.aggs !== undefined) checkAggs(req.aggs, state);
  if (req.fetchFields !== undefined) checkFetchFields(state.name, state.mappings, req.fetchFields);
  // ES's index.max_slices_per_scroll.
  if (req.slice !== undefined && req.slice.max > MAX_SLICES) {
    throw errors.shardFailure(state.name, {
      type: 'illegal_argument_exception',
      reason: `The number of slices [${req.slice.max}] is too large. It must be less than [${MAX_SLICES}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.`,
    });
  }
}

/**
 * A shard's collapsed window: the best hit of each group in the page (from 0 with several shards);
 * keeps `groups` (the hits the groups' own searches find: matchAndSort) for the inner hits.
 */
function collapseShard(q: ShardQuery, phase: QueryPhase, state: IndexState, ctx: ExecContext, hits: Hits, before: Before, groups: Hits): ReturnType<typeof collapseWindow> {
  const field = (q.req.collapse as NonNullable<SearchRequest['collapse']>).field;
  const keyOf = collapseKeys(state, field);
  const copy = (h: Hits): Hits => ({ docs: h.docs.slice(0, h.length), scores: h.scores.slice(0, h.length), length: h.length });
  const kept = copy(hits);
  phase.collapse.set(state, { ctx, hits: groups === hits ? kept : copy(groups), keyOf, scored: q.req.queryGiven === true });
  return collapseWindow(kept, before, q.single ? q.from : 0, q.single ? q.size : q.end, keyOf);
}

/**
 * What slice `slice` is of the `shard`th of `shards` shards searched, as ES's SliceBuilder spreads
 * slices over shards: on one shard, the documents whose `_id` hashes to it; with at least as many
 * slices as shards, slice `id` is on shard `id % shards` alone, where it is all the shard's
 * documents or, when several slices share the shard, their own slice of them by `_id`; with fewer
 * slices than shards, shard `s` belongs whole to slice `s % max`.
 */
export function shardSlice(slice: { readonly id: number; readonly max: number }, shard: number, shards: number): { readonly id: number; readonly max: number } | 'all' | 'none' {
  if (shards <= 1) return slice;
  if (slice.max >= shards) {
    if (slice.id % shards !== shard) return 'none';
    const inShard = Math.floor(slice.max / shards) + (slice.max % shards > shard ? 1 : 0);
    return inShard === 1 ? 'all' : { id: Math.floor(slice.id / shards), max: inShard };
  }
  return shard % slice.max === slice.id ? 'all' : 'none';
}

/**
 * The general path of a shard: the query's hits (min_score and post_filter applied, counted into
 * the phase's total), in the request's order, past its search_after point.
 */
function matchAndSort(q: ShardQuery, phase: QueryPhase, state: IndexState, ctx: ExecContext, shard: number): { hits: Hits; before: Before; plan: SortPlan | undefined; groups: Hits | undefined } {
  const { req, sortByScore } = q;
  const raw = execute(req.query, ctx);
  // A slice is part of the query in ES (a filter on _id): totals, aggregations and pages see only its documents.
  const slice = req.slice === undefined ? undefined : shardSlice(req.slice, shard, q.shardCount);
  const narrow = (h: Hits): Hits => {
    let out = h;
    if (slice === 'none') out = EMPTY_HITS;
    else if (slice !== undefined && slice !== 'all') {
      const ids = state.index.ids;
      out = filterHits(out, (i) => sliceOf(ids[h.docs[i] as number] as string, slice.max) === slice.id);
    }
    if (req.minScore !== undefined) {
      const scored = out;
      out = filterHits(scored, (i) => (scored.scores[i] as number) >= (req.minScore as number));
    }
    return out;
  };
  let hits = narrow(boosted(raw, req, state, ctx));
  let allowed: Set<number> | undefined;
  if (req.postFilter !== undefined) {
    const filter = execute(req.postFilter, ctx);
    allowed = new Set(filter.docs.subarray(0, filter.length));
  }
  // Collapse's inner hits come from a search of each group that carries the query and post_filter
  // alone (ES's ExpandSearchPhase): no indices_boost, no terminate_after.
  const changed = req.terminateAfter !== undefined || (req.indexBoosts?.get(state.name) ?? 1) !== 1;
  const groups = req.collapse !== undefined && changed ? postFiltered(narrow(raw), allowed) : undefined;
  hits = collected(hits, req, state, phase, allowed, slice !== undefined);
  // Aggregations see every match, post_filter or not (copied: the arena is reused by later queries;
  // the index's list of every live document, a match_all's, is never written, only replaced).
  if (req.aggs !== undefined) {
    const docs = hits.docs === ctx.index.allLive() && hits.length === hits.docs.length ? hits.docs : hits.docs.slice(0, hits.length);
    phase.aggSets.push({ state, ctx, docs, scores: hits.scores.slice(0, hits.length) });
  }
  hits = postFiltered(hits, allowed);
  // The total counts every match, also those before a search_after point (as ES does).
  phase.total += hits.length;
  let before: Before;
  let plan: SortPlan | undefined;
  if (req.sort === undefined || sortByScore) {
    before = byScore(hits.docs, hits.scores);
    if (req.searchAfter !== undefined) {
      plan = planSort(state.name, state.index, state.mappings, shard, BY_SCORE, hits);
    }
  } else {
    plan = planSort(state.name, state.index, state.mappings, shard, req.sort, hits);
    before = plan.before;
  }
  if (req.searchAfter !== undefined && plan !== undefined) {
    const p = plan;
    const after = req.searchAfter;
    const keep = filterIndices(hits.length, (i) => p.after(i, after));
    const filtered = pick(hits, keep);
    plan = planSort(state.name, state.index, state.mappings, shard, sortByScore ? BY_SCORE : req.sort ?? [], filtered);
    hits = filtered;
    before = sortByScore ? byScore(hits.docs, hits.scores) : plan.before;
  }
  return { hits, before, plan, groups };
}

/** Relevance order as a sort (what search_after reads its point against when no sort is given). */
const BY_SCORE: readonly SortKey[] = [{ field: '_score', order: 'desc', missing: undefined, mode: undefined, unmappedType: undefined }];

/** The hits that post_filter's documents (`allowed`) keep. */
function postFiltered(hits: Hits, allowed: ReadonlySet<number> | undefined): Hits {
  return allowed === undefined ? hits : filterHits(hits, (i) => allowed.has(hits.docs[i] as number));
}

/** The page over every shard's window: merged by score or sort values, then index position, then ordinal. */
function mergePages(q: ShardQuery, phase: QueryPhase): Candidate[] {
  const { perIndex, plan0 } = phase;
  if (perIndex.length === 1) return perIndex[0] as Candidate[];
  const { req, sortByScore } = q;
  const cmp = (a: Candidate, b: Candidate): number => {
    if (req.sort !== undefined && !sortByScore && plan0 !== undefined) {
      const c = plan0.compareTuples(a.sortValues ?? [], b.sortValues ?? []);
      if (c !== 0) return c;
    } else if (a.score !== b.score) return b.score - a.score;
    return a.shard - b.shard || a.ord - b.ord;
  };
  const merged = perIndex.flat().sort(cmp);
  if (req.collapse === undefined) return merged.slice(q.from, q.end);
  // Collapsed across shards: the first hit of each value over them all.
  const seen = new Set<CollapseKey>();
  return merged.filter((c) => !seen.has(c.collapseKey ?? null) && seen.add(c.collapseKey ?? null) !== undefined).slice(q.from, q.end);
}

/** The response's `hits`: the total as the request tracks it, max_score and the rendered page. */
function hitsBody(q: ShardQuery, phase: QueryPhase, page: readonly Candidate[]): Record<string, unknown> {
  const { req } = q;
  const { total, maxScore } = phase;
  const showScore = q.sortByScore || req.trackScores;
  // A sort with a _score key computes scores, and ES shows them on each hit (but max_score stays null).
  const hitScore = showScore || (req.sort?.some((k) => k.field === '_score') ?? false);
  const highlighter = req.highlight === undefined ? undefined : new Highlighter(req.highlight, req.query);
  const collapse = req.collapse;
  const render = collapse === undefined ? undefined : aggEnv(q.env, req).renderHit;
  const renderPage = () => page.map((c) => {
    const hit = renderHit(q.env, c.state, c.ord, hitScore ? c.score : null, c.sortValues, req, highlighter);
    const shard = phase.collapse.get(c.state);
    return collapse === undefined || render === undefined || shard === undefined ? hit : collapsedHit(hit, collapse, c.collapseKey ?? null, c.state, shard, render);
  });
  const hitsOut = page.length > 1 && q.env.fetching !== undefined ? q.env.fetching(renderPage) : renderPage();
  const body: Record<string, unknown> = {};
  if (req.trackTotalHits !== false) {
    const limit = req.trackTotalHits;
    const value = total > limit ? limit : total;
    body.total = req.restTotalHitsAsInt ? value : { value, relation: total > limit ? 'gte' : 'eq' };
  } else if (req.restTotalHitsAsInt) body.total = -1;
  body.max_score = showScore && total > 0 && req.size > 0 && maxScore > -Infinity ? float32ForJson(maxScore) : null;
  body.hits = hitsOut;
  return body;
}

export function renderHit(
  env: SearchEnv,
  state: IndexState,
  ord: number,
  score: number | null,
  sortValues: SortValue[] | undefined,
  req: SearchRequest,
  highlighter?: Highlighter,
): Record<string, unknown> | RawJson {
  const id = state.index.ids[ord] as string;
  const fetch = req.fetchFields;
  const sourceKept = state.mappings.root.sourceEnabled;
  if (!sourceKept) checkSourceDisabledFetch(state.name, req);
  const routing = routingOf(state, ord);
  if (sortValues === undefined && highlighter === undefined && fetch === undefined && (!req.source.fetch || isIdentity(req.source))) {
    return plainHit(env, state, ord, score, req, routing);
  }
  // `stored_fields: _none_` loads no stored field, `_id` included.
  const hit: Record<string, unknown> = fetch?.storedNone === true ? { _index: state.name } : { _index: state.name, _id: id };
  if (req.version) hit._version = state.versions[ord];
  if (req.seqNoPrimaryTerm) {
    hit._seq_no = state.seqNos[ord];
    hit._primary_term = 1;
  }
  hit._score = score === null ? null : float32ForJson(score);
  if (routing !== undefined && fetch?.storedNone !== true) hit._routing = routing;
  const raw = req.source.fetch || highlighter !== undefined || fetch !== undefined ? env.sourceText(state, id) : undefined;
  // What the index keeps of the source (stored-source.ts): `_source`, `fields` and highlights read it.
  const kept = keptSource(state, raw);
  if (req.source.fetch && kept !== undefined && sourceKept) hit._source = isIdentity(req.source) ? new RawJson(kept) : filterSource(JSON.parse(kept), req.source);
  const fields = fetch === undefined || raw === undefined ? undefined : hitFields(state.name, state.mappings, fetch, id, raw, kept);
  if (fields !== undefined) hit.fields = fields;
  // Highlighted from the stored source (ES's unified highlighter re-analyses it too), whatever _source filtering shows.
  // An index without `_source` highlights what it stores (`store: true` fields), as ES does.
  const highlight = highlighter?.highlight(state.mappings, sourceKept ? JSON.parse(kept ?? '{}') : storedOnly(state, raw));
  if (highlight !== undefined) hit.highlight = highlight;
  // Long.MAX_VALUE / MIN_VALUE (missing numeric values) are not representable as JS numbers.
  if (sortValues !== undefined) hit.sort = sortValues.map((v) => (v === LONG_MAX ? new RawJson('9223372036854775807') : v === -LONG_MAX ? new RawJson('-9223372036854775808') : v));
  return hit;
}

/** The `_source` the index keeps of a document read whole (stored-source.ts), if one was read. */
function keptSource(state: IndexState, raw: string | undefined): string | undefined {
  return raw === undefined ? undefined : shownSource(state.mappings.root, raw);
}

/**
 * The common hit (no sort values, whole or no _source) written straight to JSON text: the same
 * bytes renderJson gives for the object renderHit builds, without building it and walking its keys.
 */
function plainHit(env: SearchEnv, state: IndexState, ord: number, score: number | null, req: SearchRequest, routing: string | undefined): RawJson {
  const id = state.index.ids[ord] as string;
  let text = `{"_index":${JSON.stringify(state.name)},"_id":${JSON.stringify(id)}`;
  if (req.version) text += member('_version', state.versions[ord]);
  if (req.seqNoPrimaryTerm) text += `${member('_seq_no', state.seqNos[ord])},"_primary_term":1`;
  text += score === null ? ',"_score":null' : member('_score', float32ForJson(score));
  if (routing !== undefined) text += `,"_routing":${JSON.stringify(routing)}`;
  if (req.source.fetch && state.mappings.root.sourceEnabled) text += `,"_source":${shownSource(state.mappings.root, env.sourceText(state, id))}`;
  return new RawJson(`${text}}`);
}

/** Document `ord`'s custom routing (the `_routing` keyword field: routing-field.ts), if it has one. */
export function routingOf(state: IndexState, ord: number): string | undefined {
  return state.index.keyword.get(ROUTING_FIELD)?.valuesOf(ord)?.[0];
}

/**
 * What ES's fetch phase refuses on an index that keeps no `_source` (`_source.enabled: false`):
 * `_source` filtering and the `fields` option, which read the source. `_source: true` (or the
 * default) only leaves `_source` out; stored and docvalue fields are answered.
 */
function checkSourceDisabledFetch(indexName: string, req: SearchRequest): void {
  let reason: string | undefined;
  if (req.source.fetch && !isIdentity(req.source)) reason = `unable to fetch fields from _source field: _source is disabled in the mappings for index [${indexName}]`;
  else if ((req.fetchFields?.fields.length ?? 0) > 0) reason = `Unable to retrieve the requested [fields] since _source is disabled in the mappings for index [${indexName}]`;
  if (reason !== undefined) throw errors.shardFailure(indexName, { type: 'illegal_argument_exception', reason });
}

/** The stored fields' values of a document (its source as `store: true` keeps it), for highlighting. */
function storedOnly(state: IndexState, raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  const stored = [...state.mappings.fields.keys()];
  const values = storedFieldValues(state.mappings, stored, JSON.parse(raw)) ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(values)) if (!name.includes('.')) out[name] = v;
  return out;
}

/** `,"name":value` as JSON.stringify writes it in an object (nothing for undefined). */
function member(name: string, value: number | undefined): string {
  const v = JSON.stringify(value) as string | undefined;
  return v === undefined ? '' : `,"${name}":${v}`;
}

function filterIndices(n: number, keep: (i: number) => boolean): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (keep(i)) out.push(i);
  return Int32Array.from(out);
}

function pick(hits: Hits, idx: Int32Array): Hits {
  const docs = new Int32Array(idx.length);
  const scores = new Float32Array(idx.length);
  idx.forEach((i, k) => {
    docs[k] = hits.docs[i] as number;
    scores[k] = hits.scores[i] as number;
  });
  return { docs, scores, length: idx.length };
}

function filterHits(hits: Hits, keep: (i: number) => boolean): Hits {
  return pick(hits, filterIndices(hits.length, keep));
}
