import { errors, unsafeLong } from '../errors.js';
import { MAX_JSON_NESTING } from '../syntax/json-members.js';
import { dateFormatText, dynamicMappingFor, isObjectPath, parseBool, parseDateFor, parseNumber, parseStoredDateFor, type FieldDef, type Mappings } from './mapping.js';

/**
 * Values of one kind by field path, in the order the paths were first seen. A document has a
 * handful of fields: parallel arrays cost less to fill and walk than a Map per document (three
 * per document, every one grown and rehashed twice, were a visible part of indexing).
 * Value arrays may be shared between a field and its sub-fields: never mutated once added.
 *
 * `clear` empties it for the next document but keeps its arrays: the write path parses every
 * document into the same three (see SearchService.write), where new ones per document were about
 * 1.4 KB of garbage per document of the Debian corpus (the arrays' backing stores, grown on the
 * first push). So the arrays may hold entries past `size` from an earlier document: read entries
 * through size, pathAt and valuesAt.
 */
export class FieldValues<T> {
  private readonly paths: string[] = [];
  private readonly values: (readonly T[])[] = [];
  /** Per entry, the object `addFor` was given for it (undefined after `add`). */
  private readonly keys: (object | undefined)[] = [];
  private count = 0;
  /** Position by path, built only for documents with many fields (linear search below that). */
  private index: Map<string, number> | undefined;

  get size(): number {
    return this.count;
  }

  /** The path of entry `i` (< size). */
  pathAt(i: number): string {
    return this.paths[i] as string;
  }

  /** The values of entry `i` (< size). */
  valuesAt(i: number): readonly T[] {
    return this.values[i] as readonly T[];
  }

  /**
   * Empties it, keeping its arrays (see above) but not the values it held: a 10 MB field of the
   * last document written stayed in memory, deleted or not, until the next write.
   */
  clear(): void {
    for (let i = 0; i < this.count; i++) {
      this.values[i] = NO_ENTRY;
      this.keys[i] = undefined;
    }
    this.count = 0;
    this.index = undefined;
  }

  /** Adds the values of `path` (after any it already has). */
  add(path: string, values: readonly T[]): void {
    const at = this.find(path);
    if (at < 0) this.push(path, values, undefined);
    else this.values[at] = [...(this.values[at] as readonly T[]), ...values];
  }

  /**
   * `add` for the values of a field definition: `key` is an object that stands for `path` alone
   * (the mapping's FieldDef, one per path), and the entry is found by its identity. Why: the parser
   * adds every field of every document, and the linear search compared path strings, a builtin
   * call each. Fill a FieldValues through add or through addFor, not both.
   */
  addFor(key: object, path: string, values: readonly T[]): void {
    if (this.index !== undefined) {
      this.add(path, values);
      return;
    }
    const keys = this.keys;
    const n = this.count;
    for (let i = 0; i < n; i++) {
      if (keys[i] === key) {
        this.values[i] = [...(this.values[i] as readonly T[]), ...values];
        return;
      }
    }
    this.push(path, values, key);
  }

  private push(path: string, values: readonly T[], key: object | undefined): void {
    const at = this.count++;
    this.index?.set(path, at);
    this.paths[at] = path;
    this.values[at] = values;
    this.keys[at] = key;
    if (this.index === undefined && this.count > LINEAR_FIELDS) {
      this.index = new Map();
      for (let i = 0; i < this.count; i++) this.index.set(this.paths[i] as string, i);
    }
  }

  /** The values of `path`, or undefined. */
  get(path: string): readonly T[] | undefined {
    const at = this.find(path);
    return at < 0 ? undefined : this.values[at];
  }

  private find(path: string): number {
    if (this.index !== undefined) return this.index.get(path) ?? -1;
    const paths = this.paths;
    const n = this.count;
    for (let i = 0; i < n; i++) if (paths[i] === path) return i;
    return -1;
  }
}

/** What a cleared entry holds. */
const NO_ENTRY: readonly never[] = [];

/** Up to this many fields of a kind per document are found by linear search. */
const LINEAR_FIELDS = 16;

/** The indexable values of one document, by field path and kind. */
export interface ParsedDoc {
  readonly text: FieldValues<string>;
  readonly keyword: FieldValues<string>;
  readonly numeric: FieldValues<number>;
}

