import { errors } from '../errors.js';
import { isJsonObject, jsonToken } from '../syntax/json-members.js';
import { badOption, located, notComputed, unknownOption } from './aggs/agg-errors.js';
import { parseTopHits, type BodyReaders, type TopHitsOptions } from './aggs/agg-options.js';

/**
 * A search body's `collapse` (ES 8's CollapseBuilder): the field whose value groups the hits (one
 * hit per value, the best of its group, in the search's order) and the `inner_hits` each group
 * shows, read as top_hits options (ES's InnerHitBuilder: name, from, size, sort, _source, version,
 * seq_no_primary_term, track_scores). A second level of collapse, and inner-hit options Portico does
 * not compute (highlight, fields, …), are refused.
 */

export interface InnerHits extends TopHitsOptions {
  /** Required, but ES checks it only when a hit is expanded (a search without hits answers without it). */
  readonly name: string | undefined;
}

export interface Collapse {
  readonly field: string;
  readonly innerHits: readonly InnerHits[];
}

const INNER_KEYS = ['name', 'ignore_unmapped', 'collapse'];

function innerHit(raw: unknown, at: (string | number)[], readers: BodyReaders): InnerHits {
  if (!isJsonObject(raw)) throw badOption('collapse', 'inner_hits', at, { type: 'illegal_argument_exception', reason: `[inner_hits] must be an object, got [${jsonToken(raw)}]` });
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (!INNER_KEYS.includes(k)) rest[k] = v;
  if (raw.collapse !== undefined) throw notComputed([...at, 'collapse'], '[collapse] inside [inner_hits]');
  const name = raw.name === undefined || raw.name === null ? undefined : String(raw.name);
  try {
    return { name, ...parseTopHits(rest, at, readers) };
  } catch (e) {
    // top_hits' unknown keys are inner_hits' here.
    const key = Object.keys(rest).find((k) => !['from', 'size', 'sort', '_source', 'version', 'seq_no_primary_term', 'track_scores', 'explain', 'highlight', 'stored_fields', 'docvalue_fields', 'fields', 'script_fields'].includes(k));
    if (key !== undefined) throw unknownOption('inner_hits', key, [...at, key]);
    throw e;
  }
}

export function parseCollapse(raw: unknown, readers: BodyReaders): Collapse {
  const at = ['collapse'];
  if (!isJsonObject(raw)) throw located(at, (v) => errors.parsing(`[collapse] failed to parse field [collapse]`, v?.line, v?.col));
  for (const k of Object.keys(raw)) if (k !== 'field' && k !== 'inner_hits' && k !== 'max_concurrent_group_searches') throw unknownOption('collapse', k, [...at, k]);
  if (typeof raw.field !== 'string') throw located(at, () => errors.illegalArgument('[field] is required on [collapse]'));
  const ih = raw.inner_hits;
  const list = ih === undefined ? [] : Array.isArray(ih) ? ih.map((x, i) => innerHit(x, [...at, 'inner_hits', i], readers)) : [innerHit(ih, [...at, 'inner_hits'], readers)];
  const names = new Set<string>();
  for (const h of list) {
    if (h.name === undefined) continue;
    if (names.has(h.name)) throw located([...at, 'inner_hits'], () => errors.illegalArgument(`[inner_hits] already contains an entry for key [${h.name}]`));
    names.add(h.name);
  }
  return { field: raw.field, innerHits: list };
}
