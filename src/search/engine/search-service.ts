import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteTombstones, type Tombstone } from './delete-tombstones.js';
import { checkNoMetadataFields, clearParsedDoc, emptyParsedDoc, parseDocument, type ParsedDoc } from '../mapping/document-parser.js';
import type { DocumentStore, SourceSpan } from '../store/document-store.js';
import { errors, SearchError } from '../errors.js';
import { globMatch } from '../syntax/glob.js';
import { conflict, type CurrentDoc, indexProblems, nextVersion, type WriteConditions } from '../requests/write-conditions.js';
import { restoreIndices, saveIndices } from '../index/index-snapshot.js';
import { parseJsonBody } from '../http/json-render.js';
import { InvertedIndex } from '../index/inverted-index.js';
import { Mappings } from '../mapping/mapping.js';
import { execute, type ExecContext } from '../query/query-exec.js';
import type { Query } from '../requests/query-dsl.js';
import type { SearchRequest } from '../requests/search-request.js';
import { ScratchArena } from '../query/scratch-arena.js';
import { runSearch, type Candidate } from './search-phase.js';
import { SearchContexts, type PinnedState } from './search-contexts.js';
import { parseSettings, validateIndexName, type IndexSettings } from './index-settings.js';

/**
 * The search engine behind the routes: indices (settings, mappings, in-memory index) over a
 * DocumentStore. Writes go to the store inside one transaction per request (a `_bulk` may be
 * committed in parts, see `bulk`) and to the in-memory
 * index at the same time; they are visible to searches at once (a refresh is a no-op).
 */

export interface IndexState {
  readonly name: string;
  readonly uuid: string;
  readonly createdMs: number;
  readonly settings: IndexSettings;
  mappings: Mappings;
  readonly index: InvertedIndex;
  /** Per ordinal: version and sequence number of the live document. */
  readonly versions: number[];
  readonly seqNos: number[];
  nextSeqNo: number;
  /** Scratch memory reused by every query on this index (see scratch-arena.ts). */
  readonly arena: ScratchArena;
}


export type WriteResult = 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';

export interface WriteOutcome {
  readonly index: string;
  readonly id: string;
  readonly version: number;
  readonly result: WriteResult;
  readonly seqNo: number;
}

/** `cond`: the item's version or sequence-number conditions (write-conditions.ts), already validated. */
export type BulkAction =
  /** `source` undefined: parse `raw` when the item is applied (a malformed one is the item's error). */
  | {
      readonly op: 'index' | 'create';
      readonly index: string;
      readonly id: string | undefined;
      readonly source: unknown;
      readonly raw: string;
      readonly rawIn?: SourceSpan;
      readonly cond?: WriteConditions | undefined;
      /** `require_alias`: the index must be an alias (there are none here, so the item fails). */
      readonly requireAlias?: boolean | undefined;
    }
  | {
      readonly op: 'update';
      readonly index: string;
      readonly id: string;
      readonly doc: unknown;
      readonly docAsUpsert: boolean;
      readonly upsert: unknown;
      /** The body's `detect_noop` (undefined: true). */
      readonly detectNoop?: boolean;
      readonly cond?: WriteConditions;
      readonly requireAlias?: boolean;
    }
  | { readonly op: 'delete'; readonly index: string; readonly id: string; readonly cond?: WriteConditions };

/** A failed item's `id` is null when it failed before it had one (an index/create without `_id`, before its id was generated). */
export type BulkItem =
  | { readonly op: string; readonly outcome: WriteOutcome }
  | { readonly op: string; readonly index: string; readonly id: string | null; readonly error: SearchError };

const SHARDS_WRITE = { total: 2, successful: 1, failed: 0 };

function autoId(): string {
  // ES ids are 20 URL-safe base64 characters.
  return randomBytes(15).toString('base64url');
}

export interface SearchResponse {
  readonly body: Record<string, unknown>;
}

export class SearchService {
  private readonly indices = new Map<string, IndexState>();

  /**
   * Per index, the versions of its recently deleted documents (ES's tombstones, kept for
   * gc_deletes; memory only). Keyed by the state, so a deleted or reloaded index drops them.
   */
  private readonly tombstones = new WeakMap<IndexState, DeleteTombstones>();

