import { errors } from '../errors.js';
import { intParam, type QueryParams } from '../http/url-params.js';
import { jsonToken, objectMembers, textLocation } from '../syntax/json-members.js';
import { didYouMean } from '../syntax/did-you-mean.js';
import type { Query } from './query-dsl.js';
import { parseSearchRequest } from './search-request.js';
import type { SourceFilter } from './source-filter.js';
import type { VersionType } from './write-conditions.js';

/**
 * The bodies and URL parameters of `_delete_by_query`, `_update_by_query` and `_reindex` as ES 8
 * reads them. Portico runs each on one node without scripts, remote sources or background tasks:
 * what it does not do (`script`, a remote `source`, `wait_for_completion=false`)
 * is refused with ES's error types, never ignored.
 */

export type Conflicts = 'abort' | 'proceed';

export interface ByQueryRequest {
  readonly query: Query;
  readonly maxDocs: number | undefined;
  readonly conflicts: Conflicts;
  /** Documents per batch (ES's scroll size), for the `batches` count. */
  readonly batchSize: number;
  readonly requestsPerSecond: number;
  /** `slices`: how many slices the work is split into (`auto`: one per shard, see by-query-routes.ts). */
  readonly slices: number | 'auto';
}

export interface ReindexRequest extends ByQueryRequest {
  readonly sourceIndices: string;
  readonly sourceFilter: SourceFilter | undefined;
  readonly dest: string;
  readonly opType: 'index' | 'create';
  readonly versionType: VersionType;
}

function conflictsOf(v: unknown): Conflicts {
  if (v === undefined) return 'abort';
  if (v === 'abort' || v === 'proceed') return v;
  throw errors.illegalArgument(`conflicts may only be "proceed" or "abort" but was [${String(v)}]`);
}

function maxDocsOf(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n)) throw errors.illegalArgument(`Failed to parse int parameter [max_docs] with value [${String(v)}]`);
  if (n < 0) throw errors.illegalArgument(`[max_docs] parameter cannot be negative, found [${n}]`);
  return n;
}

/** The parameters every one of them reads the same way (`slices`, `wait_for_completion`, `requests_per_second`, `scroll_size`). */
function commonParams(params: QueryParams): { batchSize: number; requestsPerSecond: number; slices: number | 'auto' } {
  // `auto` is one slice per shard, known once the indices are (by-query-routes.ts).
  let slices: number | 'auto' = params.slices === 'auto' ? 'auto' : 1;
  if (params.slices !== undefined && params.slices !== 'auto') {
    const n = intParam(params, 'slices') as number;
    if (n < 1) throw errors.illegalArgument(`[slices] must be at least 1, was [${n}]`);
    slices = n;
  }
  if (params.wait_for_completion === 'false') throw errors.contextUnsupported('[wait_for_completion=false] (background tasks)');
  const rps = params.requests_per_second;
  let requestsPerSecond = -1;
  if (rps !== undefined && rps !== '-1' && rps !== 'unlimited') {
    requestsPerSecond = Number(rps);
    if (!(requestsPerSecond > 0)) {
      throw errors.illegalArgument(`[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.`);
    }
  }
  const batchSize = intParam(params, 'scroll_size') ?? 1000;
  return { batchSize, requestsPerSecond, slices };
}

function refuseUnknown(text: string, body: Record<string, unknown>, known: readonly string[]): void {
  for (const m of objectMembers(text)) {
    if (known.includes(m.key)) continue;
    const { line, col } = textLocation(text, m.keyAt);
    throw errors.parsing(`Unknown key for a ${jsonToken(body[m.key])} in [${m.key}].${didYouMean(m.key, known)}`, line, col);
  }
}

/** `_delete_by_query` (`update` false) or `_update_by_query`: the query (body or `q=`), `max_docs`, `conflicts`. */
export function parseByQuery(text: string | undefined, body: unknown, params: QueryParams, update: boolean): ByQueryRequest {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw errors.parsing(`Unknown key for a ${jsonToken(body)} in [null].`);
  const b = (body ?? {}) as Record<string, unknown>;
  if (text !== undefined) refuseUnknown(text, b, ['query', 'max_docs', 'conflicts', 'slice', ...(update ? ['script'] : [])]);
  if (b.script !== undefined) throw errors.contextUnsupported('[script] in _update_by_query (Portico runs no scripts)');
  if (b.slice !== undefined) throw errors.contextUnsupported('[slice]');
  if (body === undefined && params.q === undefined && !update) throw errors.actionValidation(['query is missing']);
  const query = parseSearchRequest(b.query === undefined ? {} : { query: b.query }, { q: params.q, df: params.df, default_operator: params.default_operator }).query;
  const maxDocs = params.max_docs !== undefined ? maxDocsOf(params.max_docs) : maxDocsOf(b.max_docs);
  return { query, maxDocs, conflicts: conflictsOf(params.conflicts ?? b.conflicts), ...commonParams(params) };
}

