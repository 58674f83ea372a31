import { randomBytes } from 'node:crypto';
import type { DocumentStore } from '../store/document-store.js';
import { resolveDateMathName } from '../syntax/date-math-index-name.js';
import { errors, SearchError } from '../errors.js';
import { indexProblems, type WriteConditions } from '../requests/write-conditions.js';
import { parseJsonBody } from '../http/json-render.js';
import { countedWithoutCollecting } from './terminate-after.js';
import { execute, type ExecContext } from '../query/query-exec.js';
import type { Query } from '../requests/query-dsl.js';
import type { SearchRequest } from '../requests/search-request.js';
import type { BulkAction } from '../requests/bulk.js';
import { runSearch, type Candidate } from './search-phase.js';
import { SearchContexts } from './open-contexts.js';
import type { PinnedState } from './pit-view.js';
import { validateIndexName } from './index-settings.js';
import { shardFor, type IndexState } from './index-state.js';
import { preferenceIncludes } from '../http/url-params.js';
import { IndexRegistry } from './index-registry.js';
import { shownSource } from './stored-source.js';
import { checkRouting, DocumentWrites, type BulkItem, type GotDoc, type WriteOutcome } from './document-writes.js';
import { IndexReclaimer, type ReclaimPolicy } from './index-reclaimer.js';
import type { SearchActivityLog } from './search-activity-log.js';
import { IndexUsage } from './index-usage.js';
import { isDiskFull } from './disk-full.js';
import { RefreshSchedule } from './refresh-schedule.js';
import { nextTurn } from '../../http/work-turns.js';
import { RequestCache } from './request-cache.js';

/**
 * The search engine behind the routes, a facade over its parts: the indices (index-registry.ts),
 * the document writes (document-writes.ts), the open scrolls and points in time
 * (open-contexts.ts) and the search phase (search-phase.ts), all over one DocumentStore. It holds
 * the store transaction of each request: one per request (a `_bulk` may be committed in parts, see
 * `bulk`).
 */

function autoId(): string {
  // ES ids are 20 URL-safe base64 characters.
  return randomBytes(15).toString('base64url');
}

/**
 * Work per slice of a sliced `_bulk` (SearchService.bulkEachSliced), in ms, by default
 * (--search.bulk-slice): about the longest the event loop waits for a bulk between two slices.
 */
export const BULK_SLICE_MS = 10;

/** A bulk's figures across its slices: failed items, and per index name its index, delete and failed items. */
class BulkRun {
  failed = 0;
  readonly tally = new Map<string, [number, number, number]>();
  constructor(readonly started: number) {}

  count(item: BulkItem): void {
    if ('error' in item) {
      this.failed++;
      this.add(item.index, 2);
    } else if (item.outcome.result === 'deleted') this.add(item.outcome.index, 1);
    else if (item.outcome.result !== 'not_found' && item.outcome.result !== 'noop') this.add(item.outcome.index, 0);
  }

  private add(index: string, k: 0 | 1 | 2): void {
    let t = this.tally.get(index);
    if (t === undefined) this.tally.set(index, (t = [0, 0, 0]));
    t[k]++;
  }
}

/**
 * `search_type`: `dfs_query_then_fetch` gathers every shard's term statistics first and scores
 * with their sums (search-phase.ts). Over one shard that is query_then_fetch, so only a search of
 * several shards is marked (SearchRequest.dfs).
 */
export function withSearchType(req: SearchRequest, searchType: string | undefined, shards: readonly IndexState[]): SearchRequest {
  return searchType === 'dfs_query_then_fetch' && shards.length > 1 ? { ...req, dfs: true } : req;
}

/**
 * `indices_boost` resolved as the search's own indices are (ES resolves each entry with the
 * request's indices options: a missing index is its 404 unless ignored): each index's boost, the
 * first entry naming it winning.
 */
