import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';
import { parseQuery } from '../../../src/search/requests/query-dsl.js';
import { SearchService } from '../../../src/search/engine/search-service.js';

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
