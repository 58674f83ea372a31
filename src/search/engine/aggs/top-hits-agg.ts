import type { TopHitsAgg } from '../../requests/aggs/agg-request.js';
import type { TopHitsOptions } from '../../requests/aggs/agg-options.js';
import { planSort, type SortValue } from '../../query/sort.js';
import { float32ForJson } from '../../query/bm25.js';
import type { AggEnv, AggResult, DocSet } from './aggregate.js';

/**
 * `top_hits`: the best documents of a bucket, by score (the default) or the aggregation's `sort`,
 * from `from`, `size` of them, rendered as search hits are, with the bucket's total. A collapsed
 * hit's inner_hits are the same over the hit's group.
 */

interface Candidate {
  readonly set: DocSet;
  readonly shard: number;
  readonly ord: number;
  readonly score: number;
  readonly sort: SortValue[] | undefined;
}

export function topHitsAgg(agg: TopHitsAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  return { json: topHits(agg.options, sets, env.renderHit), value: () => Number.NaN };
}

/** The `hits` of a top_hits aggregation (or of a collapsed hit's inner_hits) over `sets`. */
export function topHits(o: TopHitsOptions, sets: readonly DocSet[], renderHit: AggEnv['renderHit']): Record<string, unknown> {
  const byScore = o.sort === undefined || (o.sort.length === 1 && o.sort[0]?.field === '_score' && o.sort[0].order === 'desc');
  const candidates: Candidate[] = [];
  let total = 0;
  let maxScore = -Infinity;
  let compare: ((a: readonly SortValue[], b: readonly SortValue[]) => number) | undefined;
  sets.forEach((set, shard) => {
    total += set.docs.length;
    const hits = { docs: set.docs, scores: set.scores, length: set.docs.length };
    for (let i = 0; i < set.docs.length; i++) if ((set.scores[i] as number) > maxScore) maxScore = set.scores[i] as number;
    if (byScore) {
      for (let i = 0; i < set.docs.length; i++) candidates.push({ set, shard, ord: set.docs[i] as number, score: set.scores[i] as number, sort: undefined });
      return;
    }
    const plan = planSort(set.state.name, set.state.index, set.state.mappings, 0, o.sort ?? [], hits);
    compare ??= (a, b) => plan.compareTuples(a, b);
    for (let i = 0; i < set.docs.length; i++) candidates.push({ set, shard, ord: set.docs[i] as number, score: set.scores[i] as number, sort: plan.sortValues(i) });
  });
  candidates.sort((a, b) => {
    if (compare !== undefined) {
      const c = compare(a.sort ?? [], b.sort ?? []);
      if (c !== 0) return c;
    } else if (a.score !== b.score) return b.score - a.score;
    return a.shard - b.shard || a.ord - b.ord;
  });
  const page = candidates.slice(o.from, o.from + o.size);
  const showScore = byScore || o.trackScores || (o.sort?.some((k) => k.field === '_score') ?? false);
  const render = { source: o.source, version: o.version, seqNoPrimaryTerm: o.seqNoPrimaryTerm, sort: o.sort };
  const hits = page.map((c) => renderHit(c.set.state, c.ord, showScore ? c.score : null, byScore ? undefined : c.sort, render));
  const max = (byScore || o.trackScores) && total > 0 ? float32ForJson(maxScore) : null;
  return { hits: { total: { value: total, relation: 'eq' }, max_score: max, hits } };
}
