import { compileDateFormat, DEFAULT_DATE_FORMAT, isDetectedDate, parseDate, type DateFormat } from '../syntax/date-format.js';
import { checkRootMetaUpdate, DEFAULT_ROOT_META, parseRootMeta, rootMetaJson, type RootMeta } from './root-meta.js';
import { errors } from '../errors.js';
import { isJsonObject, setMember } from '../syntax/json-members.js';

export { parseDate };

/**
 * Index mappings: the field types we index, the explicit `mappings` of `PUT /<index>`, and
 * Elasticsearch's dynamic mapping for fields a document introduces (strings become `text` with a
 * `.keyword` sub-field, `ignore_above: 256`; ISO dates become `date`; integers `long`; other
 * numbers `float`; booleans `boolean`; objects recurse).
 */

export type FieldType = 'text' | 'keyword' | 'numeric' | 'date' | 'boolean';

const NUMERIC_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long']);
const INTEGER_TYPES = new Set(['long', 'integer', 'short', 'byte', 'unsigned_long']);
const TEXT_TYPES = new Set(['text', 'match_only_text']);
const KEYWORD_TYPES = new Set(['keyword', 'constant_keyword', 'wildcard']);
const OBJECT_TYPES = new Set(['object', 'nested']);

export interface FieldDef {
  /** Full dotted path (`user.name`, `title.keyword`). */
  readonly path: string;
  readonly kind: FieldType;
  /** The type name as written in the mapping (`long`, `match_only_text`, …). */
  readonly esType: string;
  readonly integer: boolean;
  /** keyword: values longer than this are not indexed (dynamic `.keyword`: 256). */
  readonly ignoreAbove?: number;
  readonly index: boolean;
  /** text: fielddata enabled (allows sorting). */
  readonly fielddata: boolean;
  /** date: the mapping's `format` (default `strict_date_optional_time||epoch_millis`), compiled. */
  readonly dateFormat?: DateFormat;
  /** date, numeric, boolean: `ignore_malformed: true` leaves a value that does not parse out instead of failing the document. */
  readonly ignoreMalformed?: boolean;
  /** text: positions between two values of the field (`position_increment_gap`, 100 by default). */
  readonly positionIncrementGap?: number;
  /** keyword, numeric, date, boolean: what a `null` value is indexed as (`null_value`). */
  readonly nullValue?: unknown;
  /** numeric: `coerce: false` refuses strings, and fractions for integer types. */
  readonly noCoerce?: boolean;
  /** half_float, scaled_float: rounds a value to what the field keeps (a half float; the scaling factor's multiple). */
  readonly quantize?: (n: number) => number;
}

export type Dynamic = true | false | 'strict';

/** The mapping of one index: a properties tree (rendered as is) and the flat field table. */
export class Mappings {
  /** Multi-fields by parent path (`title` → [`title.keyword`]). */
  readonly subfields: ReadonlyMap<string, readonly FieldDef[]>;

  private constructor(
    readonly properties: Readonly<Record<string, unknown>>,
    readonly fields: ReadonlyMap<string, FieldDef>,
    readonly dynamic: Dynamic,
    readonly dateDetection: boolean,
    /** The mapping's `_meta`, kept and returned as given (ES does nothing else with it). */
    readonly meta?: Readonly<Record<string, unknown>>,
    /** The root's `_routing` and `_source` metadata mappers (root-meta.ts). */
    readonly root: RootMeta = DEFAULT_ROOT_META,
  ) {
    const subs = new Map<string, FieldDef[]>();
    for (const def of fields.values()) {
      const dot = def.path.lastIndexOf('.');
      if (dot > 0 && fields.has(def.path.slice(0, dot))) {
        const parent = def.path.slice(0, dot);
        subs.set(parent, [...(subs.get(parent) ?? []), def]);
      }
    }
    this.subfields = subs;
  }

  static empty(): Mappings {
    return new Mappings({}, new Map(), true, true);
  }