const SOURCE_KEYS = ['index', 'query', 'size', '_source', 'remote', 'sort', 'slice'];
const DEST_KEYS = ['index', 'op_type', 'version_type', 'routing', 'pipeline'];

function sourceFilterOf(v: unknown): SourceFilter | undefined {
  if (v === undefined || v === true) return undefined;
  if (v === false) return { fetch: false, includes: [], excludes: [] };
  if (typeof v === 'string') return { fetch: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) return { fetch: true, includes: v.map(String), excludes: [] };
  const o = v as Record<string, unknown>;
  const list = (x: unknown) => (x === undefined ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
  return { fetch: true, includes: list(o.includes), excludes: list(o.excludes) };
}

function object(v: unknown, name: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.parsing(`[reindex] ${name} doesn't support values of type: ${jsonToken(v)}`);
  return v as Record<string, unknown>;
}

/** What `_reindex` reads in `source` and `dest` and Portico does not do: refused. */
function refuseInReindex(source: Record<string, unknown>, dest: Record<string, unknown>): void {
  for (const k of Object.keys(source)) if (!SOURCE_KEYS.includes(k)) throw errors.xContentParse(1, 1, `[source] unknown field [${k}]`);
  for (const k of Object.keys(dest)) if (!DEST_KEYS.includes(k)) throw errors.xContentParse(1, 1, `[dest] unknown field [${k}]`);
  if (source.remote !== undefined) throw errors.contextUnsupported('[remote] in _reindex (a remote source)');
  if (source.slice !== undefined || source.sort !== undefined) throw errors.contextUnsupported(`[${source.slice !== undefined ? 'slice' : 'sort'}] in _reindex's source`);
  if (dest.pipeline !== undefined) throw errors.contextUnsupported('[pipeline] (ingest pipelines)');
  if (dest.routing !== undefined && dest.routing !== 'keep') throw errors.contextUnsupported('[routing] other than keep');
}

/** `_reindex` from a local source into a local destination. */
export function parseReindex(text: string | undefined, body: unknown, params: QueryParams): ReindexRequest {
  if (text === undefined) throw errors.bodyRequired();
  const b = object(body, 'body');
  for (const m of objectMembers(text)) {
    if (['source', 'dest', 'max_docs', 'conflicts', 'script', 'size'].includes(m.key)) continue;
    const { line, col } = textLocation(text, m.keyAt);
    throw errors.xContentParse(line, col, `[reindex] unknown field [${m.key}]`);
  }
  if (b.script !== undefined) throw errors.contextUnsupported('[script] in _reindex (Portico runs no scripts)');
  const source = object(b.source ?? {}, 'source');
  const dest = object(b.dest ?? {}, 'dest');
  refuseInReindex(source, dest);
  const problems: string[] = [];
  const indices = Array.isArray(source.index) ? source.index.map(String).join(',') : source.index === undefined ? undefined : String(source.index);
  if (indices === undefined || indices === '') problems.push('use _all if you really want to copy from all existing indexes');
  if (dest.index === undefined || dest.index === '') problems.push('index is missing');
  const opType = dest.op_type ?? 'index';
  if (opType !== 'index' && opType !== 'create') throw errors.illegalArgument(`opType must be 'create' or 'index', found: [${String(opType)}]`);
  const versionType = (dest.version_type ?? 'internal') as string;
  if (!['internal', 'external', 'external_gte'].includes(versionType)) throw errors.illegalArgument(`No version type match [${versionType}]`);
  if (problems.length > 0) throw errors.actionValidation(problems);
  const query = parseSearchRequest(source.query === undefined ? {} : { query: source.query }, {}).query;
  const common = commonParams(params);
  const batchSize = typeof source.size === 'number' ? source.size : common.batchSize;
  const maxDocs = params.max_docs !== undefined ? maxDocsOf(params.max_docs) : maxDocsOf(b.max_docs ?? b.size);
  return {
    query, maxDocs, conflicts: conflictsOf(b.conflicts), batchSize, requestsPerSecond: common.requestsPerSecond, slices: common.slices,
    sourceIndices: indices as string, sourceFilter: sourceFilterOf(source._source), dest: String(dest.index), opType, versionType: versionType as VersionType,
  };
}
