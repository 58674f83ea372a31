import { errors } from '../errors.js';

/**
 * What Portico does with every mapping parameter Elasticsearch 8 knows, by field type. A parameter
 * is either acted on (the field's FieldDef carries it), taken at the values that change nothing
 * here (a default, or a tuning of something Portico does not have: term vectors, global
 * ordinals), or refused with ES's `mapper_parsing_exception`, so that a mapping never silently
 * means less than it says. A parameter ES does not know for the type is ES's own "unknown
 * parameter" error.
 */

/** undefined: accepted; a string: why the value is refused. */
type Rule = (value: unknown) => string | undefined;

const accepted: Rule = () => undefined;
const refused: Rule = () => 'refused';
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
/** Accepted only at these values (compared as ES reads them: `"true"` is `true`). */
const onlyAt =
  (...values: readonly unknown[]): Rule =>
  (v) =>
    values.some((ok) => text(ok) === text(v)) ? undefined : 'refused';

/** What every field type takes in ES 8 (the others take only what their own table lists). */
const COMMON: Readonly<Record<string, Rule>> = {
  type: accepted,
  fields: accepted,
  store: accepted,
  index: accepted,
  meta: accepted,
  // Field-level boosts and copy_to are not implemented.
  copy_to: refused,
  boost: refused,
};

/** The doc-values and runtime-script parameters of keyword, numeric, date and boolean fields. */
const DOC_VALUES: Readonly<Record<string, Rule>> = {
  // Without doc values ES refuses sorts on the field; here every field has them.
  doc_values: onlyAt(true),
  script: refused,
  on_script_error: refused,
};

const TEXT: Readonly<Record<string, Rule>> = {
  // The standard analyzer is the only one Portico has.
  analyzer: onlyAt('standard'),
  search_analyzer: onlyAt('standard'),
  search_quote_analyzer: onlyAt('standard'),
  eager_global_ordinals: accepted,
  fielddata: accepted,
  fielddata_frequency_filter: refused,
  // Frequencies and positions are what Portico's scoring and phrases use: docs/freqs would change both.
  index_options: onlyAt('positions', 'offsets'),
  index_phrases: onlyAt(false),
  index_prefixes: refused,
  norms: onlyAt(true),
  position_increment_gap: accepted,
  similarity: onlyAt('BM25'),
  // Term vectors serve the _termvectors API, which Portico does not have: nothing reads them.
  term_vector: accepted,
};

const KEYWORD: Readonly<Record<string, Rule>> = {
  ...DOC_VALUES,
  similarity: onlyAt('BM25'),
  eager_global_ordinals: accepted,
  ignore_above: accepted,
  index_options: onlyAt('docs'),
  norms: onlyAt(false),
  null_value: accepted,
  normalizer: refused,
  split_queries_on_whitespace: onlyAt(false),
  time_series_dimension: accepted,
};

const NUMERIC: Readonly<Record<string, Rule>> = {
  ...DOC_VALUES,
  coerce: accepted,
  ignore_malformed: accepted,
  null_value: accepted,
  time_series_dimension: accepted,
  time_series_metric: accepted,
};

const DATE: Readonly<Record<string, Rule>> = {
  ...DOC_VALUES,
  format: accepted,
  // A locale only changes month and day names, which the formats Portico reads do not have.
  locale: accepted,
  ignore_malformed: accepted,
  null_value: accepted,
};

const BOOLEAN: Readonly<Record<string, Rule>> = {
  ...DOC_VALUES,
  null_value: accepted,
  ignore_malformed: accepted,
  time_series_dimension: accepted,
};

const OBJECT: Readonly<Record<string, Rule>> = {
  type: accepted,
  properties: accepted,
  // enabled: false keeps an object unparsed and unindexed; subobjects: false flattens dotted names.
  enabled: onlyAt(true),
  subobjects: onlyAt(true),
};

const NUMERIC_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long']);

/**
 * Types ES 8 has whose meaning differs from the type Portico would index them as: match_only_text
 * scores every match 1, constant_keyword matches documents without the field, wildcard scores
 * as a constant, nested hides its objects from queries other than `nested`.
 */
const UNSUPPORTED_TYPES = new Set(['match_only_text', 'constant_keyword', 'wildcard', 'nested']);

function rulesOf(type: string): Readonly<Record<string, Rule>> | undefined {
  if (type === 'text') return TEXT;
  if (type === 'keyword') return KEYWORD;
  if (NUMERIC_TYPES.has(type)) return type === 'scaled_float' ? { ...NUMERIC, scaling_factor: accepted } : NUMERIC;
  if (type === 'date' || type === 'date_nanos') return DATE;
  if (type === 'boolean') return BOOLEAN;
  return undefined;
}

function refuse(reason: string): never {
  throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
}