  /**
   * Parses the `mappings` object of `PUT /<index>`; throws mapper_parsing_exception. With `stored`
   * (a mapping read back from the store), a date `format` that does not compile is not an error:
   * versions before formats were honoured stored any text there, and the field keeps parsing its
   * dates with ES's default format as they did.
   */
  static parse(raw: unknown, stored = false): Mappings {
    if (raw == null) return Mappings.empty();
    if (typeof raw !== 'object' || Array.isArray(raw)) throw errors.mapperParsing('Failed to parse mapping: Expected map for property [mappings]');
    const obj = { ...(raw as Record<string, unknown>) };
    // ES 7 clients may still wrap the mapping in "_doc".
    if (obj._doc !== undefined && Object.keys(obj).length === 1) Object.assign(obj, obj._doc as object, { _doc: undefined });
    const dynamic = parseDynamic(obj.dynamic);
    const dateDetection = obj.date_detection === undefined ? true : obj.date_detection === true || obj.date_detection === 'true';
    const properties = (obj.properties ?? {}) as Record<string, unknown>;
    if (typeof properties !== 'object' || Array.isArray(properties)) throw errors.mapperParsing('Failed to parse mapping: Expected map for property [properties]');
    for (const key of Object.keys(obj)) {
      if (!['properties', 'dynamic', 'date_detection', '_source', '_doc', 'numeric_detection', '_meta', '_routing', 'dynamic_templates'].includes(key)) {
        throw errors.mapperParsing(`Root mapping definition has unsupported parameters:  [${key} : ${JSON.stringify(obj[key])}]`, `Failed to parse mapping: Root mapping definition has unsupported parameters:  [${key} : ${JSON.stringify(obj[key])}]`);
      }
    }
    const fields = new Map<string, FieldDef>();
    collect(properties, '', fields, stored);
    const meta = isJsonObject(obj._meta) ? obj._meta : undefined;
    return new Mappings(properties, fields, dynamic, dateDetection, meta, parseRootMeta(obj));
  }

  /**
   * This mapping with what a put mapping body `update` (parsed by `parse`) sets at its root:
   * `dynamic`, `date_detection` and `_meta` replace this mapping's when the body has them.
   */
  withRoot(update: Mappings, raw: Record<string, unknown>): Mappings {
    const root = raw._doc !== undefined && Object.keys(raw).length === 1 ? (raw._doc as Record<string, unknown>) : raw;
    checkRootMetaUpdate(this.root, update.root, root);
    return new Mappings(
      this.properties,
      this.fields,
      root.dynamic === undefined ? this.dynamic : update.dynamic,
      root.date_detection === undefined ? this.dateDetection : update.dateDetection,
      root._meta === undefined ? this.meta : update.meta,
      this.root,
    );
  }

  field(path: string): FieldDef | undefined {
    return this.fields.get(path);
  }

  /** A new Mappings with dynamically added properties merged in (never mutates this one). */
  withAdditions(additions: ReadonlyMap<string, unknown>): Mappings {
    if (additions.size === 0) return this;
    const properties = structuredClone(this.properties) as Record<string, unknown>;
    for (const [path, def] of additions) {
      const parts = path.split('.');
      let props = properties;
      for (let i = 0; i < parts.length - 1; i++) {
        const key = parts[i] as string;
        // Own fields only: `props[key] ??= …` with a field named __proto__ wrote `properties` onto
        // Object.prototype (every object in the process then had one).
        if (!Object.hasOwn(props, key) || props[key] == null) setMember(props, key, { properties: {} });
        const existing = props[key] as Record<string, unknown>;
        if (!Object.hasOwn(existing, 'properties') || existing.properties == null) existing.properties = {};
        props = existing.properties as Record<string, unknown>;
      }
      setMember(props, parts[parts.length - 1] as string, def);
    }
    const fields = new Map<string, FieldDef>();
    // Lenient: the existing properties were checked when they came in (or are stored ones), and
    // additions are dynamic mappings or a put mapping body Mappings.parse has checked.
    collect(properties, '', fields, true);
    return new Mappings(properties, fields, this.dynamic, this.dateDetection, this.meta, this.root);
  }

