import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SearchService } from '../../src/search/search-service.js';
import { MapStore } from './map-store.js';

describe('search service memory', () => {
  it('keeps nothing of a big document once it is deleted (the reused ParsedDoc and the repeat checks hold no values)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const service = new SearchService(new MapStore(), Date.now);
    service.load();
    service.indexDoc('i', 'small', { body: 'a small document', tags: ['x', 'y'] }, '{"body":"a small document","tags":["x","y"]}', 'index');
    const held = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = held();
    ((): void => {
      // 10 MB of text (two distinct words) in a field, as JSON.parse makes it.
      const raw = `{"body":"${'alpha beta '.repeat(1_000_000)}"}`;
      service.indexDoc('i', 'big', JSON.parse(raw), raw, 'index');
    })();
    service.deleteDoc('i', 'big');
    expect(held() - before).toBeLessThan(4_000_000);
  });

  it('keeps nothing of a big document whose write failed after it was parsed (a create of an existing id)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const service = new SearchService(new MapStore(), Date.now);
    service.load();
    service.indexDoc('i', 'taken', { body: 'a small document' }, '{"body":"a small document"}', 'index');
    const held = (): number => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = held();
    ((): void => {
      const raw = `{"body":"${'alpha beta '.repeat(1_000_000)}"}`;
      expect(() => service.indexDoc('i', 'taken', JSON.parse(raw), raw, 'create')).toThrow(/version conflict/);
    })();
    expect(held() - before).toBeLessThan(4_000_000);
  });
});