  /** Whether the indices are completely loaded (only then is a snapshot of them worth saving). */
  private loaded = false;

  /** Open scrolls and points in time; every write tells them first (see search-contexts.ts). */
  readonly contexts = new SearchContexts();

  constructor(private readonly store: DocumentStore, private readonly now: () => number) {
    store.setSnapshotSource?.(() => (this.loaded ? this.snapshot() : undefined));
  }

  /**
   * Loads every index from the store: from the snapshot saved at the last clean shutdown when the
   * store has not changed since, else by rebuilding each in-memory index from its documents (write
   * order kept).
   */
  load(): void {
    this.loaded = false;
    const snapshot = this.store.loadSnapshot?.();
    if (snapshot !== undefined) {
      try {
        if (this.restore(snapshot)) {
          this.loaded = true;
          return;
        }
      } catch {
        // An unreadable snapshot is only a slower start.
      }
      this.indices.clear();
    }
    for (const meta of this.store.listIndices()) {
      const state = this.newState(meta.name, meta.uuid, meta.createdMs, parseSettings(meta.settings), Mappings.parse(meta.mappings, true));
      this.store.scanDocs(meta.name, (doc) => {
        const { doc: parsed } = parseDocument(JSON.parse(doc.source), state.mappings, doc.id, true);
        const ord = state.index.add(doc.id, parsed);
        state.versions[ord] = doc.version;
        state.seqNos[ord] = doc.seqNo;
        if (doc.seqNo >= state.nextSeqNo) state.nextSeqNo = doc.seqNo + 1;
      });
      // Deletes leave no document carrying their sequence numbers: the store keeps the next one.
      if (meta.nextSeqNo !== undefined && meta.nextSeqNo > state.nextSeqNo) state.nextSeqNo = meta.nextSeqNo;
      this.indices.set(meta.name, state);
    }
    this.loaded = true;
  }

  private newState(name: string, uuid: string, createdMs: number, settings: IndexSettings, mappings: Mappings, index = new InvertedIndex()): IndexState {
    return { name, uuid, createdMs, settings, mappings, index, versions: [], seqNos: [], nextSeqNo: 0, arena: new ScratchArena() };
  }

  private snapshot(): Buffer {
    return saveIndices([...this.indices.values()]);
  }

