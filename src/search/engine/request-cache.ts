import { renderJson } from '../http/json-render.js';
import type { Mappings } from '../mapping/mapping.js';
import type { IndexState } from './index-state.js';

/**
 * Elasticsearch's shard request cache (`index.requests.cache.enable`, on by default): the answer of
 * a search of one index with `size: 0` (its hit count, aggregations and suggestions), kept per index
 * and keyed by the request, and given again while the index shows the same documents. Each index
 * is one shard here, so the cache is per index. What is cached and when (checked against the
 * OpenSearch node, see docs/search.md):
 * - a search of one index (a search of several is never cached: its answer is merged over them,
 *   where ES caches each shard's part) that is not a scroll, a point in time, `profile` or
 *   suggest-only; with `size: 0`, or any size with `?request_cache=true`, which also caches where
 *   the index setting is off; `?request_cache=false` bypasses it;
 * - not when the search read `now` (date math in a range query or a date aggregation), as ES does
 *   not cache those;
 * - an entry holds until the index shows other documents (a refresh that shows writes, a compaction
 *   swapped in, the index closed, deleted or reloaded drop its entries), its mappings change (ES 8
 *   keys entries by the mapping too), or a setting a search reads (`index.max_result_window`,
 *   `index.max_terms_count`) changes; `POST /_cache/clear` drops them;
 * - bounded in bytes (--search.request-cache-size): the least recently used entries are evicted
 *   first (`evictions`). An entry's size is its key's UTF-8 bytes and its answer's compact JSON bytes.
 * A cached answer is the computed one with a new `took`.
 */

/** One cached answer. */
interface Entry {
  readonly key: string;
  readonly state: IndexState;
  /** What the answer was computed with: any other value makes it stale. */
  readonly mappings: Mappings;
  readonly maxResultWindow: number;
  readonly maxTermsCount: number;
  readonly body: Record<string, unknown>;
  readonly bytes: number;
}

/** ES's `request_cache` section of `_stats`. */
export interface RequestCacheStats {
  memory_size_in_bytes: number;
  evictions: number;
  hit_count: number;
  miss_count: number;
}

function zero(): RequestCacheStats {
  return { memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 };
}

/** The default bound of the cache, in bytes (--search.request-cache-size). */
export const REQUEST_CACHE_BYTES = 16 * 1024 * 1024;

export class RequestCache {
  /** Every entry by `<index uuid>\0<request key>`, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  /** Each index's entry keys, to drop them when the index changes. */
  private readonly byState = new Map<IndexState, Set<string>>();
  /** Per index (its state: a re-created index starts from zero, as a new ES shard does). */
  private readonly counters = new WeakMap<IndexState, RequestCacheStats>();
  private bytes = 0;

  /** @param maxBytes the bound of all entries together (0: nothing is cached) */
  constructor(public maxBytes = REQUEST_CACHE_BYTES) {}

  /**
   * Whether a search of `state` may use the cache: `requestCache` is the `request_cache` URL
   * parameter, `size` the request's. The caller has ruled out scrolls, points in time, profiles
   * and searches of several indices.
   */
  applies(state: IndexState, requestCache: string | undefined, size: number): boolean {
    if (this.maxBytes <= 0) return false;
    if (requestCache === 'false') return false;
    if (requestCache === 'true') return true;
    return size === 0 && state.settings.requestCacheEnabled;
  }

  /**
   * The cached answer of `key` on `state`, counted as a hit; undefined when there is none (a stale
   * one is dropped). A miss is counted by `put`, once the search is known to be cacheable (it may
   * turn out to read `now`, which ES knows before it looks and counts nothing for).
   */
  get(state: IndexState, key: string): Record<string, unknown> | undefined {
    const full = `${state.uuid}\0${key}`;
    const e = this.entries.get(full);
    if (e === undefined) return undefined;
    if (e.state !== state || e.mappings !== state.mappings || e.maxResultWindow !== state.settings.maxResultWindow || e.maxTermsCount !== state.settings.maxTermsCount) {
      this.remove(e);
      return undefined;
    }
    this.of(state).hit_count++;
    // Most recently used: last in the map.
    this.entries.delete(full);
    this.entries.set(full, e);
    return e.body;
  }

