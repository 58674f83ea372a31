/**
 * A data directory written before documents kept their routing (its docs table has no `routing`
 * column) still opens with every document, and gains the column: routed writes then survive a
 * restart, whether the index comes back from its snapshot or is rebuilt from the documents.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectJson, sendText, startSearch, type EsBody, type SearchHarness } from '../harness.js';

let h: SearchHarness;
const dbFile = (): string => join(h.dataDir, 'search', 'documents.db');
const columns = (): string[] => {
  const db = new Database(dbFile(), { readonly: true });
  try {
    return (db.prepare('PRAGMA table_info(docs)').all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  h = await startSearch();
});
afterAll(async () => {
  await h.close();
});

describe('the routing column', () => {
  it('is added to a data directory that lacks it, keeping every document', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i},"t":"doc ${i}"}`).join('\n') + '\n';
    expect((await sendText(h.app, 'POST', '/old/_bulk', lines, 'application/x-ndjson')).status).toBe(200);
    await h.app.close();
    // The schema of a Portico before this change: the docs table without `routing`, and no snapshot.
    const db = new Database(dbFile());
    db.exec('ALTER TABLE docs DROP COLUMN routing');
    db.close();
    rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
    expect(columns()).toEqual(['seq', 'idx', 'id', 'version', 'seq_no', 'source']);

    await h.restart();
    expect(columns()).toContain('routing');
    const count = await injectJson<EsBody>(h.app, 'GET', '/old/_count');
    expect(count.body.count).toBe(50);
    const got = await injectJson<EsBody>(h.app, 'GET', '/old/_doc/7');
    expect(got.body).toEqual({ _index: 'old', _id: '7', _version: 1, _seq_no: 7, _primary_term: 1, found: true, _source: { n: 7, t: 'doc 7' } });
    const hits = await injectJson<EsBody>(h.app, 'POST', '/old/_search', { query: { match: { t: '42' } } });
    expect(hits.body.hits.hits.map((x: EsBody) => x._id)).toEqual(['42']);
  });

  it('keeps routed writes across restarts, from the snapshot and from the documents', async () => {
    expect((await injectJson(h.app, 'PUT', '/old/_doc/7?routing=r7', { n: 7, t: 'routed' })).status).toBe(200);
    expect((await injectJson(h.app, 'PUT', '/old/_doc/100?routing=r100', { n: 100 })).status).toBe(201);
    for (const fromSnapshot of [true, false]) {
      await h.app.close();
      if (!fromSnapshot) rmSync(join(h.dataDir, 'search', 'index.snapshot'), { force: true });
      else expect(existsSync(join(h.dataDir, 'search', 'index.snapshot'))).toBe(true);
      await h.restart();
      expect((await injectJson<EsBody>(h.app, 'GET', '/old/_doc/7')).body._routing).toBe('r7');
      expect((await injectJson<EsBody>(h.app, 'GET', '/old/_doc/8')).body._routing).toBeUndefined();
      const routed = await injectJson<EsBody>(h.app, 'POST', '/old/_search', { query: { terms: { _routing: ['r7', 'r100'] } }, sort: ['n'] });
      expect(routed.body.hits.hits.map((x: EsBody) => [x._id, x._routing])).toEqual([['7', 'r7'], ['100', 'r100']]);
      expect((await injectJson<EsBody>(h.app, 'GET', '/old/_count')).body.count).toBe(51);
    }
  });
});