export function withIndexBoosts(service: SearchService, req: SearchRequest, ignoreUnavailable: boolean, allowNoIndices: boolean): SearchRequest {
  if (req.indicesBoost === undefined) return req;
  const boosts = new Map<string, number>();
  for (const { index, boost } of req.indicesBoost) {
    // An empty name is no index (ES's "no such index []"), where resolving it would name them all.
    if (index === '') {
      if (ignoreUnavailable) continue;
      throw errors.indexNotFound(index);
    }
    for (const state of service.resolve(index, ignoreUnavailable, allowNoIndices)) if (!boosts.has(state.name)) boosts.set(state.name, boost);
  }
  return { ...req, indexBoosts: boosts };
}

export class SearchService {
  /** Open scrolls and points in time; every write tells them first (see open-contexts.ts). */
  readonly contexts = new SearchContexts();

  private readonly indices: IndexRegistry;
  private readonly writes: DocumentWrites;
  /** Reclaims what overwritten and deleted documents hold (see index-reclaimer.ts). */
  readonly reclaimer: IndexReclaimer;
  /** What each index has served (`_stats`, `_nodes/stats`). */
  readonly usage = new IndexUsage();
  /** When each index is refreshed (near-real-time search, see refresh-schedule.ts). */
  readonly refreshes: RefreshSchedule;
  /** ES's shard request cache, one index being one shard (request-cache.ts). */
  readonly requestCache = new RequestCache();
  /** Whether the search running read `now` (a query's or an aggregation's date math): its answer is not cached. */
  private readNow = false;
  /** The clock searches' date math reads, which notes that it was read. */
  private readonly queryNow = (): number => {
    this.readNow = true;
    return this.now();
  };
  /** The slice length of bulkEachSliced, in ms (--search.bulk-slice; Infinity: a bulk in one go). */
  bulkSliceMs = BULK_SLICE_MS;

  /**
   * @param reclaim when retired documents are reclaimed (default DEFAULT_RECLAIM_POLICY), and how
   *   its slices are scheduled (default nextTurn, http/work-turns.ts)
   */
  constructor(
    private readonly store: DocumentStore,
    private readonly now: () => number,
    private readonly activity?: SearchActivityLog,
    reclaim?: { readonly policy?: ReclaimPolicy; readonly schedule?: (run: () => void) => void },
  ) {
    this.reclaimer = new IndexReclaimer(
      {
        isCurrent: (s) => this.indices.isCurrent(s),
        isPinned: (s) => this.contexts.isPinned(s),
        reclaimed: (s, dropped, ms, longestMs) => this.activity?.reclaimed(s.name, dropped, s.index.liveCount, ms, longestMs),
        unrefreshed: (s) => this.contexts.searcher(s) !== undefined,
        beforeSwap: (s) => {
          this.refreshes.refresh(s);
          // The ordinals change: what was computed over the old ones goes.
          this.requestCache.clear(s);
        },
      },
      reclaim?.policy,
      reclaim?.schedule,
    );
    this.contexts.onUnpinned = (s) => this.reclaimer.check(s);
    // The snapshot saved at shutdown holds the live documents only.
    this.indices = new IndexRegistry(store, now, this.contexts, activity, (s) => this.reclaimer.compactNow(s));
    this.writes = new DocumentWrites(store, now, this.indices, this.contexts);
    this.refreshes = new RefreshSchedule(this.contexts, now);
    // A compaction waiting for a refresh swaps its copy in right after it (IndexReclaimer.refreshed).
    this.refreshes.onRefreshed = (s) => this.reclaimer.refreshed(s);
    // Searches see other documents (or the index is gone): its cached answers go.
    this.refreshes.onViewChanged = (s) => this.requestCache.clear(s);
  }

  /**
   * `state` as searches see it, as of its last refresh (the live index when every write is
   * visible): before a search, count, by-query match, scroll or point in time opened, which may
   * refresh a search-idle index first (RefreshSchedule.beforeSearch).
   */
  searchable(state: IndexState): IndexState {
    this.refreshes.beforeSearch(state);
    return this.refreshedView(state);
  }

