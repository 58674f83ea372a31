import fc from 'fast-check';
import { describe, expect, it, afterEach, beforeEach } from 'vitest';
import type { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { SearchService } from '../../../src/search/engine/search-service.js';
import type { BulkAction } from '../../../src/search/requests/bulk.js';
import { MapStore, unbatchedService } from '../map-store.js';
import { parseSearchRequest } from '../../../src/search/requests/search-request.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBulk } from '../../../src/search/requests/bulk.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';
import { parseQuery } from '../../../src/search/requests/query-dsl.js';

/**
 * SearchService (engine/search-service.ts) over a document store: the index it builds after any
 * history of writes, _bulk with and without batched postings, bulk commits that fail, and dates
 * stored by a version that ignored date formats.
 */

/**
 * The in-memory index after any history of writes (index, create, update, delete, refused
 * documents, multi-valued and repeated values, a snapshot in between) holds what a rebuild from the
 * stored documents holds, and a service restored from a snapshot builds the same index as the one
 * that took it. Field values come from a small pool so that documents often repeat the value their
 * predecessor had (the fields replay such values instead of analysing them again).
 */

/** What a query can see of an index, by document id (ordinals differ between a live index and a rebuild). */
function view(index: InvertedIndex, exact: boolean): unknown {
  const idOf = (ord: number): string => (index.live[ord] === 1 ? (index.ids[ord] as string) : `dead ${ord}`);
  const liveIds = index.ids.filter((_, ord) => index.live[ord] === 1);
  const out: Record<string, unknown> = { live: exact ? index.ids.map((_, ord) => idOf(ord)) : [...liveIds] };
  for (const [path, f] of [...index.text].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const terms: Record<string, unknown> = {};
    for (const [term, id] of f.terms.entries()) {
      if (!exact && f.postings.docFreq(id) === 0) continue;
      const postings = Array.from(f.postings.postings(id)).filter((p) => exact || index.live[p >>> 4] === 1);
      terms[term] = [f.postings.docFreq(id), postings.map((p) => [idOf(p >>> 4), f.postings.freqOf(id, p)]), exact ? [f.postings.maxFreq(id), f.postings.minNorm(id)] : []];
    }
    const norms = index.ids.map((_, ord) => (exact || index.live[ord] === 1 ? [idOf(ord), f.norms[ord] ?? 0, f.present[ord] ?? 0] : [])).filter((x) => x.length > 0);
    // A rebuild makes no field that only replaced or deleted documents had.
    if (!exact && norms.every((n) => n[2] === 0)) continue;
    out[`text ${path}`] = { docCount: f.docCount, sum: f.sumTotalTermFreq, terms, norms };
  }
  for (const [path, f] of [...index.keyword].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const terms: Record<string, unknown> = {};
    for (const [term, id] of f.terms.entries()) {
      if (!exact && f.postings.docFreq(id) === 0) continue;
      terms[term] = [f.postings.docFreq(id), Array.from(f.postings.postings(id)).filter((p) => exact || index.live[p >>> 4] === 1).map((p) => idOf(p >>> 4))];
    }
    const values = liveIds.map((id) => f.valuesOf(index.idToOrd.get(id) as number) ?? []);
    if (!exact && values.every((v) => v.length === 0)) continue;
    out[`keyword ${path}`] = { docCount: f.docCount, sum: f.sumDocFreq, terms, values };
  }
  for (const [path, f] of [...index.numeric].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const values = liveIds.map((id) => f.valuesOf(index.idToOrd.get(id) as number));
    if (!exact && values.every((v) => v.length === 0)) continue;
    out[`numeric ${path}`] = values;
  }
  return out;
}

const VALUES = ['', 'x', 'x y', 'Optional extra', 'X  y', 'héllo wörld', '日本', 'a a a a a a a a a a a a a a a a a b', 'long value '.repeat(100)];
const value = fc.constantFrom(...VALUES);
const source = fc.oneof(
  value.map((t) => ({ t })),
  value.map((t) => ({ t, k: t })),
  fc.tuple(value, value).map(([t, u]) => ({ t: [t, u], k: [u] })),
  value.map((t) => ({ t, n: 'not a number' })), // refused: n is a long
  value.map((t) => ({ t, n: '12' })),
  fc.constant({ t: 7 }),
  fc.constant({ t: null, k: 'x' }),
  fc.constant({}),
);
const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const action: fc.Arbitrary<BulkAction> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(id, source).map(([i, s]): BulkAction => ({ op: 'index', index: 'i', id: i, source: s, raw: JSON.stringify(s) })) },
  fc.tuple(id, source).map(([i, s]): BulkAction => ({ op: 'create', index: 'i', id: i, source: s, raw: JSON.stringify(s) })),
  fc.tuple(id, value).map(([i, t]): BulkAction => ({ op: 'update', index: 'i', id: i, doc: { t }, docAsUpsert: false, upsert: undefined })),
  id.map((i): BulkAction => ({ op: 'delete', index: 'i', id: i })),
);

