import { globMatch } from '../syntax/glob.js';
import { setMember } from '../syntax/json-members.js';

/** `_source` filtering: includes and excludes with `*` wildcards on dotted paths. */

export interface SourceFilter {
  /** false for `_source: false`: hits carry no `_source`. */
  readonly fetch: boolean;
  readonly includes: readonly string[];
  readonly excludes: readonly string[];
}

/** Whether a pattern matches the dotted path (globMatch: a RegExp of `.*` runs backtracks exponentially). */
function matchesAny(patterns: readonly string[], path: string): boolean {
  return patterns.some((p) => globMatch(p, path));
}

/** True when nothing is filtered, so the stored JSON text can be sent as is. */
export function isIdentity(filter: SourceFilter): boolean {
  return filter.fetch && filter.includes.length === 0 && filter.excludes.length === 0;
}

/**
 * Applies the filter to a parsed source. A path is kept when it (or one of its ancestors) matches
 * an include, or when an include names something below it (objects are walked into); excludes win.
 */
export function filterSource(source: unknown, filter: SourceFilter): unknown {
  const inc = filter.includes;
  const exc = filter.excludes;
  const walk = (value: unknown, path: string, included: boolean): unknown => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const p = path === '' ? k : `${path}.${k}`;
        if (matchesAny(exc, p)) continue;
        const selfIncluded = included || inc.length === 0 || matchesAny(inc, p);
        const isObj = v !== null && typeof v === 'object';
        if (!selfIncluded && !isObj) continue;
        const child = walk(v, p, selfIncluded);
        if (!selfIncluded && isObj && !Array.isArray(v) && Object.keys(child as object).length === 0) continue;
        if (!selfIncluded && Array.isArray(v) && (child as unknown[]).length === 0) continue;
        setMember(out, k, child);
      }
      return out;
    }
    if (Array.isArray(value)) {
      return value
        .map((v) => walk(v, path, included))
        .filter((v) => included || (v !== null && typeof v === 'object' && Object.keys(v as object).length > 0));
    }
    return value;
  };
  return walk(source, '', false);
}

/**
 * The filter the URL parameters ask for (`_source=false|true|a,b`, `_source_includes`,
 * `_source_excludes`), as ES reads them on the get API; includes/excludes win over `_source`.
 */
export function sourceFilterFromParams(params: Readonly<Record<string, string | undefined>>): SourceFilter {
  let out: SourceFilter = { fetch: true, includes: [], excludes: [] };
  const raw = params._source;
  if (raw === 'false') out = { fetch: false, includes: [], excludes: [] };
  else if (raw !== undefined && raw !== 'true' && raw !== '') out = { fetch: true, includes: raw.split(','), excludes: [] };
  const inc = params._source_includes ?? params._source_include;
  const exc = params._source_excludes ?? params._source_exclude;
  if (inc !== undefined || exc !== undefined) {
    out = { fetch: true, includes: inc !== undefined ? inc.split(',') : out.includes, excludes: exc !== undefined ? exc.split(',') : out.excludes };
  }
  return out;
}