  /**
   * `state` as the last refresh left it, without counting as a search (`_stats`, `_cat`). With the
   * index's current mappings, as in ES, where a field mapped by an unrefreshed write is known to
   * searches (it has no documents in the view).
   */
  refreshedView(state: IndexState): IndexState {
    const view = this.contexts.searcher(state);
    return view === undefined ? state : { ...view.state(), mappings: state.mappings };
  }

  /** The live and deleted documents of `state`'s index (every shard) as their last refresh shows them (ES counts the documents its searchers see). */
  refreshedDocs(state: IndexState): { live: number; deleted: number } {
    let live = 0;
    let deleted = 0;
    for (const shard of state.shards) {
      const seen = this.refreshedView(shard).index;
      live += seen.liveCount;
      deleted += seen.maxOrd - seen.liveCount;
    }
    return { live, deleted };
  }

  /** Refreshes the indices now (`_refresh`, `?refresh=true`), each with all its shards. */
  refresh(states: readonly IndexState[]): void {
    for (const s of states) this.refreshes.refresh(s);
  }

  /**
   * The shards a search of the indices `states` runs on, as ES picks them: every shard of each, or
   * with `routing` (`a,b`: several values) the shards those values route to, and with `preference`
   * `_shards:…` only the shards it names; ordered as ES orders a search's shards (ShardId: shard
   * number, then index), which is the order equal hits merge in.
   */
  searchShards(states: readonly IndexState[], routing?: string, preference?: string): IndexState[] {
    const values = routing === undefined || routing === '' ? undefined : routing.split(',');
    const out: IndexState[] = [];
    for (const index of states) {
      const routed = values === undefined ? undefined : new Set(values.map((v) => shardFor(index, v)));
      for (const shard of index.shards) if ((routed === undefined || routed.has(shard)) && preferenceIncludes(preference, shard.shard)) out.push(shard);
    }
    // Stable: the indices keep their order within a shard number.
    return out.length > 1 && states.some((s) => s.shards.length > 1) ? out.sort((a, b) => a.shard - b.shard) : out;
  }

  /**
   * searchShards for a search or count, null when no shard is left to search (`preference` naming
   * none of the indices' shards, or none of those `routing` picks): the node then answers without
   * searching (noShardSearched), the indices resolved all the same (a missing one is its 404).
   * With no indices at all, `_shards:` not naming shard 0 is that answer too.
   */
  searchShardsOrNone(states: readonly IndexState[], routing?: string, preference?: string): IndexState[] | null {
    const shards = this.searchShards(states, routing, preference);
    return shards.length > 0 || (states.length === 0 && preferenceIncludes(preference, 0)) ? shards : null;
  }

  /** Index `name`'s refreshes so far (RefreshSchedule.generation): a `wait_for` write made now waits for one past it. */
  refreshGeneration(name: string): number {
    return this.indices.exists(name) ? this.refreshes.generation(this.indices.get(name)) : 0;
  }

  /**
   * `?refresh=wait_for`: resolves once each index named has had a refresh after its write (the
   * generation its last write was made at, see refreshGeneration; a write made just now when only
   * names are given). Answers the indices whose wait forced a refresh (`forced_refresh` on their items).
   */
  async waitForRefresh(written: Iterable<string> | ReadonlyMap<string, number>): Promise<Set<string>> {
    const gens = written instanceof Map ? (written as ReadonlyMap<string, number>) : new Map([...(written as Iterable<string>)].map((n) => [n, this.refreshGeneration(n)]));
    const names: string[] = [];
    const waits: Promise<boolean>[] = [];
    for (const [name, since] of gens) {
      if (!this.indices.exists(name)) continue;
      names.push(name);
      waits.push(this.refreshes.waitFor(this.indices.get(name), since));
    }
    const forced = await Promise.all(waits);
    return new Set(names.filter((_, i) => forced[i]));
  }

  /** Loads every index from the store (see IndexRegistry.load); a snapshot may hold retired documents to reclaim. */
  load(): void {
    this.indices.load();
    this.checkReclaim();
  }