/** A document without indexable values. */
export function emptyParsedDoc(): ParsedDoc {
  return { text: new FieldValues(), keyword: new FieldValues(), numeric: new FieldValues() };
}

export interface ParseResult {
  readonly doc: ParsedDoc;
  /** Mappings after dynamic additions (the same object when nothing was added). */
  readonly mappings: Mappings;
}

/** Metadata fields ES 8 will not take inside a document (`_doc_count` it does take). */
const METADATA_FIELDS: ReadonlySet<string> = new Set(['_id', '_index', '_routing', '_source', '_seq_no', '_primary_term', '_version', '_ignored', '_field_names', '_tier']);

/**
 * Refuses a new document with a metadata field at its root, as ES does.
 * Called on writes only: documents stored before this check must still load.
 */
export function checkNoMetadataFields(source: unknown): void {
  if (source === null || typeof source !== 'object') return;
  // The document's own keys, in its order (the first offending one is named, as ES's parser does);
  // only a key starting with `_` is looked up.
  for (const name in source) {
    if (name.charCodeAt(0) === 0x5f && METADATA_FIELDS.has(name) && Object.hasOwn(source, name)) {
      throw errors.documentParsing(`[1:2] Field [${name}] is a metadata field and cannot be added inside a document. Use the index API request parameters.`);
    }
  }
}

/**
 * Flattens a document's `_source` into field values according to the mappings, adding dynamic
 * mappings for new fields (or refusing them under `dynamic: strict`). Throws
 * document_parsing_exception when a value does not fit its field's type. `stored`: the document
 * comes from the store (load, the old version of a rewritten document), where dates are read as
 * parseStoredDateFor reads them. `into`: a ParsedDoc to clear and fill instead of a new one (its
 * earlier contents are gone).
 */
export function parseDocument(source: unknown, mappings: Mappings, id: string, stored = false, into?: ParsedDoc): ParseResult {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) {
    throw errors.documentParsing('[1:1] failed to parse: source is not an object', { type: 'not_x_content_exception', reason: 'Compressor detection can only be called on some xContent bytes or compressed xContent bytes' });
  }
  // Usually every field is mapped already: one pass. Otherwise find the dynamic additions first.
  const doc = into === undefined ? emptyParsedDoc() : clearParsedDoc(into);
  if (collectValues(source as Record<string, unknown>, '', mappings, doc, id, stored, 1, 1)) return { doc, mappings };
  const additions = new Map<string, unknown>();
  walk(source as Record<string, unknown>, '', mappings, additions, 1, 1);
  const effective = mappings.withAdditions(additions);
  clearParsedDoc(doc);
  collectValues(source as Record<string, unknown>, '', effective, doc, id, stored, 1, 1);
  return { doc, mappings: effective };
}

/** Empties `doc` for the next document, letting go of the values it held (FieldValues.clear). */
export function clearParsedDoc(doc: ParsedDoc): ParsedDoc {
  doc.text.clear();
  doc.keyword.clear();
  doc.numeric.clear();
  return doc;
}

/** ES's default `index.mapping.depth.limit`: objects nested deeper are refused. */
const MAX_DEPTH = 20;

/**
 * Refuses the object field at `path` when its mapping depth passes MAX_DEPTH, as ES does
 * (MappingLookup.checkObjectDepthLimit): the root is depth 1 and an object one more than the
 * object holding it, counted as the dots of its full path plus 2, so that a key with dots
 * (`{"a.b": {…}}`, objects a and a.b) counts each part. 19 nested objects are accepted, the 20th
 * refused. Also what keeps a document nested thousands deep from exhausting the stack of these
 * recursive walks. `depth` is the nesting of the object's field (the root's fields are at 1): the
 * path has at least depth - 1 dots, so only a path that long can pass the limit, and dots are
 * counted only then (paths are short; this runs for every object of every document).
 */
function checkDepth(depth: number, path: string, mappings: Mappings): void {
  if (depth + 1 <= MAX_DEPTH && path.length < 2 * MAX_DEPTH - 1) return;
  let dots = 0;
  for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) dots++;
  if (dots + 2 <= MAX_DEPTH) return;
  // The limit is checked as a new object is mapped (DocumentParser.parseObjectDynamic): with
  // `dynamic: false` ES skips an unmapped object unread, however deep it goes; with `strict` it
  // refuses the first one it meets, long before this depth.
  if (mappings.dynamic !== true && !isMappedObject(mappings, path)) {
    if (mappings.dynamic === false) return;
    checkStrictObjects(path, mappings);
  }
  const reason = `Limit of mapping depth [${MAX_DEPTH}] has been exceeded due to object field [${path}]`;
  throw errors.documentParsing(`[1:2] failed to parse: ${reason}`, { type: 'illegal_argument_exception', reason });
}

