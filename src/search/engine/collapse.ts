import { errors } from '../errors.js';
import type { Hits } from '../query/hit-lists.js';
import type { ExecContext } from '../query/query-exec.js';
import type { Before } from '../query/top-k.js';
import type { Collapse } from '../requests/collapse-request.js';
import { RawJson, renderJson } from '../http/json-render.js';
import type { AggEnv } from './aggs/aggregate.js';
import { topHits } from './aggs/top-hits-agg.js';
import type { IndexState } from './index-state.js';

/**
 * Field collapsing (ES's `collapse`): the hits in the search's order, keeping the first of each
 * value of a keyword or numeric field (documents without a value form one group), paged with
 * from/size over the groups; each kept hit shows its value under `fields` and, per `inner_hits`
 * entry, the best documents of its group. Totals still count every match, as in ES.
 */

export type CollapseKey = string | number | null;

/** Reads the collapse value of an ordinal of `state`; throws ES's shard errors for a field that cannot collapse. */
export function collapseKeys(state: IndexState, field: string): (ord: number) => CollapseKey {
  const def = state.mappings.field(field);
  if (def === undefined && field === '_index') throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: 'unknown type for collapse field `_index`, only keywords and numbers are accepted' });
  if (def === undefined) throw errors.queryShard(state.name, `no mapping found for \`${field}\` in order to collapse on`);
  if (def.kind !== 'keyword' && def.kind !== 'numeric') {
    throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: `unknown type for collapse field \`${field}\`, only keywords and numbers are accepted` });
  }
  const single = (ord: number, n: number): void => {
    if (n > 1) throw errors.shardFailure(state.name, { type: 'illegal_state_exception', reason: `failed to collapse ${ord}, the collapse field must be single valued` });
  };
  if (def.kind === 'keyword') {
    const f = state.index.keyword.get(field);
    return (ord) => {
      const vals = f?.valuesOf(ord);
      if (vals === undefined || vals.length === 0) return null;
      single(ord, new Set(vals).size);
      return vals[0] as string;
    };
  }
  const f = state.index.numeric.get(field);
  return (ord) => {
    const m = f?.multi.get(ord);
    if (m !== undefined) single(ord, new Set(m).size);
    const v = f?.min[ord];
    return v === undefined || Number.isNaN(v) ? null : v;
  };
}

/** The hits (indices into `hits`) of groups from..from+size, in order, and their keys. */
export function collapseWindow(hits: Hits, before: Before, from: number, size: number, keyOf: (ord: number) => CollapseKey): { window: Int32Array; keys: CollapseKey[] } {
  const order = Array.from({ length: hits.length }, (_, i) => i).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const seen = new Set<CollapseKey>();
  const picked: number[] = [];
  const keys: CollapseKey[] = [];
  for (const i of order) {
    if (picked.length >= size) break;
    const key = keyOf(hits.docs[i] as number);
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > from) {
      picked.push(i);
      keys.push(key);
    }
  }
  return { window: Int32Array.from(picked), keys };
}

/** A shard's hits (after post_filter), kept for the inner hits of its collapsed hits. */
export interface CollapseShard {
  readonly ctx: ExecContext;
  readonly hits: Hits;
  readonly keyOf: (ord: number) => CollapseKey;
  /** Whether the request had a query: inner hits score with it, or 0 (ES's expand query is then a filter). */
  readonly scored: boolean;
}

/** A rendered hit with the collapse value (`fields`) and its inner hits added, in ES's member order. */
export function collapsedHit(hit: Record<string, unknown> | RawJson, c: Collapse, key: CollapseKey, state: IndexState, shard: CollapseShard, renderHit: AggEnv['renderHit']): Record<string, unknown> | RawJson {
  const extra: Record<string, unknown> = {};
  if (key !== null) extra.fields = { [c.field]: [key] };
  if (c.innerHits.length > 0) {
    const docs: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < shard.hits.length; i++) {
      const ord = shard.hits.docs[i] as number;
      if (shard.keyOf(ord) !== key) continue;
      docs.push(ord);
      scores.push(shard.scored ? (shard.hits.scores[i] as number) : 0);
    }
    const set = { state, ctx: shard.ctx, docs: Int32Array.from(docs), scores: Float32Array.from(scores) };
    const inner: Record<string, unknown> = {};
    for (const ih of c.innerHits) {
      if (ih.name === undefined) throw errors.illegalArgument('Field name cannot be null');
      inner[ih.name] = topHits(ih, [set], renderHit);
    }
    extra.inner_hits = inner;
  }
  if (hit instanceof RawJson) {
    const tail = renderJson(extra, false, true).slice(1, -1);
    return tail === '' ? hit : new RawJson(`${hit.text.slice(0, -1)},${tail}}`);
  }
  const { sort, ...rest } = hit;
  // The collapse value joins the fields the request fetched (docvalue_fields, fields, stored_fields).
  const fields = extra.fields === undefined ? rest.fields : { ...(rest.fields as Record<string, unknown> | undefined), ...(extra.fields as Record<string, unknown>) };
  return { ...rest, ...(fields === undefined ? {} : { fields }), ...(sort === undefined ? {} : { sort }), ...(extra.inner_hits === undefined ? {} : { inner_hits: extra.inner_hits }) };
}