  /** Starts the compaction of every shard that holds enough retired documents (after writes). */
  private checkReclaim(): void {
    for (const s of this.indices.shards()) this.reclaimer.check(s);
  }

  /** Stops reclaiming (the service is closing; the snapshot still compacts, see IndexRegistry). */
  close(): void {
    this.reclaimer.stop();
    this.refreshes.close();
  }

  list(): IndexState[] {
    return this.indices.list();
  }

  get(name: string): IndexState {
    return this.indices.get(name);
  }

  exists(name: string): boolean {
    return this.indices.exists(name);
  }

  /** Resolves an index expression to open indices (see IndexRegistry.resolve). */
  resolve(expr: string | undefined, ignoreUnavailable = false, allowNoIndices = true): IndexState[] {
    return this.indices.resolve(expr, ignoreUnavailable, allowNoIndices);
  }

  /** Resolves an index expression, closed indices included (index management). */
  resolveWithClosed(expr: string | undefined, ignoreUnavailable = false, allowNoIndices = true): IndexState[] {
    return this.indices.resolve(expr, ignoreUnavailable, allowNoIndices, true);
  }

  /** Closes (`true`) or opens the indices `expr` names (IndexRegistry.setClosed). */
  setClosed(expr: string, closed: boolean): IndexState[] {
    return this.indices.setClosed(expr, closed);
  }

  createIndex(name: string, body: unknown): IndexState {
    return this.indices.createIndex(name, body);
  }

  deleteIndex(expr: string): void {
    this.indices.deleteIndex(expr);
  }

  /** `PUT /<index>/_settings`: changes dynamic settings; a changed `refresh_interval` re-times the next refresh. */
  updateSettings(expr: string | undefined, body: unknown): void {
    for (const s of this.indices.updateSettings(expr, body)) this.refreshes.settingsChanged(s);
  }

  /** Adds dynamic mappings to an index's mapping; the same for PUT /<index>/_mapping. */
  putMapping(name: string, body: unknown): void {
    this.indices.putMapping(name, body);
    // Answers keyed by the old mappings never hit again (RequestCache.get): their memory goes now.
    this.requestCache.clear(this.indices.get(name));
  }

  /** Whether `state` (a shard) is still of the index of its name (not deleted, re-created or reloaded since). */
  isCurrent(state: IndexState): boolean {
    return this.indices.isCurrent(state);
  }

  /**
   * The live document `id` of `index`, on the shard `routing` (the get's `?routing=`, an `_mget`
   * item's), else the id, routes to, as ES's get finds it: with one shard whatever the routing.
   * An index whose mapping requires routing refuses a get without one (routing_missing_exception).
   */
  getDoc(index: string, id: string, routing?: string): GotDoc | undefined {
    if (routing === undefined) checkRouting(this.indices.get(index), id, undefined);
    return this.writes.getDoc(index, id, routing);
  }

  /** `getDoc` with `realtime=false`: the document as the shard's last refresh shows it. */
  getRefreshedDoc(index: string, id: string, routing?: string): GotDoc | undefined {
    const live = shardFor(this.indices.get(index), routing ?? id);
    const view = this.contexts.searcher(live);
    if (view === undefined) return this.getDoc(index, id, routing);
    if (routing === undefined) checkRouting(live, id, undefined);
    const state = view.state();
    const ord = state.index.idToOrd.get(id);
    if (ord === undefined) return undefined;
    const source = this.pinnedSource(state, ord, id);
    const got = { version: live.versions[ord] as number, seqNo: live.seqNos[ord] as number, source: shownSource(state.mappings.root, source), indexedSource: source };
    const stored = live.index.live[ord] === 1 ? this.store.getDoc(index, id) : undefined;
    return stored?.routing === undefined ? got : { ...got, routing: stored.routing };
  }

