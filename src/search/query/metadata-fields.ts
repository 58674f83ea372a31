import { errors, type SearchError } from '../errors.js';
import type { Query } from '../requests/query-dsl.js';

/**
 * What Elasticsearch 8 lets aggregations, sorts and queries do with its metadata fields (`_source`,
 * `_version`, `_seq_no`, …), which are not in an index's mappings: without this catalogue they
 * would read as unmapped fields, and an aggregation on `_source` would answer empty buckets where ES
 * refuses it. `_index` and `_id` are handled where they are read (agg-field.ts, sort.ts,
 * index-field-query.ts); `_routing` queries belong with custom routing. Each refusal is ES's own
 * error, checked against the OpenSearch node; `_seq_no`, which ES can aggregate, sort and range
 * over, is refused as not supported by this server rather than answered as unmapped.
 */

/** Metadata fields without doc values: ES refuses to aggregate or sort on them. */
const NO_FIELDDATA = new Set(['_routing', '_source', '_version', '_ignored', '_field_names', '_doc_count', '_nested_path', '_data_stream_timestamp']);

/** The metadata fields whose `exists` matches every document. */
const ALWAYS_PRESENT = new Set(['_index', '_id', '_seq_no', '_version']);

/** Metadata fields ES answers `range` on with "does not support range queries". */
const NO_RANGE = new Set(['_index', '_id', '_source', '_version', '_field_names', '_doc_count', '_data_stream_timestamp']);

/** ES's shard error of `indexName` for an aggregation or sort on metadata field `field`; undefined for another field. */
export function metadataFielddataError(indexName: string, field: string): SearchError | undefined {
  if (NO_FIELDDATA.has(field)) return errors.shardFailure(indexName, { type: 'illegal_argument_exception', reason: `Fielddata is not supported on field [${field}] of type [${field}]` });
  if (field === '_seq_no') return errors.shardFailure(indexName, { type: 'illegal_argument_exception', reason: 'aggregations and sorts on the [_seq_no] field are not supported by this server' });
  return undefined;
}

function notSearchable(field: string): string | undefined {
  if (field === '_source' || field === '_version') return `The ${field} field is not searchable`;
  if (field === '_doc_count') return `Field [_doc_count] of type [_doc_count] is not searchable`;
  if (field === '_data_stream_timestamp') return `failed to create query: Cannot run term query on internal field [_data_stream_timestamp]`;
  if (field === '_seq_no') return 'queries on the [_seq_no] field are not supported by this server';
  return undefined;
}

function existsOn(field: string): 'all' | string | undefined {
  if (ALWAYS_PRESENT.has(field)) return 'all';
  if (field === '_source') return 'The _source field is not searchable';
  if (field === '_field_names') return 'failed to create query: Cannot run exists query on _field_names';
  if (field === '_nested_path') return 'failed to create query: Cannot run exists() query against the nested field path';
  if (field === '_data_stream_timestamp') return 'failed to create query: Cannot run exists query on internal field [_data_stream_timestamp]';
  return undefined;
}

/** Whether `field` is `_id` or `_index`: term-like metadata fields (a match on them is a term on the whole text), not keyword fields. */
export function isIdOrIndex(field: string): boolean {
  return field === '_id' || field === '_index';
}

/** ES's refusal of a multi-term query (`prefix`, `wildcard`, `regexp`, `fuzzy`) on a field of type `type`. */
export function onlyKeywordAndText(kind: string, field: string, type = field): string {
  return `Can only use ${kind} queries on keyword and text fields - not on [${field}] which is of type [${type}]`;
}

/** ES's refusal of a phrase prefix query on a field of type `type` that is not text. */
export function phrasePrefixOnlyText(field: string, type: string): string {
  return `Can only use phrase prefix queries on text fields - not on [${field}] which is of type [${type}]`;
}

function rangeOn(field: string): string | undefined {
  if (NO_RANGE.has(field)) return `failed to create query: Field [${field}] of type [${field}] does not support range queries`;
  return notSearchable(field);
}

/**
 * A query on a metadata field as ES answers it on index `indexName`: 'all' (every document, score 1
 * times the boost), or throws ES's shard error; undefined when the query is not on such a field
 * (or is answered elsewhere).
 */
export function metadataQuery(query: Query, indexName: string): 'all' | undefined {
  let reason: string | undefined;
  switch (query.kind) {
    case 'exists': {
      const r = existsOn(query.field);
      if (r === 'all') return 'all';
      reason = r;
      break;
    }
    case 'term':
    case 'terms':
    case 'match':
      reason = notSearchable(query.field);
      break;
    case 'range':
      reason = rangeOn(query.field);
      break;
    case 'regexp':
      if (isIdOrIndex(query.field)) reason = onlyKeywordAndText('regexp', query.field);
      break;
    case 'prefix':
    case 'wildcard':
      // On `_index` both are answered from the index's name (index-field-query.ts), but for a
      // query_string pattern over its field list.
      if (query.field === '_id' || (query.kind === 'wildcard' && query.listed === true && query.field === '_index')) reason = onlyKeywordAndText(query.kind, query.field);
      break;
    case 'fuzzy':
      if (isIdOrIndex(query.field)) reason = `failed to create query: ${onlyKeywordAndText('fuzzy', query.field)}`;
      break;
    case 'match_phrase_prefix':
      if (isIdOrIndex(query.field)) reason = `failed to create query: ${phrasePrefixOnlyText(query.field, query.field)}`;
      break;
    default:
      return undefined;
  }
  if (reason !== undefined) throw errors.queryShard(indexName, reason);
  return undefined;
}
