import { errors, SearchError } from '../errors.js';

/**
 * The root metadata mappers of a mapping that change what the document APIs do: `_routing`
 * (`required: true` refuses a write, get or delete without routing) and `_source`
 * (`enabled: false` keeps no source to return). ES renders them in GET `_mapping` only when they
 * differ from their defaults, by name after `_meta`; a put mapping may repeat them but not change
 * them ("Mapper for [_routing] conflicts with existing mapper").
 */
export interface RootMeta {
  /** `_routing.required`: false unless the mapping says true. */
  readonly routingRequired: boolean;
  /** `_source.enabled`: true unless the mapping says false. */
  readonly sourceEnabled: boolean;
  /** `_source.includes`: the patterns of the fields the kept `_source` holds (all when empty). */
  readonly sourceIncludes: readonly string[];
  /** `_source.excludes`: the patterns of the fields left out of the kept `_source` (still indexed). */
  readonly sourceExcludes: readonly string[];
}

export const DEFAULT_ROOT_META: RootMeta = { routingRequired: false, sourceEnabled: true, sourceIncludes: [], sourceExcludes: [] };

/** ES's nodeBooleanValue for a metadata mapper parameter; throws its mapper_parsing_exception. */
function booleanParam(v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  // ES wraps Booleans.parseBoolean's IllegalArgumentException in the mapper_parsing_exception.
  const reason = `Failed to parse value [${typeof v === 'string' ? v : JSON.stringify(v)}] as only [true] or [false] are allowed.`;
  const outer = `Failed to parse mapping: ${reason}`;
  throw new SearchError(400, { type: 'mapper_parsing_exception', reason: outer, causedBy: { type: 'illegal_argument_exception', reason } }, [{ type: 'mapper_parsing_exception', reason: outer }]);
}

/** ES's string array parameter of a metadata mapper: a list of strings (or one string); throws its mapper_parsing_exception. */
function patternsParam(v: unknown, name: string): string[] {
  if (v === null) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  // A single string or other values: ES 8 and OpenSearch read them differently; refused here.
  const reason = `[${name}] on mapper [_source] must be a list of strings, got [${JSON.stringify(v)}]`;
  throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
}

function mapperObject(v: unknown, name: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    const reason = `Expected map for property [${name}]`;
    throw errors.mapperParsing(reason, `Failed to parse mapping: ${reason}`);
  }
  return v as Record<string, unknown>;
}

/**
 * The `_routing` and `_source` of a mapping's root (already checked by checkMappingParameters
 * when a request brings it: only `required` and `enabled` get this far).
 */
export function parseRootMeta(root: Record<string, unknown>): RootMeta {
  let routingRequired = false;
  let sourceEnabled = true;
  let sourceIncludes: string[] = [];
  let sourceExcludes: string[] = [];
  if (root._routing !== undefined && root._routing !== null) {
    const r = mapperObject(root._routing, '_routing');
    if (r.required !== undefined) routingRequired = booleanParam(r.required);
  }
  if (root._source !== undefined && root._source !== null) {
    const s = mapperObject(root._source, '_source');
    if (s.enabled !== undefined) sourceEnabled = booleanParam(s.enabled);
    if (s.includes !== undefined) sourceIncludes = patternsParam(s.includes, 'includes');
    if (s.excludes !== undefined) sourceExcludes = patternsParam(s.excludes, 'excludes');
  }
  return { routingRequired, sourceEnabled, sourceIncludes, sourceExcludes };
}

/** What GET `_mapping` shows of them: only what differs from the defaults, `_routing` before `_source`. */
export function rootMetaJson(meta: RootMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (meta.routingRequired) out._routing = { required: true };
  const source: Record<string, unknown> = {};
  if (!meta.sourceEnabled) source.enabled = false;
  if (meta.sourceIncludes.length > 0) source.includes = meta.sourceIncludes;
  if (meta.sourceExcludes.length > 0) source.excludes = meta.sourceExcludes;
  if (Object.keys(source).length > 0) out._source = source;
  return out;
}

/** A put mapping that names `_routing` or `_source` must keep their values (ES: neither can be updated). */
export function checkRootMetaUpdate(current: RootMeta, update: RootMeta, raw: Record<string, unknown>): void {
  const conflict = (mapper: string, ...changes: [param: string, from: boolean | string, to: boolean | string][]): void => {
    // ES lists every parameter of the mapper that the update would change.
    if (changes.length === 0) return;
    throw errors.illegalArgument(`Mapper for [${mapper}] conflicts with existing mapper:${changes.map(([param, from, to]) => `\n\tCannot update parameter [${param}] from [${from}] to [${to}]`).join('')}`);
  };
  if (raw._routing !== undefined && update.routingRequired !== current.routingRequired) conflict('_routing', ['required', current.routingRequired, update.routingRequired]);
  if (raw._source === undefined) return;
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const list = (a: readonly string[]) => `[${a.join(', ')}]`;
  const changes: [string, boolean | string, boolean | string][] = [];
  if (update.sourceEnabled !== current.sourceEnabled) changes.push(['enabled', current.sourceEnabled, update.sourceEnabled]);
  if (!same(update.sourceIncludes, current.sourceIncludes)) changes.push(['includes', list(current.sourceIncludes), list(update.sourceIncludes)]);
  if (!same(update.sourceExcludes, current.sourceExcludes)) changes.push(['excludes', list(current.sourceExcludes), list(update.sourceExcludes)]);
  conflict('_source', ...changes);
}
