import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// A clean shutdown saves the in-memory index; the next start uses it instead of re-reading every
// document, but only when the store has not changed since. Either way the answers are the same.
describe('index snapshot across restarts', () => {
  let h: SearchHarness;
  const snapshotFile = () => join(h.dataDir, 'search', 'index.snapshot');
  const SEARCHES: Record<string, unknown>[] = [
    { query: { match: { text: 'alpha beta' } }, size: 50 },
    { query: { match: { text: 'gamma' } }, from: 3, size: 5, version: true, seq_no_primary_term: true },
    { query: { term: { 'tag.keyword': 't1' } }, size: 50 },
    { query: { range: { n: { gte: 3, lt: 7 } } }, sort: [{ n: 'desc' }, { 'tag.keyword': 'asc' }], size: 50 },
    { query: { prefix: { text: 'del' } }, size: 50 },
    { query: { bool: { must: [{ exists: { field: 'tags' } }], must_not: [{ match: { text: 'alpha' } }] } }, size: 50 },
    { query: { match_phrase: { text: 'beta gamma' } }, size: 50 },
  ];

  beforeAll(async () => {
    h = await startSearch();
    let body = '';
    const words = ['alpha', 'beta', 'gamma', 'delta', 'Épsilon'];
    for (let i = 0; i < 120; i++) {
      const text = Array.from({ length: 1 + (i % 5) }, (_, k) => words[(i * 3 + k) % words.length]).join(' ');
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ text, n: i % 9, tag: `t${i % 4}`, tags: i % 3 === 0 ? ['x', 'y'] : [] })}\n`;
    }
    for (let i = 0; i < 120; i += 7) body += `{"delete":{"_id":"d${i}"}}\n`;
    for (let i = 1; i < 120; i += 11) body += `{"index":{"_id":"d${i}"}}\n{"text":"alpha re-indexed","n":${i}}\n`;
    const res = await h.app.inject({ method: 'POST', url: '/s/_bulk', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });
  afterAll(async () => h.close());

  const answers = async (): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const s of SEARCHES) {
      const res = await h.app.inject({ method: 'POST', url: '/s/_search', payload: s });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { took?: number };
      delete body.took;
      out.push(body);
    }
    const count = await h.app.inject({ method: 'GET', url: '/s/_count' });
    out.push(count.json());
    return out;
  };

  it('answers the same from the snapshot, from a rebuild, and after writes that make the snapshot stale', async () => {
    const before = await answers();
    await h.restart();
    expect(existsSync(snapshotFile())).toBe(true);
    expect(await answers()).toEqual(before);

    // Without the snapshot: a full rebuild gives the same answers.
    await h.app.close();
    rmSync(snapshotFile());
    await h.restart();
    expect(await answers()).toEqual(before);

    // A stale snapshot (taken before a later write) is ignored.
    await h.restart();
    copyFileSync(snapshotFile(), `${snapshotFile()}.old`);
    const res = await h.app.inject({ method: 'PUT', url: '/s/_doc/new?refresh=true', payload: { text: 'alpha beta gamma', n: 1, tag: 't1' } });
    expect(res.statusCode).toBe(201);
    const after = await answers();
    expect(after).not.toEqual(before);
    await h.app.close();
    copyFileSync(`${snapshotFile()}.old`, snapshotFile());
    await h.restart();
    expect(await answers()).toEqual(after);

    // The snapshot really is what a restart reads: rows removed behind the store's back (no new
    // generation) still count, as the index was not rebuilt from them.
    const counted = (await h.app.inject({ method: 'GET', url: '/s/_count' })).json() as { count: number };
    await h.app.close();
    const db = new Database(join(h.dataDir, 'search', 'documents.db'));
    db.exec('DELETE FROM docs');
    db.close();
    await h.restart();
    expect((await h.app.inject({ method: 'GET', url: '/s/_count' })).json()).toMatchObject({ count: counted.count });
  });
});
