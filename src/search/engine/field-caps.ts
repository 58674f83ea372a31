import type { Mappings } from '../mapping/mapping.js';
import { errors } from '../errors.js';
import { globMatch } from '../syntax/glob.js';
import { isJsonObject } from '../syntax/json-members.js';

/**
 * `_field_caps` as Elasticsearch 8 answers it: each index's fields (its mapped fields, their
 * multi-fields, the objects above them and the metadata fields) with the type ES reports
 * (MappedFieldType.familyTypeName), whether each is searchable and aggregatable, then the indices
 * merged per field and type (ES's FieldCapabilities.Builder): `indices` only when a field has more
 * than one type, `non_searchable_indices` / `non_aggregatable_indices` only when some indices and
 * not all are, `meta` as the sorted union of the values each index's mapping gives.
 */

/** One field of one index, as ES's IndexFieldCapabilities holds it. */
export interface IndexFieldCaps {
  readonly type: string;
  readonly metadata: boolean;
  readonly searchable: boolean;
  readonly aggregatable: boolean;
  /** The field's `meta` mapping parameter (string values). */
  readonly meta: Readonly<Record<string, string>>;
}

/**
 * The metadata fields ES 8.17's default distribution maps in a standard index, with what their
 * field types answer to isSearchable (indexed, or doc values where ES searches those) and
 * isAggregatable (field data can be built): IndicesModule's built-in metadata mappers (the time
 * series ones map nothing outside a time series index), then the plugins' `_feature`
 * (mapper-extras, neither indexed nor with doc values) and `_tier` (x-pack, a constant). `_id` is
 * not aggregatable (`indices.id_field_data.enabled` is false by default since 8.0); `_ignored` is,
 * for indices created since 8.13 (doc values); `_version` has doc values and no index.
 */
export const METADATA_FIELDS: readonly (readonly [string, boolean, boolean])[] = [
  ['_ignored', true, true],
  ['_id', true, false],
  ['_routing', true, false],
  ['_index', true, true],
  ['_index_mode', true, true],
  ['_source', false, false],
  ['_ignored_source', false, false],
  ['_nested_path', true, false],
  ['_version', false, true],
  ['_seq_no', true, true],
  ['_doc_count', false, false],
  ['_data_stream_timestamp', false, false],
  ['_field_names', true, false],
  ['_feature', false, false],
  ['_tier', true, true],
];

/** The `filters` ES 8 knows (FieldCapabilitiesFetcher.buildFilter and its parent/dimension flags). */
const KNOWN_FILTERS = new Set(['+metadata', '-metadata', '-nested', '-multifield', '-parent', 'parent', '+dimension']);

export interface FieldCapsOptions {
  /** Field name patterns (`*` wildcards), as given. */
  readonly fields: readonly string[];
  readonly filters: readonly string[];
  readonly types: readonly string[];
}

/** A mapped leaf of the properties tree: its path, its raw mapping, and whether it is a multi-field. */
interface Leaf {
  readonly path: string;
  readonly def: Record<string, unknown>;
  readonly multi: boolean;
  /** Under a `nested` object (Portico refuses nested mappings, so never set today; kept for `-nested`). */
  readonly nested: boolean;
}

function leaves(properties: Readonly<Record<string, unknown>>, prefix: string, nested: boolean, out: Leaf[], objects: Map<string, string>): void {
  for (const [name, raw] of Object.entries(properties)) {
    if (!isJsonObject(raw)) continue;
    const path = prefix + name;
    const type = raw.type;
    if (type === undefined || type === 'object' || type === 'nested') {
      objects.set(path, type === 'nested' ? 'nested' : 'object');
      if (isJsonObject(raw.properties)) leaves(raw.properties, `${path}.`, nested || type === 'nested', out, objects);
      continue;
    }
    out.push({ path, def: raw, multi: false, nested });
    if (isJsonObject(raw.fields)) {
      for (const [sub, subRaw] of Object.entries(raw.fields)) if (isJsonObject(subRaw)) out.push({ path: `${path}.${sub}`, def: subRaw, multi: true, nested });
    }
  }
}

/** The `meta` of a field's mapping, its values as strings (ES keeps them as strings). */
function metaOf(def: Record<string, unknown>): Record<string, string> {
  if (!isJsonObject(def.meta)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(def.meta)) out[k] = String(v);
  return out;
}

/**
 * The caps of one mapped field as ES 8's field types answer: text is searchable when indexed
 * and aggregatable with fielddata; keyword, numbers, dates and booleans are searchable indexed or
 * not (ES searches their doc values, which every field here has) and aggregatable.
 */
function leafCaps(mappings: Mappings, leaf: Leaf): IndexFieldCaps | undefined {
  const def = mappings.field(leaf.path);
  if (def === undefined) return undefined;
  const meta = metaOf(leaf.def);
  switch (def.kind) {
    case 'text':
      return { type: 'text', metadata: false, searchable: def.index, aggregatable: def.fielddata, meta };
    case 'keyword':
      return { type: 'keyword', metadata: false, searchable: true, aggregatable: true, meta };
    default:
      return { type: def.esType, metadata: false, searchable: true, aggregatable: true, meta };
  }
}

/** Whether `name` matches one of the patterns (ES's Regex.simpleMatch: `*` any run of characters). */
function matchesAny(patterns: readonly string[], name: string): boolean {
  for (const p of patterns) if (p === '*' || p === name || (p.includes('*') && globMatch(p, name))) return true;
  return false;
}

