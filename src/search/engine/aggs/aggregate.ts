import { errors, type EsCause } from '../../errors.js';
import type { ExecContext } from '../../query/query-exec.js';
import type { Agg, BucketAgg } from '../../requests/aggs/agg-request.js';
import type { OrderKey } from '../../requests/aggs/agg-options.js';
import type { Query } from '../../requests/query-dsl.js';
import type { SortKey } from '../../requests/sort-key.js';
import type { SourceFilter } from '../../requests/source-filter.js';
import type { IndexState } from '../index-state.js';

/**
 * The aggregation phase: each aggregation of a search runs over the documents the query matched
 * (before `post_filter`, as in ES) in every index searched, and bucket aggregations run their
 * sub-aggregations over each bucket's documents, to any depth. Each index's documents are one
 * DocSet; buckets are DocSets too (their ordinals ascending, with their scores, which top_hits
 * reads). Buckets are materialized only when sub-aggregations need them: a `terms` count alone
 * never builds document lists.
 */

/** The documents of one index that an aggregation reads: ordinals ascending, with their scores. */
export interface DocSet {
  readonly state: IndexState;
  readonly ctx: ExecContext;
  readonly docs: Int32Array;
  readonly scores: Float32Array;
}

/** What the aggregation phase needs from the search around it. */
export interface AggEnv {
  /** Epoch milliseconds `now` stands for in date math. */
  readonly now: number;
  /** The live ordinals of `set`'s index matching `query`, ascending. */
  matching(query: Query, set: DocSet): Int32Array;
  /** One top_hits hit, rendered as a search hit is. */
  renderHit(state: IndexState, ord: number, score: number | null, sortValues: readonly (number | string | null)[] | undefined, opts: TopHitRender): unknown;
  /** Runs aggregations over `sets`: their results by name, in request order (agg-phase.ts dispatches each type). */
  run(aggs: readonly Agg[], sets: readonly DocSet[]): Map<string, AggResult>;
  /** What `run` adds to a result computed elsewhere (terms-agg.ts's metrics of every bucket in one pass): `meta`, the typed_keys name. */
  finish(agg: Agg, result: AggResult): AggResult;
}

export interface TopHitRender {
  readonly source: SourceFilter;
  readonly version: boolean;
  readonly seqNoPrimaryTerm: boolean;
  readonly sort: readonly SortKey[] | undefined;
}

/** One aggregation's result: its JSON and the values a bucket order can sort on. */
export interface AggResult {
  readonly json: Record<string, unknown>;
  /** ES's name of the result type (`sterms`, `lterms`, `date_histogram`, …), for `typed_keys`; the aggregation's type when not given. */
  readonly typedName?: string;
  /** The member name the result is rendered under (set by the phase: `name`, or `type#name` with typed_keys). */
  key?: string;
  /** The value `metric` names (undefined: the aggregation's single value, or a single bucket's doc_count). */
  value(metric: string | undefined): number;
  /** A single-bucket aggregation's sub-aggregation results. */
  readonly subs?: ReadonlyMap<string, AggResult>;
}

/** One bucket before it is rendered: its key members, count, documents (when sub-aggregations need them) and sub-results. */
export interface Bucket {
  readonly fields: Record<string, unknown>;
  readonly docCount: number;
  /** For `_key` order: a number or a string. */
  readonly sortKey: number | string;
  sets: DocSet[] | undefined;
  subs: Map<string, AggResult> | undefined;
}

/** JSON of sub-results, merged into a bucket. */
export function subsJson(subs: ReadonlyMap<string, AggResult> | undefined, into: Record<string, unknown>): Record<string, unknown> {
  if (subs !== undefined) for (const [name, r] of subs) into[r.key ?? name] = r.json;
  return into;
}

/** A bucket's JSON: its key members, doc_count, then its sub-aggregations. */
export function bucketJson(b: Bucket): Record<string, unknown> {
  return subsJson(b.subs, { ...b.fields, doc_count: b.docCount });
}

/**
 * Runs each bucket's sub-aggregations over its documents (collected when `agg` has any); a bucket
 * without documents in an index reads an empty set of that index (`parents`), so that a
 * sub-aggregation still sees the index (a `terms` with `min_doc_count: 0` lists its terms).
 */
export function runBucketSubs(agg: BucketAgg, buckets: readonly Bucket[], env: AggEnv, parents: readonly DocSet[]): void {
  if (agg.subs.length === 0) return;
  for (const b of buckets) {
    const sets = parents.map((p) => b.sets?.find((s) => s.state === p.state) ?? { state: p.state, ctx: p.ctx, docs: EMPTY_DOCS, scores: EMPTY_SCORES });
    b.subs = env.run(agg.subs, sets);
  }
}

const EMPTY_DOCS = new Int32Array(0);
const EMPTY_SCORES = new Float32Array(0);

/** A single-bucket result (filter, missing, a filters bucket): doc_count and sub-aggregations. */
export function singleBucket(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const docCount = sets.reduce((n, s) => n + s.docs.length, 0);
  const subs = agg.subs.length === 0 ? undefined : env.run(agg.subs, sets);
  return {
    json: subsJson(subs, { doc_count: docCount }),
    value: () => docCount,
    subs,
  };
}

/**
 * Collects the documents of many buckets from one DocSet in one pass: `add(b, i)` puts the set's
 * i-th document in bucket b (once, however many of its values fall there). Positions arrive in
 * ascending order, so each bucket's ordinals stay ascending. A position's first bucket is kept in
 * an array (one entry a document), any further ones (a document with values in several buckets) as
 * pairs; `fill` then lays every bucket's documents out in one array, bucket after bucket (a
 * counting sort), and gives each bucket a view of its part: no list or array per bucket.
 */
