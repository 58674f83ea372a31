import { errors } from '../errors.js';
import { flattenSettings, parseSettings, type IndexSettings } from './index-settings.js';
import type { IndexState } from './index-state.js';

/**
 * `PUT /<index>/_settings` (ES's update-settings API) for the dynamic settings Portico interprets:
 * each index's new settings, validated before any is stored. A setting ES cannot change on an
 * open index is ES's "Can't update non dynamic settings" 400; one Portico does not interpret is
 * ES's "unknown setting" 400 (nothing is changed either way). `null` resets a setting to its default.
 */

/** The dynamic settings an update may change (their effects are implemented). */
const DYNAMIC = new Set(['index.refresh_interval', 'index.search.idle.after', 'index.max_result_window', 'index.max_rescore_window', 'index.max_terms_count', 'index.number_of_replicas', 'index.requests.cache.enable']);

/** Settings ES fixes at creation (the update names them non dynamic). */
const STATIC = /^index\.(number_of_shards|number_of_routing_shards|analysis\.|similarity\.|codec|routing_partition_size|sort\.)/;

export function updatedSettings(targets: readonly IndexState[], body: unknown): Map<IndexState, IndexSettings> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.actionValidation(['no settings to update']);
  let given = body as Record<string, unknown>;
  // ES takes the settings bare or under `settings` (RestUpdateSettingsAction).
  const keys = Object.keys(given);
  if (keys.length === 1 && keys[0] === 'settings') given = given.settings as Record<string, unknown>;
  const changes = flattenSettings(given);
  if (Object.keys(changes).length === 0) throw errors.actionValidation(['no settings to update']);
  const nonDynamic = Object.keys(changes).filter((k) => STATIC.test(k));
  const out = new Map<IndexState, IndexSettings>();
  for (const t of targets) {
    if (nonDynamic.length > 0) {
      throw errors.illegalArgument(`Can't update non dynamic settings [[${nonDynamic.join(', ')}]] for open indices [[${t.name}/${t.uuid}]]`);
    }
    const raw = { ...t.settings.raw };
    for (const [k, v] of Object.entries(changes)) {
      if (!DYNAMIC.has(k)) {
        throw errors.illegalArgument(`unknown setting [${k}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
      }
      if (v === null) delete raw[k];
      else raw[k] = v;
    }
    out.set(t, parseSettings(raw));
  }
  return out;
}
