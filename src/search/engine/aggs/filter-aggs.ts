import type { BucketAgg } from '../../requests/aggs/agg-request.js';
import { bucketJson, intersect, runBucketSubs, singleBucket, type AggEnv, type AggResult, type Bucket, type DocSet } from './aggregate.js';
import { docValues, fieldValues } from './agg-field.js';

/**
 * The single-bucket aggregations `filter` and `missing`, and `filters` (a bucket per query, named
 * or in request order, and the `other_bucket` of documents no filter matched).
 */

export function filterAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const query = agg.filters[0]?.query;
  if (query === undefined) return singleBucket(agg, sets, env);
  return singleBucket(agg, sets.map((s) => intersect(s, env.matching(query, s))), env);
}

export function missingAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const out = sets.map((set): DocSet => {
    const values = fieldValues(set.state, agg.options.field as string, 'missing', false);
    const docs: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < set.docs.length; i++) {
      const ord = set.docs[i] as number;
      if (docValues(values, ord).length === 0) {
        docs.push(ord);
        scores.push(set.scores[i] as number);
      }
    }
    return { state: set.state, ctx: set.ctx, docs: Int32Array.from(docs), scores: Float32Array.from(scores) };
  });
  return singleBucket(agg, out, env);
}

export function filtersAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const o = agg.options;
  const matched = agg.filters.map((f) => sets.map((s) => intersect(s, env.matching(f.query, s))));
  const buckets: Bucket[] = matched.map((m, i) => ({ fields: {}, docCount: m.reduce((n, s) => n + s.docs.length, 0), sortKey: i, sets: m, subs: undefined }));
  const keys: (string | undefined)[] = agg.filters.map((f) => f.key);
  if (o.otherBucket) {
    const other = sets.map((s, si) => {
      const inAny = new Set<number>();
      for (const m of matched) for (const d of (m[si] as DocSet).docs) inAny.add(d);
      const docs: number[] = [];
      const scores: number[] = [];
      s.docs.forEach((d, i) => {
        if (!inAny.has(d)) {
          docs.push(d);
          scores.push(s.scores[i] as number);
        }
      });
      return { state: s.state, ctx: s.ctx, docs: Int32Array.from(docs), scores: Float32Array.from(scores) };
    });
    buckets.push({ fields: {}, docCount: other.reduce((n, s) => n + s.docs.length, 0), sortKey: buckets.length, sets: other, subs: undefined });
    keys.push(o.otherBucketKey ?? '_other_');
  }
  runBucketSubs(agg, buckets, env, sets);
  const keyed = o.keyed || agg.filters.some((f) => f.key !== undefined);
  if (!keyed) return { json: { buckets: buckets.map(bucketJson) }, value: () => Number.NaN };
  const out: Record<string, unknown> = {};
  buckets.forEach((b, i) => {
    out[keys[i] ?? String(i)] = bucketJson(b);
  });
  return { json: { buckets: out }, value: () => Number.NaN };
}
