import { errors } from '../../errors.js';
import type { KeywordField } from '../../index/keyword-field.js';
import type { BucketAgg } from '../../requests/aggs/agg-request.js';
import type { BucketOptions, TermFilter } from '../../requests/aggs/agg-options.js';
import { bucketJson, BucketDocs, COUNT_DESC, runBucketSubs, sortBuckets, type AggEnv, type AggResult, type Bucket, type DocSet } from './aggregate.js';
import { datePrinter, docValues, fieldValues, keywordValues, missingNumber, numberValues, type FieldValues } from './agg-field.js';
import { BucketMetrics } from './metric-aggs.js';

/**
 * The `terms` aggregation, as ES computes it over shards (here, an index is a shard): each index
 * counts its documents per value, keeps its top `shard_size` buckets, and the counts are merged;
 * the top `size` are returned, the rest counted in `sum_other_doc_count`. A keyword field is
 * counted by term id over its doc-value column (KeywordField.singleIds), never by string: strings
 * are read once per distinct term, not once per document.
 */

type Key = string | number;

/** What one index counted: documents per key, and its documents with a value counted in no bucket. */
interface ShardCounts {
  readonly counts: Map<Key, number>;
  readonly values: FieldValues;
}

function filterAccepts(f: TermFilter | undefined, key: Key, include: boolean): boolean {
  if (f === undefined) return true;
  const hit = 'regexp' in f ? f.regexp.test(String(key)) : f.values.some((v) => (typeof key === 'number' ? Number(v) === key : String(v) === key));
  return include ? hit : !hit;
}

function accepts(o: BucketOptions, key: Key): boolean {
  return filterAccepts(o.include, key, true) && filterAccepts(o.exclude, key, false);
}

/** Counts a keyword field by term id (the hot loop), then names the ids that were seen. */
function countKeyword(set: DocSet, values: FieldValues & { kind: 'keyword' }, o: BucketOptions, out: Map<Key, number>): number {
  const field = values.field;
  let missing = 0;
  if (field === undefined) return set.docs.length;
  const single = field.singleIds;
  const counts = new Int32Array(field.postings.termCount);
  const docs = set.docs;
  if (isEveryLiveDocument(set)) missing = countEveryLive(field, counts, docs.length);
  else for (let i = 0, n = docs.length; i < n; i++) {
    const ord = docs[i] as number;
    const id = ord < single.length ? (single[ord] as number) : -1;
    if (id >= 0) counts[id] = (counts[id] as number) + 1;
    else if (id === -2) {
      let any = false;
      for (const v of keywordValues(field, ord)) {
        const t = field.lookup(v);
        if (t >= 0) {
          counts[t] = (counts[t] as number) + 1;
          any = true;
        }
      }
      if (!any) missing++;
    } else missing++;
  }
  const texts = field.terms.texts;
  const all = o.minDocCount === 0;
  for (let id = 0; id < counts.length; id++) {
    const c = counts[id] as number;
    if (c === 0 && !(all && field.postings.docFreq(id) > 0)) continue;
    const key = texts[id] as string;
    if (accepts(o, key)) out.set(key, (out.get(key) ?? 0) + c);
  }
  return missing;
}

/**
 * Whether `set` holds every live document of its index (a match_all, or any query matching them
 * all): it holds only live ones, so having as many says it holds them all.
 */
function isEveryLiveDocument(set: DocSet): boolean {
  return set.ctx.index === set.state.index && set.docs.length === set.state.index.liveCount;
}

/**
 * countKeyword over every live document of an index (`live` of them), without reading a document:
 * a term's count is its docFreq, the number of live documents holding it (each once, however many
 * times it holds it: a document's values are counted once each, as ES's sorted set counts them),
 * and the documents without a value are those the field does not count in docCount. Returns those.
 */
export function countEveryLive(field: KeywordField, counts: Int32Array, live: number): number {
  const postings = field.postings;
  for (let id = 0, n = counts.length; id < n; id++) counts[id] = postings.docFreq(id);
  return live - field.docCount;
}

function countNumbers(set: DocSet, values: FieldValues & { kind: 'number' }, o: BucketOptions, out: Map<Key, number>): number {
  let missing = 0;
  const seen = (ord: number, add: number): boolean => {
    const vals = numberValues(values, ord);
    let prev = Number.NaN;
    for (const v of vals) {
      if (v === prev) continue;
      prev = v;
      if (accepts(o, v)) out.set(v, (out.get(v) ?? 0) + add);
    }
    return vals.length > 0;
  };
  if (o.minDocCount === 0) {
    const live = set.state.index.allLive();
    for (let i = 0; i < live.length; i++) seen(live[i] as number, 0);
  }
  for (let i = 0; i < set.docs.length; i++) if (!seen(set.docs[i] as number, 1)) missing++;
  return missing;
}