export class BucketDocs {
  /** Per position: its first bucket, or -1. */
  private readonly first: Int32Array;
  /** Further (position, bucket) pairs, positions ascending. */
  private extra: number[] = [];
  private buckets = 0;

  constructor(private readonly set: DocSet) {
    this.first = new Int32Array(set.docs.length).fill(-1);
  }

  add(b: number, i: number): void {
    if (b >= this.buckets) this.buckets = b + 1;
    const f = this.first[i] as number;
    if (f === -1) {
      this.first[i] = b;
      return;
    }
    if (f === b) return;
    const extra = this.extra;
    for (let k = extra.length - 2; k >= 0 && extra[k] === i; k -= 2) if (extra[k + 1] === b) return;
    extra.push(i, b);
  }

  /** Puts every collected bucket's DocSet into `buckets[b].sets`. */
  fill(buckets: readonly Bucket[]): void {
    const nb = this.buckets;
    if (nb === 0) return;
    const first = this.first;
    const extra = this.extra;
    const starts = new Int32Array(nb + 1);
    for (let i = 0, n = first.length; i < n; i++) {
      const b = first[i] as number;
      if (b >= 0) starts[b + 1] = (starts[b + 1] as number) + 1;
    }
    for (let k = 1; k < extra.length; k += 2) {
      const b = extra[k] as number;
      starts[b + 1] = (starts[b + 1] as number) + 1;
    }
    for (let b = 0; b < nb; b++) starts[b + 1] = (starts[b + 1] as number) + (starts[b] as number);
    const total = starts[nb] as number;
    const docs = new Int32Array(total);
    const scores = new Float32Array(total);
    const next = starts.slice(0, nb);
    const setDocs = this.set.docs;
    const setScores = this.set.scores;
    let e = 0;
    for (let i = 0, n = first.length; i < n; i++) {
      const b = first[i] as number;
      if (b < 0) continue;
      let at = next[b] as number;
      next[b] = at + 1;
      docs[at] = setDocs[i] as number;
      scores[at] = setScores[i] as number;
      for (; e < extra.length && extra[e] === i; e += 2) {
        const x = extra[e + 1] as number;
        at = next[x] as number;
        next[x] = at + 1;
        docs[at] = setDocs[i] as number;
        scores[at] = setScores[i] as number;
      }
    }
    const { state, ctx } = this.set;
    for (let b = 0; b < nb && b < buckets.length; b++) {
      const from = starts[b] as number;
      const to = starts[b + 1] as number;
      if (from === to) continue;
      const bucket = buckets[b] as Bucket;
      (bucket.sets ??= []).push({ state, ctx, docs: docs.subarray(from, to), scores: scores.subarray(from, to) });
    }
  }
}

/** The documents of `set` that are also in `allowed` (both ascending). */
export function intersect(set: DocSet, allowed: Int32Array): DocSet {
  const docs: number[] = [];
  const scores: number[] = [];
  let j = 0;
  for (let i = 0; i < set.docs.length; i++) {
    const d = set.docs[i] as number;
    while (j < allowed.length && (allowed[j] as number) < d) j++;
    if (j < allowed.length && allowed[j] === d) {
      docs.push(d);
      scores.push(set.scores[i] as number);
    }
  }
  return { state: set.state, ctx: set.ctx, docs: Int32Array.from(docs), scores: Float32Array.from(scores) };
}

/** The value a bucket order sorts on (an order path: a sub-aggregation, through single-bucket ones). */
function orderValue(b: Bucket, key: OrderKey): number {
  let subs: ReadonlyMap<string, AggResult> | undefined = b.subs;
  let result: AggResult | undefined;
  for (const step of key.path) {
    result = subs?.get(step);
    subs = result?.subs;
  }
  return result === undefined ? Number.NaN : result.value(key.metric);
}

/** Java's Double.compare: NaN above every number. */
function compareDouble(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKeys(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sorts buckets by `order` as ES's InternalOrder does: each key in turn, then (unless the order
 * already has `_key`) the key ascending; `_count desc` is the default.
 */
export function sortBuckets(buckets: Bucket[], order: readonly OrderKey[] | undefined, defaultOrder: OrderKey): void {
  const keys = [...(order ?? [defaultOrder])];
  if (!keys.some((k) => k.by === '_key')) keys.push({ by: '_key', path: [], metric: undefined, asc: true });
  buckets.sort((a, b) => {
    for (const k of keys) {
      let c: number;
      if (k.by === '_count') c = a.docCount - b.docCount;
      else if (k.by === '_key') c = compareKeys(a.sortKey, b.sortKey);
      else c = compareDouble(orderValue(a, k), orderValue(b, k));
      if (c !== 0) return k.asc ? c : -c;
    }
    return 0;
  });
}

export const COUNT_DESC: OrderKey = { by: '_count', path: [], metric: undefined, asc: false };
export const KEY_ASC: OrderKey = { by: '_key', path: [], metric: undefined, asc: true };

/** ES's error for an order path that names no usable sub-aggregation (a shard failure of `index`). */
export function badOrderPath(index: string, path: string, why: string): never {
  const inner: EsCause = { type: 'aggregation_execution_exception', reason: `Invalid aggregation order path [${path}]. ${why}`, causedBy: { type: 'illegal_argument_exception', reason: why } };
  throw errors.shardFailure(index, inner);
}
