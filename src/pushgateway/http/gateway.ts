import type { GroupStore } from '../store/group.js';
import type { OwnMetrics } from './own-metrics.js';

/** Settings the routes need, derived once from the flags. */
export interface GatewaySettings {
  /** Normalized route prefix: '' or '/something' (no trailing slash). */
  readonly prefix: string;
  /** Full path of the exposition endpoint (prefix + --web.telemetry-path). */
  readonly telemetryPath: string;
  readonly enableLifecycle: boolean;
  readonly enableAdminApi: boolean;
  readonly checkConsistency: boolean;
  /** --push.enable-utf8-names: label names may be any UTF-8 text (U__-escaped in push paths). */
  readonly utf8Names: boolean;
  /** --web.enable-openmetrics: scrapes may negotiate OpenMetrics (Pushgateway never answers it). */
  readonly openMetrics: boolean;
  /** Default group TTL in ms; 0: groups never expire. */
  readonly groupTtlMs: number;
  /** Largest push body in bytes, after gzip or snappy decoding. */
  readonly maxBodySize: number;
  /** Flags as shown by /api/v1/status and the console's status tab. */
  readonly flags: Readonly<Record<string, string>>;
  readonly version: string;
  readonly startTimeMs: number;
}

/** What every push gateway route shares; built once per app, never a module singleton. */
export interface Gateway {
  readonly store: GroupStore;
  readonly own: OwnMetrics;
  readonly settings: GatewaySettings;
  readonly now: () => number;
  readonly requestShutdown: (reason: string) => void;
}

/** Pushgateway's normalization of --web.route-prefix: leading slash, no trailing slash, "/" → "". */
export function normalizePrefix(raw: string): string {
  let p = raw.trim();
  if (p === '' || p === '/') return '';
  if (!p.startsWith('/')) p = `/${p}`;
  while (p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** `path.Join(prefix, telemetryPath)` as Pushgateway computes the exposition path. */
export function joinPath(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}
