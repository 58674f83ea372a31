import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SearchService } from '../../src/search/engine/search-service.js';
import type { BulkItem } from '../../src/search/engine/document-writes.js';
import type { BulkAction } from '../../src/search/requests/bulk.js';
import { MapStore } from './map-store.js';

// Second reader: _bulk's batched postings (s-bulk3) keep their scratch per text field between
// requests (the batch's term ids and ordinals, the grouped ordinals, the run starts), about 1-6 MB
// per field after a bulk of a few thousand documents. Dynamic mapping makes every string field a
// text field, and time-based indices (one per day) each keep theirs after their last write: the
// memory held grows with fields x indices and never returns. Here 8 indices of 10 text fields each
// take one bulk of 2,000 documents; the service must hold about what it holds without the
// batching (main's per-document appends), not tens of MB more.

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
    const plain = grown(() => unbatched(new MapStore()));
    const withBatches = grown(() => {
      const s = new SearchService(new MapStore(), () => 0);
      s.load();
      return s;
    });
    expect(plain.keep).not.toBe(withBatches.keep);
    expect((withBatches.bytes - plain.bytes) / 1_048_576).toBeLessThan(8);
  }, 120_000);
});
