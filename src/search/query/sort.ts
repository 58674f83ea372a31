import { float32ForJson } from './bm25.js';
import { metadataFielddataError } from './metadata-fields.js';
import { errors } from '../errors.js';
import type { InvertedIndex } from '../index/inverted-index.js';
import { parseBool, parseDateFor, parseNumber, type FieldDef, type Mappings } from '../mapping/mapping.js';
import type { Hits } from './query-exec.js';
import type { SortKey } from '../requests/search-request.js';
import type { Before } from './top-k.js';

/**
 * Field sorting: per-hit sort keys, the `sort` values ES returns with each hit, and `search_after`.
 * Every order ends with the ordinal (write order) so that it is total; see top-k.ts.
 */

export type SortValue = number | string | null;

interface KeyColumn {
  readonly key: SortKey;
  /** Numeric keys (scores, numbers, dates, booleans) or string keys (keyword); null = missing. */
  readonly values: (number | string | null)[];
  readonly numeric: boolean;
  /** float, double, …: ES's missing value is ±Infinity (sent as a string) instead of ±Long.MAX_VALUE. */
  readonly floating: boolean;
  readonly def: FieldDef | undefined;
}

export interface SortPlan {
  readonly before: Before;
  /** The sort values to return for hit i (ES's `sort` array). */
  sortValues(i: number): SortValue[];
  /** Whether hit i comes strictly after the search_after tuple. */
  after(i: number, tuple: readonly unknown[]): boolean;
  /** Compares two value tuples in this order (for merging several indices). */
  compareTuples(a: readonly SortValue[], b: readonly SortValue[]): number;
  readonly needsScores: boolean;
}

// Long.MAX_VALUE as the nearest double (the exact text is written with RawJson).
const LONG_MAX = 2 ** 63;

// Types whose doc values sort as FLOAT or DOUBLE in ES (IndexNumericFieldData.NumericType).
const FLOATING_TYPES = new Set(['float', 'half_float', 'double', 'scaled_float']);

/** The value ES puts in place of a missing one for `_first`/`_last`: the extreme of the sort type. */
function missingExtreme(col: KeyColumn): number {
  const high = (col.key.order === 'asc') === !missingFirst(col.key);
  if (col.floating) return high ? Infinity : -Infinity;
  return high ? LONG_MAX : -LONG_MAX;
}

function missingFirst(key: SortKey): boolean {
  return key.missing === '_first';
}

function fieldValue(index: InvertedIndex, def: FieldDef, ord: number, key: SortKey): number | string | null {
  const useMax = key.mode === 'max' || (key.mode === undefined && key.order === 'desc');
  if (def.kind === 'keyword') {
    const vals = index.keyword.get(def.path)?.valuesOf(ord);
    if (vals === undefined || vals.length === 0) return null;
    let best = vals[0] as string;
    for (const v of vals) if (useMax ? v > best : v < best) best = v;
    return best;
  }
  const nf = index.numeric.get(def.path);
  if (nf === undefined) return null;
  const v = (useMax ? nf.max[ord] : nf.min[ord]) as number | undefined;
  return v === undefined || Number.isNaN(v) ? null : v;
}

function convertMissing(def: FieldDef | undefined, v: unknown): number | string | null {
  if (def === undefined || def.kind === 'keyword') return v === null || v === undefined ? null : String(v);
  // Numbers are epoch millis as ES takes them (SearchAfterBuilder); strings go through the field's format.
  if (def.kind === 'date') return (typeof v === 'number' ? Math.trunc(v) : parseDateFor(def, v)) ?? null;
  if (def.kind === 'boolean') {
    // A boolean's sort value is the long 1 or 0 (what a hit's `sort` holds), which ES's
    // SearchAfterBuilder reads as a long; true/false and their strings are taken too.
    if (typeof v === 'number') return Math.trunc(v);
    const b = parseBool(v);
    return b === undefined ? null : b ? 1 : 0;
  }
  return parseNumber(v, false) ?? null;
}

/** Compares two key values in ascending order with missing (null) per the missing policy. */
function cmp(a: number | string | null, b: number | string | null, key: SortKey): number {
  if (a === b) return 0;
  const first = missingFirst(key);
  if (a === null) return first ? -1 : 1;
  if (b === null) return first ? 1 : -1;
  const c = a < b ? -1 : a > b ? 1 : 0;
  return key.order === 'asc' ? c : -c;
}

/**
 * How the hits of one shard sort on `keys`. `shard`: the shard's position among those searched
 * (a point in time's), the high 32 bits of `_shard_doc`, whose low bits are the document's ordinal.
 */
