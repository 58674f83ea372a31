import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonBodyAndText, queryOf, sendJson, type Params } from '../http/http-io.js';
import { boolParam, checkParams } from '../http/url-params.js';
import { checkFilters, indexFieldCaps, mergeFieldCaps, type IndexFieldCaps } from '../engine/field-caps.js';
import { parseTopLevelQuery, type Query } from '../requests/query-dsl.js';
import { isJsonObject, jsonToken, objectMembers, textLocation } from '../syntax/json-members.js';
import { globMatch } from '../syntax/glob.js';
import type { SearchService } from '../engine/search-service.js';
import type { IndexState } from '../engine/index-state.js';

/** What ES 8's RestFieldCapabilitiesAction reads (with the indices options). */
export const FIELD_CAPS_PARAMS: ReadonlySet<string> = new Set([
  'pretty', 'human', 'error_trace', 'filter_path', 'source', 'source_content_type', 'index', 'fields', 'include_unmapped', 'filters',
  'types', 'include_empty_fields', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'ignore_throttled',
]);

/** ES splits a comma list and drops empty parts (Strings.splitStringByCommaToArray keeps them; paramAsStringArray too, but they match nothing). */
const commaList = (v: string | undefined): string[] => (v === undefined || v === '' ? [] : v.split(','));

interface FieldCapsBody {
  fields?: string[];
  indexFilter?: Query;
}

/** The body as ES's ObjectParser "field_caps_request" reads it: `fields`, `index_filter`, `runtime_mappings` (refused). */
function readBody(text: string, value: unknown): FieldCapsBody {
  if (!isJsonObject(value)) throw errors.parsing('request body must be an object');
  const out: FieldCapsBody = {};
  for (const m of objectMembers(text)) {
    const { line, col } = textLocation(text, m.keyAt);
    const v = value[m.key];
    if (m.key === 'fields') {
      const list = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
      if (list === undefined) throw errors.xContentParse(line, col, `[field_caps_request] fields doesn't support values of type: ${jsonToken(v)}`);
      const at = textLocation(text, m.valueAt);
      if (list.length === 0) throw errors.fieldParse(at.line, at.col, 'field_caps_request', 'fields', { type: 'illegal_argument_exception', reason: "specified fields can't be null or empty" });
      out.fields = list;
    } else if (m.key === 'index_filter') {
      out.indexFilter = parseTopLevelQuery(v, 'index_filter');
    } else if (m.key === 'runtime_mappings') {
      // Portico has no runtime fields: refused, never ignored.
      throw errors.contextUnsupported('[runtime_mappings] in _field_caps');
    } else {
      throw errors.xContentParse(line, col, `[field_caps_request] unknown field [${m.key}]`);
    }
  }
  return out;
}

/**
 * Whether ES's can-match phase keeps `state` for the index_filter `q` (FieldCapabilitiesFetcher:
 * SearchService.queryStillMatchesAfterRewrite, which rewrites the query without running it):
 * true/false where Portico answers it exactly, undefined where it cannot (the request is refused).
 *  - match_all keeps, match_none drops;
 *  - term and terms on `_index` match the index name (as a pattern); on another field they drop an index that
 *    does not map it and keep one that does (the rewrite never looks at the terms);
 *  - range on an indexed date field keeps the index when the range meets its values' span
 *    (DateFieldType.isFieldWithinQuery on the shard's min and max: without values it drops it);
 *    on a field of another type, or a date that is not indexed, it keeps it when mapped
 *    (MappedFieldType's default INTERSECTS) and drops it unmapped;
 *  - bool with only `must` and `filter` clauses keeps the index when every clause does.
 */
function canMatch(service: SearchService, state: IndexState, q: Query): boolean | undefined {
  switch (q.kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'term':
    case 'terms': {
      const values = q.kind === 'term' ? [q.value] : q.values;
      if (q.kind === 'term' && q.caseInsensitive) return undefined;
      // `_index` is a constant field: its term matches the name as a simple pattern (`logs-*`).
      if (q.field === '_index') return values.some((v) => globMatch(String(v), state.name));
      // The other metadata fields whose terms are not rewritten against the index (`_tier` and
      // `_index_mode` are constants compared with the index's settings: not decided here).
      if (['_id', '_routing', '_ignored'].includes(q.field)) return true;
      if (q.field.startsWith('_')) return undefined;
      return state.mappings.field(q.field) !== undefined;
    }
    case 'range': {
      if (q.field.startsWith('_')) return undefined;
      const def = state.mappings.field(q.field);
      if (def === undefined) return false;
      // Only dates compare the range with the shard's values (DateFieldType.isFieldWithinQuery, on
      // its points: a date that is not indexed has none, and is assumed to intersect); every
      // other type keeps the default INTERSECTS.
      if (def.kind !== 'date' || !def.index) return true;
      const lower = q.gte !== undefined || q.gt !== undefined;
      const upper = q.lte !== undefined || q.lt !== undefined;
      const any = (r: Query): boolean => service.searchShards([state]).some((s) => service.matchingOrds(s, r).length > 0);
      // Some value within the range, or values on both sides of it: the span [min, max] meets it.
      if (any(q)) return true;
      if (!lower || !upper) return false;
      const below: Query = { ...q, gt: undefined, gte: undefined, lt: q.gte, lte: q.gt };
      const above: Query = { ...q, lt: undefined, lte: undefined, gt: q.lte, gte: q.lt };
      return any(below) && any(above);
    }
    case 'bool': {
      if (q.should.length > 0 || q.mustNot.length > 0) return undefined;
      let keep = true;
      for (const c of [...q.must, ...q.filter]) {
        const r = canMatch(service, state, c);
        if (r === undefined) return undefined;
        keep &&= r;
      }
      return keep;
    }
    default:
      return undefined;
  }
}

