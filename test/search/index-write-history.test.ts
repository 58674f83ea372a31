import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InvertedIndex } from '../../src/search/index/inverted-index.js';
import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import { MapStore } from './map-store.js';

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
