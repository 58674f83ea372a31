import type { ZoneId } from '@js-joda/core';
import type { SearchError } from '../../errors.js';
import { errors } from '../../errors.js';
import type { KeywordField } from '../../index/keyword-field.js';
import type { NumericField } from '../../index/numeric-field.js';
import { parseBool, parseDateFor, parseNumber, type FieldDef } from '../../mapping/mapping.js';
import { compileDateFormat, isoInstant, joda, namedPattern, type DateFormat } from '../../syntax/date-format.js';
import { zoneOf } from '../../syntax/date-math.js';
import type { IndexState } from '../index-state.js';
import { BucketDocs, type DocSet } from './aggregate.js';
import { metadataFielddataError } from '../../query/metadata-fields.js';

/**
 * What an aggregation reads of a field in one index, as ES's values sources do: a keyword field's
 * term ids (ordinals, counted without touching strings), a numeric, date or boolean field's
 * numbers, or nothing (an unmapped field). Fields an aggregation cannot read are refused with ES's
 * shard errors: a text field without fielddata, `_id`, a keyword field under a numeric aggregation.
 * The `_index` metadata field reads as ES's constant keyword: every document of an index holds
 * that index's name.
 */

export type FieldValues =
  | { readonly kind: 'keyword'; readonly def: FieldDef; readonly field: KeywordField | undefined }
  | { readonly kind: 'number'; readonly def: FieldDef; readonly field: NumericField | undefined; readonly round: (v: number) => number }
  | { readonly kind: 'index'; readonly name: string }
  | { readonly kind: 'unmapped' };

/** Numbers as the field's doc values hold them: a `float` is a float32. */
function rounding(def: FieldDef): (v: number) => number {
  return def.esType === 'float' ? Math.fround : (v) => v;
}

/**
 * The values of `field` in `state` for aggregation `aggType`; `numeric` when the aggregation reads
 * numbers only (histogram, sum, …). Throws ES's shard error for a field it cannot read.
 */
export function fieldValues(state: IndexState, field: string, aggType: string, numeric: boolean): FieldValues {
  if (field === '_id') throw errors.idFielddataDisabled(state.name);
  if (field === '_index') {
    if (numeric) throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: `Field [_index] of type [_index] is not supported for aggregation [${aggType}]` });
    return { kind: 'index', name: state.name };
  }
  const def = state.mappings.field(field);
  if (def === undefined) {
    const refused = metadataFielddataError(state.name, field);
    if (refused !== undefined) throw refused;
    return { kind: 'unmapped' };
  }
  if (def.kind === 'text') {
    if (!def.fielddata) throw errors.fielddataDisabled(state.name, field);
    throw errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: `aggregations on the text field [${field}] (fielddata) are not supported by this server` });
  }
  if (def.kind === 'keyword') {
    if (numeric) throw unsupported(state, def, aggType);
    return { kind: 'keyword', def, field: state.index.keyword.get(field) };
  }
  return { kind: 'number', def, field: state.index.numeric.get(field), round: rounding(def) };
}

export function unsupported(state: IndexState, def: FieldDef, aggType: string): SearchError {
  return errors.shardFailure(state.name, { type: 'illegal_argument_exception', reason: `Field [${def.path}] of type [${def.esType}] is not supported for aggregation [${aggType}]` });
}

/** The distinct values of a keyword document (ES's sorted set: each value once). */
export function keywordValues(field: KeywordField, ord: number): readonly string[] {
  const vals = field.valuesOf(ord);
  if (vals === undefined || vals.length < 2) return vals ?? [];
  return [...new Set(vals)];
}

/** A document's values as strings or numbers, whatever the field's kind (each keyword once). */
export function docValues(values: FieldValues, ord: number): readonly (string | number)[] {
  switch (values.kind) {
    case 'keyword':
      return values.field === undefined ? [] : keywordValues(values.field, ord);
    case 'number':
      return numberValues(values, ord);
    case 'index':
      return [values.name];
    default:
      return [];
  }
}