  /**
   * A miss of `key` on `state` computed `body` (a failed search: undefined, counted all the same):
   * kept, evicting the least recently used entries to make room. An answer larger than the whole
   * cache is not kept.
   */
  put(state: IndexState, key: string, body: Record<string, unknown> | undefined): void {
    this.of(state).miss_count++;
    if (body === undefined) return;
    const full = `${state.uuid}\0${key}`;
    const bytes = Buffer.byteLength(full) + Buffer.byteLength(renderJson(body, false, true));
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(full);
    if (old !== undefined) this.remove(old);
    while (this.bytes + bytes > this.maxBytes) {
      const lru = this.entries.values().next().value as Entry;
      this.remove(lru);
      this.of(lru.state).evictions++;
    }
    const e: Entry = { key: full, state, mappings: state.mappings, maxResultWindow: state.settings.maxResultWindow, maxTermsCount: state.settings.maxTermsCount, body, bytes };
    this.entries.set(full, e);
    let keys = this.byState.get(state);
    if (keys === undefined) this.byState.set(state, (keys = new Set()));
    keys.add(full);
    this.bytes += bytes;
    this.of(state).memory_size_in_bytes += bytes;
  }

  /** Drops every entry of `state` (it shows other documents, or `_cache/clear`); its counters stay. */
  clear(state: IndexState): void {
    const keys = this.byState.get(state);
    if (keys === undefined) return;
    for (const k of [...keys]) {
      const e = this.entries.get(k);
      if (e !== undefined) this.remove(e);
    }
  }

  /** Drops the entries of every index whose state is not `current` (deleted, closed, reloaded). */
  retain(current: (state: IndexState) => boolean): void {
    for (const s of [...this.byState.keys()]) if (!current(s)) this.clear(s);
  }

  /** `state`'s `request_cache` section of `_stats`. */
  stats(state: IndexState): RequestCacheStats {
    return { ...this.of(state) };
  }

  /** The bytes all entries take. */
  get size(): number {
    return this.bytes;
  }

  private remove(e: Entry): void {
    this.entries.delete(e.key);
    this.bytes -= e.bytes;
    this.of(e.state).memory_size_in_bytes -= e.bytes;
    const keys = this.byState.get(e.state);
    keys?.delete(e.key);
    if (keys?.size === 0) this.byState.delete(e.state);
  }

  private of(state: IndexState): RequestCacheStats {
    let c = this.counters.get(state);
    if (c === undefined) this.counters.set(state, (c = zero()));
    return c;
  }
}

/** Sums `_stats` sections (`_all`, a node's `indices`). */
export function sumRequestCacheStats(all: readonly RequestCacheStats[]): RequestCacheStats {
  const out = zero();
  for (const s of all) {
    out.memory_size_in_bytes += s.memory_size_in_bytes;
    out.evictions += s.evictions;
    out.hit_count += s.hit_count;
    out.miss_count += s.miss_count;
  }
  return out;
}

/**
 * URL parameters that are not part of the key: those that change how an answer is written, not
 * what it is; those that choose the indices (the entry is the chosen index's); and those that
 * change nothing on one shard (`search_type`: dfs_query_then_fetch is query_then_fetch there;
 * `routing`, `preference`), as the node keys the shard's request. `request_cache` is part of it, as
 * on the node (whose shard request carries it): `?request_cache=true` has entries of its own. An `_msearch` item is keyed the
 * same way (its header names none of these but the index), so it shares the entry of a `_search`.
 */
const NOT_KEYED = new Set([
  'pretty', 'filter_path', 'human', 'error_trace', 'search_type', 'routing', 'preference',
  'ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'ignore_throttled', 'ccs_minimize_roundtrips',
]);

/**
 * A search's key in the request cache: its URL parameters (all but NOT_KEYED, in name order) and
 * its body's text as sent. The node keys by the parsed request, so the same request written with
 * other whitespace or key order misses here where it hits there; never the other way round.
 */
export function requestCacheKey(params: Readonly<Record<string, string | undefined>>, bodyText: string | undefined): string {
  let key = '';
  for (const name of Object.keys(params).sort()) {
    const v = params[name];
    if (v === undefined || NOT_KEYED.has(name)) continue;
    key += `${name}=${v}\0`;
  }
  return `${key}\n${bodyText ?? ''}`;
}
