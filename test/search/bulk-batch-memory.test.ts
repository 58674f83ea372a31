import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import { MapStore } from './map-store.js';

// Second reader: _bulk batches a request's text postings in per-field buffers (s-bulk3). Like a
// single-document write (search-service-memory.test.ts), a big document written through _bulk and
// then deleted must not leave buffers sized by it behind for good. Typed arrays live outside the
// JS heap: the measure is heapUsed + arrayBuffers.
describe('search service memory after _bulk', () => {
  it('keeps nothing of a big document written through _bulk once it is deleted', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const service = new SearchService(new MapStore(), Date.now);
    service.load();
    service.indexDoc('i', 'small', { body: 'a small document', tags: ['x', 'y'] }, '{"body":"a small document","tags":["x","y"]}', 'index');
    const held = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
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
