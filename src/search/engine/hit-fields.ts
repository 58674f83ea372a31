import { errors } from '../errors.js';
import { RawJson } from '../http/json-render.js';
import { parseDocument } from '../mapping/document-parser.js';
import { isoInstant, compileDateFormat, type DateFormat } from '../syntax/date-format.js';
import { javaDouble } from '../syntax/java-double.js';
import type { FieldDef, Mappings } from '../mapping/mapping.js';
import type { FetchFields, FieldAndFormat } from '../requests/fetch-fields-request.js';
import { storedFieldValues } from '../requests/multi-get.js';
import { parseNumber } from '../mapping/mapping.js';
import { sourceValues } from '../mapping/source-values.js';
import { decimalFormat } from '../syntax/decimal-format.js';
import { globMatch } from '../syntax/glob.js';

/**
 * The `fields` member of a search hit, as ES 8's fetch phase fills it: the stored fields asked
 * for (`stored_fields`, fields mapped `store: true`), then `docvalue_fields` (the values the index
 * keeps per document: sorted, a keyword's distinct, dates in the field's format or the one asked
 * for, numbers as the field type holds them, optionally in a DecimalFormat pattern), then
 * `fields` (the values of the source as the field's mapper parses them, in source order, dates
 * formatted). Values are read from the stored source through the document parser, so they are the
 * values the index holds for the document.
 */

/** Metadata fields: `docvalue_fields` and `fields` on them are refused (see checkFetchFields). */
const METADATA = new Set(['_id', '_index', '_routing', '_ignored', '_version', '_seq_no', '_primary_term', '_source', '_field_names', '_tier', '_doc_count', '_data_stream_timestamp', '_feature', '_nested_path']);

/** The mapped fields `pattern` names, in mapping order. */
function matchingFields(mappings: Mappings, pattern: string): FieldDef[] {
  if (!pattern.includes('*')) {
    const def = mappings.field(pattern);
    return def === undefined ? [] : [def];
  }
  return [...mappings.fields.values()].filter((d) => globMatch(pattern, d.path));
}

/**
 * What ES refuses before fetching (the same for every hit): a metadata field Portico does not
 * fetch, `_id` among doc values (ES 8 disallows its fielddata), a text field's doc values, and a
 * custom format on a field type that takes none.
 */
export function checkFetchFields(index: string, mappings: Mappings, f: FetchFields): void {
  // SearchService.parseSource refuses these on the shard: a 500 from every shard, as ES answers.
  if (f.noneWithSource === true) throw errors.shardFailure(index, { type: 'search_exception', reason: '[stored_fields] cannot be disabled if [_source] is requested' }, 500);
  if (f.storedNone && f.fields.length > 0) throw errors.shardFailure(index, { type: 'search_exception', reason: '[stored_fields] cannot be disabled when using the [fields] option' }, 500);
  for (const e of f.docvalue) {
    if (e.field === '_id') throw errors.idFielddataDisabled(index);
    if (METADATA.has(e.field)) throw errors.contextUnsupported(`[docvalue_fields] on the metadata field [${e.field}]`);
    for (const def of matchingFields(mappings, e.field)) {
      if (def.kind === 'text') {
        if (!def.fielddata) throw errors.fielddataDisabled(index, def.path);
        throw errors.contextUnsupported(`[docvalue_fields] on a text field with fielddata ([${def.path}])`);
      }
      if (e.format !== undefined) formatterFor(index, def, e.format, true);
    }
  }
  for (const e of f.fields) {
    if (METADATA.has(e.field)) throw errors.contextUnsupported(`[fields] on the metadata field [${e.field}]`);
    if (e.includeUnmapped) throw errors.contextUnsupported('[include_unmapped] in [fields]');
    for (const def of matchingFields(mappings, e.field)) if (e.format !== undefined) formatterFor(index, def, e.format, false);
  }
}

type Formatter = (v: number) => unknown;

function dateFormatter(index: string, text: string): DateFormat {
  try {
    return compileDateFormat(text);
  } catch (e) {
    throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: (e as Error).message });
  }
}

/** How a doc value (or, for dates, a `fields` value) of `def` is written with `format`. */
function formatterFor(index: string, def: FieldDef, format: string | undefined, docValues: boolean): Formatter | undefined {
  if (format === undefined) return undefined;
  if (def.kind === 'date') {
    const f = dateFormatter(index, format);
    return (ms) => f.print(ms) ?? isoInstant(ms);
  }
  if (def.kind === 'numeric' && docValues) {
    const fmt = decimalFormat(format);
    if (fmt === undefined) throw errors.contextUnsupported(`the number format [${format}]`);
    return fmt;
  }
  if (!docValues) throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: `Field [${def.path}] of type [${def.esType}] doesn't support formats.` });
  throw errors.shardFailure(index, { type: 'illegal_argument_exception', reason: `Field [${def.path}] of type [${def.esType}] does not support custom formats` });
}

/** The shortest decimal that reads back as the float `f` (Java's Float.toString digits). */
function floatDigits(f: number): number {
  for (let p = 1; p < 10; p++) {
    const n = Number(f.toPrecision(p));
    if (Math.fround(n) === f) return n;
  }
  return f;
}