/**
 * Whether the mappings hold the object at `path` (read only for an object too deep, or one a
 * document under `dynamic: strict` brings).
 */
function isMappedObject(mappings: Mappings, path: string): boolean {
  const prefix = `${path}.`;
  for (const field of mappings.fields.keys()) if (field.startsWith(prefix)) return true;
  return isObjectPath(mappings.properties, path);
}

/** ES's refusal of the outermost object on `path` the mappings do not hold, under `dynamic: strict`. */
function checkStrictObjects(path: string, mappings: Mappings): void {
  let at = path.indexOf('.');
  for (;;) {
    const objectPath = at === -1 ? path : path.slice(0, at);
    if (!isMappedObject(mappings, objectPath)) {
      const start = objectPath.lastIndexOf('.');
      throw errors.strictDynamic(objectPath.slice(start + 1), start === -1 ? '_doc' : objectPath.slice(0, start));
    }
    if (at === -1) return;
    at = path.indexOf('.', at + 1);
  }
}

/** The dynamic mappings `obj`'s fields need, into `additions`; `level`: the JSON nesting of `obj` (the root is 1), see objectsIn. */
function walk(obj: Record<string, unknown>, prefix: string, mappings: Mappings, additions: Map<string, unknown>, depth: number, level: number): void {
  for (const [key, value] of Object.entries(obj)) {
    const path = prefix + key;
    const objects = objectsIn(value, level + 1);
    if (objects.length > 0) {
      if (mappings.dynamic === 'strict' && !isMappedObject(mappings, path)) throw errors.strictDynamic(key, prefix === '' ? '_doc' : prefix.slice(0, -1));
      checkDepth(depth, path, mappings);
      for (let i = 0; i < objects.length; i++) walk(objects[i] as Record<string, unknown>, `${path}.`, mappings, additions, depth + 1, objectLevel(objects, i, value, level + 1));
      continue;
    }
    if (mappings.field(path) !== undefined || additions.has(path)) continue;
    const dyn = dynamicMappingFor(value, mappings.dateDetection);
    if (dyn === undefined) continue;
    if (mappings.dynamic === 'strict') throw errors.strictDynamic(key, prefix === '' ? '_doc' : prefix.slice(0, -1));
    if (mappings.dynamic === false) continue;
    additions.set(path, dyn);
  }
}

/**
 * Objects found by objectsIn, with the JSON level of each when some sit in arrays within arrays
 * (rare: otherwise every object's level follows from the value's, see objectLevel).
 */
type FoundObjects = Record<string, unknown>[] & { levels?: number[] };

/**
 * The objects `value` holds, itself or in its arrays. `level` is the value's JSON nesting (a field
 * of the root: 2). Jackson counts every object and array, so a container past its limit is
 * refused as ES's parser refuses it, before it exhausts the stack here or in the walks after this
 * one: objects alone stop at index.mapping.depth.limit long before, but the arrays around them
 * count too (19 objects each under 980 arrays were stored, and every read of the index failed).
 */
function objectsIn(value: unknown, level: number): FoundObjects {
  if (value === null || typeof value !== 'object') return [];
  if (level > MAX_JSON_NESTING) throw errors.documentTooDeep();
  if (!Array.isArray(value)) return [value as Record<string, unknown>];
  const found: FoundObjects = [];
  for (const v of value) {
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) {
      if (level + 1 > MAX_JSON_NESTING) throw errors.documentTooDeep();
      found.push(v as Record<string, unknown>);
      found.levels?.push(level + 1);
      continue;
    }
    const inner = objectsIn(v, level + 1);
    if (inner.length === 0) continue;
    found.levels ??= found.map(() => level + 1);
    for (let i = 0; i < inner.length; i++) {
      found.push(inner[i] as Record<string, unknown>);
      found.levels.push(objectLevel(inner, i, v, level + 1));
    }
  }
  return found;
}

/** The JSON level of `objects[i]`, found by objectsIn in `value`, itself at level `at`. */
function objectLevel(objects: FoundObjects, i: number, value: unknown, at: number): number {
  return objects.levels?.[i] ?? (Array.isArray(value) ? at + 1 : at);
}

