import { storedFieldsParam } from '../http/url-params.js';
import { errors, SearchError } from '../errors.js';
import { isoInstant } from '../syntax/date-format.js';
import { jsonToken } from '../syntax/json-members.js';
import { RawJson } from '../http/json-render.js';
import { isObjectPath, parseBool, parseDateFor, parseNumber, type FieldDef, type Mappings } from '../mapping/mapping.js';
import { filterSource, isIdentity, sourceFilterFromParams, type SourceFilter } from './source-filter.js';
import { sourceValues } from '../mapping/source-values.js';

/**
 * The multi-get API (`_mget`): its body read as ES's MultiGetRequest reads it, its validation, and
 * its response, one item per requested document in request order. A document that is not there is
 * `found: false`; an index that is not there fails only its own items (`error`), as in ES 8.
 */

/** One requested document. `index`/`id` undefined: missing (a validation error before any get). */
export interface MultiGetItem {
  readonly index: string | undefined;
  readonly id: string | undefined;
  /** The item's own `_source`; undefined: the request's default (URL parameters). */
  readonly source: SourceFilter | undefined;
  /** The item's own `stored_fields`; undefined: the request's default. */
  readonly storedFields: readonly string[] | undefined;
  /** `version`: the document must be at this version (a conflict fails the item). */
  readonly version: number | undefined;
  /** The item's `routing`; undefined: the request's default (`?routing=`). */
  readonly routing?: string | undefined;
}

/** Versions.MATCH_ANY: a `version` of -3 asks for no check at all. */
const MATCH_ANY = -3;

/**
 * VersionType.fromString: the names ES 8 knows, else "No version type match [x]" (the whole request
 * fails). Every type checks a read the same way (the current version must equal the one given), so
 * only the name matters here.
 */
function versionType(name: string): void {
  if (name !== 'internal' && name !== 'external' && name !== 'external_gt' && name !== 'external_gte') {
    throw errors.illegalArgument(`No version type match [${name}]`);
  }
}

/** What `_mget` reads documents from (the search service, in the route). */
export interface MultiGetSource {
  /** The index's uuid; throws index_not_found_exception when there is no such index. */
  indexUuid(index: string): string;
  /** The index's mappings (after indexUuid succeeded): which fields are stored (`store: true`). */
  mappings(index: string): Mappings;
  /** Throws routing_missing_exception when the index requires routing and `routing` is undefined. */
  /** `source`: the `_source` the index keeps; `indexedSource`: the whole document (its stored fields). */
  getDoc(index: string, id: string, routing: string | undefined): { version: number; seqNo: number; source: string; indexedSource: string; routing?: string } | undefined;
  /** The concrete name an item's `_index` stands for: a date-math name (`<logs-{now/d}>`) resolved now. */
  resolveIndex(index: string): string;
}

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v !== 'object';
}

/** parser.text() of a scalar: JSON numbers and booleans as written, null as "null". */
function text(v: string | number | boolean | null): string {
  return typeof v === 'string' ? v : String(v);
}

/** An item's `_source`: a boolean, a field pattern, a list of them, or includes/excludes. */
function itemSource(v: unknown): SourceFilter {
  // ES asks isBooleanValue() first, which is also true of the strings "true" and "false".
  if (typeof v === 'boolean' || v === 'true' || v === 'false') return { fetch: v === true || v === 'true', includes: [], excludes: [] };
  if (typeof v === 'string') return { fetch: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) return { fetch: true, includes: v.map((x) => text(x as string)), excludes: [] };
  if (v !== null && typeof v === 'object') {
    const includes: string[] = [];
    const excludes: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const list = k === 'includes' || k === 'include' ? includes : k === 'excludes' || k === 'exclude' ? excludes : undefined;
      if (list === undefined) throw errors.parse(`source definition may not contain [${k}]`);
      if (Array.isArray(x)) list.push(...x.map((e) => text(e as string)));
      else if (x !== null && isScalar(x)) list.push(text(x));
      else throw errors.parse('unexpected token while parsing source settings');
    }
    return { fetch: true, includes, excludes };
  }
  throw errors.parse(`illegal type for _source: [${jsonToken(v)}]`);
}