function service(store: MapStore): SearchService {
  const s = new SearchService(store, () => 0);
  s.load();
  return s;
}

describe('index after a history of writes', () => {
  it('equals a rebuild from the stored documents, and a service restored from a snapshot stays equal to the one that took it', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 30 }), fc.array(action, { maxLength: 30 }), (before, after) => {
        const store = new MapStore();
        const live = service(store);
        live.createIndex('i', { mappings: { properties: { t: { type: 'text' }, n: { type: 'long' } } } });
        live.bulk(before);
        store.saveSnapshot();
        const restoredStore = store.copy();
        const restored = service(restoredStore);
        expect(restored.get('i').index).not.toBe(live.get('i').index);
        live.bulk(after);
        restored.bulk(after);
        expect(view(restored.get('i').index, true)).toEqual(view(live.get('i').index, true));
        const rebuiltStore = store.copy();
        rebuiltStore.snapshot = undefined;
        expect(view(service(rebuiltStore).get('i').index, false)).toEqual(view(live.get('i').index, false));
      }),
      { numRuns: 200 },
    );
  });
});

describe('_bulk with and without batched postings', () => {
  // _bulk's batched postings through the service: the same
  // requests applied with the batching (postings appended term by term when the request ends) and
  // without it (postings appended document by document) leave exactly the same indices (ordinals, tombstones,
  // postings, frequencies, bounds, norms, statistics, keyword values, versions), give the same item
  // results and the same search answers, whatever the requests hold: updates and deletes of a
  // document written earlier in the same request, refused items, fields and indices created in the
  // middle of a request, and an exception thrown while postings are still batched.

  /** Everything a query can see of an index, by ordinal, tombstones included. */
  function dump(index: InvertedIndex): unknown {
    const out: Record<string, unknown> = { ids: [...index.ids], live: Array.from(index.live.subarray(0, index.ids.length)), liveCount: index.liveCount, idToOrd: [...index.idToOrd].sort() };
    for (const [path, f] of [...index.text].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const terms: unknown[] = [];
      for (const [term, id] of f.terms.entries()) {
        terms.push([term, id, f.postings.docFreq(id), f.postings.count(id), f.postings.maxFreq(id), f.postings.minNorm(id), Array.from(f.postings.postings(id), (p) => [p >>> 4, f.postings.freqOf(id, p)])]);
      }
      out[`text ${path}`] = { terms, docCount: f.docCount, sum: f.sumTotalTermFreq, norms: Array.from(f.norms.subarray(0, index.ids.length)), present: Array.from(f.present.subarray(0, index.ids.length)) };
    }
    for (const [path, f] of [...index.keyword].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const terms: unknown[] = [];
      for (const [term, id] of f.terms.entries()) terms.push([term, id, f.postings.docFreq(id), Array.from(f.postings.postings(id))]);
      out[`keyword ${path}`] = { terms, docCount: f.docCount, sum: f.sumDocFreq, values: index.ids.map((_, ord) => f.valuesOf(ord) ?? null) };
    }
    for (const [path, f] of [...index.numeric].sort(([a], [b]) => (a < b ? -1 : 1))) out[`numeric ${path}`] = index.ids.map((_, ord) => f.valuesOf(ord));
    return out;
  }

  function serviceDump(s: SearchService): unknown {
    return s.list().map((st) => ({ name: st.name, mappings: st.mappings.toJSON(), versions: [...st.versions], seqNos: [...st.seqNos], next: st.nextSeqNo, index: dump(st.index) }));
  }


  function batched(store: MapStore): SearchService {
    const s = new SearchService(store, () => 0);
    s.load();
    return s;
  }

  const VALUES = ['', 'x', 'x y', 'Optional extra', 'X  y', 'héllo wörld', '日本 x', 'a a a a a a a a a a a a a a a a a b', 'long value '.repeat(100), 'The Quick brown fox jumps over the lazy dog again'];
  const value = fc.constantFrom(...VALUES);
  const source = fc.oneof(
    { weight: 4, arbitrary: value.map((t) => ({ t })) },
    value.map((t) => ({ t, k: t })),
    fc.tuple(value, value).map(([t, u]) => ({ t: [t, u], u })),
    value.map((t) => ({ t, n: 'not a number' })), // refused: n is a long
    value.map((t) => ({ t, n: '12' })),
    fc.tuple(value, fc.constantFrom('v1', 'v2', 'v3')).map(([t, p]) => ({ [p]: t })), // a new text field mid-request
    fc.constant({ t: { inner: 'x' } }), // refused: t is text
    fc.constant({ t: null, k: 'x' }),
    fc.constant({}),
  );
  const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
  const indexName = fc.constantFrom('i', 'i', 'i', 'j');
  const action: fc.Arbitrary<BulkAction> = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(indexName, id, source).map(([x, i, s]): BulkAction => ({ op: 'index', index: x, id: i, source: s, raw: JSON.stringify(s) })) },
    fc.tuple(indexName, id, source).map(([x, i, s]): BulkAction => ({ op: 'create', index: x, id: i, source: s, raw: JSON.stringify(s) })),
    fc.tuple(indexName, id, value, fc.boolean()).map(([x, i, t, up]): BulkAction => ({ op: 'update', index: x, id: i, doc: { t }, docAsUpsert: up, upsert: undefined })),
    { weight: 2, arbitrary: fc.tuple(indexName, id).map(([x, i]): BulkAction => ({ op: 'delete', index: x, id: i })) },
    fc.tuple(indexName, id, source, fc.nat(12)).map(([x, i, s, seq]): BulkAction => ({ op: 'index', index: x, id: i, source: s, raw: JSON.stringify(s), cond: { version: -3, versionType: 'internal', ifSeqNo: seq, ifPrimaryTerm: 1 } })),
  );
  const request = fc.record({ actions: fc.array(action, { maxLength: 25 }), throwAt: fc.option(fc.nat(25), { freq: 4 }) });

  const QUERIES = ['x', 'x y', 'a b', 'long value', 'quick fox dog', 'héllo x zz', 'optional extra x y a'];

  function searches(s: SearchService): unknown[] {
    const out: unknown[] = [];
    for (const name of ['i', 'j']) {
      let st;
      try {
        st = s.get(name);
      } catch {
        continue;
      }
      // What was written, refreshed (searches see an index as of its last refresh).
      s.refresh([st]);
      for (const q of QUERIES) {
        for (const from of [0, 2, 5, 9]) {
          const req = parseSearchRequest({ query: { match: { t: q } }, from, size: 3 }, {});
          const r = s.search([st], req, 0) as Record<string, unknown>;
          delete r.took;
          out.push(r);
        }
      }
    }
    return out;
  }

  function run(s: SearchService, actions: readonly BulkAction[], throwAt: number | null): unknown[] {
    const items: unknown[] = [];
    try {
      s.bulkEach(actions, (item) => {
        if (items.length === throwAt) throw new Error('client went away');
        items.push('error' in item ? { op: item.op, index: item.index, id: item.id, error: item.error.message } : item);
      });
    } catch (e) {
      items.push(`threw ${(e as Error).message}`);
    }
    return items;
  }

  describe('_bulk with batched postings', () => {
    it('leaves the same indices, items and answers as document-by-document indexing', () => {
      fc.assert(
        fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), (requests) => {
          const storeA = new MapStore();
          const storeB = new MapStore();
          const a = batched(storeA);
          const b = unbatchedService(storeB);
          for (const s of [a, b]) s.createIndex('i', { mappings: { properties: { t: { type: 'text' }, n: { type: 'long' } } } });
          for (const { actions, throwAt } of requests) {
            expect(run(a, actions, throwAt)).toEqual(run(b, actions, throwAt));
            expect(serviceDump(a)).toEqual(serviceDump(b));
            expect(searches(a)).toEqual(searches(b));
          }
          // Single-document writes after the bulks go straight to the lists (no batch left on).
          for (const s of [a, b]) s.indexDoc('i', 'z', { t: 'x y z' }, JSON.stringify({ t: 'x y z' }), 'index');
          expect(serviceDump(a)).toEqual(serviceDump(b));
          expect(searches(a)).toEqual(searches(b));
          // A restart from the snapshot taken at close, and one from a rebuild, answer as before.
          storeA.saveSnapshot();
          const fromSnapshot = batched(storeA.copy());
          expect(serviceDump(fromSnapshot)).toEqual(serviceDump(a));
          expect(searches(fromSnapshot)).toEqual(searches(a));
        }),
        { numRuns: 60 },
      );
    }, 120_000);

    it('a request of more tokens than one batch holds (applied in the middle) equals document by document', () => {
      // 2^21 tokens fill a batch: 2,300 documents of 1,000 tokens, then updates and deletes of
      // documents of the first part (their postings already applied) and of the second (still batched).
      const words = Array.from({ length: 1000 }, (_, i) => `w${i % 97} v${i % 13}`).join(' ');
      const actions: BulkAction[] = [];
      for (let i = 0; i < 2300; i++) {
        const s = { t: i % 7 === 0 ? `${words} extra${i}` : words.slice(0, 3000 + (i % 5)) };
        actions.push({ op: 'index', index: 'i', id: `d${i}`, source: s, raw: JSON.stringify(s) });
      }
      for (const i of [1, 5, 2200, 2299]) {
        const s = { t: `again ${i} w1 w1 w1` };
        actions.push({ op: 'index', index: 'i', id: `d${i}`, source: s, raw: JSON.stringify(s) });
        actions.push({ op: 'delete', index: 'i', id: `d${i + 1}` });
      }
      const a = batched(new MapStore());
      const b = unbatchedService(new MapStore());
      expect(run(a, actions, null)).toEqual(run(b, actions, null));
      expect(serviceDump(a)).toEqual(serviceDump(b));
      expect(searches(a)).toEqual(searches(b));
    }, 120_000);
  });

  describe('_bulk in slices (bulkEachSliced, what the _bulk route runs)', () => {
    async function runSliced(s: SearchService, actions: readonly BulkAction[], throwAt: number | null): Promise<unknown[]> {
      const items: unknown[] = [];
      try {
        await s.bulkEachSliced(
          actions,
          (item) => {
            if (items.length === throwAt) throw new Error('client went away');
            items.push('error' in item ? { op: item.op, index: item.index, id: item.id, error: item.error.message } : item);
          },
          0,
        );
      } catch (e) {
        items.push(`threw ${(e as Error).message}`);
      }
      return items;
    }

    it('one item per slice leaves the same indices, items and answers as one transaction', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 5 }), async (requests) => {
          const a = batched(new MapStore());
          const b = batched(new MapStore());
          for (const s of [a, b]) s.createIndex('i', { mappings: { properties: { t: { type: 'text' }, n: { type: 'long' } } } });
          for (const { actions, throwAt } of requests) {
            expect(await runSliced(a, actions, throwAt)).toEqual(run(b, actions, throwAt));
            expect(serviceDump(a)).toEqual(serviceDump(b));
            expect(searches(a)).toEqual(searches(b));
          }
        }),
        { numRuns: 40 },
      );
    }, 120_000);

    it('lets other work run between slices: a search in between sees the items applied so far', async () => {
      const s = batched(new MapStore());
      const actions: BulkAction[] = Array.from({ length: 40 }, (_, i) => ({ op: 'index', index: 'i', id: `d${i}`, source: { t: 'x' }, raw: '{"t":"x"}' }));
      const seen: number[] = [];
      let done = false;
      const watch = (): void => {
        if (done) return;
        try {
          // A refresh between two slices shows the items applied so far, as one during an ES bulk does.
          s.refresh([s.get('i')]);
          const r = s.search([s.get('i')], parseSearchRequest({ query: { match: { t: 'x' } }, size: 0, track_total_hits: true }, {}), 0) as { hits: { total: { value: number } } };
          seen.push(r.hits.total.value);
        } catch {
          seen.push(0); // the index does not exist before the first slice
        }
        setImmediate(watch);
      };
      setImmediate(watch);
      let applied = 0;
      await s.bulkEachSliced(actions, () => applied++, 0);
      done = true;
      expect(applied).toBe(40);
      // Searches ran while the bulk was under way, and each saw a whole number of items, in order.
      const between = seen.filter((n) => n > 0 && n < 40);
      expect(between.length).toBeGreaterThan(5);
      expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    });
  });
});