  /**
   * Runs writes in one store transaction. If the commit fails the in-memory index may hold writes
   * that were never stored, so it is rebuilt from the store before the error propagates; with
   * `interimCommits` (see DocumentStore.transaction) part of the writes may be stored whatever the
   * error, so it is rebuilt on any.
   */
  private transaction<T>(fn: () => T, interimCommits = false): T {
    try {
      const result = this.store.transaction(fn, { interimCommits });
      this.checkReclaim();
      return result;
    } catch (e) {
      if (interimCommits || !(e instanceof SearchError)) this.writeFailed(e);
      throw isDiskFull(e) ? errors.diskFull() : e;
    }
  }

  /** After a failed write the in-memory indices may hold what the store does not: they are rebuilt from it. */
  private writeFailed(e: unknown): void {
    // The reloaded indices are new states: contexts over the old ones could only answer 404.
    this.activity?.writeFailed(e);
    this.contexts.clear();
    this.indices.reload();
    this.requestCache.retain((s) => this.indices.isCurrent(s));
  }

  /**
   * `cond`: the request's version or sequence-number conditions, if it gave any; `requireAlias`:
   * its `require_alias` (the index must be an alias; there are none here).
   */
  indexDoc(index: string, id: string | undefined, source: unknown, raw: string, op: 'index' | 'create', cond?: WriteConditions, requireAlias = false, routing?: string): WriteOutcome {
    // IndexRequest.validate runs before the index is looked at (or created).
    const problems = indexProblems(op, id, cond);
    if (problems.length > 0) throw errors.actionValidation(problems);
    if (requireAlias) throw errors.requireAlias(index);
    validateIndexName(index);
    // The index is created (and committed) before the write is tried and stays whatever becomes of
    // it, as in ES. Created inside the write's transaction, a failed write (a 409, a document
    // parsing error) rolled its stored row back while the in-memory index stayed: every document
    // written to it afterwards was acknowledged but lost at the next start.
    const state = this.indices.ensureIndex(index);
    const started = performance.now();
    try {
      const outcome = this.transaction(() => this.writes.write(state, id ?? autoId(), source, raw, op, undefined, cond, routing));
      this.usage.wrote(state, 'index', 1, performance.now() - started);
      return outcome;
    } catch (e) {
      this.usage.wrote(state, 'failed', 1, 0);
      throw e;
    }
  }

  /** `cond`: as for indexDoc (validated by the caller). */
  deleteDoc(index: string, id: string, cond?: WriteConditions, routing?: string): WriteOutcome {
    // Created (and committed) before the delete is tried, as indexDoc creates its index.
    const state = this.writes.deleteTarget(index, cond);
    const started = performance.now();
    const outcome = this.transaction(() => this.writes.remove(state, id, cond, routing));
    if (outcome.result === 'deleted') this.usage.wrote(state, 'delete', 1, performance.now() - started);
    return outcome;
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
    const run = new BulkRun(performance.now());
    this.bulkSlice(actions, 0, each, run, Infinity);
    this.bulkDone(run, actions.length);
  }

  /**
   * `bulkEach` in slices of about `sliceMs` of work, with the event loop free between slices: a long
   * `_bulk` does not stall the searches and small writes that arrive while it runs (ES indexes a
   * bulk's items while searches run too). Items are applied in order, in one store transaction
   * kept open across the slices and committed at the end (DocumentStore.openTransaction: a search
   * between slices reads the bulk's documents from the store's pending writes), so slicing costs no
   * extra commit; a write of another request between two slices commits the bulk's writes so far
   * first, and may fall between two of its items, as in ES. A search may see part of a bulk, as an
   * ES refresh during a bulk shows part of it. A store without open transactions commits each slice.
   */
  async bulkEachSliced(actions: readonly (BulkAction | SearchError)[], each: (item: BulkItem) => void, sliceMs = this.bulkSliceMs): Promise<void> {
    const run = new BulkRun(performance.now());
    const open = this.store.openTransaction?.({ interimCommits: true });
    let at = 0;
    if (open === undefined) {
      while (at < actions.length) {
        if (at > 0) await nextTurn();
        at = this.bulkSlice(actions, at, each, run, sliceMs);
      }
    } else {
      // One transaction across the slices, committed at the end as a whole bulk is (its writes are
      // readable from the store's pending writes meanwhile); a write of another request between
      // two slices commits what the bulk wrote so far first.
      try {
        // A turn of the event loop before the first slice (the body was just parsed), between
        // slices, and before the commit (which waits for the writer thread): each blocks alone.
        while (at < actions.length) {
          await nextTurn();
          const from = at;
          at = open.run(() => this.applySlice(actions, from, each, run, sliceMs));
          // A compaction waiting for a refresh copies these writes in its own slices (not all in its swap).
          this.reclaimer.written();
        }
        await nextTurn();
        // Awaited, not blocking: searches run while the writer thread commits and fsyncs.
        if (open.commitAsync !== undefined) await open.commitAsync();
        else open.commit();
      } catch (e) {
        open.rollback();
        this.writeFailed(e);
        throw isDiskFull(e) ? errors.diskFull() : e;
      }
      this.checkReclaim();
    }
    this.bulkDone(run, actions.length);
  }

