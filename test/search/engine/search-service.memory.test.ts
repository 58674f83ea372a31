import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { MapStore } from '../map-store.js';

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
