import { errors, SearchError } from '../errors.js';
import { parseTimeValue } from '../syntax/time-value.js';
import { checkRoutingShards, defaultRoutingShards } from './shard-routing.js';

/** Index names and the index settings Portico interprets (the rest are stored and echoed). */

export interface IndexSettings {
  readonly maxResultWindow: number;
  /** `index.max_rescore_window`: the largest rescore `window_size` (ES's default: the index's max_result_window). */
  readonly maxRescoreWindow: number;
  /** `index.max_terms_count`: the most values one `terms` query may have (65,536). */
  readonly maxTermsCount: number;
  /** `index.number_of_shards`: the index's shards (shard-routing.ts places each document on one). */
  readonly numberOfShards: number;
  /** `index.number_of_routing_shards` (by default defaultRoutingShards of the shard count): how routing hashes are spread. */
  readonly numberOfRoutingShards: number;
  readonly numberOfReplicas: number;
  /** `index.refresh_interval` in ms (1s by default; -1: scheduled refreshes off), see refresh-schedule.ts. */
  readonly refreshIntervalMs: number;
  /** Whether `index.refresh_interval` is set (then the index is never search-idle). */
  readonly refreshExplicit: boolean;
  /** `index.search.idle.after` in ms (30s by default). */
  readonly searchIdleAfterMs: number;
  /** `index.requests.cache.enable` (dynamic, true by default): `size: 0` searches use the request cache (request-cache.ts). */
  readonly requestCacheEnabled: boolean;
  /** Closed (`POST /<index>/_close`): ES marks a closed index with `index.verified_before_close: true`. */
  readonly closed: boolean;
  /** Every setting as given, flattened with the `index.` prefix. */
  readonly raw: Record<string, unknown>;
}

/** Index-name rules of ES (MetadataCreateIndexService.validateIndexOrAliasName). */
export function validateIndexName(name: string): void {
  if (name !== name.toLowerCase()) throw errors.invalidIndexName(name, 'must be lowercase');
  if (/^[_\-+]/.test(name)) throw errors.invalidIndexName(name, "must not start with '_', '-', or '+'");
  if (/[\\/*?"<>| ,#:]/.test(name)) throw errors.invalidIndexName(name, 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]');
  if (name === '.' || name === '..') throw errors.invalidIndexName(name, 'must not be \'.\' or \'..\'');
  if (Buffer.byteLength(name) > 255) throw errors.invalidIndexName(name, 'index name is too long, (' + Buffer.byteLength(name) + ' > 255)');
}

/** Settings as given, flattened with the `index.` prefix (`{"index":{"a":{"b":1}}}` is `index.a.b`); `null` values kept. */
export function flattenSettings(raw: unknown, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const key = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenSettings(v, `${key}.`));
    else out[key.startsWith('index.') ? key : `index.${key}`] = v;
  }
  return out;
}

function intSetting(raw: Record<string, unknown>, key: string, def: number, min: number): number {
  const v = raw[key];
  if (v === undefined) return def;
  const n = Number(v);
  // Integer settings are Java ints: a value past Integer.MAX_VALUE does not parse either.
  if (!Number.isInteger(n) || n > 2_147_483_647) {
    // Caused by Java's Integer.parseInt failing on the text, as ES reports it.
    const cause = { type: 'number_format_exception', reason: `For input string: "${String(v)}"` };
    throw new SearchError(400, { type: 'illegal_argument_exception', reason: `Failed to parse value [${String(v)}] for setting [${key}]`, causedBy: cause });
  }
  if (n < min) throw errors.illegalArgument(`Failed to parse value [${n}] for setting [${key}] must be >= ${min}`);
  return n;
}

/** A boolean setting as ES reads it: `true` or `false` (a JSON boolean or its text), else ES's 400. */
function boolSetting(raw: Record<string, unknown>, key: string, def: boolean): boolean {
  const v = raw[key];
  if (v === undefined || v === null) return def;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw errors.notBoolean(typeof v === 'string' ? v : JSON.stringify(v));
}

/** A time-value setting (`1s`, `-1`) as ES reads it, its errors ES's illegal_argument_exception. */
function timeSetting(raw: Record<string, unknown>, key: string, def: number, min: number): number {
  const v = raw[key];
  if (v === undefined || v === null) return def;
  const text = String(v);
  let ms: number;
  try {
    ms = parseTimeValue(text, key);
  } catch (e) {
    if (e instanceof SearchError && e.cause_.type === 'illegal_argument_exception') throw e;
    throw errors.illegalArgument(`failed to parse setting [${key}] with value [${text}] as a time value: unit is missing or unrecognized`);
  }
  if (ms < min) throw errors.illegalArgument(`failed to parse value [${text}] for setting [${key}] must be >= ${min === -1 ? '-1' : `${min}ms`}`);
  return ms;
}

/** ES's most shards for one index (`index.number_of_shards` must be <= 1024). */
const MAX_SHARDS = 1024;

/** The private setting ES puts on a closed index (and takes off when it is opened). */
export const VERIFIED_BEFORE_CLOSE = 'index.verified_before_close';

/** A new index's settings: parseSettings, refusing what ES keeps to itself (MetadataCreateIndexService). */
export function parseNewIndexSettings(raw: unknown): IndexSettings {
  const settings = parseSettings(raw);
  if (Object.hasOwn(settings.raw, VERIFIED_BEFORE_CLOSE)) throw errors.illegalArgument(`private index setting [${VERIFIED_BEFORE_CLOSE}] can not be set explicitly`);
  if (settings.numberOfShards > MAX_SHARDS) throw errors.illegalArgument(`Failed to parse value [${settings.numberOfShards}] for setting [index.number_of_shards] must be <= ${MAX_SHARDS}`);
  // Checked as ES checks them: at least the shard count and a multiple of it.
  checkRoutingShards(settings.numberOfShards, settings.numberOfRoutingShards);
  // A partition size above 1 spreads a routing value over several shards and makes ES require
  // `_routing` on every mapping ("must have routing required for partitioned index"): refused.
  const partition = intSetting(settings.raw, 'index.routing_partition_size', 1, 1);
  if (partition > 1) throw errors.contextUnsupported(`[index.routing_partition_size] of [${partition}] (a routing value is placed on one shard)`);
  return settings;
}

export function parseSettings(raw: unknown): IndexSettings {
  const flat = flattenSettings(raw);
  const numberOfShards = intSetting(flat, 'index.number_of_shards', 1, 1);
  const maxResultWindow = intSetting(flat, 'index.max_result_window', 10_000, 1);
  return {
    maxResultWindow,
    maxRescoreWindow: intSetting(flat, 'index.max_rescore_window', maxResultWindow, 1),
    maxTermsCount: intSetting(flat, 'index.max_terms_count', 65_536, 1),
    numberOfShards,
    numberOfRoutingShards: intSetting(flat, 'index.number_of_routing_shards', defaultRoutingShards(numberOfShards), 1),
    numberOfReplicas: intSetting(flat, 'index.number_of_replicas', 1, 0),
    refreshIntervalMs: timeSetting(flat, 'index.refresh_interval', 1000, -1),
    refreshExplicit: flat['index.refresh_interval'] !== undefined && flat['index.refresh_interval'] !== null,
    searchIdleAfterMs: timeSetting(flat, 'index.search.idle.after', 30_000, 0),
    requestCacheEnabled: boolSetting(flat, 'index.requests.cache.enable', true),
    closed: flat[VERIFIED_BEFORE_CLOSE] === 'true' || flat[VERIFIED_BEFORE_CLOSE] === true,
    raw: flat,
  };
}