/** Leaves of a null field (never written to: addValues only reads them). */
const NO_VALUES: readonly unknown[] = [];

/** Adds the values of mapped fields to `doc`; false when a field needs a dynamic mapping first. */
function collectValues(obj: Record<string, unknown>, prefix: string, mappings: Mappings, doc: ParsedDoc, id: string, stored: boolean, depth: number, level: number): boolean {
  let complete = true;
  for (const key in obj) {
    const value = obj[key];
    const path = prefix + key;
    if (value !== null && typeof value === 'object') {
      const objects = objectsIn(value, level + 1);
      if (objects.length > 0) {
        checkDepth(depth, path, mappings);
        for (let i = 0; i < objects.length; i++) {
          if (!collectValues(objects[i] as Record<string, unknown>, `${path}.`, mappings, doc, id, stored, depth + 1, objectLevel(objects, i, value, level + 1))) complete = false;
        }
        continue;
      }
    }
    const field = mappings.field(path);
    if (field === undefined) {
      if (mappings.dynamic !== false && dynamicMappingFor(value, mappings.dateDetection) !== undefined) complete = false;
      continue;
    }
    const leaves = Array.isArray(value) ? value.flat(Infinity).filter((v) => v !== null && v !== undefined) : value === null || value === undefined ? NO_VALUES : [value];
    addValues(field, field.nullValue === undefined ? leaves : withNullValue(value, field.nullValue), doc, id, stored);
    const subs = mappings.subfields.get(path);
    if (subs !== undefined) for (const sub of subs) addValues(sub, sub.nullValue === undefined ? leaves : withNullValue(value, sub.nullValue), doc, id, stored);
  }
  return complete;
}

/** A field's leaves with each `null` indexed as its `null_value` (an empty array holds no null). */
function withNullValue(value: unknown, nullValue: unknown): readonly unknown[] {
  if (value === null) return [nullValue];
  if (!Array.isArray(value)) return value === undefined ? NO_VALUES : [value];
  return value.flat(Infinity).filter((v) => v !== undefined).map((v) => (v === null ? nullValue : v));
}

/** Java's class name of a numeric type, as ES names it when `coerce: false` refuses a value. */
const JAVA_NUMBER: Readonly<Record<string, string>> = { long: 'Long', integer: 'Integer', short: 'Short', byte: 'Byte', double: 'Double', float: 'Float', half_float: 'Float', scaled_float: 'Double', unsigned_long: 'Long' };

/** A number of a numeric field: coerced and rounded as the field says; undefined when it is malformed. */
function numberFor(field: FieldDef, v: unknown, id: string, stored: boolean): number | undefined {
  if (field.noCoerce === true) {
    const cls = JAVA_NUMBER[field.esType] ?? 'Double';
    if (typeof v === 'string') fail(field, id, v, { type: 'illegal_argument_exception', reason: `${cls} value passed as String` });
    if (typeof v === 'number' && field.integer && !Number.isInteger(v)) fail(field, id, v, { type: 'illegal_argument_exception', reason: `${v} cannot be converted to ${cls} without data loss` });
  }
  const n = parseNumber(v, field.integer);
  // A long past 2^53 would be indexed rounded (a JavaScript number): refused, never silently
  // rounded. Documents already stored load as they were indexed.
  if (n !== undefined && field.integer && !stored && Math.abs(n) > Number.MAX_SAFE_INTEGER) {
    fail(field, id, v, { type: 'illegal_argument_exception', reason: unsafeLong(field.path, typeof v === 'string' ? v : String(v)).message });
  }
  return n === undefined || field.quantize === undefined ? n : field.quantize(n);
}

function fail(field: FieldDef, id: string, value: unknown, cause: { type: string; reason: string }): never {
  const preview = typeof value === 'string' ? value : JSON.stringify(value);
  throw errors.documentParsing(
    `[1:2] failed to parse field [${field.path}] of type [${field.esType}] in document with id '${id}'. Preview of field's value: '${preview}'`,
    cause,
  );
}

