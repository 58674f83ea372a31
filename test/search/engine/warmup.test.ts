import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFlags } from '../../../src/flag-groups.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { buildSearchApp, type SearchAppOptions } from '../../../src/search/app.js';
import { warmIndexing } from '../../../src/search/engine/warmup.js';
import { SqliteDocumentStore } from '../../../src/search/store/document-store.js';
import { searchConfig, startSearch, type SearchHarness } from '../harness.js';

/** Log records of a search app built on a fresh data directory with `extra` flags. */
async function buildLogged(extra: string[], options: SearchAppOptions = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-warmup-'));
  const records: { level: number; msg: string; docs?: number; err?: { message: string } }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void records.push(JSON.parse(line) as (typeof records)[number]) });
  try {
    const app = await buildSearchApp(searchConfig(dataDir, extra), { logger, now: Date.now, requestShutdown: () => undefined }, options);
    return { app, records, dataDir };
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

// The indexing warm-up (src/search/engine/warmup.ts) runs made-up documents through the _bulk code into a
// throwaway service: it must leave nothing behind, in memory or on disk, and change no answer.
describe('search indexing warm-up', () => {
  let h: SearchHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('indexes its documents without an item failing (it throws if one does)', () => {
    // The default count: every document a default start indexes has been through here.
    const defaultDocs = loadConfig(serveFlags, { argv: [], env: {}, readFile: () => '' })['search.warmup-docs'];
    expect(warmIndexing(defaultDocs, Date.now)).toBeGreaterThan(0);
    expect(warmIndexing(0, Date.now)).toBe(0);
  });

  it('leaves no index in the app it warms, nor in the store on disk, also after a restart', async () => {
    h = await startSearch(['--search.warmup-docs', '1000']);
    const cat = await h.app.inject({ method: 'GET', url: '/_cat/indices?format=json' });
    expect(cat.statusCode).toBe(200);
    expect(cat.json()).toEqual([]);
    const warm = await h.app.inject({ method: 'GET', url: '/warmup/_search' });
    expect(warm.statusCode).toBe(404);
    expect(warm.json().error.type).toBe('index_not_found_exception');

    // The app works as without a warm-up: a document indexed now is the only one found.
    const put = await h.app.inject({ method: 'PUT', url: '/docs/_doc/1?refresh=true', payload: { title: 'quick brown fox' } });
    expect(put.statusCode).toBe(201);
    const found = await h.app.inject({ method: 'POST', url: '/_search', payload: { query: { match_all: {} } } });
    expect(found.json().hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(found.json().hits.hits.map((x: { _index: string }) => x._index)).toEqual(['docs']);

    await h.restart();
    const again = await h.app.inject({ method: 'GET', url: '/_cat/indices?format=json' });
    expect(again.json().map((x: { index: string }) => x.index)).toEqual(['docs']);
    await h.app.close();
    const store = new SqliteDocumentStore(join(h.dataDir, 'search'), 'async');
    try {
      expect(store.listIndices().map((i) => i.name)).toEqual(['docs']);
    } finally {
      store.close();
    }
    await h.restart();
  });

  it('runs when the app is built with --search.warmup-docs, and not with 0', async () => {
    const on = await buildLogged(['--search.warmup-docs', '300']);
    try {
      expect(on.records.filter((r) => r.msg === 'search indexing warmed up').map((r) => r.docs)).toEqual([300]);
    } finally {
      await on.app.close();
      rmSync(on.dataDir, { recursive: true, force: true });
    }
    const off = await buildLogged(['--search.warmup-docs', '0']);
    try {
      expect(off.records.filter((r) => r.msg === 'search indexing warmed up')).toEqual([]);
    } finally {
      await off.app.close();
      rmSync(off.dataDir, { recursive: true, force: true });
    }
  });

  it('a warm-up that fails is logged as an error and the app still starts and serves', async () => {
    // Only the first bulk is slower without a warm-up: no reason to keep the listeners down.
    const failing = () => {
      throw new Error('warm-up item failed');
    };
    const built = await buildLogged(['--search.warmup-docs', '300'], { warmIndexing: failing });
    try {
      const errors = built.records.filter((r) => r.level >= 50);
      expect(errors.map((r) => [r.msg, r.err?.message])).toEqual([['search indexing warm-up failed; serving without it', 'warm-up item failed']]);
      const put = await built.app.inject({ method: 'PUT', url: '/docs/_doc/1?refresh=true', payload: { title: 'quick brown fox' } });
      expect(put.statusCode).toBe(201);
      const found = await built.app.inject({ method: 'POST', url: '/docs/_search', payload: { query: { match: { title: 'fox' } } } });
      expect(found.json().hits.total).toEqual({ value: 1, relation: 'eq' });
    } finally {
      await built.app.close();
      rmSync(built.dataDir, { recursive: true, force: true });
    }
  });

  it('takes --search.warmup-docs: 2000 by default, 0 to turn it off, no negative count', () => {
    const config = (argv: string[]) => loadConfig(serveFlags, { argv, env: {}, readFile: () => '' });
    expect(config([])['search.warmup-docs']).toBe(2000);
    expect(config(['--search.warmup-docs', '0'])['search.warmup-docs']).toBe(0);
    expect(() => config(['--search.warmup-docs', '-1'])).toThrow();
  });
});
