import type { Mappings } from '../mapping/mapping.js';
import { ROUTING_FIELD, ROUTING_MAPPINGS } from '../mapping/routing-field.js';
import { globMatch } from '../syntax/glob.js';
import { queryCreation } from './term-expansion.js';

/**
 * The field lists of `multi_match`, `query_string` and `simple_query_string` (`fields`,
 * `default_field`, a field named in the query text) as ES resolves them against metadata fields:
 * `*` alone stands for the mapped fields only, while a name or any other pattern also reaches
 * metadata fields (ES's QueryParserHelper accepts them unless the entry is the match-all
 * pattern). `_routing` is then searched as the keyword-like field it is (routing-field.ts), `_id`
 * and `_index` as a match on them is (a term on the whole text, score 1: query-exec.ts
 * metadataTerm) when named; the other metadata fields such a list could reach, and `_id` or
 * `_index` reached by a pattern, are refused, never silently left out.
 */

/** Metadata fields a field list could name that these queries do not search (`_routing`, and `_id` and `_index` by name, they do). */
const REFUSED_METADATA = ['_ignored', '_tier', '_version', '_seq_no', '_primary_term', '_source', '_field_names', '_doc_count', '_data_stream_timestamp', '_feature', '_nested_path'];

/** Searched when named, but refused when a pattern reaches them (the node answers such a list with an error of its own). */
const NAMED_ONLY = ['_id', '_index'];

const extended = new WeakMap<Mappings, Mappings>();

/**
 * `mappings` with `_routing` among its fields (as ROUTING_MAPPINGS has it: an indexed keyword
 * field whose type is named `_routing`), so each field of a list runs on its own definition.
 * Built once per mapping version.
 */
export function mappingsWithRouting(mappings: Mappings): Mappings {
  if (mappings.field(ROUTING_FIELD) !== undefined) return mappings;
  let out = extended.get(mappings);
  if (out === undefined) {
    out = mappings.withAdditions(new Map([[ROUTING_FIELD, { type: 'keyword' }]]));
    const def = ROUTING_MAPPINGS.field(ROUTING_FIELD);
    // The freshly built table belongs to this call alone: give `_routing` its own type name, as
    // ES names it in errors ("… not on [_routing] which is of type [_routing]").
    if (def !== undefined) (out.fields as Map<string, typeof def>).set(ROUTING_FIELD, def);
    extended.set(mappings, out);
  }
  return out;
}

/** Whether a list entry expands to `field` of the extended mapping: `*` alone never reaches `_routing`. */
export function listEntryReaches(pattern: string, field: string): boolean {
  return field !== ROUTING_FIELD || pattern !== '*';
}

/** Throws ES-dialect's refusal when a list entry names (or, as a pattern, matches) a metadata field other than `_routing`. */
export function refuseListedMetadata(pattern: string, indexName: string): void {
  if (pattern === '*' || !pattern.startsWith('_') && !pattern.startsWith('*')) return;
  const hit = pattern.includes('*') ? [...NAMED_ONLY, ...REFUSED_METADATA].find((m) => globMatch(pattern, m)) : REFUSED_METADATA.find((m) => pattern === m);
  if (hit === undefined) return;
  throw queryCreation(indexName, `the metadata field [${hit}] in the fields of a [multi_match], [query_string] or [simple_query_string] query is not supported by this server`);
}