/** Checks one leaf field's parameters against the table (unknown: ES's error; refused: Portico's). */
function checkField(name: string, type: string, def: Record<string, unknown>): void {
  if (UNSUPPORTED_TYPES.has(type)) refuse(`type [${type}] on field [${name}] is not supported by this server`);
  const rules = rulesOf(type);
  if (rules === undefined) return; // an unknown type: Mappings.parse gives ES's "No handler for type"
  for (const [key, value] of Object.entries(def)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : Object.hasOwn(COMMON, key) ? COMMON[key] : undefined;
    if (rule === undefined) refuse(`unknown parameter [${key}] on mapper [${name}] of type [${type}]`);
    if (rule(value) !== undefined) refuse(`parameter [${key}] with value [${text(value)}] on mapper [${name}] of type [${type}] is not supported by this server`);
  }
  if (type === 'scaled_float' && def.scaling_factor === undefined) refuse(`Field [scaling_factor] is required`);
}

function checkObject(name: string, def: Record<string, unknown>, rootDynamic: string): void {
  for (const [key, value] of Object.entries(def)) {
    // The document parser follows the root's `dynamic` everywhere: an object may only repeat it.
    const rule = key === 'dynamic' ? onlyAt(rootDynamic) : Object.hasOwn(OBJECT, key) ? OBJECT[key] : undefined;
    // ES's object mapper names what it did not take this way (the parameter and its value).
    if (rule === undefined) refuse(`Mapping definition for [${name}] has unsupported parameters:  [${key} : ${JSON.stringify(value)}]`);
    if (rule(value) !== undefined) refuse(`parameter [${key}] with value [${text(value)}] on object [${name}] is not supported by this server`);
  }
}

/** The root parameters and the values they are taken at (the others are refused). */
const ROOT: Readonly<Record<string, Rule>> = {
  properties: accepted,
  dynamic: accepted,
  date_detection: accepted,
  // Numeric detection (strings that hold numbers mapped as numbers) is not implemented.
  numeric_detection: onlyAt(false),
  _doc: accepted,
  _meta: accepted,
  dynamic_templates: (v) => (Array.isArray(v) && v.length === 0 ? undefined : 'refused'),
  // `enabled`, `includes` and `excludes` are acted on (root-meta.ts, engine/stored-source.ts);
  // synthetic source would change what _source returns and is refused.
  _source: (v) => metaMapper(v, '_source', ['enabled', 'includes', 'excludes'], ['mode']),
  // `required` is acted on (root-meta.ts).
  _routing: (v) => metaMapper(v, '_routing', ['required'], []),
};

/**
 * A root metadata mapper: `known` keys are acted on; `refusedKeys` are ES's but not done here
 * (refused); any other key is ES's "unknown parameter [x] on mapper [_routing] of type [null]".
 */
function metaMapper(v: unknown, name: string, known: readonly string[], refusedKeys: readonly string[]): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined; // root-meta.ts gives ES's error
  for (const key of Object.keys(v)) {
    if (known.includes(key)) continue;
    if (refusedKeys.includes(key)) return 'refused';
    refuse(`unknown parameter [${key}] on mapper [${name}] of type [null]`);
  }
  return undefined;
}

function checkRoot(root: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(root)) {
    const rule = Object.hasOwn(ROOT, key) ? ROOT[key] : undefined;
    if (rule === undefined) continue; // Mappings.parse gives ES's "Root mapping definition has unsupported parameters"
    if (rule(value) !== undefined) refuse(`root mapping parameter [${key}] with value [${text(value)}] is not supported by this server`);
  }
}

/**
 * Refuses what a mapping a request brings (create index, put mapping) asks and Portico would not
 * do: unknown parameters with ES's "unknown parameter [p] on mapper [f] of type [t]", the others
 * with "… is not supported by this server". Stored mappings are not re-checked, so an index
 * created before stays loadable.
 */
export function checkMappingParameters(raw: unknown): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const obj = raw as Record<string, unknown>;
  const root = obj._doc !== undefined && Object.keys(obj).length === 1 ? (obj._doc as Record<string, unknown>) : obj;
  checkRoot(root);
  const rootDynamic = root.dynamic === undefined ? 'true' : text(root.dynamic);
  const walk = (properties: unknown, multi: boolean): void => {
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return;
    for (const [name, def] of Object.entries(properties as Record<string, unknown>)) {
      if (def === null || typeof def !== 'object' || Array.isArray(def)) continue;
      const d = def as Record<string, unknown>;
      const type = d.type;
      if (!multi && (type === undefined || type === 'object')) {
        checkObject(name, d, rootDynamic);
        walk(d.properties, false);
        continue;
      }
      if (typeof type !== 'string') continue;
      checkField(name, type, d);
      if (d.fields !== null && typeof d.fields === 'object') walk(d.fields, true);
    }
  };
  walk(root.properties, false);
}
