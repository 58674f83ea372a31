import { DeleteTombstones, type Tombstone } from './delete-tombstones.js';
import { addRouting } from '../mapping/routing-field.js';
import { shownSource } from './stored-source.js';
import { checkNoMetadataFields, clearParsedDoc, emptyParsedDoc, parseDocument, type ParsedDoc } from '../mapping/document-parser.js';
import type { DocumentStore, SourceSpan } from '../store/document-store.js';
import { errors, type SearchError } from '../errors.js';
import { conflict, type CurrentDoc, nextVersion, type WriteConditions } from '../requests/write-conditions.js';
import type { BulkAction } from '../requests/bulk.js';
import { shardFor, type IndexState } from './index-state.js';
import { openState, type IndexRegistry } from './index-registry.js';
import type { SearchContexts } from './open-contexts.js';

/**
 * Document writes: index, create, update and delete of one document, each to the store and to the
 * in-memory index at once (searches see them after the next refresh: refresh-schedule.ts), under its version
 * and sequence-number conditions and the index's tombstones. The caller (SearchService) holds the
 * store transaction around them.
 */

export type WriteResult = 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';

export interface WriteOutcome {
  readonly index: string;
  readonly id: string;
  readonly version: number;
  readonly result: WriteResult;
  readonly seqNo: number;
  /** The index's shard copies, primary and replicas (`_shards.total` of the answer); 2 when absent. */
  readonly copies?: number;
  /** The document's routing, when it has one (the shard it is on: a get after the write finds it with it). */
  readonly routing?: string;
}

/** A failed item's `id` is null when it failed before it had one (an index/create without `_id`, before its id was generated). */
export type BulkItem =
  | { readonly op: string; readonly outcome: WriteOutcome }
  | { readonly op: string; readonly index: string; readonly id: string | null; readonly error: SearchError };

/** `_shards` of a write: every copy of the shard counted (ES's DocWriteResponse), one written (this node's). */
export function writeShards(o: WriteOutcome): { total: number; successful: number; failed: number } {
  return o.result === 'noop' ? { total: 0, successful: 0, failed: 0 } : { total: o.copies ?? 2, successful: 1, failed: 0 };
}

/**
 * The write part of a document response (`_index`, `_id`, `_version`, `result`, …), in ES's
 * order (DocWriteResponse): `forced_refresh` right after `result`.
 */
export function writeBody(o: WriteOutcome, forcedRefresh: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { _index: o.index, _id: o.id, _version: o.version, result: o.result };
  if (forcedRefresh) body.forced_refresh = true;
  body._shards = writeShards(o);
  body._seq_no = o.seqNo;
  body._primary_term = 1;
  return body;
}

export class DocumentWrites {
  /**
   * Per index, the versions of its recently deleted documents (ES's tombstones, kept for
   * gc_deletes; memory only). Keyed by the state, so a deleted or reloaded index drops them.
   */
  private readonly tombstones = new WeakMap<IndexState, DeleteTombstones>();

  /** What write parses every document into (see FieldValues.clear): InvertedIndex.add keeps none of it. */
  private readonly parsed = emptyParsedDoc();

  /** The indices whose postings the running `_bulk` batches (see beginBatch); undefined outside one. */
  private batched: Set<IndexState> | undefined;

  constructor(
    private readonly store: DocumentStore,
    private readonly now: () => number,
    private readonly indices: IndexRegistry,
    private readonly contexts: SearchContexts,
  ) {}

  /** The live document `id` of `index` on the shard `routing` (else the id) routes to, as ES's get finds it. */
  getDoc(index: string, id: string, routing?: string): GotDoc | undefined {
    const state = shardFor(openState(this.indices.get(index)), routing ?? id);
    const ord = state.index.idToOrd.get(id);
    if (ord === undefined) return undefined;
    const doc = this.store.getDoc(index, id);
    if (doc === undefined) return undefined;
    const got = { version: state.versions[ord] as number, seqNo: state.seqNos[ord] as number, source: shownSource(state.mappings.root, doc.source), indexedSource: doc.source };
    return doc.routing === undefined ? got : { ...got, routing: doc.routing };
  }

  /**
   * From here until endBatch, the text postings of the documents written are batched (see
   * InvertedIndex.beginBatch), index by index as they are first written to.
   */
  beginBatch(): void {
    this.batched = new Set<IndexState>();
  }

  /** Appends the batched postings; before the transaction commits and anything can read them. */
  endBatch(): void {
    const batched = this.batched;
    this.batched = undefined;
    if (batched !== undefined) for (const state of batched) state.index.endBatch();
  }