export function planSort(indexName: string, index: InvertedIndex, mappings: Mappings, shard: number, keys: readonly SortKey[], hits: Hits): SortPlan {
  const columns: KeyColumn[] = keys.map((key) => {
    const values: (number | string | null)[] = new Array(hits.length);
    if (key.field === '_score') {
      for (let i = 0; i < hits.length; i++) values[i] = hits.scores[i] as number;
      return { key, values, numeric: true, floating: true, def: undefined };
    }
    if (key.field === '_doc' || key.field === '_shard_doc') {
      const base = key.field === '_doc' ? 0 : shard * 2 ** 32;
      for (let i = 0; i < hits.length; i++) values[i] = base + (hits.docs[i] as number);
      return { key, values, numeric: true, floating: false, def: undefined };
    }
    if (key.field === '_id') throw errors.idFielddataDisabled(indexName);
    // `_index` is ES's constant keyword: every hit of this index sorts on the index's name.
    if (key.field === '_index') return { key, values: values.fill(indexName), numeric: false, floating: false, def: undefined };
    const def = mappings.field(key.field);
    if (def === undefined) {
      const refused = metadataFielddataError(indexName, key.field);
      if (refused !== undefined) throw refused;
      if (key.unmappedType === undefined) throw errors.noMappingForSort(indexName, key.field);
      values.fill(null);
      return { key, values, numeric: key.unmappedType !== 'keyword', floating: FLOATING_TYPES.has(key.unmappedType), def: undefined };
    }
    if (def.kind === 'text' && !def.fielddata) throw errors.fielddataDisabled(indexName, key.field);
    const replacement = key.missing === undefined || key.missing === '_last' || key.missing === '_first' ? null : convertMissing(def, key.missing);
    for (let i = 0; i < hits.length; i++) values[i] = fieldValue(index, def, hits.docs[i] as number, key) ?? replacement;
    return { key, values, numeric: def.kind !== 'keyword', floating: def.kind === 'numeric' && FLOATING_TYPES.has(def.esType), def };
  });
  const before: Before = (a, b) => {
    for (const col of columns) {
      const c = cmp(col.values[a] as number | string | null, col.values[b] as number | string | null, col.key);
      if (c !== 0) return c < 0;
    }
    return (hits.docs[a] as number) < (hits.docs[b] as number);
  };
  const sortValues = (i: number): SortValue[] =>
    columns.map((col) => {
      const v = col.values[i] as number | string | null;
      if (col.key.field === '_score') return float32ForJson(v as number);
      if (v !== null) return v;
      if (!col.numeric) return null;
      // ES returns Long.MAX_VALUE / MIN_VALUE (integers, dates) or "Infinity" / "-Infinity"
      // (floating point: Jackson quotes non-finite numbers) for a missing value, by direction.
      const extreme = missingExtreme(col);
      return Number.isFinite(extreme) ? extreme : String(extreme);
    });
  /** A search_after value as a key of this column; numeric columns compare missing as its extreme. */
  const convert = (col: KeyColumn, v: unknown): number | string | null => {
    // Scores are float32, and ES reads a search_after score as a float: 1.985278 is the float that
    // prints so, not the double, or the hit it came from would sort after itself.
    if (col.key.field === '_score') return Math.fround(Number(v));
    if (col.key.field === '_doc' || col.key.field === '_shard_doc') return Number(v);
    if (!col.numeric) return v === null ? null : convertMissing(col.def, v);
    if (v === null) return missingExtreme(col);
    if (v === 'Infinity' || v === Infinity) return Infinity;
    if (v === '-Infinity' || v === -Infinity) return -Infinity;
    if (v === LONG_MAX || v === String(LONG_MAX) || v === '9223372036854775807') return LONG_MAX;
    if (v === -LONG_MAX || v === String(-LONG_MAX) || v === '-9223372036854775808') return -LONG_MAX;
    const n = convertMissing(col.def, v);
    if (n === null) throw errors.searchAfterValue(indexName, col.key.field, v);
    return n;
  };
  const tupleKey = (col: KeyColumn, v: SortValue | undefined): number | string | null => {
    if (!col.numeric || typeof v !== 'string') return v ?? null;
    return v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : Number(v);
  };
  const keyOf = (col: KeyColumn, i: number): number | string | null => {
    const v = col.values[i] as number | string | null;
    return v === null && col.numeric ? missingExtreme(col) : v;
  };
  // The search_after values as keys, read once per tuple: a search calls after() for every hit
  // with the same tuple, and reading a date string through its format costs microseconds.
  let lastTuple: readonly unknown[] | undefined;
  let lastKeys: (number | string | null)[] = [];
  const keysOf = (tuple: readonly unknown[]): (number | string | null)[] => {
    if (tuple !== lastTuple) {
      lastKeys = columns.map((col, k) => convert(col, tuple[k]));
      lastTuple = tuple;
    }
    return lastKeys;
  };
  return {
    before,
    sortValues,
    after(i, tuple) {
      if (tuple.length !== columns.length) {
        throw errors.illegalArgument(`search_after has ${tuple.length} value(s) but sort has ${columns.length}.`);
      }
      const afterKeys = keysOf(tuple);
      for (let k = 0; k < columns.length; k++) {
        const col = columns[k] as KeyColumn;
        const c = cmp(keyOf(col, i), afterKeys[k] as number | string | null, col.key);
        if (c !== 0) return c > 0;
      }
      return false;
    },
    compareTuples(a, b) {
      for (let k = 0; k < columns.length; k++) {
        const col = columns[k] as KeyColumn;
        // Tuples hold what sortValues returns: "Infinity" strings stand for numbers here.
        const c = cmp(tupleKey(col, a[k]), tupleKey(col, b[k]), col.key);
        if (c !== 0) return c;
      }
      return 0;
    },
    needsScores: keys.some((k) => k.field === '_score'),
  };
}