/** A store whose next transaction fails after its writes reached SQLite (as a failed final commit after interim ones). */
class FailingStore extends SqliteDocumentStore {
  failNext = false;
  private depth = 0;
  override transaction<T>(fn: () => T, options?: { readonly interimCommits?: boolean }): T {
    this.depth++;
    let result: T;
    try {
      result = super.transaction(fn, options);
    } finally {
      this.depth--;
    }
    if (this.failNext && this.depth === 0) {
      this.failNext = false;
      throw new Error('commit failed');
    }
    return result;
  }
}

describe('bulk commits', () => {
  let dir: string;
  let store: FailingStore;
  let service: SearchService;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-bulk-'));
    store = new FailingStore(dir, 'async');
    service = new SearchService(store, Date.now);
    service.load();
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const body = (from: number, n: number): string => {
    let out = '';
    for (let k = from; k < from + n; k++) out += `{"index":{"_id":"${k}"}}\n{"title":"doc ${k}"}\n`;
    return out;
  };

  it('stores a bulk larger than an interim commit whole, with per-item results', () => {
    const items = service.bulk(parseBulk(body(0, 2600), 'i'));
    expect(items.filter((it) => 'outcome' in it && it.outcome.result === 'created')).toHaveLength(2600);
    expect(store.getDoc('i', '2599')?.source).toBe('{"title":"doc 2599"}');
  });

  it('re-indexes and updates a document it wrote itself in the same bulk (read back from the pending bytes)', () => {
    const text = '{"index":{"_id":"a"}}\n {"t":"é one"}\u00a0\n{"update":{"_id":"a"}}\n{"doc":{"n":2}}\n{"create":{"_id":"a"}}\n{"t":"x"}\n';
    const items = service.bulk(parseBulk(Buffer.from(text), 'i'));
    expect(items.map((it) => ('outcome' in it ? `${it.outcome.result}:${it.outcome.version}` : `error:${it.error.status}`))).toEqual(['created:1', 'updated:2', 'error:409']);
    expect(store.getDoc('i', 'a')?.source).toBe('{"t":"é one","n":2}');
  });

  it('after a failed bulk the in-memory index is rebuilt to match the store', () => {
    service.bulk(parseBulk(body(0, 10), 'i'));
    store.failNext = true;
    expect(() => service.bulk(parseBulk(body(10, 2600), 'i'))).toThrow('commit failed');
    // What the store kept (here: all of it) is what the index holds, versions and all.
    const state = service.get('i');
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(state.index.liveCount).toBe(stored);
    const again = service.bulk(parseBulk(body(2605, 1), 'i'));
    expect(again[0]).toMatchObject({ outcome: { result: 'updated', version: 2 } });
  });

  it('a sliced bulk keeps one transaction open: searches and reads between slices, a write between slices commits it, all stored', async () => {
    const matching = (): number => (service.refresh([service.get('i')]), service.search([service.get('i')], parseSearchRequest({ query: { match: { title: 'doc' } }, size: 0, track_total_hits: true }, {}), 0) as { hits: { total: { value: number } } }).hits.total.value;
    service.bulk(parseBulk(body(0, 1), 'i'));
    const seen: number[] = [];
    const unread: string[] = [];
    let soloAt: number | undefined;
    let done = false;
    const watch = (): void => {
      if (done) return;
      const n = matching();
      seen.push(n);
      // The newest document of the bulk, not committed yet, reads back whole.
      if (service.getDoc('i', String(n - 1))?.source !== `{"title":"doc ${n - 1}"}`) unread.push(String(n - 1));
      if (soloAt === undefined && n >= 100) {
        // A write of another request: it commits the bulk's writes so far, then its own.
        service.indexDoc('i', 'solo', { title: 'solo' }, '{"title":"solo"}', 'index');
        soloAt = n;
      }
      setImmediate(watch);
    };
    setImmediate(watch);
    await service.bulkEachSliced(parseBulk(body(1, 299), 'i'), () => undefined, 0);
    done = true;
    expect(seen.filter((n) => n > 1 && n < 300).length).toBeGreaterThan(20);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(unread).toEqual([]);
    expect(soloAt).toBeDefined();
    // Everything is in the store, as a restart finds it.
    store.close();
    store = new FailingStore(dir, 'async');
    service = new SearchService(store, Date.now);
    service.load();
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(stored).toBe(301);
    expect(service.getDoc('i', '299')?.source).toBe('{"title":"doc 299"}');
    expect(service.getDoc('i', 'solo')?.version).toBe(1);
    expect(matching()).toBe(300);
  });

  it('a sliced bulk whose transaction another write commits, and that commit fails: both fail, and the index matches the store', async () => {
    service.bulk(parseBulk(body(0, 1), 'i'));
    let soloError: unknown;
    let tried = false;
    const watch = (): void => {
      if (tried) return;
      if (service.get('i').index.liveCount >= 50) {
        tried = true;
        // The writer's next commit (the bulk's, made by the single write below) fails as SQLite's
        // would: nothing of the transaction is stored.
        const writer = (store as unknown as { writer: { commit(): void; rollback(): void } }).writer;
        const commit = writer.commit.bind(writer);
        writer.commit = () => {
          writer.commit = commit;
          writer.rollback();
          throw new Error('commit failed');
        };
        try {
          service.indexDoc('i', 'solo', { title: 'solo' }, '{"title":"solo"}', 'index');
        } catch (e) {
          soloError = e;
        }
        return;
      }
      setImmediate(watch);
    };
    setImmediate(watch);
    await expect(service.bulkEachSliced(parseBulk(body(1, 299), 'i'), () => undefined, 0)).rejects.toThrow('commit failed');
    expect(String(soloError)).toContain('commit failed');
    const state = service.get('i');
    let stored = 0;
    store.scanDocs('i', () => stored++);
    expect(state.index.liveCount).toBe(stored);
  });
});