/** `_index`: one term, the index's name, held by every document (listed with min_doc_count 0 when none matched). */
function countIndex(set: DocSet, name: string, o: BucketOptions, out: Map<Key, number>): number {
  const n = set.docs.length;
  if ((n > 0 || o.minDocCount === 0) && accepts(o, name)) out.set(name, (out.get(name) ?? 0) + n);
  return 0;
}

/** The key a document without a value counts under (`missing`), or undefined. */
function missingKey(values: FieldValues, missing: unknown): Key | undefined {
  if (missing === undefined || missing === null) return undefined;
  if (values.kind === 'number') return missingNumber(values.def, missing);
  return String(missing);
}

function countShard(set: DocSet, o: BucketOptions): ShardCounts {
  const values = fieldValues(set.state, o.field as string, 'terms', false);
  const counts = new Map<Key, number>();
  let missing: number;
  if (values.kind === 'keyword') missing = countKeyword(set, values, o, counts);
  else if (values.kind === 'number') missing = countNumbers(set, values, o, counts);
  else if (values.kind === 'index') missing = countIndex(set, values.name, o, counts);
  else missing = set.docs.length;
  const mk = missingKey(values, o.missing);
  // The missing value is one more term of the field (ES adds it to the values source): listed with min_doc_count 0 even when no document lacks a value.
  if (mk !== undefined && (missing > 0 || o.minDocCount === 0) && accepts(o, mk)) counts.set(mk, (counts.get(mk) ?? 0) + missing);
  return { counts, values };
}

/** The members of a bucket's key: `key`, and `key_as_string` for dates and booleans. */
function keyFields(values: FieldValues, key: Key, print: ((ms: number) => string) | undefined): Record<string, unknown> {
  if (values.kind !== 'number' || typeof key !== 'number') return { key };
  if (values.def.kind === 'boolean') return { key, key_as_string: key === 1 ? 'true' : 'false' };
  if (values.def.kind === 'date' && print !== undefined) return { key, key_as_string: print(key) };
  return { key };
}

/** Puts each set's documents into the buckets of their keys. */
function collectDocs(sets: readonly DocSet[], o: BucketOptions, buckets: readonly Bucket[], shards: readonly ShardCounts[]): void {
  const index = new Map<Key, number>();
  buckets.forEach((b, i) => index.set(b.sortKey, i));
  sets.forEach((set, s) => {
    const values = (shards[s] as ShardCounts).values;
    const mk = missingKey(values, o.missing);
    const docs = new BucketDocs(set);
    const missingBucket = mk === undefined ? undefined : index.get(mk);
    const keywordField = values.kind === 'keyword' ? values.field : undefined;
    const byTerm = keywordField === undefined ? undefined : bucketsByTerm(keywordField, buckets);
    const single = keywordField?.singleIds;
    for (let i = 0; i < set.docs.length; i++) {
      const ord = set.docs[i] as number;
      if (single !== undefined && byTerm !== undefined) {
        // A keyword document with one value (or none): its bucket by term id, no strings read.
        const id = ord < single.length ? (single[ord] as number) : -1;
        if (id >= 0) {
          const b = id < byTerm.length ? (byTerm[id] as number) : -1;
          if (b >= 0) docs.add(b, i);
          continue;
        }
        if (id === -1) {
          if (missingBucket !== undefined) docs.add(missingBucket, i);
          continue;
        }
      }
      const keys = docValues(values, ord);
      for (const k of keys) {
        const b = index.get(k);
        if (b !== undefined) docs.add(b, i);
      }
      if (keys.length === 0 && missingBucket !== undefined) docs.add(missingBucket, i);
    }
    docs.fill(buckets);
  });
}

/**
 * The sub-aggregations of a keyword `terms` when they are all numeric metrics over plain columns
 * (BucketMetrics): every bucket's, in one pass over the documents, each found its bucket by term
 * id, with no bucket document lists. Only for fields without multi-valued documents (a document is
 * in one bucket at most) and without `missing`. Returns whether it ran (else the caller collects
 * each bucket's documents and runs the sub-aggregations over them).
 */
