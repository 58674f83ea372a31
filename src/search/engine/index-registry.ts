import { randomUUID } from 'node:crypto';
import { addRouting } from '../mapping/routing-field.js';
import type { DocumentStore } from '../store/document-store.js';
import { errors } from '../errors.js';
import { globMatch } from '../syntax/glob.js';
import { restoreIndices, saveIndices } from '../index/index-snapshot.js';
import { Mappings } from '../mapping/mapping.js';
import { parseDocument } from '../mapping/document-parser.js';
import { newIndexState, shardFor, type IndexState } from './index-state.js';
import type { SearchContexts } from './open-contexts.js';
import { parseNewIndexSettings, parseSettings, validateIndexName, VERIFIED_BEFORE_CLOSE } from './index-settings.js';
import type { SearchActivityLog } from './search-activity-log.js';
import { storeMetadataWrite } from './disk-full.js';
import { updatedSettings } from './settings-update.js';

/**
 * The indices by name: loading them from the store (or its snapshot), resolving index
 * expressions, creating, deleting and mapping them. Documents are written by DocumentWrites
 * (document-writes.ts); the registry only hands out the states.
 */
export class IndexRegistry {
  private readonly indices = new Map<string, IndexState>();

  /** Whether the indices are completely loaded (only then is a snapshot of them worth saving). */
  private loaded = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly now: () => number,
    private readonly contexts: SearchContexts,
    private readonly activity?: SearchActivityLog,
    /** Runs on each index before a snapshot of it is taken (the reclaimer compacts it). */
    private readonly beforeSnapshot?: (state: IndexState) => void,
  ) {
    store.setSnapshotSource?.(() => (this.loaded ? this.snapshot() : undefined));
  }

  /**
   * Loads every index from the store: from the snapshot saved at the last clean shutdown when the
   * store has not changed since, else by rebuilding each in-memory index from its documents (write
   * order kept).
   */
  load(): void {
    this.loaded = false;
    const started = performance.now();
    let snapshot: Buffer | undefined;
    try {
      snapshot = this.store.loadSnapshot?.();
      if (snapshot !== undefined && this.restore(snapshot)) {
        this.loaded = true;
        this.activity?.restored('snapshot', this.indices.size, this.liveDocuments(), performance.now() - started);
        return;
      }
    } catch (err) {
      // An unreadable snapshot is only a slower start: SQLite holds every document.
      this.activity?.snapshotUnreadable(err);
    }
    this.indices.clear();
    this.rebuild();
    this.loaded = true;
    this.activity?.restored('documents', this.indices.size, this.liveDocuments(), performance.now() - started);
  }

  private liveDocuments(): number {
    let n = 0;
    for (const s of this.shards()) n += s.index.liveCount;
    return n;
  }

  /** Every shard of every index (an index of one shard is that shard). */
  shards(): IndexState[] {
    return [...this.indices.values()].flatMap((s) => s.shards);
  }

  /** Builds each in-memory index from its stored documents, in write order, each on the shard its routing gives. */
  private rebuild(): void {
    for (const meta of this.store.listIndices()) {
      const first = newIndexState(meta.name, meta.uuid, meta.createdMs, parseSettings(meta.settings), Mappings.parse(meta.mappings, true));
      this.store.scanDocs(meta.name, (doc) => {
        const state = shardFor(first, doc.routing ?? doc.id);
        const { doc: parsed } = parseDocument(JSON.parse(doc.source), state.mappings, doc.id, true);
        if (doc.routing !== undefined) addRouting(parsed, doc.routing);
        const ord = state.index.add(doc.id, parsed);
        state.versions[ord] = doc.version;
        state.seqNos[ord] = doc.seqNo;
        if (doc.seqNo >= state.nextSeqNo) state.nextSeqNo = doc.seqNo + 1;
      });
      // Deletes leave no document carrying their sequence numbers: the store keeps the next one
      // (the highest of the index's shards: each shard counts on from it, never reusing one).
      for (const state of first.shards) if (meta.nextSeqNo !== undefined && meta.nextSeqNo > state.nextSeqNo) state.nextSeqNo = meta.nextSeqNo;
      this.indices.set(meta.name, first);
    }
  }

  /** Drops every state and loads the indices again from the store (after a failed commit). */
  reload(): void {
    this.indices.clear();
    this.load();
  }

  private snapshot(): Buffer {
    const shards = this.shards();
    if (this.beforeSnapshot !== undefined) for (const s of shards) this.beforeSnapshot(s);
    return saveIndices(shards.map((s) => ({ name: snapshotKey(s.name, s.shard), index: s.index, versions: s.versions, seqNos: s.seqNos, nextSeqNo: s.nextSeqNo })));
  }

  /** Restores the indices from a snapshot; false when it does not match the store's indices (and their shards). */
  private restore(buf: Buffer): boolean {
    const metas = this.store.listIndices().map((m) => ({ meta: m, settings: parseSettings(m.settings) }));
    const restored = restoreIndices(buf, metas.flatMap(({ meta, settings }) => Array.from({ length: settings.numberOfShards }, (_, k) => snapshotKey(meta.name, k))));
    if (restored === undefined) return false;
    for (const { meta, settings } of metas) {
      const shards = Array.from({ length: settings.numberOfShards }, (_, k) => restored.get(snapshotKey(meta.name, k)) as NonNullable<ReturnType<typeof restored.get>>);
      this.indices.set(meta.name, newIndexState(meta.name, meta.uuid, meta.createdMs, settings, Mappings.parse(meta.mappings, true), shards));
    }
    return true;
  }

  list(): IndexState[] {
    return [...this.indices.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  get(name: string): IndexState {
    const s = this.indices.get(name);
    if (s === undefined) throw errors.indexNotFound(name);
    return s;
  }

  /** The index of that name, undefined when there is none. */
  find(name: string): IndexState | undefined {
    return this.indices.get(name);
  }

  exists(name: string): boolean {
    return this.indices.has(name);
  }

  /**
   * Resolves an index expression (`a`, `a,b`, `logs-*`, `_all`, `*`). Missing concrete names are
   * an error (skipped under `ignoreUnavailable`); wildcards that match nothing resolve to nothing.
   * Under `allowNoIndices` false (`?allow_no_indices=false`) ES refuses, with
   * index_not_found_exception, a wildcard that matches nothing and any expression that resolves to
   * no index at all (`_all`, `*` or no index on an empty cluster; names all skipped as unavailable).
   * A closed index is left out of wildcards and `_all`, and named, it is ES's
   * index_closed_exception (skipped under `ignoreUnavailable`), unless `withClosed` (index
   * management: get, mappings, settings, `_cat/indices`, delete, open).
   */
  resolve(expr: string | undefined, ignoreUnavailable = false, allowNoIndices = true, withClosed = false): IndexState[] {
    const all = this.resolveAll(expr, ignoreUnavailable, allowNoIndices);
    if (withClosed || !all.some((s) => s.settings.closed)) return all;
    const named = new Set(expr === undefined ? [] : expr.split(','));
    const open = all.filter((s) => {
      if (!s.settings.closed) return true;
      if (named.has(s.name) && !ignoreUnavailable) throw errors.indexClosed(s.name, s.uuid);
      return false;
    });
    if (open.length === 0 && !allowNoIndices) throw errors.indexNotFound(expr ?? '_all');
    return open;
  }

  private resolveAll(expr: string | undefined, ignoreUnavailable: boolean, allowNoIndices: boolean): IndexState[] {
    if (expr === undefined || expr === '' || expr === '_all' || expr === '*') {
      const all = this.list();
      if (all.length === 0 && !allowNoIndices) throw expr === '*' ? errors.indexNotFound(expr) : errors.noIndicesExist();
      return all;
    }
    // One concrete name, the usual `/<index>/_search`: no split, Map or spread of its values.
    if (!expr.includes(',') && !expr.includes('*')) {
      const s = this.indices.get(expr);
      if (s !== undefined) return [s];
      if (ignoreUnavailable && allowNoIndices) return [];
      throw errors.indexNotFound(expr);
    }
    const parts = expr.split(',');
    const out = new Map<string, IndexState>();
    for (const part of parts) {
      if (part.includes('*')) {
        if (!this.addMatches(part, out) && !allowNoIndices) throw errors.indexNotFound(part);
      } else {
        const s = this.indices.get(part);
        if (s === undefined) {
          if (ignoreUnavailable) continue;
          throw errors.indexNotFound(part);
        }
        out.set(part, s);
      }
    }
    if (out.size === 0 && !allowNoIndices) throw parts.length === 1 ? errors.indexNotFound(expr) : errors.indexExpressionsNotFound(parts);
    return [...out.values()];
  }

  /** Adds the indices a wildcard expression matches to `out`; whether it matched any. */
  private addMatches(pattern: string, out: Map<string, IndexState>): boolean {
    let matched = false;
    for (const s of this.list()) {
      // globMatch, not a RegExp of `.*` runs: those backtrack exponentially on many stars.
      if (globMatch(pattern, s.name)) {
        out.set(s.name, s);
        matched = true;
      }
    }
    return matched;
  }

  createIndex(name: string, body: unknown, automatically = false): IndexState {
    validateIndexName(name);
    const existing = this.indices.get(name);
    if (existing !== undefined) throw errors.indexExists(name, existing.uuid);
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) throw errors.parsing('request body must be an object');
    for (const k of Object.keys(b)) {
      if (!['settings', 'mappings', 'aliases'].includes(k)) throw errors.parsing(`unknown key [${k}] for create index`);
    }
    const settings = parseNewIndexSettings(b.settings);
    const mappings = Mappings.parse(b.mappings);
    const state = newIndexState(name, randomUUID().replace(/-/g, '').slice(0, 22), this.now(), settings, mappings);
    storeMetadataWrite(() => this.store.putIndex({ name, uuid: state.uuid, createdMs: state.createdMs, settings: settings.raw, mappings: mappings.toJSON() }), true);
    this.indices.set(name, state);
    this.activity?.indexCreated(name, automatically);
    return state;
  }

  /** The index of that name, created (with no settings or mappings) when it is missing; a closed one is ES's index_closed_exception. */
  ensureIndex(name: string): IndexState {
    const s = this.indices.get(name);
    if (s !== undefined) return openState(s);
    return this.createIndex(name, undefined, true);
  }

  deleteIndex(expr: string): void {
    const targets = this.resolve(expr, false, true, true);
    if (targets.length === 0 && !expr.includes('*')) throw errors.indexNotFound(expr);
    for (const t of targets) {
      storeMetadataWrite(() => this.store.deleteIndex(t.name));
      this.indices.delete(t.name);
      for (const s of t.shards) this.contexts.dropIndex(s);
      this.activity?.indexDeleted(t.name);
    }
  }

  /** Adds dynamic mappings to an index's mapping; the same for PUT /<index>/_mapping. */
  putMapping(name: string, body: unknown): void {
    const state = this.get(name);
    const parsed = Mappings.parse(body);
    const additions = new Map<string, unknown>();
    for (const [k, v] of Object.entries(parsed.properties)) additions.set(k, v);
    const mappings = state.mappings.withAdditions(additions).withRoot(parsed, (body ?? {}) as Record<string, unknown>);
    // Stored first: a refused write (a full disk) leaves the mapping as it was.
    storeMetadataWrite(() => this.store.updateMappings(name, mappings.toJSON()));
    state.mappings = mappings;
  }

  /**
   * Closes or opens the indices `expr` names (`POST /<index>/_close`, `_open`): a closed index
   * keeps its documents and metadata, answers index_closed_exception to searches, gets and
   * writes, and is left out of wildcard searches. The state is kept with the index's settings
   * (ES's `index.verified_before_close`), so it survives a restart. Contexts (scrolls, points in
   * time) on a closed index are dropped, as ES frees them when the shard closes.
   */
  setClosed(expr: string, closed: boolean): IndexState[] {
    const targets = this.resolve(expr, false, true, true);
    for (const t of targets) {
      if (t.settings.closed === closed) continue;
      const raw = { ...t.settings.raw };
      if (closed) raw[VERIFIED_BEFORE_CLOSE] = 'true';
      else delete raw[VERIFIED_BEFORE_CLOSE];
      storeMetadataWrite(() => this.store.putIndex({ name: t.name, uuid: t.uuid, createdMs: t.createdMs, settings: raw, mappings: t.mappings.toJSON() }));
      t.settings = parseSettings(raw);
      if (closed) for (const s of t.shards) this.contexts.dropIndex(s);
    }
    return targets;
  }

  /** `PUT /<index>/_settings`: the dynamic settings changed on every index `expr` names (settings-update.ts), stored first. */
  updateSettings(expr: string | undefined, body: unknown): IndexState[] {
    const targets = this.resolve(expr, false, true, true);
    const next = updatedSettings(targets, body);
    for (const [t, settings] of next) {
      storeMetadataWrite(() => this.store.putIndex({ name: t.name, uuid: t.uuid, createdMs: t.createdMs, settings: settings.raw, mappings: t.mappings.toJSON() }));
      t.settings = settings;
    }
    return targets;
  }

  /** Whether `state` (a shard) is still of the index of its name (not deleted, re-created or reloaded since). */
  isCurrent(state: IndexState): boolean {
    return this.indices.get(state.name)?.shards[state.shard] === state;
  }
}

/** A shard's name in the snapshot: the index's for its shard 0 (as snapshots of one-shard indices have it), `<index>#<n>` for the others (`#` is never in an index name). */
function snapshotKey(name: string, shard: number): string {
  return shard === 0 ? name : `${name}#${shard}`;
}

/** `s`, unless it is closed (ES's index_closed_exception). */
export function openState(s: IndexState): IndexState {
  if (s.settings.closed) throw errors.indexClosed(s.name, s.uuid);
  return s;
}
