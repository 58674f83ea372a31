import { float32ForJson } from '../query/bm25.js';
import { errors } from '../errors.js';
import type { Hits } from '../query/hit-lists.js';
import { RawJson } from '../http/json-render.js';
import { ShardFailures } from './shard-failures.js';
import { fastMatchField, matchTopK } from '../query/match-top-k.js';
import { execute, type ExecContext } from '../query/query-exec.js';
import type { SearchRequest } from '../requests/search-request.js';
import type { IndexState } from './index-state.js';
import { planSort, type SortValue } from '../query/sort.js';
import { filterSource, isIdentity } from '../requests/source-filter.js';
import { byScore, selectWindow, selectWindowByScore, type Before } from '../query/top-k.js';

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
  now(): number;
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
  const end = from + size;
  const sortByScore = sortsByScore(req);
  const scored = sortByScore || req.trackScores || (req.sort?.some((k) => k.field === '_score') ?? false);
  const perIndex: Candidate[][] = [];
  let total = 0;
  let maxScore = -Infinity;
  let plan0: ReturnType<typeof planSort> | undefined;
  const failures = new ShardFailures();
  states.forEach(failures.guard((state, shard) => {
    // Checked per shard, as ES does: an index over its window fails only its own shard.
    if (capture === undefined ? end > state.settings.maxResultWindow : req.size > state.settings.maxResultWindow) {
      if (capture !== undefined) throw errors.batchTooLarge(state.name, state.settings.maxResultWindow, req.size);
      throw errors.resultWindowTooLarge(state.name, state.settings.maxResultWindow, end);
    }
    const ctx = env.ctx(state);
    // The common case, a relevance-ordered `match` on one index: only the window is computed.
    if (states.length === 1 && req.sort === undefined && req.minScore === undefined && req.postFilter === undefined && req.searchAfter === undefined && req.query.kind === 'match') {
      const field = fastMatchField(req.query, state.mappings, state.index);
      const top = field === undefined ? undefined : matchTopK(req.query, field, state.index.live, from, size, req.trackTotalHits === false ? 0 : req.trackTotalHits, ctx.arena, FAST_WINDOW);
      if (top !== undefined) {
        total += top.total;
        if (top.maxScore > maxScore) maxScore = top.maxScore;
        perIndex.push(Array.from(top.docs, (ord, i) => ({ state, shard, ord, score: top.scores[i] as number, sortValues: undefined })));
        return;
      }
    }
    let hits = execute(req.query, ctx);
    if (req.minScore !== undefined) hits = filterHits(hits, (i) => (hits.scores[i] as number) >= (req.minScore as number));
    if (req.postFilter !== undefined) {
      const allowed = execute(req.postFilter, ctx);
      const set = new Set(allowed.docs.subarray(0, allowed.length));
      hits = filterHits(hits, (i) => set.has(hits.docs[i] as number));
    }
    // The total counts every match, also those before a search_after point (as ES does).
    total += hits.length;
    let before: Before;
    let plan: ReturnType<typeof planSort> | undefined;
    if (req.sort === undefined || sortByScore) {
      before = byScore(hits.docs, hits.scores);
      if (req.searchAfter !== undefined) {
        plan = planSort(state.name, state.index, state.mappings, [{ field: '_score', order: 'desc', missing: undefined, mode: undefined, unmappedType: undefined }], hits);
      }
    } else {
      plan = planSort(state.name, state.index, state.mappings, req.sort, hits);
      before = plan.before;
    }
    if (req.searchAfter !== undefined && plan !== undefined) {
      const p = plan;
      const after = req.searchAfter;
      const keep = filterIndices(hits.length, (i) => p.after(i, after));
      const filtered = pick(hits, keep);
      plan = req.sort === undefined || sortByScore
        ? planSort(state.name, state.index, state.mappings, [{ field: '_score', order: 'desc', missing: undefined, mode: undefined, unmappedType: undefined }], filtered)
        : planSort(state.name, state.index, state.mappings, req.sort ?? [], filtered);
      hits = filtered;
      before = req.sort === undefined || sortByScore ? byScore(hits.docs, hits.scores) : plan.before;
    }
    plan0 ??= plan;
    if (scored) {
      // Locals: `hits` and `maxScore` live in closure contexts, slow to read in a loop this long.
      const scores = hits.scores;
      let best = maxScore;
      for (let i = 0, n = hits.length; i < n; i++) if ((scores[i] as number) > best) best = scores[i] as number;
      maxScore = best;
    }
    // Each index contributes its own top from+size, as each shard does in ES; with one index
    // only the requested page is materialized.
    const single = states.length === 1;
    const scratch = (n: number): Int32Array => ctx.arena.int32(n);
    const window = req.sort === undefined || sortByScore
      ? selectWindowByScore(hits.docs, hits.scores, hits.length, single ? from : 0, single ? size : end, scratch)
      : selectWindow(hits.length, single ? from : 0, single ? size : end, before, scratch);
    perIndex.push(
      Array.from(window, (i) => ({
        state,
        shard,
        ord: hits.docs[i] as number,
        score: hits.scores[i] as number,
        // A lone descending _score sort is no sort at all in ES (SortBuilder drops it): no sort arrays.
        sortValues: req.sort !== undefined && !sortByScore ? plan?.sortValues(i) : undefined,
      })),
    );
  }));
  failures.throwIfAllFailed(states.length);
  let page: Candidate[];
  if (perIndex.length === 1) page = perIndex[0] as Candidate[];
  else {
    const cmp = (a: Candidate, b: Candidate): number => {
      if (req.sort !== undefined && !sortByScore && plan0 !== undefined) {
        const c = plan0.compareTuples(a.sortValues ?? [], b.sortValues ?? []);
        if (c !== 0) return c;
      } else if (a.score !== b.score) return b.score - a.score;
      return a.shard - b.shard || a.ord - b.ord;
    };
    page = perIndex.flat().sort(cmp).slice(from, end);
  }
  if (capture !== undefined) {
    capture(page);
    page = page.slice(0, req.size);
  }
  const showScore = sortByScore || req.trackScores;
  const hitsOut = page.map((c) => renderHit(env, c.state, c.ord, showScore ? c.score : null, c.sortValues, req));
  const hitsBody: Record<string, unknown> = {};
  if (req.trackTotalHits !== false) {
    const limit = req.trackTotalHits;
    const value = total > limit ? limit : total;
    hitsBody.total = req.restTotalHitsAsInt ? value : { value, relation: total > limit ? 'gte' : 'eq' };
  } else if (req.restTotalHitsAsInt) hitsBody.total = -1;
  hitsBody.max_score = showScore && total > 0 && req.size > 0 && maxScore > -Infinity ? float32ForJson(maxScore) : null;
  hitsBody.hits = hitsOut;
  return {
    took: Math.max(0, Math.round(env.now() - startedMs)),
    timed_out: false,
    _shards: failures.shardsBody(states.length),
    hits: hitsBody,
  };
}