// Versions before date formats were honoured stored any `format` unchecked and read every date as
// ISO or epoch millis. Their indices must load, and keep every document, on the next start.
describe('dates stored by a version that ignored date formats', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-dates-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes what such a version left in the store: the raw mapping and documents, no snapshot. */
  const storeAsBefore = (format: string, dates: readonly string[]): void => {
    const store = new SqliteDocumentStore(dir, 'async');
    store.putIndex({ name: 'i', uuid: 'u', createdMs: 0, settings: {}, mappings: { properties: { at: { type: 'date', format } } } });
    dates.forEach((at, k) => store.putDoc('i', { id: String(k), version: 1, seqNo: k, source: JSON.stringify({ at }) }));
    store.close();
  };

  const open = (): { service: SearchService; store: SqliteDocumentStore } => {
    const store = new SqliteDocumentStore(dir, 'async');
    const service = new SearchService(store, Date.now);
    service.load();
    return { service, store };
  };

  it('reads a date its format refuses as the earlier version did, and can still delete it', () => {
    storeAsBefore('dd/MM/yyyy', ['2021-06-15', '16/06/2021']);
    const { service, store } = open();
    try {
      const state = service.get('i');
      expect(service.count([state], parseQuery({ match_all: {} }))).toBe(2);
      expect(service.count([state], parseQuery({ range: { at: { gte: '15/06/2021', lte: '15/06/2021' } } }))).toBe(1);
      expect(service.deleteDoc('i', '0').result).toBe('deleted');
      service.refresh([state]);
      expect(service.count([state], parseQuery({ match_all: {} }))).toBe(1);
    } finally {
      store.close();
    }
  });

  it('loads an index whose stored format does not compile, with its documents', () => {
    storeAsBefore('yyyy-bb', ['2021-06-15']);
    const { service, store } = open();
    try {
      expect(service.count([service.get('i')], parseQuery({ range: { at: { gte: '2021-06-01' } } }))).toBe(1);
    } finally {
      store.close();
    }
  });
});