  /** Applies actions from `from` in one transaction until `sliceMs` have passed; the next one's index. */
  private bulkSlice(actions: readonly (BulkAction | SearchError)[], from: number, each: (item: BulkItem) => void, run: BulkRun, sliceMs: number): number {
    return this.transaction(() => this.applySlice(actions, from, each, run, sliceMs), true);
  }

  /** Applies actions from `from` until `sliceMs` have passed, inside the caller's transaction; the next one's index. */
  private applySlice(actions: readonly (BulkAction | SearchError)[], from: number, each: (item: BulkItem) => void, run: BulkRun, sliceMs: number): number {
    const sliceStart = performance.now();
    let at = from;
    // The items' text postings are batched (see InvertedIndex.beginBatch), and appended before
    // the slice ends and anything can read them.
    this.writes.beginBatch();
    try {
      while (at < actions.length) {
        const item = this.bulkItem(actions[at++] as BulkAction | SearchError);
        run.count(item);
        each(item);
        if (performance.now() - sliceStart >= sliceMs) break;
      }
    } finally {
      this.writes.endBatch();
    }
    return at;
  }

  private bulkDone(run: BulkRun, operations: number): void {
    const ms = performance.now() - run.started;
    this.activity?.bulkDone({ operations, failed: run.failed, ms });
    this.recordWrites(run.tally, operations, ms);
  }

  private recordWrites(tally: ReadonlyMap<string, readonly [number, number, number]>, operations: number, ms: number): void {
    for (const [name, [indexed, deleted, failed]] of tally) {
      if (!this.indices.exists(name)) continue;
      const state = this.indices.get(name);
      const share = operations === 0 ? 0 : ms / operations;
      if (indexed > 0) this.usage.wrote(state, 'index', indexed, indexed * share);
      if (deleted > 0) this.usage.wrote(state, 'delete', deleted, deleted * share);
      if (failed > 0) this.usage.wrote(state, 'failed', failed, 0);
    }
  }

  /** The UTF-8 bytes `state`'s documents take in the store (ids and sources). */
  storedBytes(state: IndexState): number {
    if (this.store.storedBytes !== undefined) return this.store.storedBytes(state.name);
    let n = 0;
    this.store.scanDocs(state.name, (d) => (n += Buffer.byteLength(d.id) + Buffer.byteLength(d.source)));
    return n;
  }

  /** storedBytes of each shard of `state`'s index, in shard order (its documents read once to route them when it has several). */
  storedBytesByShard(state: IndexState): number[] {
    if (state.shards.length === 1) return [this.storedBytes(state)];
    const bytes = state.shards.map(() => 0);
    this.store.scanDocs(state.name, (d) => {
      const k = shardFor(state, d.routing ?? d.id).shard;
      bytes[k] = (bytes[k] as number) + Buffer.byteLength(d.id) + Buffer.byteLength(d.source);
    });
    return bytes;
  }

  /** The bytes the store's files take on disk (0 for a store without files). */
  diskBytes(): number {
    return this.store.diskBytes?.() ?? 0;
  }

