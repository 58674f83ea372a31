import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, afterEach } from 'vitest';
import { SearchService } from '../../../src/search/engine/search-service.js';
import type { BulkAction } from '../../../src/search/requests/bulk.js';
import { heldAfter } from '../harness.js';
import { MapStore, unbatchedService } from '../map-store.js';

/**
 * The memory SearchService holds: after a big document is written and deleted (one by one or
 * through _bulk), between _bulk requests, and what a small _bulk after a large one allocates.
 */

/** The heap in use after a full collection. */
function heldBytes(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

/** A service holding one small document `id`. */
function serviceWith(id: string): SearchService {
  const service = new SearchService(new MapStore(), Date.now);
  service.load();
  service.indexDoc('i', id, { body: 'a small document', tags: ['x', 'y'] }, '{"body":"a small document","tags":["x","y"]}', 'index');
  return service;
}

/** 10 MB of text (two distinct words) in a field: the source and its text, as JSON.parse makes it. */
const bigSource = (): { raw: string; source: unknown } => {
  const raw = `{"body":"${'alpha beta '.repeat(1_000_000)}"}`;
  return { raw, source: JSON.parse(raw) };
};

describe('search service memory', () => {
  it('keeps nothing of a big document once it is deleted (the reused ParsedDoc and the repeat checks hold no values)', () => {
    const service = serviceWith('small');
    const before = heldBytes();
    ((): void => {
      const { raw, source } = bigSource();
      service.indexDoc('i', 'big', source, raw, 'index');
    })();
    service.deleteDoc('i', 'big');
    expect(heldBytes() - before).toBeLessThan(4_000_000);
  });

  it('keeps nothing of a big document whose write failed after it was parsed (a create of an existing id)', () => {
    const service = serviceWith('taken');
    const before = heldBytes();
    ((): void => {
      const { raw, source } = bigSource();
      expect(() => service.indexDoc('i', 'taken', source, raw, 'create')).toThrow(/version conflict/);
    })();
    expect(heldBytes() - before).toBeLessThan(4_000_000);
  });
});

// _bulk batches a request's text postings in per-field buffers. Like a
// single-document write (the first describe of this file), a big document written through _bulk and
// then deleted must not leave buffers sized by it behind for good. Typed arrays live outside the
// JS heap: the measure is heapUsed + arrayBuffers.
describe('search service memory after _bulk', () => {
  it('keeps nothing of a big document written through _bulk once it is deleted', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const service = new SearchService(new MapStore(), Date.now);
    service.load();
    service.indexDoc('i', 'small', { body: 'a small document', tags: ['x', 'y'] }, '{"body":"a small document","tags":["x","y"]}', 'index');
    const held = heldAfter(gc, 'arrayBuffers');
    const before = held();
    ((): void => {
      // 10 MB of text (two distinct words, 2 million tokens) in a field, as JSON.parse makes it.
      const raw = `{"body":"${'alpha beta '.repeat(1_000_000)}"}`;
      const action: BulkAction = { op: 'index', index: 'i', id: 'big', source: JSON.parse(raw), raw };
      service.bulk([action]);
    })();
    service.deleteDoc('i', 'big');
    // The postings of the deleted document stay as tombstones (2 terms: a few slots), as ever.
    expect(held() - before).toBeLessThan(4_000_000);
  });
});

// _bulk's batched postings keep their scratch per text field between
// requests (the batch's term ids and ordinals, the grouped ordinals, the run starts), about 1-6 MB
// per field after a bulk of a few thousand documents. Dynamic mapping makes every string field a
// text field, and time-based indices (one per day) each keep theirs after their last write: the
// memory held grows with fields x indices and never returns. Here 8 indices of 10 text fields each
// take one bulk of 2,000 documents; the service must hold about what it holds without the
// batching (postings appended document by document), not tens of MB more.


function load(s: SearchService): void {
  const words = Array.from({ length: 12 }, (_, i) => `w${i}`);
  for (let x = 0; x < 8; x++) {
    const actions: BulkAction[] = [];
    for (let d = 0; d < 2000; d++) {
      const src: Record<string, string> = {};
      for (let f = 0; f < 10; f++) src[`field${f}`] = `${words.join(' ')} v${d} u${(d * 7 + f) % 500} t${x}`;
      actions.push({ op: 'index', index: `logs-${x}`, id: `d${d}`, source: src, raw: JSON.stringify(src) });
    }
    s.bulk(actions);
  }
}

describe('memory held between _bulk requests', () => {
  it('does not grow with text fields x indices once the requests are over', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const held = (): number => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const grown = (make: () => SearchService): { bytes: number; keep: SearchService } => {
      const before = held();
      const s = make();
      load(s);
      return { bytes: held() - before, keep: s };
    };
    const plain = grown(() => unbatchedService(new MapStore()));
    const withBatches = grown(() => {
      const s = new SearchService(new MapStore(), () => 0);
      s.load();
      return s;
    });
    expect(plain.keep).not.toBe(withBatches.keep);
    expect((withBatches.bytes - plain.bytes) / 1_048_576).toBeLessThan(8);
  }, 120_000);
});

describe('a small _bulk after a large one', () => {
  // A _bulk's text postings are batched per request. A request of one
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
});