export function renderHit(env: SearchEnv, state: IndexState, ord: number, score: number | null, sortValues: SortValue[] | undefined, req: SearchRequest): Record<string, unknown> | RawJson {
  const id = state.index.ids[ord] as string;
  // The common hit (no sort values, whole or no _source) is written straight to JSON text: the
  // same bytes renderJson gives for the object below, without building it and walking its keys.
  if (sortValues === undefined && (!req.source.fetch || isIdentity(req.source))) {
    let text = `{"_index":${JSON.stringify(state.name)},"_id":${JSON.stringify(id)}`;
    if (req.version) text += member('_version', state.versions[ord]);
    if (req.seqNoPrimaryTerm) text += `${member('_seq_no', state.seqNos[ord])},"_primary_term":1`;
    text += score === null ? ',"_score":null' : member('_score', float32ForJson(score));
    if (req.source.fetch) text += `,"_source":${env.sourceText(state, id)}`;
    return new RawJson(`${text}}`);
  }
  const hit: Record<string, unknown> = { _index: state.name, _id: id };
  if (req.version) hit._version = state.versions[ord];
  if (req.seqNoPrimaryTerm) {
    hit._seq_no = state.seqNos[ord];
    hit._primary_term = 1;
  }
  hit._score = score === null ? null : float32ForJson(score);
  if (req.source.fetch) {
    const raw = env.sourceText(state, id);
    hit._source = isIdentity(req.source) ? new RawJson(raw) : filterSource(JSON.parse(raw), req.source);
  }
  // Long.MAX_VALUE / MIN_VALUE (missing numeric values) are not representable as JS numbers.
  if (sortValues !== undefined) hit.sort = sortValues.map((v) => (v === LONG_MAX ? new RawJson('9223372036854775807') : v === -LONG_MAX ? new RawJson('-9223372036854775808') : v));
  return hit;
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