  /** The parsed stored document of ordinal `ord` (`doc`: its stored row, when the caller read it already). */
  private parsedOf(state: IndexState, ord: number, doc = this.store.getDoc(state.name, state.index.ids[ord] as string)): ParsedDoc {
    const id = state.index.ids[ord] as string;
    if (doc === undefined) return emptyParsedDoc();
    const parsed = parseDocument(JSON.parse(doc.source), state.mappings, id, true).doc;
    if (doc.routing !== undefined) addRouting(parsed, doc.routing);
    return parsed;
  }

  /**
   * `routing`: the write's custom routing (`?routing=`, a bulk item's), kept with the document; the
   * document goes to the shard of `state`'s index it routes to (else its id does).
   */
  write(state: IndexState, id: string, source: unknown, raw: string, op: 'index' | 'create', rawIn?: SourceSpan, cond?: WriteConditions, routing?: string): WriteOutcome {
    try {
      checkRouting(state, id, routing);
      return this.writeParsed(shardFor(state, routing ?? id), id, source, raw, op, rawIn, cond, routing);
    } finally {
      // Refused or written, the document's values are not kept until the next write.
      clearParsedDoc(this.parsed);
    }
  }

  private writeParsed(state: IndexState, id: string, source: unknown, raw: string, op: 'index' | 'create', rawIn?: SourceSpan, cond?: WriteConditions, routing?: string): WriteOutcome {
    checkNoMetadataFields(source);
    const { doc, mappings } = parseDocument(source, state.mappings, id, false, this.parsed);
    if (routing !== undefined) addRouting(doc, routing);
    // The document this one replaces: on its shard, or (another routing) on another shard of the
    // index, which an id has at most one of here (the store keeps one document per id).
    const holder = oldShardOf(state, id);
    const oldOrd = holder.index.idToOrd.get(id);
    if (oldOrd !== undefined && op === 'create') {
      throw errors.versionConflictExists(state.name, state.uuid, id, holder.versions[oldOrd] as number);
    }
    // A document deleted lately counts its versions on from the delete's (ES's tombstone).
    const tomb = oldOrd === undefined ? this.tombstoneOf(state, id) : undefined;
    if (cond !== undefined) this.checkConditions(state, id, currentOf(holder, oldOrd), cond, tomb);
    const currentVersion = oldOrd === undefined ? tomb?.version : (holder.versions[oldOrd] as number);
    // The replaced document is read once: for the views that may still show it, and to unindex it.
    const old = oldOrd === undefined ? undefined : this.store.getDoc(state.name, id);
    this.contexts.beforeWrite(holder, oldOrd, () => old?.source);
    if (oldOrd !== undefined) holder.index.remove(oldOrd, this.parsedOf(holder, oldOrd, old));
    // The replaced document's shard shows the change at its next refresh too.
    if (holder !== state) this.contexts.beforeWrite(state, undefined, () => undefined);
    const version = nextVersion(cond, currentVersion);
    if (mappings !== state.mappings) {
      state.mappings = mappings;
      this.store.updateMappings(state.name, mappings.toJSON());
    }
    const seqNo = state.nextSeqNo++;
    this.store.putDoc(state.name, routing === undefined ? { id, version, seqNo, source: raw } : { id, version, seqNo, source: raw, routing }, rawIn);
    if (this.batched !== undefined && !this.batched.has(state)) {
      this.batched.add(state);
      state.index.beginBatch();
    }
    const ord = state.index.add(id, doc);
    state.versions[ord] = version;
    state.seqNos[ord] = seqNo;
    if (tomb !== undefined) this.tombstonesOf(state).drop(id);
    const outcome: WriteOutcome = { index: state.name, id, version, result: oldOrd === undefined ? 'created' : 'updated', seqNo, copies: copiesOf(state) };
    return routing === undefined ? outcome : { ...outcome, routing };
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

  /** Deletes `id` from the shard of `state`'s index that `routing` (else the id) routes to: a document on another shard is not found there, as in ES. */
  remove(index: IndexState, id: string, cond?: WriteConditions, routing?: string): WriteOutcome {
    checkRouting(index, id, routing);
    const state = shardFor(index, routing ?? id);
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
      return { index: state.name, id, version, result: 'not_found', seqNo, copies: copiesOf(state) };
    }
    const version = nextVersion(cond, state.versions[ord] as number);
    const old = this.store.getDoc(state.name, id);
    this.contexts.beforeWrite(state, ord, () => old?.source);
    state.index.remove(ord, this.parsedOf(state, ord, old));
    this.store.deleteDoc(state.name, id);
    this.tombstonesOf(state).put(id, version, seqNo, now);
    return { index: state.name, id, version, result: 'deleted', seqNo, copies: copiesOf(state) };
  }