/**
 * The indices a `_field_caps` reads, as ES 8 resolves them (IndicesOptions.strictExpandOpen, which
 * does not forbid closed indices): wildcards expand to the indices `expand_wildcards` names (open
 * by default; `closed`, `all`, `none`), and a closed index resolved, named or expanded, is then
 * refused by its block (checkIndexBlocks: 403 cluster_block_exception), even under
 * `ignore_unavailable`.
 */
function resolveIndices(service: SearchService, index: string | undefined, ignoreUnavailable: boolean, allowNoIndices: boolean, expand: string | undefined): IndexState[] {
  const named = new Set(index === undefined ? [] : index.split(',').filter((p) => !p.includes('*')));
  const states = (expand ?? 'open').split(',');
  const open = states.includes('open') || states.includes('all');
  const closed = states.includes('closed') || states.includes('all');
  const out: IndexState[] = [];
  for (const s of service.resolveWithClosed(index, ignoreUnavailable, allowNoIndices)) {
    if (named.has(s.name) || (s.settings.closed ? closed : open)) {
      if (s.settings.closed) throw errors.indexClosedBlock(s.name);
      out.push(s);
    }
  }
  if (out.length === 0 && !allowNoIndices && index !== undefined && index !== '' && index !== '_all' && index !== '*') throw errors.indexNotFound(index);
  return out;
}

/** `GET|POST /_field_caps` and `/<index>/_field_caps`: which fields the indices map, searchable and aggregatable (see engine/field-caps.ts). */
export async function fieldCapsRoutes(app: FastifyInstance, opts: { service: SearchService }): Promise<void> {
  const { service } = opts;
  const fieldCaps = (req: FastifyRequest, reply: FastifyReply): void => {
    const params = queryOf(req);
    checkParams(req.url, params, FIELD_CAPS_PARAMS);
    const includeUnmapped = boolParam(params.include_unmapped, false);
    const includeEmpty = boolParam(params.include_empty_fields, true);
    const filters = commaList(params.filters);
    const types = commaList(params.types);
    const sent = jsonBodyAndText(req);
    const body = sent === undefined ? {} : readBody(sent.text, sent.value);
    let fields = body.fields;
    if (params.fields !== undefined) {
      if (fields !== undefined && fields.length > 0) {
        throw errors.illegalArgument("can't specify a request body and [fields] request parameter, either specify a request body or the [fields] request parameter");
      }
      fields = commaList(params.fields);
      if (fields.length === 0) throw errors.illegalArgument("specified fields can't be null or empty");
    }
    if (fields === undefined) throw errors.actionValidation(['no fields specified']);
    // ES 8.13's include_empty_fields=false leaves out the fields no document of an index has a
    // value for, as Lucene's FieldInfos show it (a field whose documents were all deleted still
    // counts until a merge): Portico cannot tell that apart, so it refuses rather than guess.
    if (!includeEmpty) throw errors.contextUnsupported('[include_empty_fields=false]');
    const expand = params.expand_wildcards;
    for (const w of expand === undefined ? [] : expand.split(',')) {
      if (!['open', 'closed', 'hidden', 'none', 'all'].includes(w)) throw errors.illegalArgument(`No valid expand wildcard value [${w}]`);
    }
    const index = (req.params as Params).index;
    const ignoreUnavailable = boolParam(params.ignore_unavailable, false);
    const allowNoIndices = boolParam(params.allow_no_indices, true);
    let states = resolveIndices(service, index, ignoreUnavailable, allowNoIndices, expand);
    if (states.length > 0) checkFilters(filters);
    if (body.indexFilter !== undefined) {
      const q = body.indexFilter;
      const kept: IndexState[] = [];
      for (const s of states) {
        const r = canMatch(service, s, q);
        if (r === undefined) throw errors.contextUnsupported(`[index_filter] with a [${q.kind}] query that Portico cannot decide as ES's can-match phase does`);
        if (r) kept.push(s);
      }
      states = kept;
    }
    const perIndex = new Map<string, ReadonlyMap<string, IndexFieldCaps>>();
    for (const s of states) perIndex.set(s.name, indexFieldCaps(s.mappings, { fields, filters, types }));
    sendJson(req, reply, 200, mergeFieldCaps(perIndex, includeUnmapped));
  };
  for (const path of ['/_field_caps', '/:index/_field_caps']) {
    app.get(path, fieldCaps);
    app.post(path, fieldCaps);
  }
}