  private bulkItem(a: BulkAction | SearchError): BulkItem {
    if (a instanceof SearchError) return { op: 'index', index: '', id: '', error: a };
    // The id the item's failure shows: one without `_id` has none (null) until it is generated.
    let id = a.id ?? null;
    try {
      // In ES's order: the index (its name, when it is created), the id (IndexRouting), then the
      // source when the shard parses it. No index is created for an item that requires an alias.
      if (a.op !== 'delete' && a.requireAlias === true) throw errors.requireAlias(a.index);
      // A date-math name (`<logs-{now/d}>`) names the index it resolves to now, as in ES.
      const index = resolveDateMathName(a.index, this.now());
      if (a.op === 'delete') return { op: a.op, outcome: this.writes.remove(this.writes.deleteTarget(index, a.cond), a.id, a.cond, a.routing) };
      // ES creates every missing index a bulk writes to before it routes any item (createIndex
      // checks the name), so the index stays whatever becomes of the item.
      const state = this.indices.ensureIndex(index);
      if (a.op === 'update') return { op: a.op, outcome: this.writes.update(state, a) };
      // Only an index/create item can have an empty id here (bulk.ts refuses it for the others).
      if (a.id === '') throw errors.emptyId();
      id ??= autoId();
      // Read once: a bulk item's source text may be decoded on each read (see bulk.ts).
      const raw = a.raw;
      const source = a.source ?? parseJsonBody(raw);
      return { op: a.op, outcome: this.writes.write(state, id, source, raw, a.op, a.rawIn, a.cond, a.routing) };
    } catch (e) {
      // The item's failure names its op, index and id, as ES's does.
      if (e instanceof SearchError) return { op: a.op, index: a.index, id, error: e };
      throw e;
    }
  }

  /** `_count`: the hits of `query`, only those scoring at least `minScore` when given (ES's `min_score`). */
  count(states: readonly IndexState[], query: Query, minScore?: number): number {
    return this.countCollected(states, query, minScore).count;
  }

  /**
   * `count` with `terminate_after`: each shard's hits as a search of size 0 collects them
   * (terminate-after.ts), and whether one stopped early.
   */
  countCollected(states: readonly IndexState[], query: Query, minScore?: number, terminateAfter?: number): { count: number; terminated: boolean } {
    let n = 0;
    let terminated = false;
    for (const origin of states) {
      const s = this.searchable(origin);
      const started = performance.now();
      const hits = execute(query, this.pinnedCtx(s));
      let matched = 0;
      if (minScore === undefined) matched = hits.length;
      else for (let i = 0; i < hits.length; i++) if ((hits.scores[i] as number) >= minScore) matched++;
      if (terminateAfter !== undefined && !(minScore === undefined && countedWithoutCollecting(query, s)) && matched > terminateAfter) {
        matched = terminateAfter;
        terminated = true;
      }
      n += matched;
      this.usage.searched(origin, performance.now() - started, false);
    }
    return { count: n, terminated };
  }

  /** The ordinals of `state`'s live documents that match `query`, in write order (`_delete_by_query` and friends). */
  matchingOrds(state: IndexState, query: Query): Int32Array {
    const hits = execute(query, this.pinnedCtx(this.searchable(state)));
    return Int32Array.from(hits.docs.subarray(0, hits.length)).sort();
  }

  /** `textOf`: the stored `_source` text of a live ordinal (pinnedCtx gives the one a context sees). */
  private ctx(state: IndexState, textOf = (ord: number): string => this.sourceText(state.name, state.index.ids[ord] as string)): ExecContext {
    state.arena.reset();
    return {
      arena: state.arena,
      indexName: state.name,
      index: state.index,
      mappings: state.mappings,
      // The source column alone (getSource), as hits read it.
      sourceOf: (ord) => JSON.parse(textOf(ord)),
      sourceTextOf: textOf,
      reading: this.fetching,
      now: this.queryNow,
      maxTermsCount: state.settings.maxTermsCount,
    };
  }

