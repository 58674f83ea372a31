/**
 * The search area's error catalogue. Every failure a client can see is built here, with
 * Elasticsearch's type, status and reason text (see /work/shared/reference/search.md §1.2), and
 * rendered in ES's envelope: {"error":{"root_cause":[…],"type","reason",…},"status":N}.
 */

/** One cause in ES's error chain: type, reason and extra metadata keys (index, line, col, …). */
export interface EsCause {
  readonly type: string;
  readonly reason: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly causedBy?: EsCause;
}

export class SearchError extends Error {
  override readonly name = 'SearchError';
  constructor(
    readonly status: number,
    readonly cause_: EsCause,
    /** Root causes when they differ from the outer error (search_phase_execution_exception). */
    readonly rootCauses?: readonly EsCause[],
    /** Response headers that go with the error (WWW-Authenticate). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(cause_.reason);
  }

  get type(): string {
    return this.cause_.type;
  }

  /** ES's JSON body for this error. */
  toBody(): Record<string, unknown> {
    const roots = this.rootCauses ?? [{ type: this.cause_.type, reason: this.cause_.reason, meta: this.cause_.meta }];
    return {
      error: { root_cause: roots.map((r) => causeBody(r, false)), ...causeBody(this.cause_, true) },
      status: this.status,
    };
  }
}

function causeBody(c: EsCause, withCause: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { type: c.type, reason: c.reason, ...(c.meta ?? {}) };
  if (withCause && c.causedBy) body.caused_by = causeBody(c.causedBy, true);
  return body;
}

/** ES's limit on an `_id`, in UTF-8 bytes (DocWriteRequest.validateDocIdLength). */
export const MAX_ID_BYTES = 512;

/** The validation problem (for `errors.actionValidation`) of an `_id` of `bytes` UTF-8 bytes, above MAX_ID_BYTES. */
export function idTooLong(id: string, bytes: number): string {
  return `id [${id}] is too long, must be no longer than ${MAX_ID_BYTES} bytes but was: ${bytes}`;
}

const err = (status: number, type: string, reason: string, meta?: Record<string, unknown>, causedBy?: EsCause) =>
  new SearchError(status, { type, reason, meta, causedBy });

function indexMeta(index: string, uuid = '_na_'): Record<string, unknown> {
  return { index_uuid: uuid, index };
}

/**
 * ES reads versions and sequence numbers as Java longs (up to 2^63 - 1); they are JavaScript
 * numbers here, exact only up to 2^53 - 1. A longer one (a nanosecond timestamp as an external
 * version, say) is refused rather than rounded: a rounded version is answered as another one, and
 * a newer write that rounds to the stored version is refused as a conflict. Exact longs would need
 * BigInt through the store, the snapshot and the response writers.
 */
export function unsafeLong(name: string, shown: string | undefined): SearchError {
  const value = shown === undefined ? '' : ` [${shown}]`;
  return errors.illegalArgument(
    `[${name}] value${value} is beyond ±${Number.MAX_SAFE_INTEGER}, the largest integer this server holds exactly; it refuses the value rather than round it`,
  );
}

export const errors = {
  indexNotFound: (index: string) =>
    err(404, 'index_not_found_exception', `no such index [${index}]`, {
      'resource.type': 'index_or_alias',
      'resource.id': index,
      ...indexMeta(index),
    }),
  /** ES's answer for a closed index (ClusterBlockException's cause on a search, get or write). */
  indexClosed: (index: string, uuid: string) => err(400, 'index_closed_exception', 'closed', indexMeta(index, uuid)),
  indexExists: (index: string, uuid: string) =>
    err(400, 'resource_already_exists_exception', `index [${index}/${uuid}] already exists`, indexMeta(index, uuid)),
  invalidIndexName: (index: string, why: string) =>
    err(400, 'invalid_index_name_exception', `Invalid index name [${index}], ${why}`, indexMeta(index)),
  illegalArgument: (reason: string) => err(400, 'illegal_argument_exception', reason),
  /** Booleans.parseBoolean on anything but true/false. */
  notBoolean: (value: string) => err(400, 'illegal_argument_exception', `Failed to parse value [${value}] as only [true] or [false] are allowed.`),
  /** A write with `require_alias` whose target is not an alias (there are no aliases here). */
  requireAlias: (index: string) =>
    err(404, 'index_not_found_exception', `no such index [${index}] and [require_alias] request flag is [true] and [${index}] is not an alias`, {
      'resource.type': 'index_or_alias',
      'resource.id': index,
      ...indexMeta(index),
    }),
  resourceNotFound: (reason: string) => err(404, 'resource_not_found_exception', reason),
  /** `_cat/*?s=` naming a column the table does not have (RestTable). */
  unsupportedCatSort: (name: string) => err(400, 'unsupported_operation_exception', `Unable to sort by unknown sort key \`${name}\``),
  /** Jackson's intValue() on a non-numeric string in the body (NumberFormatException). */
  numberFormat: (value: string) => err(400, 'number_format_exception', `For input string: "${value}"`),
  inputCoercion: (reason: string) => err(400, 'input_coercion_exception', reason),
  parsing: (reason: string, line?: number, col?: number) =>
    err(400, 'parsing_exception', reason, line !== undefined ? { line, col } : undefined),
  unknownQuery: (name: string, suggestion?: string) =>
    err(400, 'parsing_exception', `unknown query [${name}]${suggestion ?? ''}`, { line: 1, col: 1 }, {
      type: 'named_object_not_found_exception',
      reason: `[1:1] unknown field [${name}]`,
    }),
  /** Malformed JSON: x_content_parse_exception wrapping the parser's message, status 400. */
  malformedJson: (line: number, col: number, message: string) =>
    err(400, 'x_content_parse_exception', `[${line}:${col}] ${message}`, undefined, {
      type: 'json_parse_exception',
      reason: `${message}\n at [Source: (byte[])"…"; line: ${line}, column: ${col}]`,
    }),
  mapperParsing: (reason: string, outer?: string) =>
    outer === undefined
      ? err(400, 'mapper_parsing_exception', reason)
      : new SearchError(400, { type: 'mapper_parsing_exception', reason: outer, causedBy: { type: 'mapper_parsing_exception', reason } }, [
          { type: 'mapper_parsing_exception', reason },
        ]),
  documentParsing: (reason: string, cause?: EsCause) => err(400, 'document_parsing_exception', reason, undefined, cause),
  strictDynamic: (field: string, path: string) =>
    err(400, 'strict_dynamic_mapping_exception', `[1:1] mapping set to strict, dynamic introduction of [${field}] within [${path}] is not allowed`),
  versionConflictExists: (index: string, uuid: string, id: string, version: number) =>
    err(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${version}])`, {
      index_uuid: uuid,
      shard: '0',
      index,
    }),
  /** A write whose version or sequence-number condition the current document does not meet (`why`: see write-conditions.ts). */
  versionConflict: (index: string, uuid: string, id: string, why: string) =>
    err(409, 'version_conflict_engine_exception', `[${id}]: version conflict, ${why}`, { index_uuid: uuid, shard: '0', index }),
  documentMissing: (index: string, uuid: string, id: string) =>
    err(404, 'document_missing_exception', `[${id}]: document missing`, { index_uuid: uuid, shard: '0', index }),
  /** A write, get or delete without routing on an index whose mapping says `_routing: {required: true}` (RoutingMissingException). */
  routingMissing: (index: string, id: string) =>
    err(400, 'routing_missing_exception', `routing is required for [${index}]/[${id}]`, { index_uuid: '_na_', index }),
  /** An update of a document whose index keeps no `_source` (`_source: {enabled: false}`): UpdateHelper has nothing to merge into. */
  documentSourceMissing: (index: string, uuid: string, id: string) =>
    err(400, 'document_source_missing_exception', `[${id}]: document source missing`, { index_uuid: uuid, shard: '0', index }),
  /** IndexRouting: an index/create item whose `_id` is given but empty (that item's error, not the request's). */
  emptyId: () => err(400, 'illegal_argument_exception', 'if _id is specified it must not be empty'),
  actionValidation: (problems: readonly string[]) =>
    err(400, 'action_request_validation_exception', `Validation Failed: ${problems.map((p, i) => `${i + 1}: ${p};`).join('')}`),
  /** A shard-level failure (the result window check): wrapped in search_phase_execution_exception. */
  shardFailure: (index: string, inner: EsCause, status = 400) =>
    new SearchError(
      status,
      {
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        meta: {
          phase: 'query',
          grouped: true,
          failed_shards: [{ shard: 0, index, node: 'portico-node-0', reason: { type: inner.type, reason: inner.reason } }],
        },
        causedBy: { ...inner, causedBy: { type: inner.type, reason: inner.reason } },
      },
      [inner],
    ),
  resultWindowTooLarge: (index: string, max: number, requested: number) =>
    errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason:
        `Result window is too large, from + size must be less than or equal to: [${max}] but was [${requested}]. ` +
        'See the scroll api for a more efficient way to request large data sets. ' +
        'This limit can be set by changing the [index.max_result_window] index level setting.',
    }),
  /** The window check of a scroll's search (DefaultSearchContext): its batch size against the same setting. */
  batchTooLarge: (index: string, max: number, requested: number) =>
    errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason:
        `Batch size is too large, size must be less than or equal to: [${max}] but was [${requested}]. ` +
        'Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
    }),
  /** A feature of scroll or point in time Portico does not implement: refused rather than ignored. */
  contextUnsupported: (what: string) => err(400, 'illegal_argument_exception', `${what} is not supported by this server`),
  fielddataDisabled: (index: string, field: string) =>
    errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason:
        'Text fields are not optimised for operations that require per-document field data like aggregations and sorting, ' +
        'so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true ' +
        `on [${field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
    }),
  /** ES 8 refuses fielddata on `_id` (sorting, aggregations) unless a cluster setting allows it. */
  idFielddataDisabled: (index: string) =>
    errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason: 'Fielddata access on the _id field is disallowed, you can re-enable it by updating the dynamic cluster setting: indices.id_field_data.enabled',
    }),
  /** SearchAfterBuilder: a value that does not parse for its sort field's type. */
  searchAfterValue: (index: string, field: string, value: unknown) =>
    errors.shardFailure(index, {
      type: 'illegal_argument_exception',
      reason: `Failed to parse search_after value for field [${field}].`,
      causedBy: { type: 'number_format_exception', reason: `For input string: "${String(value)}"` },
    }),
  noMappingForSort: (index: string, field: string) =>
    errors.shardFailure(index, { type: 'query_shard_exception', reason: `No mapping found for [${field}] in order to sort on` }),
  queryShard: (index: string, reason: string) => errors.shardFailure(index, { type: 'query_shard_exception', reason }),
  bodyTooLarge: (length: number, max: number) =>
    err(413, 'content_too_long_exception', `request content length [${length}] exceeds the limit of [${max}] bytes`),
  unsupportedContentType: (ct: string) => new UnsupportedContentType(ct),
  mediaTypeHeader: (reason: string) =>
    err(400, 'media_type_header_exception', 'Invalid media-type value on headers [Content-Type, Accept]', undefined, { type: 'status_exception', reason }),
  missingAuth: (path: string) =>
    new SearchError(
      401,
      {
        type: 'security_exception',
        reason: `missing authentication credentials for REST request [${path}]`,
        meta: { header: { 'WWW-Authenticate': WWW_AUTHENTICATE } },
      },
      undefined,
      { 'WWW-Authenticate': WWW_AUTHENTICATE },
    ),
  badCredentials: (user: string, path: string) =>
    new SearchError(
      401,
      {
        type: 'security_exception',
        reason: `unable to authenticate user [${user}] for REST request [${path}]`,
        meta: { header: { 'WWW-Authenticate': WWW_AUTHENTICATE } },
      },
      undefined,
      { 'WWW-Authenticate': WWW_AUTHENTICATE },
    ),
  noHandler: (method: string, path: string) =>
    err(405, 'illegal_argument_exception', `Incorrect HTTP method for uri [${path}] and method [${method}], allowed: []`),
  internal: () => err(500, 'exception', 'internal server error'),
  /** A listener limit hit (too many connections): ES's refusal of work it has no room for. */
  rejected: (reason: string) => err(429, 'es_rejected_execution_exception', reason),
  /**
   * A write the disk had no room for (SQLite's "database or disk is full", ENOSPC): ES's answer
   * once a node passes the flood-stage watermark, which clients retry later like any 429.
   */
  diskFull: () =>
    err(429, 'cluster_block_exception', 'blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];'),
  /**
   * Index creation on a full disk: what OpenSearch answers once its disk monitor has set the
   * `cluster.blocks.create_index` block (Metadata's CLUSTER_CREATE_INDEX_BLOCK).
   */
  /** A read of a closed index that its block refuses (`_field_caps` naming it: TransportFieldCapabilitiesAction.checkIndexBlocks). */
  indexClosedBlock: (index: string) => err(403, 'cluster_block_exception', `index [${index}] blocked by: [FORBIDDEN/4/index closed];`),
  createIndexBlocked: () => err(403, 'index_create_block_exception', 'blocked by: [FORBIDDEN/10/cluster create-index blocked (api)];'),
  /** A request that arrives while the node shuts down (ES's NodeClosedException reaches REST as this). */
  shuttingDown: (reason: string) => err(503, 'node_closed_exception', `node closed: ${reason}`),
  /**
   * `_all`, `*` or no index at all resolving to no index under `allow_no_indices=false`
   * (IndexNameExpressionResolver's notFoundException for `_all`).
   */
  noIndicesExist: () =>
    err(404, 'index_not_found_exception', 'no such index [_all] and no indices exist', {
      'resource.type': 'index_or_alias',
      'resource.id': '_all',
      ...indexMeta('_all'),
    }),
  /** Several index expressions resolving to no index under `allow_no_indices=false` (no `index` metadata: ES's index is null). */
  indexExpressionsNotFound: (expressions: readonly string[]) =>
    err(404, 'index_not_found_exception', 'no such index [null]', { 'resource.type': 'index_expression', 'resource.id': [...expressions] }),
  /** An ObjectParser's refusal of a field (unknown, or a value type it does not take) at `[line:col]`, without a cause. */
  xContentParse: (line: number, col: number, message: string) => err(400, 'x_content_parse_exception', `[${line}:${col}] ${message}`),
  /**
   * An ObjectParser's field whose value its own parser refused (a boolean given as "yes", a bad
   * `_source`): "[line:col] [Parser] failed to parse field [f]" at the value, caused by `cause`.
   */
  fieldParse: (line: number, col: number, parser: string, field: string, cause: EsCause) =>
    err(400, 'x_content_parse_exception', `[${line}:${col}] [${parser}] failed to parse field [${field}]`, undefined, cause),
  /** Jackson's strict duplicate detection (always on in ES 8): the key that repeats one of its object's, located just past it. */
  duplicateField: (line: number, col: number, key: string) => errors.malformedJson(line, col, `Duplicate field '${key}'`),
  /**
   * A request body nested deeper than Jackson's StreamReadConstraints allow (1000 levels, ES 8.8+),
   * in the form of a malformed body: ES's own answer outside documents is not confirmed.
   */
  nestingTooDeep: (line: number, col: number) =>
    err(400, 'x_content_parse_exception', `[${line}:${col}] ${NESTING_TOO_DEEP}`, undefined, { type: 'stream_constraints_exception', reason: NESTING_TOO_DEEP }),
  /** A document nested deeper than Jackson allows: DocumentParser wraps the parser's refusal. */
  documentTooDeep: () =>
    err(400, 'document_parsing_exception', `[1:2] failed to parse: ${NESTING_TOO_DEEP}`, undefined, { type: 'stream_constraints_exception', reason: NESTING_TOO_DEEP }),
  /** ElasticsearchParseException (a request body ES reads by hand: `_mget`, `_msearch`). */
  parse: (reason: string) => err(400, 'parse_exception', reason),
  /** A request that needs a body and came without one (RestRequest.contentOrSourceParam). */
  bodyRequired: () => err(400, 'parse_exception', 'request body or source parameter is required'),
};

/** Jackson's (2.16+) refusal of the 1001st level of nesting (StreamReadConstraints.validateNestingDepth). */
const NESTING_TOO_DEEP = 'Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)';

/** The realm header the issue asks for (ES 7's single-string form). */
export const WWW_AUTHENTICATE = 'Basic realm="security" charset="UTF-8"';

/** ES answers an unsupported Content-Type with a flat body: {"error":"…","status":406}. */
export class UnsupportedContentType extends SearchError {
  constructor(readonly contentType: string) {
    super(406, { type: 'media_type', reason: `Content-Type header [${contentType}] is not supported` });
  }

  override toBody(): Record<string, unknown> {
    return { error: this.message, status: 406 };
  }
}
