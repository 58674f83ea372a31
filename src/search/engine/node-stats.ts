import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { IndexCounters } from './index-usage.js';
import type { IndexState } from './index-state.js';
import type { SearchService } from './search-service.js';
import { sumRequestCacheStats, type RequestCacheStats } from './request-cache.js';

/**
 * The figures of ES's `_stats`, `_nodes/stats` and `_cat/nodes`, measured here: documents and
 * store bytes of each index, what the service counted (index-usage.ts), and the process's own
 * memory, CPU and uptime. The process is Node, not a JVM: its V8 heap stands where ES shows the
 * JVM heap (`jvm.mem`, `heap.percent`), which is what those fields tell an operator.
 */

/** One index's `docs`, `store`, `indexing`, `search` and `request_cache` sections of `_stats`. */
export function indexStatsSections(service: SearchService, state: IndexState): Record<string, unknown> {
  // The document counts of the index's last refresh, as ES counts them per searcher.
  const seen = service.refreshedDocs(state);
  return statsSections(service.usage.of(state), seen.live, seen.deleted, service.storedBytes(state), service.contexts.size, service.requestCache.stats(state));
}

/** The same sections summed over `states` (`_all`, a node's `indices`). */
export function totalStatsSections(service: SearchService, states: readonly IndexState[]): Record<string, unknown> {
  let live = 0;
  let deleted = 0;
  let bytes = 0;
  for (const s of states) {
    const seen = service.refreshedDocs(s);
    live += seen.live;
    deleted += seen.deleted;
    bytes += service.storedBytes(s);
  }
  const cache = sumRequestCacheStats(states.map((s) => service.requestCache.stats(s)));
  return statsSections(service.usage.total(states), live, deleted, bytes, service.contexts.size, cache);
}

function statsSections(c: IndexCounters, live: number, deleted: number, bytes: number, openContexts: number, requestCache: RequestCacheStats): Record<string, unknown> {
  return {
    docs: { count: live, deleted, total_size_in_bytes: bytes },
    store: { size_in_bytes: bytes, total_data_set_size_in_bytes: bytes, reserved_in_bytes: 0 },
    indexing: {
      index_total: c.indexTotal,
      index_time_in_millis: Math.round(c.indexTimeMs),
      index_current: 0,
      index_failed: c.indexFailed,
      delete_total: c.deleteTotal,
      delete_time_in_millis: Math.round(c.deleteTimeMs),
      delete_current: 0,
      noop_update_total: 0,
      is_throttled: false,
      throttle_time_in_millis: 0,
    },
    search: {
      open_contexts: openContexts,
      query_total: c.queryTotal,
      query_time_in_millis: Math.round(c.queryTimeMs),
      query_current: 0,
      fetch_total: c.fetchTotal,
      fetch_time_in_millis: Math.round(c.fetchTimeMs),
      fetch_current: 0,
      scroll_total: c.scrollTotal,
      scroll_time_in_millis: 0,
      scroll_current: 0,
      suggest_total: 0,
      suggest_time_in_millis: 0,
      suggest_current: 0,
    },
    request_cache: requestCache,
  };
}

/** The process's memory and CPU as `_nodes/stats` and `_cat/nodes` show them. */
export interface ProcessFigures {
  readonly heapUsed: number;
  readonly heapCommitted: number;
  readonly heapMax: number;
  readonly nonHeapUsed: number;
  readonly rss: number;
  readonly ramTotal: number;
  readonly ramFree: number;
  /** The machine's CPU use (percent) since the previous call, or since boot on the first. */
  readonly cpuPercent: number;
  readonly processCpuMs: number;
  readonly load: readonly [number, number, number];
  readonly uptimeMs: number;
}

/** Measures the process (ProcessFigures); keeps the last CPU times to give recent use. */
export class ProcessProbe {
  private lastCpu: { idle: number; total: number } | undefined;

  constructor(private readonly startedMs: number, private readonly now: () => number) {}

  measure(): ProcessFigures {
    const mem = process.memoryUsage();
    const heap = getHeapStatistics();
    return {
      heapUsed: mem.heapUsed,
      heapCommitted: mem.heapTotal,
      heapMax: heap.heap_size_limit,
      nonHeapUsed: mem.external + mem.arrayBuffers,
      rss: mem.rss,
      ramTotal: totalmem(),
      ramFree: freemem(),
      cpuPercent: this.cpuPercent(),
      processCpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
      load: loadavg() as [number, number, number],
      uptimeMs: Math.max(0, this.now() - this.startedMs),
    };
  }

  private cpuPercent(): number {
    let idle = 0;
    let total = 0;
    for (const c of cpus()) {
      idle += c.times.idle;
      total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
    }
    const last = this.lastCpu ?? { idle: 0, total: 0 };
    this.lastCpu = { idle, total };
    const dt = total - last.total;
    return dt <= 0 ? 0 : Math.round((100 * (dt - (idle - last.idle))) / dt);
  }
}

/** ES's TimeValue text (`41s`, `15.6m`, `2.1h`, `3d`): the largest unit, one decimal cut. */
export function timeValueText(ms: number): string {
  const units: [number, string][] = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'm'], [1000, 's']];
  for (const [size, unit] of units) {
    if (ms >= size) {
      const v = ms / size;
      const whole = Math.floor(v);
      const tenth = Math.floor((v - whole) * 10 + 1e-9);
      return `${whole}${tenth === 0 ? '' : `.${tenth}`}${unit}`;
    }
  }
  return `${Math.round(ms)}ms`;
}