function parseDoc(v: unknown, defaultIndex: string | undefined): MultiGetItem {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.illegalArgument('docs array element should include an object');
  let index = defaultIndex;
  let id: string | undefined;
  let source: SourceFilter | undefined;
  let storedFields: string[] | undefined;
  let version: number | undefined;
  let routing: string | undefined;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    // ES acts only on value tokens, and VALUE_NULL is none: a null `_id`, `_source`, … is skipped.
    if (x === null) continue;
    if (k === '_source') source = itemSource(x);
    else if (k === 'stored_fields') storedFields = Array.isArray(x) ? x.map((e) => text(e as string)) : [text(x as string)];
    else if (k === 'fields') throw errors.parsing('Unsupported field [fields] used, expected [stored_fields] instead');
    else if (!isScalar(x)) continue; // ES skips other objects and arrays it does not know.
    else if (k === '_index') index = text(x);
    else if (k === '_id') id = text(x);
    // The shard the document is looked for on (and a mapping's `_routing.required`).
    else if (k === 'routing') routing = text(x) || undefined;
    else if (k === 'version_type') versionType(text(x));
    else if (k === 'version') version = Number(x);
    else throw errors.parse(`failed to parse multi get request. unknown field [${k}]`);
  }
  return { index, id, source, storedFields, version, routing };
}

/**
 * Reads an `_mget` body (`{"docs":[…]}` and/or `{"ids":[…]}`) with the URL's index as default,
 * then validates it as ES does: "no documents to get", or per item "index is missing for doc i"
 * and "id is missing for doc i", all in one action_request_validation_exception.
 */
export function parseMultiGet(body: unknown, defaultIndex: string | undefined): MultiGetItem[] {
  if (body === undefined) throw errors.bodyRequired();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.parsing(`unexpected token [${jsonToken(body)}], expected [START_OBJECT]`);
  }
  const items: MultiGetItem[] = [];
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (!Array.isArray(v)) throw errors.parsing(`unexpected token [${jsonToken(v)}], expected [FIELD_NAME] or [START_ARRAY]`);
    if (k === 'docs') for (const d of v) items.push(parseDoc(d, defaultIndex));
    else if (k === 'ids') {
      for (const id of v) {
        if (id === null || !isScalar(id)) throw errors.illegalArgument('ids array element should only contain ids');
        items.push({ index: defaultIndex, id: text(id), source: undefined, storedFields: undefined, version: undefined });
      }
    } else throw errors.parsing(`unknown key [${k}] for a START_ARRAY, expected [docs] or [ids]`);
  }
  const problems: string[] = [];
  if (items.length === 0) problems.push('no documents to get');
  items.forEach((item, i) => {
    if (item.index === undefined) problems.push(`index is missing for doc ${i}`);
    if (item.id === undefined) problems.push(`id is missing for doc ${i}`);
  });
  if (problems.length > 0) throw errors.actionValidation(problems);
  return items;
}

/** The request-wide defaults from the URL: `_source*` and `stored_fields`. */
export interface MultiGetDefaults {
  /** undefined when the URL names no `_source*` parameter. */
  readonly source: SourceFilter | undefined;
  readonly storedFields: readonly string[] | undefined;
  /** `?routing=` (undefined when absent or empty). */
  readonly routing?: string | undefined;
}

export function multiGetDefaults(params: Readonly<Record<string, string | undefined>>): MultiGetDefaults {
  const named = params._source !== undefined || params._source_includes !== undefined || params._source_excludes !== undefined ||
    params._source_include !== undefined || params._source_exclude !== undefined;
  return {
    source: named ? sourceFilterFromParams(params) : undefined,
    storedFields: storedFieldsParam(params.stored_fields),
    routing: params.routing === '' ? undefined : params.routing,
  };
}

/**
 * The source filter a get uses (ShardGetService.normalizeFetchSourceContent): the one asked for;
 * with none, the whole source unless stored fields are named without `_source` among them (then no
 * source at all). An empty list (`stored_fields=`, `"stored_fields": []`) is a list too: ES's
 * comma split gives an empty array, not null, so it fetches no source.
 */
export function getSourceFilter(explicit: SourceFilter | undefined, stored: readonly string[] | undefined): SourceFilter {
  if (explicit !== undefined) return explicit;
  const fetch = stored === undefined || stored.includes('_source');
  return { fetch, includes: [], excludes: [] };
}

/**
 * The `_mget` response body: `{"docs":[…]}` in request order. Whole stored sources go out as RawJson
 * (render with hasRaw).
 */
