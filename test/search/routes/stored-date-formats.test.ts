import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../../src/search/app.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';
import { searchConfig, startSearch } from '../harness.js';

// Indices written by the version before date formats: it stored a date field's `format` without
// reading it (any text was accepted) and parsed every date as ISO 8601 or epoch millis. Such an
// index must still load, and its documents must stay deletable and updatable.
describe('search: indices stored before date formats were honoured', () => {
  let dataDir: string;
  let app: FastifyInstance | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'portico-stored-dates-'));
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const writeOld = (mappings: unknown, sources: Record<string, unknown>): void => {
    const store = new SqliteDocumentStore(join(dataDir, 'search'), 'async');
    store.putIndex({ name: 'old', uuid: 'u1', createdMs: 1, settings: {}, mappings });
    let seqNo = 0;
    store.transaction(() => {
      for (const [id, source] of Object.entries(sources)) store.putDoc('old', { id, version: 1, seqNo: seqNo++, source: JSON.stringify(source) });
    });
    store.close();
  };
  const start = async (): Promise<FastifyInstance> => {
    app = await buildSearchApp(searchConfig(dataDir), { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
    return app;
  };

  it('loads a mapping whose format this version cannot compile, and indexes its dates as before', async () => {
    writeOld({ properties: { d: { type: 'date', format: 'dd MMM yyyy' } } }, { '1': { d: '2020-01-01' } });
    const a = await start();
    const res = await a.inject({ method: 'POST', url: '/old/_search', payload: { query: { range: { d: { gte: '2019-12-31T00:00:00Z', format: 'strict_date_optional_time' } } } } });
    expect(res.statusCode).toBe(200);
    expect(res.json().hits.total.value).toBe(1);
  });

  it('loads documents with an impossible date the default format read by rolling it over (2023-02-29)', async () => {
    writeOld({ properties: { d: { type: 'date' } } }, { '1': { d: '2023-02-29' } });
    const a = await start();
    const res = await a.inject({ method: 'POST', url: '/old/_search', payload: { query: { range: { d: { gte: '2023-03-01' } } } } });
    expect(res.json().hits.total.value).toBe(1);
    expect((await a.inject({ method: 'DELETE', url: '/old/_doc/1' })).statusCode).toBe(200);
    expect((await a.inject({ method: 'PUT', url: '/old/_doc/2', payload: { d: '2023-02-29' } })).statusCode).toBe(400);
  });

  it('loads documents whose dates do not fit the format, and can still delete and update them', async () => {
    writeOld({ properties: { d: { type: 'date', format: 'dd/MM/yyyy' } } }, { '1': { d: '2020-01-01' }, '2': { d: 1577836800000 }, '3': { d: '02/01/2020' } });
    const a = await start();
    const all = await a.inject({ method: 'GET', url: '/old/_search' });
    expect(all.statusCode).toBe(200);
    expect(all.json().hits.total.value).toBe(3);
    const del = await a.inject({ method: 'DELETE', url: '/old/_doc/1?refresh=true' });
    expect(del.statusCode).toBe(200);
    const upd = await a.inject({ method: 'POST', url: '/old/_update/2?refresh=true', payload: { doc: { d: '03/01/2020' } } });
    expect(upd.statusCode).toBe(200);
    const after = await a.inject({ method: 'POST', url: '/old/_search', payload: { query: { range: { d: { gte: '02/01/2020' } } }, sort: ['d'] } });
    expect(after.json().hits.hits.map((h: { _id: string }) => h._id)).toEqual(['3', '2']);
    // New documents are held to the format, as in ES.
    const bad = await a.inject({ method: 'PUT', url: '/old/_doc/4', payload: { d: '2020-01-01' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('search: ignore_malformed dates across a restart', () => {
  it('leaves a malformed date out after a restart that rebuilds from the documents, as it did when written', async () => {
    const h = await startSearch();
    const exists = { method: 'POST' as const, url: '/m/_search', payload: { query: { exists: { field: 'd' } } } };
    await h.app.inject({ method: 'PUT', url: '/m', payload: { mappings: { properties: { d: { type: 'date', format: 'dd/MM/yyyy', ignore_malformed: true } } } } });
    expect((await h.app.inject({ method: 'PUT', url: '/m/_doc/1?refresh=true', payload: { d: '2020-01-01' } })).statusCode).toBe(201);
    expect((await h.app.inject(exists)).json().hits.total.value).toBe(0);
    await h.app.close();
    // No snapshot: the index is rebuilt from the stored documents.
    rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
    const again = await buildSearchApp(searchConfig(h.dataDir), { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
    try {
      expect((await again.inject(exists)).json().hits.total.value).toBe(0);
    } finally {
      await again.close();
      rmSync(h.dataDir, { recursive: true, force: true });
    }
  });
});