/** Throws ES's error for a filter it does not know (raised on each index, so only when there is one). */
export function checkFilters(filters: readonly string[]): void {
  for (const f of filters) if (!KNOWN_FILTERS.has(f)) throw errors.illegalArgument(`Unknown field caps filter [${f}]`);
}

/** One index's field caps (FieldCapabilitiesFetcher.retrieveFieldCaps): field name → caps. */
export function indexFieldCaps(mappings: Mappings, opts: FieldCapsOptions): Map<string, IndexFieldCaps> {
  checkFilters(opts.filters);
  const includeParents = !opts.filters.includes('-parent');
  const types = opts.types.length > 0 ? new Set(opts.types) : undefined;
  const keep = (name: string, caps: IndexFieldCaps, leaf?: Leaf): boolean => {
    if (types !== undefined && !types.has(caps.type)) return false;
    for (const f of opts.filters) {
      if (f === '+metadata' && !caps.metadata) return false;
      if (f === '-metadata' && caps.metadata) return false;
      if (f === '-nested' && leaf?.nested === true) return false;
      if (f === '-multifield' && leaf?.multi === true) return false;
    }
    return matchesAny(opts.fields, name);
  };
  const out = new Map<string, IndexFieldCaps>();
  for (const [name, searchable, aggregatable] of METADATA_FIELDS) {
    const caps = { type: name, metadata: true, searchable, aggregatable, meta: {} };
    if (keep(name, caps)) out.set(name, caps);
  }
  const list: Leaf[] = [];
  const objects = new Map<string, string>();
  leaves(mappings.properties, '', false, list, objects);
  for (const leaf of list) {
    const caps = leafCaps(mappings, leaf);
    if (caps === undefined || !keep(leaf.path, caps, leaf)) continue;
    out.set(leaf.path, caps);
    if (!includeParents) continue;
    // The objects above the field (a multi-field's parent is a field, not an object: skipped).
    for (let dot = leaf.path.lastIndexOf('.'); dot > 0; dot = leaf.path.lastIndexOf('.', dot - 1)) {
      const parent = leaf.path.slice(0, dot);
      if (out.has(parent)) break;
      const type = objects.get(parent);
      if (type !== undefined) out.set(parent, { type, metadata: false, searchable: false, aggregatable: false, meta: {} });
    }
  }
  return out;
}

/** What `_field_caps` answers for the indices `perIndex` (name → its caps), merged as ES merges them. */
export function mergeFieldCaps(perIndex: ReadonlyMap<string, ReadonlyMap<string, IndexFieldCaps>>, includeUnmapped: boolean): { indices: string[]; fields: Record<string, Record<string, unknown>> } {
  // ES sorts the indices by name (String.compareTo: UTF-16 code units, as JavaScript's sort).
  const indices = [...perIndex.keys()].sort();
  interface Builder {
    metadata: boolean;
    indices: string[];
    searchable: string[];
    aggregatable: string[];
    meta: Map<string, Set<string>>;
  }
  const byField = new Map<string, Map<string, Builder>>();
  for (const index of indices) {
    for (const [name, caps] of perIndex.get(index) as ReadonlyMap<string, IndexFieldCaps>) {
      let types = byField.get(name);
      if (types === undefined) byField.set(name, (types = new Map()));
      let b = types.get(caps.type);
      if (b === undefined) types.set(caps.type, (b = { metadata: false, indices: [], searchable: [], aggregatable: [], meta: new Map() }));
      b.metadata ||= caps.metadata;
      b.indices.push(index);
      if (caps.searchable) b.searchable.push(index);
      if (caps.aggregatable) b.aggregatable.push(index);
      for (const [k, v] of Object.entries(caps.meta)) {
        let values = b.meta.get(k);
        if (values === undefined) b.meta.set(k, (values = new Set()));
        values.add(v);
      }
    }
  }
  const fields: Record<string, Record<string, unknown>> = {};
  for (const [name, types] of byField) {
    const mapped = new Set<string>();
    for (const b of types.values()) for (const i of b.indices) mapped.add(i);
    const unmapped = includeUnmapped && mapped.size !== indices.length ? indices.filter((i) => !mapped.has(i)) : undefined;
    const several = types.size + (unmapped === undefined ? 0 : 1) > 1;
    const out: Record<string, unknown> = {};
    for (const [type, b] of types) {
      const searchable = b.searchable.length === b.indices.length;
      const aggregatable = b.aggregatable.length === b.indices.length;
      const caps: Record<string, unknown> = { type, metadata_field: b.metadata, searchable, aggregatable };
      if (several) caps.indices = b.indices;
      if (!searchable && b.searchable.length > 0) caps.non_searchable_indices = b.indices.filter((i) => !b.searchable.includes(i));
      if (!aggregatable && b.aggregatable.length > 0) caps.non_aggregatable_indices = b.indices.filter((i) => !b.aggregatable.includes(i));
      if (b.meta.size > 0) {
        const meta: Record<string, string[]> = {};
        for (const k of [...b.meta.keys()].sort()) meta[k] = [...(b.meta.get(k) as Set<string>)].sort();
        caps.meta = meta;
      }
      out[type] = caps;
    }
    if (unmapped !== undefined) {
      out.unmapped = { type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, ...(several ? { indices: unmapped } : {}) };
    }
    fields[name] = out;
  }
  return { indices, fields };
}