export function multiGet(items: readonly MultiGetItem[], defaults: MultiGetDefaults, from: MultiGetSource): { docs: Record<string, unknown>[] } {
  const docs = items.map((item): Record<string, unknown> => {
    const named = item.index as string;
    const id = item.id as string;
    let uuid: string;
    let index: string;
    let doc: ReturnType<MultiGetSource['getDoc']>;
    try {
      // A date-math name answers under the index it resolves to; its failure under the name given.
      index = from.resolveIndex(named);
      uuid = from.indexUuid(index);
      doc = from.getDoc(index, id, item.routing ?? defaults.routing);
    } catch (e) {
      if (e instanceof SearchError) return { _index: named, _id: id, error: e.toBody().error };
      throw e;
    }
    if (doc === undefined) return { _index: index, _id: id, found: false };
    if (item.version !== undefined && item.version !== MATCH_ANY && item.version !== doc.version) {
      const conflict = errors.versionConflict(index, uuid, id, `current version [${doc.version}] is different than the one provided [${item.version}]`);
      return { _index: index, _id: id, error: conflict.toBody().error };
    }
    const stored = item.storedFields ?? defaults.storedFields;
    let fields: Record<string, unknown[]> | undefined;
    try {
      fields = storedFieldsOf(from.mappings(index), stored, doc.indexedSource);
    } catch (e) {
      // An object among the names fails its own item, as a shard's get failure does.
      if (e instanceof SearchError) return { _index: index, _id: id, error: e.toBody().error };
      throw e;
    }
    const out: Record<string, unknown> = { _index: index, _id: id, _version: doc.version, _seq_no: doc.seqNo, _primary_term: 1 };
    if (doc.routing !== undefined) out._routing = doc.routing;
    out.found = true;
    const filter = getSourceFilter(item.source ?? defaults.source, stored);
    // An index that keeps no source (`_source.enabled: false`) answers none, whatever was asked.
    if (filter.fetch && from.mappings(index).root.sourceEnabled) out._source = isIdentity(filter) ? new RawJson(doc.source) : filterSource(JSON.parse(doc.source), filter);
    if (fields !== undefined) out.fields = fields;
    return out;
  });
  return { docs };
}

/**
 * The `fields` member of a got document: the values of each field in `names` that the mapping
 * stores (`store: true`; ES keeps no other field apart from `_source`), read from the source as the
 * field's mapper would store them, each a list. Undefined when none has a value: ES then leaves
 * `fields` out, as it does for fields that are not stored or not mapped.
 */
/**
 * The `fields` of a got document (`_mget`, GET `_doc`) whose stored source is `source`: undefined
 * when no names are asked for (`stored` undefined or empty); see storedFieldValues.
 */
export function storedFieldsOf(mappings: Mappings, stored: readonly string[] | undefined, source: string): Record<string, unknown[]> | undefined {
  return stored !== undefined && stored.length > 0 ? storedFieldValues(mappings, stored, JSON.parse(source)) : undefined;
}

export function storedFieldValues(mappings: Mappings, names: readonly string[], source: unknown): Record<string, unknown[]> | undefined {
  let out: Record<string, unknown[]> | undefined;
  for (const name of names) {
    // ShardGetService: a name that is an object mapper, not a field, is refused (no other check).
    if (isObjectPath(mappings.properties, name)) throw errors.illegalArgument(`field [${name}] isn't a leaf field`);
    const def = mappings.fields.get(name);
    if (def === undefined || !isStored(mappings.properties, name)) continue;
    // A multi-field (`title.raw`) stores its parent's values.
    const dot = name.lastIndexOf('.');
    const parent = dot > 0 && mappings.subfields.get(name.slice(0, dot))?.includes(def) === true ? name.slice(0, dot) : name;
    const values: unknown[] = [];
    for (const v of sourceValues(source, parent)) {
      const stored = storedValue(def, v);
      if (stored !== undefined) values.push(stored);
    }
    if (values.length > 0) (out ??= {})[name] = values;
  }
  return out;
}

/** Whether the mapping tree gives the field at dotted `path` `store: true` (through `properties` and multi-field `fields`). */
function isStored(properties: Readonly<Record<string, unknown>>, path: string): boolean {
  const parts = path.split('.');
  let level: unknown = properties;
  let def: Record<string, unknown> | undefined;
  for (let i = 0; i < parts.length; i++) {
    if (level === null || typeof level !== 'object') return false;
    const next = (level as Record<string, unknown>)[parts[i] as string];
    if (next === null || typeof next !== 'object') return false;
    def = next as Record<string, unknown>;
    level = def.properties ?? def.fields;
  }
  // nodeBooleanValue: ES reads the mapping's `store` as a boolean, the string "true" included.
  return def?.store === true || def?.store === 'true';
}

/** A source value as the field's mapper stores it and the get API shows it; undefined when it stores none. */
function storedValue(def: FieldDef, v: unknown): unknown {
  switch (def.kind) {
    case 'numeric':
      return parseNumber(v, def.integer);
    case 'boolean':
      return parseBool(v);
    case 'date': {
      const ms = parseDateFor(def, v);
      if (ms === undefined || !Number.isFinite(ms)) return undefined;
      // Shown with the field's own format (DateFieldType.valueForDisplay); ES's default prints ISO.
      return def.dateFormat?.print(ms) ?? isoInstant(ms);
    }
    case 'keyword': {
      const s = String(v);
      return def.ignoreAbove !== undefined && s.length > def.ignoreAbove ? undefined : s;
    }
    default:
      return String(v);
  }
}
