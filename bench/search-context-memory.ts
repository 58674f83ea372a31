/**
 * Memory of one scroll and one point in time (not a test):
 * `node --expose-gc --import tsx bench/search-context-memory.ts [--copies 1] [--corpus f]`
 *
 * Loads the Debian corpus (`--copies` times, ids made unique) through `_bulk` with inject(), then
 * measures the retained memory (heap + array buffers, after full GCs) that each of these adds:
 * - a scroll over every document in relevance order (match_all, size 1000);
 * - a scroll over every document sorted on a keyword field (its sort values are kept per hit);
 * - a point in time, before any write (nothing is copied) and after one write (the index copy).
 * Prints bytes per document for each, so that a 1M-document figure is a multiplication.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serveFlags } from '../src/flag-groups.js';
import { loadConfig } from '../src/config/load-config.js';
import { buildSearchApp } from '../src/search/app.js';
import { corpusPath, opt, readCorpus } from './search-workload.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

function retained(): number {
  for (let i = 0; i < 4; i++) gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const copies = Number(opt('copies', '1'));
const lines = readCorpus(corpusPath());
const dir = mkdtempSync(join(tmpdir(), 'portico-ctxmem-'));
const config = loadConfig(serveFlags, { argv: ['--data.dir', dir, '--search.durability', 'async'], env: {}, readFile: () => '' });
const app = await buildSearchApp(config, { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
const post = async (url: string, body: unknown, ct = 'application/json') => {
  const r = await app.inject({ method: 'POST', url, payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': ct } });
  if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
  return r.json() as Record<string, unknown>;
};
await app.inject({ method: 'PUT', url: '/packages', payload: '{}', headers: { 'content-type': 'application/json' } });
for (let c = 0; c < copies; c++) {
  for (let i = 0; i < lines.length; i += 5000) {
    const body = lines.slice(i, i + 5000).map((l, k) => `{"index":{"_id":"c${c}-${i + k}"}}\n${l}\n`).join('');
    await post('/packages/_bulk', body, 'application/x-ndjson');
  }
}
await post('/packages/_refresh', '{}', 'application/json');
const docs = lines.length * copies;
console.log(`loaded ${docs} documents`);

const idOf = (r: Record<string, unknown>): unknown => r._scroll_id ?? r.id;
const report = (what: string, bytes: number) => console.log(`${what.padEnd(48)} ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MiB  ${(bytes / docs).toFixed(1).padStart(7)} B/doc`);

// Each kind is opened once before the baseline (scratch memory grows to its size on the first
// run and stays), then ten more: a tenth of their difference is what one more context keeps.
const scrollAll = { query: { match_all: {} }, size: 1000 };
const scrollSorted = { ...scrollAll, sort: [{ 'section.keyword': 'asc' }] };
// Only the ids are kept (a parsed page of hits would weigh more than a context).
const kept: unknown[] = [];
kept.push(idOf(await post('/packages/_search?scroll=10m', scrollAll)));
let base = retained();
for (let i = 0; i < 10; i++) kept.push(idOf(await post('/packages/_search?scroll=10m', scrollAll)));
report('scroll, relevance order (every document)', (retained() - base) / 10);
kept.push(idOf(await post('/packages/_search?scroll=10m', scrollSorted)));
base = retained();
for (let i = 0; i < 10; i++) kept.push(idOf(await post('/packages/_search?scroll=10m', scrollSorted)));
report('scroll, sorted on a keyword (every document)', (retained() - base) / 10);
base = retained();
kept.push(idOf(await post('/packages/_pit?keep_alive=10m', undefined)));
report('point in time, before any write', retained() - base);
base = retained();
await post('/packages/_doc/one-more', { name: 'x' });
report('point in time, after a write (its index copy)', retained() - base);
console.log(`(${kept.length} contexts open)`);
await app.close();
rmSync(dir, { recursive: true, force: true });
