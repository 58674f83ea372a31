import { afterEach, describe, expect, it } from 'vitest';
import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import { MapStore } from './map-store.js';

// Second reader: a _bulk's text postings are batched per request (s-bulk3). A request of one
// document after a large one must cost about what a one-document write costs, not work and memory
// sized by the earlier request or the field's vocabulary: on the Debian corpus loaded in bulks of
// 5,000, a one-document _bulk cost 2.3 ms per document against 0.12 ms for a plain add (10-document
// bulks 3x), because each batch allocates its buffers at the last batch's size (batchHint: 2 x 4 MB
// per text field here) and the counting sort allocates and walks an array over every term id of
// the field (starts, the run loop). Live ingestion sends small bulks (log shippers, one event at a
// time). Measured without a timer: the int32 slots the small requests allocate, counted at
// Int32Array's constructor.

const RealInt32Array = globalThis.Int32Array;
afterEach(() => {
  globalThis.Int32Array = RealInt32Array;
});

describe('a small _bulk after a large one', () => {
  it('allocates no buffers sized by the earlier request or the vocabulary', () => {
    const service = new SearchService(new MapStore(), () => 0);
    service.load();
    service.createIndex('i', { mappings: { properties: { t: { type: 'text' } } } });
    // 2,000 documents of 300 tokens over a vocabulary of 40,000 words: 600,000 postings.
    const big: BulkAction[] = [];
    for (let d = 0; d < 2000; d++) {
      const words = Array.from({ length: 300 }, (_, k) => `w${(d * 300 + k) % 40_000}`).join(' ');
      big.push({ op: 'index', index: 'i', id: `d${d}`, source: { t: words }, raw: JSON.stringify({ t: words }) });
    }
    service.bulk(big);
    let slots = 0;
    globalThis.Int32Array = new Proxy(RealInt32Array, {
      construct(target, args: unknown[]) {
        if (typeof args[0] === 'number') slots += args[0];
        return Reflect.construct(target, args) as object;
      },
    });
    for (let k = 0; k < 50; k++) {
      const src = { t: `w${k} w${k + 1} small document` };
      service.bulk([{ op: 'index', index: 'i', id: `s${k}`, source: src, raw: JSON.stringify(src) }]);
    }
    globalThis.Int32Array = RealInt32Array;
    // Main allocates next to nothing here (at most a new pool chunk of 2^20 slots).
    expect(slots).toBeLessThan(4_000_000);
  });
});