  /**
   * The index a delete goes to. ES auto-creates an index for a delete only under external
   * versioning (TransportBulkAction leaves other deletes out of auto-creation); otherwise a missing
   * index fails the delete as resolving its name fails (a name starting with `_` is refused as an
   * expression, any other is not found).
   */
  deleteTarget(index: string, cond: WriteConditions | undefined): IndexState {
    const s = this.indices.find(index);
    if (s !== undefined) return openState(s);
    if (cond === undefined || cond.versionType === 'internal') {
      throw index.startsWith('_') ? errors.invalidIndexName(index, "must not start with '_'.") : errors.indexNotFound(index);
    }
    return this.indices.createIndex(index, undefined);
  }

  /** `state`: the update's index, auto-created if it was missing (upsert or not, as in ES). */
  update(state: IndexState, a: Extract<BulkAction, { op: 'update' }>): WriteOutcome {
    checkRouting(state, a.id, a.routing);
    // Found on the shard the update routes to (its routing, else its id), as ES's update reads it.
    const existing = this.getDoc(state.name, a.id, a.routing);
    // The current document is read under the item's conditions (a mismatch before any no-op check).
    if (a.cond !== undefined && existing !== undefined) this.checkConditions(state, a.id, existing, a.cond);
    if (existing === undefined) {
      const fresh = a.upsert ?? (a.docAsUpsert ? a.doc : undefined);
      if (fresh === undefined) throw errors.documentMissing(state.name, state.uuid, a.id);
      return this.write(state, a.id, fresh, JSON.stringify(fresh), 'index', undefined, undefined, a.routing);
    }
    // Nothing to merge into: the index keeps no source (UpdateHelper's DocumentSourceMissingException).
    if (!state.mappings.root.sourceEnabled) throw errors.documentSourceMissing(state.name, state.uuid, a.id);
    // The update's own routing, else the document's (UpdateHelper.calculateRouting).
    const routing = a.routing ?? existing.routing;
    const merged = deepMerge(JSON.parse(existing.source), a.doc);
    const mergedRaw = JSON.stringify(merged);
    // `detect_noop: false` writes (and counts a version) even when nothing changes.
    if (a.detectNoop !== false && mergedRaw === JSON.stringify(JSON.parse(existing.source))) {
      const noop: WriteOutcome = { index: state.name, id: a.id, version: existing.version, result: 'noop', seqNo: existing.seqNo };
      return existing.routing === undefined ? noop : { ...noop, routing: existing.routing };
    }
    return this.write(state, a.id, merged, mergedRaw, 'index', undefined, undefined, routing);
  }
}

/** A document as a get reads it: its live version and sequence number, its stored source and routing. */
export interface GotDoc {
  readonly version: number;
  readonly seqNo: number;
  /** The `_source` the index keeps (filtered by the mapping's `_source` includes/excludes: stored-source.ts). */
  readonly source: string;
  /** The whole document as written and indexed: where stored fields (`store: true`) are read from. */
  readonly indexedSource: string;
  readonly routing?: string;
}

/** A shard's copies in ES's `_shards.total`: the primary and `index.number_of_replicas` replicas (unassigned on one node). */
export function copiesOf(state: IndexState): number {
  return 1 + state.settings.numberOfReplicas;
}

/** ES's RoutingMissingException: the mapping requires routing and the request gives none. */
export function checkRouting(state: IndexState, id: string, routing: string | undefined): void {
  if (routing === undefined && state.mappings.root.routingRequired) throw errors.routingMissing(state.name, id);
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return patch;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) out[k] = deepMerge(out[k], v);
  return out;
}

/** The shard of `state`'s index that holds `id` now: `state` when none of the index's other shards does. */
function oldShardOf(state: IndexState, id: string): IndexState {
  if (state.shards.length === 1 || state.index.idToOrd.has(id)) return state;
  return state.shards.find((s) => s.index.idToOrd.has(id)) ?? state;
}

/** The version and sequence number of document `ord` of `state` (undefined: no document). */
function currentOf(state: IndexState, ord: number | undefined): CurrentDoc | undefined {
  return ord === undefined ? undefined : { version: state.versions[ord] as number, seqNo: state.seqNos[ord] as number };
}
