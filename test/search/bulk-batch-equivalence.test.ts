import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InvertedIndex } from '../../src/search/index/inverted-index.js';
import { parseSearchRequest } from '../../src/search/requests/search-request.js';
import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkItem } from '../../src/search/engine/document-writes.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import { MapStore } from './map-store.js';

// Second reader's check of _bulk's batched postings (s-bulk3) through the service: the same
// requests applied with the batching (postings appended term by term when the request ends) and
// without it (main's per-document appends) leave exactly the same indices (ordinals, tombstones,
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

/** A service whose `_bulk` appends postings document by document, as main's does. */
function unbatched(store: MapStore): SearchService {
  const s = new SearchService(store, () => 0);
  s.load();
  const raw = s as unknown as { transaction<T>(fn: () => T, interim: boolean): T; bulkItem(a: BulkAction | Error): BulkItem };
  (s as unknown as { bulkEach: SearchService['bulkEach'] }).bulkEach = (actions, each) => {
    raw.transaction(() => {
      for (const a of actions) each(raw.bulkItem(a));
    }, true);
  };
  return s;
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

describe('_bulk with batched postings (second reader)', () => {
  it('leaves the same indices, items and answers as document-by-document indexing', () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), (requests) => {
        const storeA = new MapStore();
        const storeB = new MapStore();
        const a = batched(storeA);
        const b = unbatched(storeB);
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
    const b = unbatched(new MapStore());
    expect(run(a, actions, null)).toEqual(run(b, actions, null));
    expect(serviceDump(a)).toEqual(serviceDump(b));
    expect(searches(a)).toEqual(searches(b));
  }, 120_000);
});