// eslint-disable-next-line complexity -- one case per field type, each with ES's coercion and refusal for that type, run for every value of every document
function addValues(field: FieldDef, leaves: readonly unknown[], doc: ParsedDoc, id: string, stored: boolean): void {
  // A keyword, number, date or boolean that is not indexed keeps doc values in ES, which its
  // queries, sorts and `exists` read: here its values are indexed all the same (its term queries
  // then score as ES's doc-value queries do, see query-exec.ts). A text field has nothing else.
  if (!field.index && field.kind === 'text') return;
  switch (field.kind) {
    case 'text': {
      // No value (null, [], [null]): the field is absent, as for `exists` in ES; "" is a value.
      if (leaves.length === 0) return;
      // Usually every leaf is a string: the leaves array itself is the value list (no copy).
      if (allStrings(leaves)) {
        doc.text.addFor(field, field.path, leaves);
        return;
      }
      const out: string[] = [];
      for (const v of leaves) {
        if (typeof v === 'string') out.push(v);
        else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
        else fail(field, id, v, { type: 'illegal_state_exception', reason: `Can't get text on a ${typeName(v)} at 1:2` });
      }
      doc.text.addFor(field, field.path, out);
      return;
    }
    case 'keyword': {
      const limit = field.ignoreAbove;
      if (allStrings(leaves) && (limit === undefined || allWithin(leaves, limit))) {
        doc.keyword.addFor(field, field.path, leaves);
        return;
      }
      const out: string[] = [];
      for (const v of leaves) {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
          fail(field, id, v, { type: 'illegal_state_exception', reason: `Can't get text on a ${typeName(v)} at 1:2` });
        }
        const s = String(v);
        if (limit === undefined || s.length <= limit) out.push(s);
      }
      doc.keyword.addFor(field, field.path, out);
      return;
    }
    case 'numeric': {
      if (leaves.length === 1) {
        // One value (the usual case): an array of its size, not one grown from empty.
        const v = leaves[0];
        const n = numberFor(field, v, id, stored);
        if (n === undefined) {
          if (field.ignoreMalformed === true) {
            doc.numeric.addFor(field, field.path, []);
            return;
          }
          fail(field, id, v, { type: 'number_format_exception', reason: `For input string: "${String(v)}"` });
        }
        doc.numeric.addFor(field, field.path, [n]);
        return;
      }
      const out: number[] = [];
      for (const v of leaves) {
        const n = numberFor(field, v, id, stored);
        if (n === undefined) {
          if (field.ignoreMalformed === true) continue;
          fail(field, id, v, { type: 'number_format_exception', reason: `For input string: "${String(v)}"` });
        }
        out.push(n);
      }
      doc.numeric.addFor(field, field.path, out);
      return;
    }
    case 'date': {
      const out: number[] = [];
      for (const v of leaves) {
        // With ignore_malformed a value the format refuses was left out when written: leave it out
        // on reload too, so a restart does not change what the index holds.
        const ms = stored && field.ignoreMalformed !== true ? parseStoredDateFor(field, v) : parseDateFor(field, v);
        if (ms === undefined) {
          if (field.ignoreMalformed === true) continue;
          fail(field, id, v, { type: 'illegal_argument_exception', reason: `failed to parse date field [${String(v)}] with format [${dateFormatText(field)}]` });
        }
        out.push(ms);
      }
      doc.numeric.addFor(field, field.path, out);
      return;
    }
    case 'boolean': {
      const nums: number[] = [];
      const strs: string[] = [];
      for (const v of leaves) {
        const b = parseBool(v);
        if (b === undefined && field.ignoreMalformed === true) continue;
        if (b === undefined) fail(field, id, v, { type: 'illegal_argument_exception', reason: `Failed to parse value [${String(v)}] as only [true] or [false] are allowed.` });
        nums.push(b ? 1 : 0);
        strs.push(String(b));
      }
      doc.numeric.addFor(field, field.path, nums);
      doc.keyword.addFor(field, field.path, strs);
      return;
    }
  }
}

/** Whether no string is longer than `limit` (a loop: a closure per field and document showed up). */
function allWithin(leaves: readonly string[], limit: number): boolean {
  for (let i = 0; i < leaves.length; i++) if ((leaves[i] as string).length > limit) return false;
  return true;
}

function allStrings(leaves: readonly unknown[]): leaves is readonly string[] {
  for (let i = 0; i < leaves.length; i++) if (typeof leaves[i] !== 'string') return false;
  return true;
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'START_ARRAY';
  if (typeof v === 'object') return 'START_OBJECT';
  return 'VALUE';
}