/** A doc value of a numeric field as ES writes it: longs as integers, the others as Java doubles (a float widened). */
function numericDocValue(def: FieldDef, n: number): unknown {
  if (def.integer) return n;
  return new RawJson(javaDouble(n));
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function docValues(def: FieldDef, doc: ReturnType<typeof parseDocument>['doc'], fmt: Formatter | undefined): unknown[] {
  if (def.kind === 'keyword') {
    const vals = doc.keyword.get(def.path) ?? [];
    return [...new Set(vals)].sort(byUtf8);
  }
  const held = doc.numeric.get(def.path) ?? [];
  // A float is kept as a float: formats see it widened to double, as ES's doc values give it.
  const nums = (def.esType === 'float' || def.esType === 'half_float' ? held.map((n) => Math.fround(n)) : [...held]).sort((a, b) => a - b);
  if (fmt !== undefined) return nums.map(fmt);
  if (def.kind === 'date') return nums.map((ms) => def.dateFormat?.print(ms) ?? isoInstant(ms));
  if (def.kind === 'boolean') return nums.map((n) => n === 1);
  return nums.map((n) => numericDocValue(def, n));
}

function sourceFieldValues(def: FieldDef, doc: ReturnType<typeof parseDocument>['doc'], source: unknown, fmt: Formatter | undefined): unknown[] {
  switch (def.kind) {
    case 'text':
      return [...(doc.text.get(def.path) ?? [])];
    case 'keyword':
      return [...(doc.keyword.get(def.path) ?? [])];
    case 'date': {
      const nums = doc.numeric.get(def.path) ?? [];
      return nums.map((ms) => (fmt !== undefined ? fmt(ms) : (def.dateFormat?.print(ms) ?? isoInstant(ms))));
    }
    case 'boolean':
      return (doc.numeric.get(def.path) ?? []).map((n) => n === 1);
    default: {
      if (def.esType === 'half_float') return halfFloatSourceValues(def, source);
      const nums = doc.numeric.get(def.path) ?? [];
      if (def.integer) return [...nums];
      return nums.map((n) => (def.esType === 'float' ? floatDigits(Math.fround(n)) : n));
    }
  }
}

/**
 * A half_float's `fields` values: the source's numbers read as floats, not rounded to half
 * precision (ES's mapper parses them as floats; only what it indexes is rounded).
 */
function halfFloatSourceValues(def: FieldDef, source: unknown): unknown[] {
  const out: unknown[] = [];
  for (const v of sourceValues(source, def.path)) {
    const n = parseNumber(v, false);
    if (n !== undefined) out.push(floatDigits(Math.fround(n)));
  }
  return out;
}


/**
 * The `fields` of one hit whose whole document is `sourceText` (stored fields and doc values come
 * from it) and whose kept `_source` is `keptText` (the `fields` option reads it, as ES reads
 * `_source`); undefined when no field has a value (ES then leaves `fields` out).
 */
export function hitFields(index: string, mappings: Mappings, f: FetchFields, id: string, sourceText: string, keptText = sourceText): Record<string, unknown[]> | undefined {
  const source = JSON.parse(sourceText) as unknown;
  const out: Record<string, unknown[]> = {};
  if (f.stored !== undefined && f.stored.length > 0) {
    const names = f.stored.flatMap((p) => (p.includes('*') ? matchingFields(mappings, p).map((d) => d.path) : [p]));
    const leafNames = names.filter((n) => mappings.field(n) !== undefined);
    Object.assign(out, storedFieldValues(mappings, leafNames, source) ?? {});
  }
  if (f.docvalue.length > 0 || f.fields.length > 0) {
    const { doc } = parseDocument(source, mappings, id, true);
    addAll(out, f.docvalue, mappings, (def, e) => docValues(def, doc, formatterFor(index, def, e.format, true)));
    if (f.fields.length > 0) {
      const kept = keptText === sourceText ? { source, doc } : keptDoc(keptText, mappings, id);
      addAll(out, f.fields, mappings, (def, e) => sourceFieldValues(def, kept.doc, kept.source, formatterFor(index, def, e.format, false)), true);
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The kept `_source` and its parsed fields, when it differs from the whole document. */
function keptDoc(keptText: string, mappings: Mappings, id: string): { source: unknown; doc: ReturnType<typeof parseDocument>['doc'] } {
  const source = JSON.parse(keptText) as unknown;
  return { source, doc: parseDocument(source, mappings, id, true).doc };
}

function addAll(out: Record<string, unknown[]>, entries: readonly FieldAndFormat[], mappings: Mappings, values: (def: FieldDef, e: FieldAndFormat) => unknown[], lastWins = false): void {
  // A field named twice in one list (by two entries or patterns) is fetched once: with the first
  // entry's format for doc values, the last's for `fields` (ES's FieldFetcher keeps a map by name).
  const chosen = new Map<string, { def: FieldDef; e: FieldAndFormat }>();
  for (const e of entries) {
    for (const def of matchingFields(mappings, e.field)) {
      if (lastWins) chosen.delete(def.path);
      if (!chosen.has(def.path)) chosen.set(def.path, { def, e });
    }
  }
  for (const { def, e } of chosen.values()) {
    const v = values(def, e);
    if (v.length === 0) continue;
    // A field both in docvalue_fields and fields gets both phases' values, the first's first, as ES's phases add them.
    out[def.path] = out[def.path] === undefined ? v : [...(out[def.path] as unknown[]), ...v];
  }
}