function metricsInOnePass(agg: BucketAgg, sets: readonly DocSet[], top: readonly Bucket[], shards: readonly ShardCounts[], env: AggEnv): boolean {
  if (agg.options.missing !== undefined || top.length === 0) return false;
  const fields: (KeywordField | undefined)[] = [];
  for (const shard of shards) {
    if (shard.values.kind !== 'keyword' && shard.values.kind !== 'unmapped') return false;
    const field = shard.values.kind === 'keyword' ? shard.values.field : undefined;
    if (field !== undefined && field.multiValues.size > 0) return false;
    fields.push(field);
  }
  const metrics: BucketMetrics[] = [];
  for (const sub of agg.subs) {
    const m = sub.type === 'top_hits' || 'subs' in sub ? undefined : BucketMetrics.of(sub, sets, top.length);
    if (m === undefined) return false;
    metrics.push(m);
  }
  const pass = (): void => {
    sets.forEach((set, s) => {
      const field = fields[s];
      if (field === undefined) return;
      for (const m of metrics) m.useSet(s);
      metricsPass(set.docs, field.singleIds, bucketsByTerm(field, top), metrics);
    });
  };
  pass();
  // Plain sums past 2^53 somewhere: again, compensated.
  if (!metrics.every((m) => m.exactSums())) pass();
  top.forEach((bucket, b) => {
    bucket.subs = new Map(metrics.map((m) => [m.agg.name, env.finish(m.agg, m.result(b))]));
  });
  return true;
}

/** metricsInOnePass's loop over one set's documents: each adds its numbers to its bucket's metrics. */
function metricsPass(docs: Int32Array, single: Int32Array, byTerm: Int32Array, metrics: readonly BucketMetrics[]): void {
  const one = metrics.length === 1 ? (metrics[0] as BucketMetrics) : undefined;
  for (let i = 0, n = docs.length; i < n; i++) {
    const ord = docs[i] as number;
    const id = ord < single.length ? (single[ord] as number) : -1;
    const b = id >= 0 && id < byTerm.length ? (byTerm[id] as number) : -1;
    if (b < 0) continue;
    if (one !== undefined) one.take(b, ord);
    else for (let m = 0; m < metrics.length; m++) (metrics[m] as BucketMetrics).take(b, ord);
  }
}

/** Per term id of `field`: the position in `buckets` of the bucket whose key is that term, or -1. */
function bucketsByTerm(field: KeywordField, buckets: readonly Bucket[]): Int32Array {
  const byTerm = new Int32Array(field.postings.termCount).fill(-1);
  buckets.forEach((b, i) => {
    if (typeof b.sortKey !== 'string') return;
    const t = field.lookup(b.sortKey);
    if (t >= 0) byTerm[t] = i;
  });
  return byTerm;
}

function isKeyOrder(agg: BucketAgg): boolean {
  return agg.options.order?.[0]?.by === '_key';
}

function isCountDesc(agg: BucketAgg): boolean {
  const first = agg.options.order?.[0];
  return first === undefined || (first.by === '_count' && !first.asc);
}

/** What the shards return: merged counts, and what the cut at each shard's shard_size left out. */
interface ShardStage {
  readonly merged: Map<Key, number>;
  /** One index ordered by a sub-aggregation: its buckets keep the sub-results the shard ranked them by. */
  readonly ranked: Map<Key, Bucket>;
  readonly other: number;
  readonly errorBound: number;
  /** Per term, the errors of the shards that returned it: its own error bound is errorBound less that (ES's InternalTerms reduce). */
  readonly returnedError: Map<Key, number>;
  /** Whether a shard had more buckets than it returns: ES then cannot bound the error of an order other than by count or key. */
  readonly cut: boolean;
}