/** Every number of a document, sorted, duplicates kept (ES's sorted numeric doc values). */
export function numberValues(values: FieldValues & { kind: 'number' }, ord: number): readonly number[] {
  const f = values.field;
  if (f === undefined) return [];
  const multi = f.multi.get(ord);
  if (multi === undefined) {
    const v = f.min[ord];
    return v === undefined || Number.isNaN(v) ? [] : [values.round(v)];
  }
  return multi.map(values.round).sort((a, b) => a - b);
}

/** A `missing` value for a field of `def`'s kind, as ES parses it (a date through the field's format). */
export function missingNumber(def: FieldDef, raw: unknown): number | undefined {
  if (def.kind === 'date') return typeof raw === 'number' ? raw : parseDateFor(def, raw);
  if (def.kind === 'boolean') {
    const b = parseBool(raw);
    return b === undefined ? undefined : b ? 1 : 0;
  }
  return parseNumber(raw, def.integer);
}

/** Prints dates as an aggregation's `format` (or the field's) in its `time_zone`. */
export interface DatePrinter {
  print(ms: number): string;
}

const ISO_PRINTED = new Set(['strict_date_optional_time', 'date_optional_time', 'strict_date_optional_time_nanos', 'strict_date_time', 'date_time', 'iso8601']);

/** ISO text of `ms` in `zone`, as java.time writes an offset (`Z` for zero). */
function isoIn(ms: number, zone: ZoneId): string {
  const { Instant, ZonedDateTime } = joda();
  const offset = ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), zone).offset().totalSeconds();
  if (offset === 0) return isoInstant(ms);
  const text = isoInstant(ms + offset * 1000).slice(0, -1);
  const a = Math.abs(offset);
  const hh = String(Math.floor(a / 3600)).padStart(2, '0');
  const mm = String(Math.floor((a % 3600) / 60)).padStart(2, '0');
  return `${text}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

/**
 * The printer of dates for an aggregation: `format` (the aggregation's, else the field's), in
 * `timeZone` (UTC unless given). Throws Error for a format or zone java.time would refuse.
 */
export function datePrinter(def: FieldDef | undefined, format: string | undefined, timeZone: string | undefined): DatePrinter {
  const text = format ?? def?.dateFormat?.text ?? 'strict_date_optional_time';
  const first = (text.split('||')[0] ?? '').trim();
  const zone = timeZone === undefined ? undefined : zoneOf(timeZone);
  const utc = zone === undefined || zone.id() === 'Z' || zone.id() === 'UTC';
  if (utc || first === 'epoch_millis' || first === 'epoch_second') {
    const compiled: DateFormat = compileDateFormat(text);
    return { print: (ms) => compiled.print(ms) ?? String(ms) };
  }
  if (ISO_PRINTED.has(first)) return { print: (ms) => isoIn(ms, zone) };
  const { DateTimeFormatter, Instant, ZonedDateTime } = joda();
  const formatter = DateTimeFormatter.ofPattern(namedPattern(first) ?? first);
  return { print: (ms) => formatter.format(ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), zone)) };
}

/**
 * The numeric values of `field` of every document of `sets`, as the bucket aggregations on numbers
 * read them: a document without any gets `missing` (the request's raw `missing`) when one is given;
 * a field that is not numeric in an index gives no values there. `each` also gets the set's
 * BucketDocs when `withDocs` (sub-aggregations), which is added to `collectors`.
 */
export function eachDocNumbers(
  sets: readonly DocSet[],
  field: string,
  aggType: string,
  missingRaw: unknown,
  withDocs: boolean,
  collectors: BucketDocs[],
  each: (vals: readonly number[], i: number, docs: BucketDocs | undefined) => void,
): void {
  for (const set of sets) {
    const values = fieldValues(set.state, field, aggType, true);
    const docs = withDocs ? new BucketDocs(set) : undefined;
    if (docs !== undefined) collectors.push(docs);
    const missing = missingRaw === undefined || values.kind !== 'number' ? undefined : missingNumber(values.def, missingRaw);
    for (let i = 0; i < set.docs.length; i++) {
      let vals = values.kind === 'number' ? numberValues(values, set.docs[i] as number) : [];
      if (vals.length === 0 && missing !== undefined) vals = [missing];
      each(vals, i, docs);
    }
  }
}
