import { errors } from '../errors.js';

/** Index names and the index settings Portico interprets (the rest are stored and echoed). */

export interface IndexSettings {
  readonly maxResultWindow: number;
  /** `index.max_terms_count`: the most values one `terms` query may have (65,536). */
  readonly maxTermsCount: number;
  readonly numberOfShards: number;
  readonly numberOfReplicas: number;
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

function flattenSettings(raw: unknown, prefix = ''): Record<string, unknown> {
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
  if (!Number.isInteger(n) || n > 2_147_483_647) throw errors.illegalArgument(`Failed to parse value [${String(v)}] for setting [${key}]`);
  if (n < min) throw errors.illegalArgument(`Failed to parse value [${n}] for setting [${key}] must be >= ${min}`);
  return n;
}

/** The private setting ES puts on a closed index (and takes off when it is opened). */
export const VERIFIED_BEFORE_CLOSE = 'index.verified_before_close';

/** A new index's settings: parseSettings, refusing what ES keeps to itself (MetadataCreateIndexService). */
export function parseNewIndexSettings(raw: unknown): IndexSettings {
  const settings = parseSettings(raw);
  if (Object.hasOwn(settings.raw, VERIFIED_BEFORE_CLOSE)) throw errors.illegalArgument(`private index setting [${VERIFIED_BEFORE_CLOSE}] can not be set explicitly`);
  // Each index is one shard here: more would change scores (statistics per shard), routing and
  // the _shards totals, so they are refused rather than taken and answered as one.
  if (settings.numberOfShards > 1) throw errors.contextUnsupported(`[index.number_of_shards] of [${settings.numberOfShards}] (each index is one shard)`);
  return settings;
}

export function parseSettings(raw: unknown): IndexSettings {
  const flat = flattenSettings(raw);
  return {
    maxResultWindow: intSetting(flat, 'index.max_result_window', 10_000, 1),
    maxTermsCount: intSetting(flat, 'index.max_terms_count', 65_536, 1),
    numberOfShards: intSetting(flat, 'index.number_of_shards', 1, 1),
    numberOfReplicas: intSetting(flat, 'index.number_of_replicas', 1, 0),
    closed: flat[VERIFIED_BEFORE_CLOSE] === 'true' || flat[VERIFIED_BEFORE_CLOSE] === true,
    raw: flat,
  };
}