  /** Restores the indices from a snapshot; false when it does not match the store's indices. */
  private restore(buf: Buffer): boolean {
    const metas = this.store.listIndices();
    const restored = restoreIndices(buf, metas.map((m) => m.name));
    if (restored === undefined) return false;
    for (const meta of metas) {
      const r = restored.get(meta.name) as NonNullable<ReturnType<typeof restored.get>>;
      const fresh = this.newState(meta.name, meta.uuid, meta.createdMs, parseSettings(meta.settings), Mappings.parse(meta.mappings, true), r.index);
      this.indices.set(meta.name, { ...fresh, versions: r.versions, seqNos: r.seqNos, nextSeqNo: r.nextSeqNo });
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

  exists(name: string): boolean {
    return this.indices.has(name);
  }

  /**
   * Resolves an index expression (`a`, `a,b`, `logs-*`, `_all`, `*`). Missing concrete names are
   * an error (skipped under `ignoreUnavailable`); wildcards that match nothing resolve to nothing.
   * Under `allowNoIndices` false (`?allow_no_indices=false`) ES refuses, with
   * index_not_found_exception, a wildcard that matches nothing and any expression that resolves to
   * no index at all (`_all`, `*` or no index on an empty cluster; names all skipped as unavailable).
   */
  resolve(expr: string | undefined, ignoreUnavailable = false, allowNoIndices = true): IndexState[] {
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
        let matched = false;
        for (const s of this.list()) {
          // globMatch, not a RegExp of `.*` runs: those backtrack exponentially on many stars.
          if (globMatch(part, s.name)) {
            out.set(s.name, s);
            matched = true;
          }
        }
        if (!matched && !allowNoIndices) throw errors.indexNotFound(part);
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

  createIndex(name: string, body: unknown): IndexState {
    validateIndexName(name);
    const existing = this.indices.get(name);
    if (existing !== undefined) throw errors.indexExists(name, existing.uuid);
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) throw errors.parsing('request body must be an object');
    for (const k of Object.keys(b)) {
      if (!['settings', 'mappings', 'aliases'].includes(k)) throw errors.parsing(`unknown key [${k}] for create index`);
    }
    const settings = parseSettings(b.settings);
    const mappings = Mappings.parse(b.mappings);
    const state = this.newState(name, randomUUID().replace(/-/g, '').slice(0, 22), this.now(), settings, mappings);
    this.store.putIndex({ name, uuid: state.uuid, createdMs: state.createdMs, settings: settings.raw, mappings: mappings.toJSON() });
    this.indices.set(name, state);
    return state;
  }

  deleteIndex(expr: string): void {
    const targets = this.resolve(expr);
    if (targets.length === 0 && !expr.includes('*')) throw errors.indexNotFound(expr);
    for (const t of targets) {
      this.store.deleteIndex(t.name);
      this.indices.delete(t.name);
      this.contexts.dropIndex(t);
    }
  }

  /** Adds dynamic mappings to an index's mapping; the same for PUT /<index>/_mapping. */
  putMapping(name: string, body: unknown): void {
    const state = this.get(name);
    const parsed = Mappings.parse(body);
    const additions = new Map<string, unknown>();
    for (const [k, v] of Object.entries(parsed.properties)) additions.set(k, v);
    state.mappings = state.mappings.withAdditions(additions);
    this.store.updateMappings(name, state.mappings.toJSON());
  }

  private ensureIndex(name: string): IndexState {
    const s = this.indices.get(name);
    if (s !== undefined) return s;
    return this.createIndex(name, undefined);
  }

  getDoc(index: string, id: string): { version: number; seqNo: number; source: string } | undefined {
    const state = this.get(index);
    const ord = state.index.idToOrd.get(id);
    if (ord === undefined) return undefined;
    const doc = this.store.getDoc(index, id);
    if (doc === undefined) return undefined;
    return { version: state.versions[ord] as number, seqNo: state.seqNos[ord] as number, source: doc.source };
  }

  private parsedOf(state: IndexState, ord: number): ParsedDoc {
    const id = state.index.ids[ord] as string;
    const doc = this.store.getDoc(state.name, id);
    if (doc === undefined) return emptyParsedDoc();
    return parseDocument(JSON.parse(doc.source), state.mappings, id, true).doc;
  }

  /** What write parses every document into (see FieldValues.clear): InvertedIndex.add keeps none of it. */
  private readonly parsed = emptyParsedDoc();

  private write(state: IndexState, id: string, source: unknown, raw: string, op: 'index' | 'create', rawIn?: SourceSpan, cond?: WriteConditions): WriteOutcome {
    try {
      return this.writeParsed(state, id, source, raw, op, rawIn, cond);
    } finally {
      // Refused or written, the document's values are not kept until the next write.
      clearParsedDoc(this.parsed);
    }
  }

  private writeParsed(state: IndexState, id: string, source: unknown, raw: string, op: 'index' | 'create', rawIn?: SourceSpan, cond?: WriteConditions): WriteOutcome {
    checkNoMetadataFields(source);
    const { doc, mappings } = parseDocument(source, state.mappings, id, false, this.parsed);
    const oldOrd = state.index.idToOrd.get(id);
    if (oldOrd !== undefined && op === 'create') {
      throw errors.versionConflictExists(state.name, state.uuid, id, state.versions[oldOrd] as number);
    }
    // A document deleted lately counts its versions on from the delete's (ES's tombstone).
    const tomb = oldOrd === undefined ? this.tombstoneOf(state, id) : undefined;
    if (cond !== undefined) this.checkConditions(state, id, currentOf(state, oldOrd), cond, tomb);
    const currentVersion = oldOrd === undefined ? tomb?.version : (state.versions[oldOrd] as number);
    if (this.contexts.size !== 0) this.contexts.beforeWrite(state, oldOrd, () => this.store.getDoc(state.name, id)?.source);
    if (oldOrd !== undefined) state.index.remove(oldOrd, this.parsedOf(state, oldOrd));
    const version = nextVersion(cond, currentVersion);
    if (mappings !== state.mappings) {
      state.mappings = mappings;
      this.store.updateMappings(state.name, mappings.toJSON());
    }
    const seqNo = state.nextSeqNo++;
    this.store.putDoc(state.name, { id, version, seqNo, source: raw }, rawIn);
    if (this.batched !== undefined && !this.batched.has(state)) {
      this.batched.add(state);
      state.index.beginBatch();
    }
    const ord = state.index.add(id, doc);
    state.versions[ord] = version;
    state.seqNos[ord] = seqNo;
    if (tomb !== undefined) this.tombstonesOf(state).drop(id);
    return { index: state.name, id, version, result: oldOrd === undefined ? 'created' : 'updated', seqNo };
  }

  /** `id`'s tombstone; cheap when the index has none (every new document of a bulk asks). */
  private tombstoneOf(state: IndexState, id: string): Tombstone | undefined {
    const t = this.tombstones.get(state);
    return t === undefined || t.size === 0 ? undefined : t.get(id, this.now());
  }

  private tombstonesOf(state: IndexState): DeleteTombstones {
    let t = this.tombstones.get(state);
    if (t === undefined) this.tombstones.set(state, (t = new DeleteTombstones()));
    return t;
  }

  /** Throws ES's 409 when the document (`current`, undefined: none) does not meet the write's conditions. */
  private checkConditions(state: IndexState, id: string, current: CurrentDoc | undefined, cond: WriteConditions, tomb?: Tombstone): void {
    const why = conflict(cond, current, tomb?.version);
    if (why !== undefined) throw errors.versionConflict(state.name, state.uuid, id, why);
  }

  private remove(state: IndexState, id: string, cond?: WriteConditions): WriteOutcome {
    const ord = state.index.idToOrd.get(id);
    const now = this.now();
    const tomb = ord === undefined ? this.tombstoneOf(state, id) : undefined;
    if (cond !== undefined) this.checkConditions(state, id, currentOf(state, ord), cond, tomb);
    const seqNo = state.nextSeqNo++;
    this.store.recordSeqNo?.(state.name, seqNo);
    // The delete is remembered either way, also of a document that was not there, as in ES.
    if (ord === undefined) {
      const version = nextVersion(cond, tomb?.version);
      this.tombstonesOf(state).put(id, version, seqNo, now);
      return { index: state.name, id, version, result: 'not_found', seqNo };
    }
    const version = nextVersion(cond, state.versions[ord] as number);
    if (this.contexts.size !== 0) this.contexts.beforeWrite(state, ord, () => this.store.getDoc(state.name, id)?.source);
    state.index.remove(ord, this.parsedOf(state, ord));
    this.store.deleteDoc(state.name, id);
    this.tombstonesOf(state).put(id, version, seqNo, now);
    return { index: state.name, id, version, result: 'deleted', seqNo };
  }

  /**
   * Runs writes in one store transaction. If the commit fails the in-memory index may hold writes
   * that were never stored, so it is rebuilt from the store before the error propagates; with
   * `interimCommits` (see DocumentStore.transaction) part of the writes may be stored whatever the
   * error, so it is rebuilt on any.
   */
  private transaction<T>(fn: () => T, interimCommits = false): T {
    try {
      return this.store.transaction(fn, { interimCommits });
    } catch (e) {
      if (interimCommits || !(e instanceof SearchError)) {
        // The reloaded indices are new states: contexts over the old ones could only answer 404.
        this.contexts.clear();
        this.indices.clear();
        this.load();
      }
      throw e;
    }
  }

  /**
   * `cond`: the request's version or sequence-number conditions, if it gave any; `requireAlias`:
   * its `require_alias` (the index must be an alias; there are none here).
   */
  indexDoc(index: string, id: string | undefined, source: unknown, raw: string, op: 'index' | 'create', cond?: WriteConditions, requireAlias = false): WriteOutcome {
    // IndexRequest.validate runs before the index is looked at (or created).
    const problems = indexProblems(op, id, cond);
    if (problems.length > 0) throw errors.actionValidation(problems);
    if (requireAlias) throw errors.requireAlias(index);
    validateIndexName(index);
    // The index is created (and committed) before the write is tried and stays whatever becomes of
    // it, as in ES. Created inside the write's transaction, a failed write (a 409, a document
    // parsing error) rolled its stored row back while the in-memory index stayed: every document
    // written to it afterwards was acknowledged but lost at the next start.
    const state = this.ensureIndex(index);
    return this.transaction(() => this.write(state, id ?? autoId(), source, raw, op, undefined, cond));
  }

  /** `cond`: as for indexDoc (validated by the caller). */
  deleteDoc(index: string, id: string, cond?: WriteConditions): WriteOutcome {
    // Created (and committed) before the delete is tried, as indexDoc creates its index.
    const state = this.deleteTarget(index, cond);
    return this.transaction(() => this.remove(state, id, cond));
  }

  /**
   * The index a delete goes to. ES auto-creates an index for a delete only under external
   * versioning (TransportBulkAction leaves other deletes out of auto-creation); otherwise a missing
   * index fails the delete as resolving its name fails (a name starting with `_` is refused as an
   * expression, any other is not found).
   */
  private deleteTarget(index: string, cond: WriteConditions | undefined): IndexState {
    const s = this.indices.get(index);
    if (s !== undefined) return s;
    if (cond === undefined || cond.versionType === 'internal') {
      throw index.startsWith('_') ? errors.invalidIndexName(index, "must not start with '_'.") : errors.indexNotFound(index);
    }
    return this.createIndex(index, undefined);
  }

  /**
   * Applies bulk actions; each item succeeds or fails on its own. The store may commit them in
   * parts (ES's bulk is not atomic either), so that the answer waits only for the last part.
   */
  bulk(actions: readonly (BulkAction | SearchError)[]): BulkItem[] {
    const items: BulkItem[] = [];
    this.bulkEach(actions, (item) => items.push(item));
    return items;
  }

  /**
   * `bulk`, handing each item's outcome to `each` as soon as it is applied, in order, instead of
   * collecting them (the `_bulk` route renders each at once: see BulkResponseWriter). When this
   * throws, `each` may have seen some items, whose writes may or may not be stored.
   */
  bulkEach(actions: readonly (BulkAction | SearchError)[], each: (item: BulkItem) => void): void {
    this.transaction(() => {
      // The items' text postings are batched (see InvertedIndex.beginBatch), and appended before
      // the transaction commits and anything can read them.
      const batched = new Set<IndexState>();
      this.batched = batched;
      try {
        for (const a of actions) each(this.bulkItem(a));
      } finally {
        this.batched = undefined;
        for (const state of batched) state.index.endBatch();
      }
    }, true);
  }

  /** The indices whose postings the running `_bulk` batches (see bulkEach); undefined outside one. */
  private batched: Set<IndexState> | undefined;

  private bulkItem(a: BulkAction | SearchError): BulkItem {
    if (a instanceof SearchError) return { op: 'index', index: '', id: '', error: a };
    // The id the item's failure shows: one without `_id` has none (null) until it is generated.
    let id = a.id ?? null;
    try {
      // In ES's order: the index (its name, when it is created), the id (IndexRouting), then the
      // source when the shard parses it. No index is created for an item that requires an alias.
      if (a.op !== 'delete' && a.requireAlias === true) throw errors.requireAlias(a.index);
      if (a.op === 'delete') return { op: a.op, outcome: this.remove(this.deleteTarget(a.index, a.cond), a.id, a.cond) };
      // ES creates every missing index a bulk writes to before it routes any item (createIndex
      // checks the name), so the index stays whatever becomes of the item.
      const state = this.ensureIndex(a.index);
      if (a.op === 'update') return { op: a.op, outcome: this.update(state, a) };
      // Only an index/create item can have an empty id here (bulk.ts refuses it for the others).
      if (a.id === '') throw errors.emptyId();
      id ??= autoId();
      // Read once: a bulk item's source text may be decoded on each read (see bulk.ts).
      const raw = a.raw;
      const source = a.source ?? parseJsonBody(raw);
      return { op: a.op, outcome: this.write(state, id, source, raw, a.op, a.rawIn, a.cond) };
    } catch (e) {
      // The item's failure names its op, index and id, as ES's does.
      if (e instanceof SearchError) return { op: a.op, index: a.index, id, error: e };
      throw e;
    }
  }

  /** `state`: the update's index, auto-created if it was missing (upsert or not, as in ES). */
  private update(state: IndexState, a: Extract<BulkAction, { op: 'update' }>): WriteOutcome {
    const existing = this.getDoc(state.name, a.id);
    // The current document is read under the item's conditions (a mismatch before any no-op check).
    if (a.cond !== undefined && existing !== undefined) this.checkConditions(state, a.id, existing, a.cond);
    if (existing === undefined) {
      const fresh = a.upsert ?? (a.docAsUpsert ? a.doc : undefined);
      if (fresh === undefined) throw errors.documentMissing(state.name, state.uuid, a.id);
      return this.write(state, a.id, fresh, JSON.stringify(fresh), 'index');
    }
    const merged = deepMerge(JSON.parse(existing.source), a.doc);
    const mergedRaw = JSON.stringify(merged);
    // `detect_noop: false` writes (and counts a version) even when nothing changes.
    if (a.detectNoop !== false && mergedRaw === JSON.stringify(JSON.parse(existing.source))) {
      return { index: state.name, id: a.id, version: existing.version, result: 'noop', seqNo: existing.seqNo };
    }
    return this.write(state, a.id, merged, mergedRaw, 'index');
  }

  count(states: readonly IndexState[], query: Query): number {
    let n = 0;
    for (const s of states) n += execute(query, this.ctx(s)).length;
    return n;
  }

  private ctx(state: IndexState): ExecContext {
    state.arena.reset();
    return {
      arena: state.arena,
      indexName: state.name,
      index: state.index,
      mappings: state.mappings,
      sourceOf: (ord) => JSON.parse(this.store.getDoc(state.name, state.index.ids[ord] as string)?.source ?? '{}'),
      now: this.now,
    };
  }

  /** Runs a search over the resolved indices and builds ES's response body. */
  search(states: readonly IndexState[], req: SearchRequest, startedMs: number): Record<string, unknown> {
    return runSearch(states, req, startedMs, {
      ctx: (state) => this.ctx(state),
      sourceText: (state, id) => this.store.getDoc(state.name, id)?.source ?? '{}',
      now: this.now,
    });
  }

  /**
   * Runs a search over indices as scrolls and points in time pin them (search-contexts.ts): their
   * index and mappings, and the `_source` of documents changed since. `capture` as for runSearch.
   */
  searchPinned(states: readonly IndexState[], req: SearchRequest, startedMs: number, capture?: (page: readonly Candidate[]) => void): Record<string, unknown> {
    return runSearch(states, req, startedMs, {
      ctx: (state) => ({ ...this.ctx(state), sourceOf: (ord) => JSON.parse(this.pinnedSource(state, ord, state.index.ids[ord] as string)) }),
      sourceText: (state, id) => this.pinnedSource(state, state.index.idToOrd.get(id) ?? -1, id),
      now: this.now,
    }, capture);
  }

  /** The `_source` of ordinal `ord` (id `id`) of an index as a context sees it. */
  pinnedSource(state: IndexState, ord: number, id: string): string {
    const origin = (state as Partial<PinnedState>).origin ?? state;
    if (origin.index.live[ord] === 1) return this.store.getDoc(origin.name, id)?.source ?? '{}';
    return this.contexts.retiredSource(origin, ord) ?? '{}';
  }

  /** Whether `state` is still the index of its name (not deleted, re-created or reloaded since). */
  isCurrent(state: IndexState): boolean {
    return this.indices.get(state.name) === state;
  }

  /**
   * The write part of a document response (`_index`, `_id`, `_version`, `result`, …), in ES's
   * order (DocWriteResponse): `forced_refresh` right after `result`.
   */
  static writeBody(o: WriteOutcome, forcedRefresh: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = { _index: o.index, _id: o.id, _version: o.version, result: o.result };
    if (forcedRefresh) body.forced_refresh = true;
    body._shards = o.result === 'noop' ? { total: 0, successful: 0, failed: 0 } : SHARDS_WRITE;
    body._seq_no = o.seqNo;
    body._primary_term = 1;
    return body;
  }
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return patch;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) out[k] = deepMerge(out[k], v);
  return out;
}

/** The version and sequence number of document `ord` of `state` (undefined: no document). */
function currentOf(state: IndexState, ord: number | undefined): CurrentDoc | undefined {
  return ord === undefined ? undefined : { version: state.versions[ord] as number, seqNo: state.seqNos[ord] as number };
}
