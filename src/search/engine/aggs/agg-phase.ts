import type { Agg, BucketAgg, MetricAgg } from '../../requests/aggs/agg-request.js';
import type { IndexState } from '../index-state.js';
import { badOrderPath, type AggEnv, type AggResult, type DocSet } from './aggregate.js';
import { fieldValues } from './agg-field.js';
import { filterAgg, filtersAgg, missingAgg } from './filter-aggs.js';
import { histogramAgg } from './histogram-aggs.js';
import { countingMetric, numericMetric } from './metric-aggs.js';
import { rangeAgg } from './range-aggs.js';
import { termsAgg } from './terms-agg.js';
import { topHitsAgg } from './top-hits-agg.js';

/**
 * The entry of the aggregation phase: checks a search's aggregations against each index before it
 * is searched (so that a field an index cannot aggregate fails that index's shard, as in ES), and
 * runs them over the documents every index matched, dispatching each type to its module.
 */

const NUMERIC_ONLY = new Set(['histogram', 'date_histogram', 'range', 'date_range', 'min', 'max', 'avg', 'sum', 'stats']);
const STATS = new Set(['count', 'min', 'max', 'avg', 'sum']);
const SINGLE_BUCKET = new Set(['filter', 'missing']);

/** Throws ES's shard error of `state` for an aggregation it cannot run (a field it cannot read, a bad order path). */
export function checkAggs(aggs: readonly Agg[], state: IndexState): void {
  for (const agg of aggs) {
    if (agg.type === 'top_hits') continue;
    const field = agg.options.field;
    if (field !== undefined && agg.type !== 'filter' && agg.type !== 'filters') fieldValues(state, field, agg.type, NUMERIC_ONLY.has(agg.type));
    if ('subs' in agg) {
      checkOrder(agg, state);
      checkAggs(agg.subs, state);
    }
  }
}

function checkOrder(agg: BucketAgg, state: IndexState): void {
  for (const key of agg.options.order ?? []) {
    if (key.by !== 'path') continue;
    const text = key.path.join('>') + (key.metric === undefined ? '' : `.${key.metric}`);
    let subs: readonly Agg[] = agg.subs;
    let target: Agg | undefined;
    for (const [i, step] of key.path.entries()) {
      target = subs.find((s) => s.name === step);
      if (target === undefined) badOrderPath(state.name, text, `The provided aggregation [${step}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.`);
      const last = i === key.path.length - 1;
      if (!last && !SINGLE_BUCKET.has(target.type)) {
        badOrderPath(state.name, text, `Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`);
      }
      subs = 'subs' in target ? target.subs : [];
    }
    if (target === undefined) continue;
    if (target.type === 'stats' && (key.metric === undefined || !STATS.has(key.metric))) {
      badOrderPath(state.name, text, key.metric === undefined ? `When ordering on a multi-value metrics aggregation a metric name must be specified.` : `Unknown metric name [${key.metric}] on multi-value metrics aggregation [${target.name}]`);
    }
    if (target.type !== 'stats' && key.metric !== undefined && key.metric !== 'value') {
      badOrderPath(state.name, text, `Unknown metric name [${key.metric}] on multi-value metrics aggregation [${target.name}]`);
    }
    if (!SINGLE_BUCKET.has(target.type) && 'subs' in target) {
      badOrderPath(state.name, text, `Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`);
    }
    if (target.type === 'top_hits') badOrderPath(state.name, text, `Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`);
  }
}

function runOne(agg: Agg, sets: readonly DocSet[], env: AggEnv): AggResult {
  switch (agg.type) {
    case 'terms':
      return termsAgg(agg, sets, env);
    case 'range':
    case 'date_range':
      return rangeAgg(agg, sets, env);
    case 'histogram':
    case 'date_histogram':
      return histogramAgg(agg, sets, env);
    case 'filter':
      return filterAgg(agg, sets, env);
    case 'filters':
      return filtersAgg(agg, sets, env);
    case 'missing':
      return missingAgg(agg, sets, env);
    case 'top_hits':
      return topHitsAgg(agg, sets, env);
    case 'value_count':
    case 'cardinality':
      return countingMetric(agg as MetricAgg, sets);
    default:
      return numericMetric(agg, sets);
  }
}

/** The response's `aggregations`: each aggregation of `aggs` over `sets`, in request order. */
export function runAggregations(aggs: readonly Agg[], sets: readonly DocSet[], base: Omit<AggEnv, 'run' | 'finish'>, typedKeys = false): Record<string, unknown> {
  const env: AggEnv = {
    // Not a spread: `now` is a getter read only when date math needs it (search-phase.ts aggEnv).
    get now() {
      return base.now;
    },
    matching: base.matching,
    renderHit: base.renderHit,
    run(list, s) {
      const out = new Map<string, AggResult>();
      for (const a of list) out.set(a.name, env.finish(a, runOne(a, s, env)));
      return out;
    },
    finish(a, r) {
      if (a.meta !== undefined) r.json.meta = a.meta;
      if (typedKeys) r.key = `${r.typedName ?? a.type}#${a.name}`;
      return r;
    },
  };
  const out: Record<string, unknown> = {};
  for (const [name, r] of env.run(aggs, sets)) out[r.key ?? name] = r.json;
  return out;
}