  /**
   * Runs a search over the resolved indices and builds ES's response body. `cache`, when the
   * search may use the request cache (a `_search` or `_msearch` item that is no scroll, point in
   * time or profile): its key there (requestCacheKey, made only when the cache applies) and its
   * `request_cache` parameter. A cached answer is the one computed, with a new `took`.
   */
  search(states: readonly IndexState[], req: SearchRequest, startedMs: number, cache?: { key(): string; readonly param: string | undefined }): Record<string, unknown> {
    const started = performance.now();
    const seen = states.map((s) => this.searchable(s));
    // After searchable: a search-idle index may have been refreshed (its entries dropped) just now.
    const cached = cache !== undefined && states.length === 1 && states[0]?.shards.length === 1 && req.suggestOnly !== true && this.requestCache.applies(states[0] as IndexState, cache.param, req.size);
    let key: string | undefined;
    if (cached) {
      key = cache.key();
      const hit = this.requestCache.get(states[0] as IndexState, key);
      if (hit !== undefined) {
        const body = { ...hit, took: Math.max(0, Math.round(this.now() - startedMs)) };
        this.recordSearch(states, body, performance.now() - started);
        return body;
      }
    }
    this.readNow = false;
    const body = seen.every((s, i) => s === states[i])
      ? runSearch(states, req, startedMs, {
          ctx: (state) => this.ctx(state),
          sourceText: (state, id) => this.sourceText(state.name, id),
          fetching: this.fetching,
          now: this.now,
          readsNow: this.queryNow,
        })
      : this.searchPinned(seen, req, startedMs);
    // ES caches only successful answers, and none that read `now`.
    if (key !== undefined && !this.readNow) this.requestCache.put(states[0] as IndexState, key, (body._shards as { failed: number }).failed === 0 ? body : undefined);
    this.recordSearch(states, body, performance.now() - started);
    return body;
  }

  /** Each index's query counter, the search's time shared out between them. */
  private recordSearch(states: readonly IndexState[], body: Record<string, unknown>, ms: number): void {
    const hits = (body.hits as { hits: readonly { _index?: string }[] }).hits;
    for (const s of states) this.usage.searched(s, ms / states.length, hits.length > 0);
  }

  /**
   * Runs a search over indices as scrolls and points in time pin them (open-contexts.ts): their
   * index and mappings, and the `_source` of documents changed since. `capture` as for runSearch.
   */
  searchPinned(states: readonly IndexState[], req: SearchRequest, startedMs: number, capture?: (page: readonly Candidate[]) => void): Record<string, unknown> {
    return runSearch(states, req, startedMs, {
      ctx: (state) => this.pinnedCtx(state),
      sourceText: (state, id) => this.pinnedSource(state, state.index.idToOrd.get(id) ?? -1, id),
      fetching: this.fetching,
      now: this.now,
      readsNow: this.queryNow,
    }, capture);
  }

  /** The query context of an index as a context (or its last refresh) sees it. */
  private pinnedCtx(state: IndexState): ExecContext {
    if ((state as Partial<PinnedState>).origin === undefined) return this.ctx(state);
    return this.ctx(state, (ord) => this.pinnedSource(state, ord, state.index.ids[ord] as string));
  }

  /** The stored `_source` text of a live document (`{}` when the store has none). */
  private sourceText(index: string, id: string): string {
    const store = this.store;
    return (store.getSource === undefined ? store.getDoc(index, id)?.source : store.getSource(index, id)) ?? '{}';
  }

  /** How a page of hits is rendered: in one read of the store when it has them (DocumentStore.reading). */
  private readonly fetching = <T>(fn: () => T): T => (this.store.reading === undefined ? fn() : this.store.reading(fn));

  /** The `_source` of ordinal `ord` (id `id`) of an index as a context sees it. */
  pinnedSource(state: IndexState, ord: number, id: string): string {
    const origin = (state as Partial<PinnedState>).origin ?? state;
    if (origin.index.live[ord] === 1) return this.sourceText(origin.name, id);
    return this.contexts.retiredSource(origin, ord) ?? '{}';
  }
}