function shardStage(agg: BucketAgg, sets: readonly DocSet[], shards: readonly ShardCounts[], env: AggEnv, fields: (k: Key) => Record<string, unknown>): ShardStage {
  const o = agg.options;
  const byPath = o.order?.some((k) => k.by === 'path') === true;
  const single = sets.length === 1;
  const shardSize = Math.max(o.size, o.shardSize ?? (isKeyOrder(agg) ? o.size : Math.floor(o.size * 1.5 + 10)));
  const merged = new Map<Key, number>();
  const ranked = new Map<Key, Bucket>();
  let other = 0;
  let errorBound = 0;
  const returnedError = new Map<Key, number>();
  let cut = false;
  for (const shard of shards) {
    // The most a term this shard did not return can have had on it: its last returned count, when it cut.
    let shardError = 0;
    // Each shard's top shard_size; with several indices and a sub-aggregation order, every bucket (merged exactly).
    let entries = [...shard.counts].filter(([, c]) => c >= o.shardMinDocCount);
    const total = [...shard.counts.values()].reduce((a, b) => a + b, 0);
    if (entries.length > shardSize) cut = true;
    if (!byPath || single) {
      const list = entries.map(([k, c]): Bucket => ({ fields: fields(k), docCount: c, sortKey: k, sets: undefined, subs: undefined }));
      if (byPath) {
        collectDocs(sets, o, list, shards);
        runBucketSubs(agg, list, env, sets);
      }
      sortBuckets(list, o.order, COUNT_DESC);
      if (list.length > shardSize) shardError = (list[shardSize - 1] as Bucket).docCount;
      errorBound += shardError;
      const kept = list.slice(0, shardSize);
      if (byPath) for (const b of kept) ranked.set(b.sortKey, b);
      entries = kept.map((b) => [b.sortKey, b.docCount]);
    }
    let kept = 0;
    for (const [k, c] of entries) {
      merged.set(k, (merged.get(k) ?? 0) + c);
      if (shardError > 0) returnedError.set(k, (returnedError.get(k) ?? 0) + shardError);
      kept += c;
    }
    other += total - kept;
  }
  return { merged, ranked, other, errorBound, returnedError, cut };
}

/**
 * A bucket's `doc_count_error_upper_bound` (`show_term_doc_count_error`): -1 or 0 as the whole's
 * when that is; else, as ES reduces it, the errors of the shards that did not return the term.
 */
function bucketError(shown: number, errorBound: number, returnedError: ReadonlyMap<Key, number>, key: Key): number {
  if (shown <= 0) return shown;
  return errorBound - (returnedError.get(key) ?? 0);
}

export function termsAgg(agg: BucketAgg, sets: readonly DocSet[], env: AggEnv): AggResult {
  const o = agg.options;
  const shards = sets.map((s) => countShard(s, o));
  const values = shards.find((s) => s.values.kind !== 'unmapped')?.values ?? { kind: 'unmapped' as const };
  let print: ((ms: number) => string) | undefined;
  if (values.kind === 'number' && values.def.kind === 'date') {
    try {
      const p = datePrinter(values.def, o.format, undefined);
      print = (ms) => p.print(ms);
    } catch (e) {
      throw errors.illegalArgument((e as Error).message);
    }
  }
  const byPath = o.order?.some((k) => k.by === 'path') === true;
  const single = sets.length === 1;
  const stage = shardStage(agg, sets, shards, env, (k) => keyFields(values, k, print));
  const { merged, ranked, errorBound, returnedError, cut } = stage;
  let other = stage.other;
  const minDoc = o.minDocCount ?? 1;
  const buckets: Bucket[] = [];
  for (const [k, c] of merged) if (c >= minDoc) buckets.push(ranked.get(k) ?? { fields: keyFields(values, k, print), docCount: c, sortKey: k, sets: undefined, subs: undefined });
  const subs = agg.subs.length > 0;
  if (byPath && !single) {
    if (subs) collectDocs(sets, o, buckets, shards);
    runBucketSubs(agg, buckets, env, sets);
  }
  sortBuckets(buckets, o.order, COUNT_DESC);
  const top = buckets.slice(0, o.size);
  for (let i = o.size; i < buckets.length; i++) other += (buckets[i] as Bucket).docCount;
  if (!byPath && subs && !metricsInOnePass(agg, sets, top, shards, env)) {
    collectDocs(sets, o, top, shards);
    runBucketSubs(agg, top, env, sets);
  }
  const shownError = isKeyOrder(agg) ? 0 : isCountDesc(agg) ? (single ? 0 : errorBound) : cut ? -1 : 0;
  return {
    typedName: values.kind !== 'number' ? 'sterms' : values.def.kind === 'numeric' && !values.def.integer ? 'dterms' : 'lterms',
    json: {
      doc_count_error_upper_bound: shownError,
      sum_other_doc_count: other,
      buckets: top.map((b) => (o.showTermDocCountError ? { ...bucketJson(b), doc_count_error_upper_bound: bucketError(shownError, errorBound, returnedError, b.sortKey) } : bucketJson(b))),
    },
    value: () => Number.NaN,
  };
}
