import { errors } from '../errors.js';
import { jsonToken } from '../syntax/json-members.js';
import type { QueryParams } from '../http/url-params.js';

/**
 * The parts of a search body that ask for field values next to (or instead of) `_source`:
 * `docvalue_fields`, `fields` and `stored_fields`, read as ES 8's SearchSourceBuilder reads them
 * (FieldAndFormat, StoredFieldsContext), with the URL's `stored_fields` and `docvalue_fields`.
 */

/** One entry of `docvalue_fields` or `fields`: a field name or pattern (`*`) and its format. */
export interface FieldAndFormat {
  readonly field: string;
  readonly format: string | undefined;
  /** `fields` only: also unmapped fields of the source (`include_unmapped`). */
  readonly includeUnmapped: boolean;
}

export interface FetchFields {
  readonly docvalue: readonly FieldAndFormat[];
  readonly fields: readonly FieldAndFormat[];
  /** `stored_fields` names (may be patterns); undefined when not given. */
  readonly stored: readonly string[] | undefined;
  /** `stored_fields: "_none_"`: no stored fields at all, `_id` and `_source` included. */
  readonly storedNone: boolean;
  /** `_none_` with `_source` asked for: each shard fails (ES's SearchService refuses it there). */
  readonly noneWithSource?: boolean;
}

/** ES's `index.max_docvalue_fields_search` default. */
export const MAX_DOCVALUE_FIELDS = 100;

/** FieldAndFormat.fromXContent: a string, or `{field, format, include_unmapped}`. */
function fieldAndFormat(v: unknown, key: string): FieldAndFormat {
  if (typeof v === 'string') return { field: v, format: undefined, includeUnmapped: false };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.parsing(`Expected [VALUE_STRING] or [START_OBJECT] in [${key}] but found [${jsonToken(v)}]`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'field' && k !== 'format' && k !== 'include_unmapped') throw errors.xContentParse(1, 2, `[field_and_format] unknown field [${k}]`);
  }
  if (typeof o.field !== 'string') throw errors.xContentParse(1, 2, 'Required [field]');
  if (o.format !== undefined && o.format !== null && typeof o.format !== 'string') throw errors.xContentParse(1, 2, '[field_and_format] format doesn\'t support values of type: ' + jsonToken(o.format));
  const includeUnmapped = o.include_unmapped === true || o.include_unmapped === 'true';
  return { field: o.field, format: typeof o.format === 'string' ? o.format : undefined, includeUnmapped };
}

function fieldList(v: unknown, key: string): FieldAndFormat[] {
  // ES reads an array of entries; one entry alone is refused as the token it is.
  if (!Array.isArray(v)) throw errors.parsing(`Unknown key for a ${jsonToken(v)} in [${key}].`, 1, 2);
  return v.map((e) => fieldAndFormat(e, key));
}

/** StoredFieldsContext.fromList: `_none_` alone disables stored fields; with other names it is refused. */
function storedList(names: readonly string[]): { stored: string[]; none: boolean } {
  if (names.length === 1 && names[0] === '_none_') return { stored: [], none: true };
  if (names.includes('_none_')) throw errors.illegalArgument('cannot combine _none_ with other fields');
  return { stored: [...names], none: false };
}

function storedFromBody(v: unknown): { stored: string[]; none: boolean } {
  if (typeof v === 'string') return storedList([v]);
  if (Array.isArray(v)) {
    for (const e of v) if (typeof e !== 'string') throw errors.parsing(`Expected [VALUE_STRING] in [stored_fields] but found [${jsonToken(e)}] in [stored_fields]`);
    return storedList(v as string[]);
  }
  throw errors.parsing(`Expected [VALUE_STRING] or [START_ARRAY] in [stored_fields] but found [${jsonToken(v)}]`);
}

/**
 * The body's and the URL's field requests (the URL's `stored_fields` and `docvalue_fields`
 * replace the body's, as RestSearchAction sets them after parsing it); undefined when none is
 * given, so the common search keeps its fast path.
 */
export function parseFetchFields(b: Record<string, unknown>, params: QueryParams): FetchFields | undefined {
  let docvalue = b.docvalue_fields === undefined ? [] : fieldList(b.docvalue_fields, 'docvalue_fields');
  const fields = b.fields === undefined ? [] : fieldList(b.fields, 'fields');
  let stored = b.stored_fields === undefined ? undefined : storedFromBody(b.stored_fields);
  if (params.stored_fields !== undefined) stored = storedList(params.stored_fields.split(',').filter((s) => s !== ''));
  if (params.docvalue_fields !== undefined) {
    docvalue = params.docvalue_fields.split(',').filter((s) => s !== '').map((field) => ({ field, format: undefined, includeUnmapped: false }));
  }
  if (docvalue.length > MAX_DOCVALUE_FIELDS) {
    throw errors.illegalArgument(
      `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${MAX_DOCVALUE_FIELDS}] but was [${docvalue.length}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.`,
    );
  }
  if (docvalue.length === 0 && fields.length === 0 && stored === undefined) return undefined;
  return { docvalue, fields, stored: stored?.stored, storedNone: stored?.none ?? false };
}
