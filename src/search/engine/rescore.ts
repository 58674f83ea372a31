import { errors } from '../errors.js';
import { execute, type ExecContext } from '../query/query-exec.js';
import type { Rescorer, RescoreMode } from '../requests/rescore-request.js';
import type { IndexState } from './index-state.js';

/**
 * The rescore phase of one shard, as ES 8's QueryRescorer (over Lucene's) computes it: each
 * rescorer in turn takes the shard's top `window_size` hits, scores them with its query, and
 * combines the two scores in float32; the hits past the window only have their score multiplied
 * by `query_weight`, and then every hit is sorted again by score (descending, then ordinal) —
 * which can put a hit from past the window above rescored ones, as in ES.
 */

const f = Math.fround;

/** A shard's top hits in relevance order (score descending, ordinal ascending), rescored in place. */
export interface TopHits {
  docs: Int32Array;
  scores: Float32Array;
}

/**
 * What ES's DefaultSearchContext.preProcess checks of a request with rescorers, on each shard:
 * no sort other than by score, each window within `index.max_rescore_window`. Collapsing is
 * refused before (SearchService.parseSource), as a search_exception.
 */
export function checkRescore(state: IndexState, rescorers: readonly Rescorer[], sorted: boolean, collapsed: boolean): void {
  if (collapsed) throw errors.shardFailure(state.name, { type: 'search_exception', reason: 'cannot use `collapse` in conjunction with `rescore`' }, 500);
  if (sorted) throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: 'Cannot use [sort] option in conjunction with [rescore].' });
  const max = state.settings.maxRescoreWindow;
  for (const r of rescorers) {
    if (r.windowSize > max) {
      throw errors.shardFailure(state.name, {
        type: 'illegal_argument_exception',
        reason: `Rescore window [${r.windowSize}] is too large. It must be less than [${max}]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.`,
      });
    }
  }
}

/**
 * How many hits a shard collects for a request with rescorers (ES's query phase): its page's
 * end, or the largest window if that is larger.
 */
export function collectedHits(end: number, rescorers: readonly Rescorer[]): number {
  return rescorers.reduce((n, r) => Math.max(n, r.windowSize), end);
}

/** Applies the rescorers in order to `top` (nothing to do without hits, as ES's RescorePhase). */
export function rescoreTop(state: IndexState, top: TopHits, rescorers: readonly Rescorer[], ctx: ExecContext): TopHits {
  let out = top;
  for (const r of rescorers) {
    if (out.docs.length === 0) return out;
    out = rescoreOnce(state, out, r, ctx);
  }
  return out;
}

function rescoreOnce(state: IndexState, top: TopHits, r: Rescorer, ctx: ExecContext): TopHits {
  const n = top.docs.length;
  // ES copies the window into an array of window_size hits: a negative size fails the shard.
  if (r.windowSize < 0) throw errors.shardFailure(state.name, { type: 'negative_array_size_exception', reason: String(r.windowSize) }, 500);
  const w = Math.min(n, r.windowSize);
  const docs = top.docs.slice();
  const scores = top.scores.slice();
  if (w > 0) {
    // The rescore query's matches, ascending by ordinal (Hits), looked up by binary search.
    const second = execute(r.query, ctx);
    for (let i = 0; i < w; i++) {
      const j = find(second.docs, second.length, docs[i] as number);
      const first = f((scores[i] as number) * r.queryWeight);
      scores[i] = j < 0 ? first : combine(r.scoreMode, first, f((second.scores[j] as number) * r.rescoreQueryWeight));
    }
  }
  // Past the window: as if the rescore query did not match (the first-pass score times query_weight).
  for (let i = w; i < n; i++) scores[i] = f((scores[i] as number) * r.queryWeight);
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (scores[b] as number) - (scores[a] as number) || (docs[a] as number) - (docs[b] as number));
  return { docs: Int32Array.from(order, (i) => docs[i] as number), scores: Float32Array.from(order, (i) => scores[i] as number) };
}

/** ES's QueryRescoreMode.combine, in float32. */
function combine(mode: RescoreMode, primary: number, secondary: number): number {
  switch (mode) {
    case 'total':
      return f(primary + secondary);
    case 'multiply':
      return f(primary * secondary);
    case 'avg':
      return f(f(primary + secondary) / 2);
    case 'max':
      return Math.max(primary, secondary);
    case 'min':
      return Math.min(primary, secondary);
  }
}

/** The index of `doc` among the first `n` of the ascending `docs`, or -1. */
function find(docs: Int32Array, n: number, doc: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = docs[mid] as number;
    if (d === doc) return mid;
    if (d < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
