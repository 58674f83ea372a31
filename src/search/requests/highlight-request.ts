import { errors, type SearchError } from '../errors.js';
import { isJsonObject, jsonToken } from '../syntax/json-members.js';
import { parseTopLevelQuery, type Query } from './query-dsl.js';
import { LocatedQueryError, unknownField } from './query-error.js';

/**
 * The search body's `highlight` as ES 8's HighlightBuilder reads it: global options, then `fields`
 * (an object, or an array of one-field objects) whose options override them. Portico runs the
 * `unified` (default) and `plain` highlighters; what it does not do (`fvh`, boundary scanners
 * other than the default, `matched_fields`, styled tags, …) is refused with ES's error, never
 * ignored.
 */

export interface HighlightFieldOptions {
  readonly type: 'unified' | 'plain';
  readonly preTag: string;
  readonly postTag: string;
  readonly fragmentSize: number;
  readonly numberOfFragments: number;
  readonly noMatchSize: number;
  readonly scoreOrder: boolean;
  readonly requireFieldMatch: boolean;
  readonly encodeHtml: boolean;
  /** The query whose terms are marked (highlight_query), undefined for the search's own. */
  readonly query: Query | undefined;
}

export interface HighlightField {
  /** A field name or a pattern (`*`, `desc*`). */
  readonly name: string;
  readonly options: HighlightFieldOptions;
}

export interface HighlightRequest {
  readonly fields: readonly HighlightField[];
}

const DEFAULTS: HighlightFieldOptions = {
  type: 'unified', preTag: '<em>', postTag: '</em>', fragmentSize: 100, numberOfFragments: 5, noMatchSize: 0, scoreOrder: false,
  requireFieldMatch: true, encodeHtml: false, query: undefined,
};

/** The keys ES's builder reads, in both the global and the field objects (`fields` and `tags_schema` only globally). */
const KEYS = new Set([
  'pre_tags', 'post_tags', 'fragment_size', 'number_of_fragments', 'no_match_size', 'order', 'require_field_match', 'highlight_query', 'type',
  'encoder', 'boundary_scanner', 'boundary_chars', 'boundary_max_scan', 'boundary_scanner_locale', 'fragmenter', 'fragment_offset', 'matched_fields',
  'phrase_limit', 'force_source', 'max_analyzed_offset', 'options', 'highlight_filter',
]);

/** Keys Portico does not act on, each taken only at a value that changes nothing. */
const NO_OP: Readonly<Record<string, (v: unknown) => boolean>> = {
  force_source: () => true,
  boundary_scanner: (v) => v === 'sentence',
  fragmenter: (v) => v === 'span',
  highlight_filter: (v) => v === false,
  options: (v) => isJsonObject(v) && Object.keys(v).length === 0,
};

function int(v: unknown, key: string, path: (string | number)[]): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  throw located(errors.parsing(`[highlight] failed to parse field [${key}]`), path);
}

function located(e: SearchError, path: (string | number)[]): LocatedQueryError {
  return LocatedQueryError.around(e, path);
}

function tags(v: unknown, key: string, path: (string | number)[]): string {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || typeof list[0] !== 'string') throw located(errors.parsing(`[highlight] failed to parse field [${key}]`), path);
  return list[0];
}

function readOptions(o: Record<string, unknown>, base: HighlightFieldOptions, parser: string, path: (string | number)[]): HighlightFieldOptions {
  let out = { ...base };
  for (const [k, v] of Object.entries(o)) {
    const at = [...path, k];
    if (k === 'fields' || (k === 'tags_schema' && parser === 'highlight')) continue;
    if (!KEYS.has(k)) throw unknownField(parser, k, at, false);
    const noOp = NO_OP[k];
    if (noOp !== undefined) {
      if (!noOp(v)) throw errors.contextUnsupported(`[${k}] ${JSON.stringify(v)} in highlight`);
      continue;
    }
    switch (k) {
      case 'pre_tags': out = { ...out, preTag: tags(v, k, at) }; break;
      case 'post_tags': out = { ...out, postTag: tags(v, k, at) }; break;
      case 'fragment_size': out = { ...out, fragmentSize: int(v, k, at) }; break;
      case 'number_of_fragments': out = { ...out, numberOfFragments: int(v, k, at) }; break;
      case 'no_match_size': out = { ...out, noMatchSize: int(v, k, at) }; break;
      case 'order': out = { ...out, scoreOrder: String(v).toLowerCase() === 'score' }; break;
      case 'require_field_match': out = { ...out, requireFieldMatch: v === true || v === 'true' }; break;
      case 'encoder': out = { ...out, encodeHtml: v === 'html' }; break;
      case 'highlight_query': out = { ...out, query: parseTopLevelQuery(v, 'highlight_query') }; break;
      case 'type':
        if (v === 'unified' || v === 'plain') out = { ...out, type: v };
        else if (v === 'fvh') throw errors.contextUnsupported('the fast vector highlighter ([type] fvh; no field here has term vectors)');
        else throw errors.illegalArgument(`unknown highlighter type [${String(v)}]`);
        break;
      default:
        // boundary_chars, boundary_max_scan, boundary_scanner_locale, fragment_offset, matched_fields,
        // phrase_limit, max_analyzed_offset: options of what Portico does not do.
        throw errors.contextUnsupported(`[${k}] in highlight`);
    }
  }
  if (o.pre_tags !== undefined && o.post_tags === undefined && base.postTag === DEFAULTS.postTag && parser === 'highlight') {
    throw errors.illegalArgument('pre_tags are set but post_tags are not set');
  }
  return out;
}

/** Reads the body's `highlight`. */
export function parseHighlight(v: unknown): HighlightRequest {
  if (!isJsonObject(v)) throw errors.parsing(`Unknown key for a ${jsonToken(v)} in [highlight].`);
  if (v.tags_schema !== undefined && v.tags_schema !== 'default') throw errors.contextUnsupported('[tags_schema] styled in highlight');
  const global = readOptions(v, DEFAULTS, 'highlight', ['highlight']);
  const raw = v.fields;
  const entries: [string, unknown, (string | number)[]][] = [];
  if (Array.isArray(raw)) {
    raw.forEach((one, i) => {
      if (!isJsonObject(one) || Object.keys(one).length !== 1) throw errors.parsing('[highlight] failed to parse field [fields]');
      const [name, opts] = Object.entries(one)[0] as [string, unknown];
      entries.push([name, opts, ['highlight', 'fields', i, name]]);
    });
  } else if (isJsonObject(raw)) {
    for (const [name, opts] of Object.entries(raw)) entries.push([name, opts, ['highlight', 'fields', name]]);
  } else if (raw !== undefined) throw errors.parsing('[highlight] failed to parse field [fields]');
  const fields = entries.map(([name, opts, path]) => {
    if (!isJsonObject(opts)) throw located(errors.parsing('[highlight] failed to parse field [fields]'), path);
    return { name, options: readOptions(opts, global, 'highlight_field', path) };
  });
  return { fields };
}