  /** The body of GET /<index>/_mapping for this index. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.dynamic !== true) out.dynamic = String(this.dynamic);
    if (this.meta !== undefined) out._meta = this.meta;
    Object.assign(out, rootMetaJson(this.root));
    // Also what the store saves: leaving it out turned date detection back on at the next start.
    if (!this.dateDetection) out.date_detection = false;
    out.properties = this.properties;
    return out;
  }
}

export { checkMappingParameters } from './mapping-parameters.js';
export type { RootMeta } from './root-meta.js';

function parseDynamic(v: unknown): Dynamic {
  if (v === undefined || v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  if (v === 'strict') return 'strict';
  throw errors.mapperParsing(`Failed to parse mapping: Could not convert [dynamic] to boolean`);
}

function collect(properties: Record<string, unknown>, prefix: string, out: Map<string, FieldDef>, stored: boolean): void {
  for (const [name, rawDef] of Object.entries(properties)) {
    const path = prefix + name;
    if (rawDef == null || typeof rawDef !== 'object' || Array.isArray(rawDef)) {
      throw errors.mapperParsing(`Expected map for property [fields] on field [${name}] but got a class java.lang.String`, `Failed to parse mapping: Expected map for property [fields] on field [${name}] but got a class java.lang.String`);
    }
    const def = rawDef as Record<string, unknown>;
    const type = def.type === undefined ? (def.properties !== undefined ? 'object' : 'object') : def.type;
    if (typeof type !== 'string') throw errors.mapperParsing(`No type specified for field [${name}]`, `Failed to parse mapping: No type specified for field [${name}]`);
    if (OBJECT_TYPES.has(type)) {
      const sub = def.properties ?? {};
      if (typeof sub !== 'object' || Array.isArray(sub)) throw errors.mapperParsing(`Expected map for property [properties] on field [${name}]`);
      collect(sub as Record<string, unknown>, `${path}.`, out, stored);
      continue;
    }
    const field = toField(path, name, type, def, stored);
    out.set(path, field);
    const multi = def.fields;
    if (multi !== undefined) {
      if (typeof multi !== 'object' || multi === null || Array.isArray(multi)) throw errors.mapperParsing(`Expected map for property [fields] on field [${name}]`);
      for (const [subName, subRaw] of Object.entries(multi as Record<string, unknown>)) {
        const subDef = (subRaw ?? {}) as Record<string, unknown>;
        const subType = subDef.type;
        if (typeof subType !== 'string') throw errors.mapperParsing(`No type specified for field [${subName}]`, `Failed to parse mapping: No type specified for field [${subName}]`);
        out.set(`${path}.${subName}`, toField(`${path}.${subName}`, subName, subType, subDef, stored));
      }
    }
  }
}

function toField(path: string, name: string, type: string, def: Record<string, unknown>, stored: boolean): FieldDef {
  let kind: FieldType;
  if (TEXT_TYPES.has(type)) kind = 'text';
  else if (KEYWORD_TYPES.has(type)) kind = 'keyword';
  else if (NUMERIC_TYPES.has(type)) kind = 'numeric';
  else if (type === 'date' || type === 'date_nanos') kind = 'date';
  else if (type === 'boolean') kind = 'boolean';
  else {
    const reason = `No handler for type [${type}] declared on field [${name}]`;
    throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
  }
  const ignoreAbove = typeof def.ignore_above === 'number' ? def.ignore_above : undefined;
  let dateFormat: DateFormat | undefined;
  if (kind === 'date' && def.format !== undefined) {
    try {
      dateFormat = compileDateFormat(String(def.format));
    } catch (e) {
      if (stored) return toField(path, name, type, { ...def, format: undefined }, stored);
      const reason = `Error parsing [format] on field [${name}]: ${(e as Error).message}`;
      throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
    }
  }
  return {
    path,
    kind,
    esType: type,
    integer: INTEGER_TYPES.has(type),
    ignoreAbove,
    index: def.index !== false && def.index !== 'false',
    fielddata: def.fielddata === true,
    ...(dateFormat === undefined ? {} : { dateFormat }),
    ...(kind !== 'text' && kind !== 'keyword' && (def.ignore_malformed === true || def.ignore_malformed === 'true') ? { ignoreMalformed: true } : {}),
    ...fieldOptions(name, type, kind, def, stored),
  };
}

/** The FieldDef members of the mapping parameters that need more than a flag (see FieldDef). */
function fieldOptions(name: string, type: string, kind: FieldType, def: Record<string, unknown>, stored: boolean): Partial<FieldDef> {
  const refuse = (reason: string): never => {
    throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
  };
  const out: { -readonly [K in keyof FieldDef]?: FieldDef[K] } = {};
  const gap = def.position_increment_gap;
  if (kind === 'text' && gap !== undefined) {
    const n = Number(gap);
    // -1 is ES's "the analyzer's gap" (100 for the standard analyzer).
    if (Number.isInteger(n) && n >= -1) out.positionIncrementGap = n === -1 ? 100 : n;
    else if (!stored) refuse(Number.isInteger(n) ? `[position_increment_gap] must be positive, got [${n}]` : `Failed to parse value [${String(gap)}] as [position_increment_gap] on field [${name}]`);
  }
  if (kind !== 'text' && def.null_value !== undefined && def.null_value !== null) {
    out.nullValue = def.null_value;
    const v = def.null_value;
    const bad =
      kind === 'numeric' ? (parseNumber(v, false) === undefined ? `For input string: "${String(v)}"` : undefined)
      : kind === 'boolean' ? (parseBool(v) === undefined ? `Failed to parse value [${String(v)}] as only [true] or [false] are allowed.` : undefined)
      : kind === 'date' ? (parseDateFor({ dateFormat: def.format === undefined ? undefined : compileDateFormat(String(def.format)) } as FieldDef, v) === undefined ? `failed to parse date field [${String(v)}] with format [${String(def.format ?? DEFAULT_DATE_FORMAT)}]` : undefined)
      : typeof v === 'object' ? `Can't get text on a START_OBJECT` : undefined;
    if (bad !== undefined && !stored) refuse(`Error parsing [null_value] on field [${name}]: ${bad}`);
  }
  if (kind === 'numeric' && (def.coerce === false || def.coerce === 'false')) out.noCoerce = true;
  if (type === 'half_float') out.quantize = toHalfFloat;
  if (type === 'scaled_float') {
    const factor = Number(def.scaling_factor);
    if (Number.isFinite(factor) && factor > 0) out.quantize = (v) => (Math.round(v * factor) + 0) / factor; // + 0: Java rounds -0.4 to 0, not -0
    else if (!stored) refuse(`[scaling_factor] must be a positive number, got [${String(def.scaling_factor)}]`);
  }
  return out;
}

/**
 * `x` as a half_float field keeps it (IEEE 754 binary16, rounded to nearest, ties to even, after
 * ES has parsed it as a float), as the shortest decimal of that float (see shortestFloat).
 */
export function toHalfFloat(x: number): number {
  const v = Math.fround(x);
  const a = Math.abs(v);
  if (!Number.isFinite(v) || a === 0) return v;
  // Past the largest half (65504) by half an ulp or more, binary16 rounds to infinity.
  if (a >= 65520) return v > 0 ? Infinity : -Infinity;
  let e = Math.max(Math.floor(Math.log2(a)), -14);
  if (e > -14 && 2 ** e > a) e--;
  const ulp = 2 ** (e - 10);
  const q = a / ulp;
  const low = Math.floor(q);
  const r = q - low > 0.5 || (q - low === 0.5 && low % 2 === 1) ? low + 1 : low;
  return shortestFloat(Math.sign(v) * r * ulp);
}

/**
 * The shortest decimal that reads back as the float32 `x`: the value ES renders for a float (in
 * `sort`, `fields`), which Portico keeps, as it keeps a float field's values, as that decimal.
 */
function shortestFloat(x: number): number {
  for (let p = 1; p <= 9; p++) {
    const d = Number(x.toPrecision(p));
    if (Math.fround(d) === x) return d;
  }
  return x;
}

/** The format a date field parses with, as ES names it in its errors. */
export function dateFormatText(def: FieldDef): string {
  return def.dateFormat?.text ?? DEFAULT_DATE_FORMAT;
}

/**
 * Epoch milliseconds of a value for a date field, with the field's own `format` (or ES's default);
 * undefined when the value does not parse. What indexing and queries on the field should use.
 */
export function parseDateFor(def: FieldDef, value: unknown): number | undefined {
  return def.dateFormat === undefined ? parseDate(value) : def.dateFormat.parse(value);
}

/**
 * parseDateFor for a document read back from the store: a value the field's format refuses is
 * read as the versions before formats and strict days read it (ISO 8601 rolling 2023-02-29 over
 * to 1 March, or epoch millis), since such a document was accepted then and must still load, be
 * deleted and be updated.
 */
export function parseStoredDateFor(def: FieldDef, value: unknown): number | undefined {
  return parseDateFor(def, value) ?? parseDate(value, true);
}

/** The mapping ES's dynamic mapping gives a JSON value, or undefined for null/empty arrays. */
export function dynamicMappingFor(value: unknown, dateDetection: boolean): Record<string, unknown> | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const m = dynamicMappingFor(v, dateDetection);
      if (m !== undefined) return m;
    }
    return undefined;
  }
  switch (typeof value) {
    case 'string':
      if (dateDetection && isDetectedDate(value)) return { type: 'date' };
      return { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };
    case 'number':
      return { type: Number.isInteger(value) ? 'long' : 'float' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return undefined; // objects are walked by the caller
  }
}

/** Coerces a numeric value as ES does with `coerce: true`; undefined when it is not a number. */
export function parseNumber(value: unknown, integer: boolean): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) n = Number(value);
  else return undefined;
  if (!Number.isFinite(n)) return undefined;
  return integer ? Math.trunc(n) : n;
}

/** ES booleans: true/false, "true"/"false", and "" (false). */
export function parseBool(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false' || value === '') return false;
  return undefined;
}

/**
 * Whether dotted `path` names an object in the mapping tree `properties` (every part an object:
 * a mapping without a type, `object` or `nested`; a multi-field is a leaf). An object mapped
 * without fields (`"properties": {}`) is only found this way, not among the mapped fields.
 */
export function isObjectPath(properties: Readonly<Record<string, unknown>>, path: string): boolean {
  let props: unknown = properties;
  for (const part of path.split('.')) {
    const def = isJsonObject(props) && Object.hasOwn(props, part) ? props[part] : undefined;
    if (!isJsonObject(def) || (def.type !== undefined && def.type !== 'object' && def.type !== 'nested')) return false;
    props = def.properties ?? {};
  }
  return true;
}
