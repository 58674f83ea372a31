/**
 * `npx tsx bench/bulk-stall-probe.ts [passes]` (default 3): how long the event loop is held during
 * 1,000-document bulks of the Debian corpus, in-process, in two ways alternated bulk by bulk so
 * that the machine's load hits both alike: `before`, the body parsed in one piece (parseBulk) and
 * the last commit blocking the thread (commit); `after`, the body parsed in slices
 * (parseBulkSliced) and the last commit awaited (commitAsync). Both apply the items in 10 ms
 * slices (bulkEachSliced). A 1 ms interval timer notes the gaps between its runs: a gap is the
 * longest anything else (a search) would have waited then. Issue 23.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SearchService } from '../src/search/engine/search-service.js';
import { parseBulk, parseBulkSliced } from '../src/search/requests/bulk.js';
import { SqliteDocumentStore } from '../src/search/store/document-store.js';

const CORPUS = new URL('../../../shared/data/debian-packages.ndjson.gz', import.meta.url).pathname;
const lines = gunzipSync(readFileSync(CORPUS)).toString('utf8').split('\n').filter((l) => l !== '').slice(0, 20000);
const bulks: Buffer[] = [];
for (let i = 0; i < lines.length; i += 1000) bulks.push(Buffer.from(lines.slice(i, i + 1000).map((l, j) => `{"index":{"_index":"deb","_id":"${i + j}"}}\n${l}\n`).join('')));
const dir = mkdtempSync(join(tmpdir(), 'probe-r23-'));
const store = new SqliteDocumentStore(dir, 'request');
const service = new SearchService(store, Date.now);
service.load();
let mode: 'before' | 'after' = 'before';
const open = store.openTransaction.bind(store);
store.openTransaction = (o) => {
  const t = open(o);
  const w = { run: t.run.bind(t), rollback: t.rollback.bind(t), commit: t.commit.bind(t) };
  return mode === 'before' ? w : { ...w, commitAsync: t.commitAsync?.bind(t) };
};
const gaps = { before: [] as number[], after: [] as number[] };
let last = performance.now();
const timer = setInterval(() => { const n = performance.now(); gaps[mode].push(n - last); last = n; }, 1);
const passes = Number(process.argv[2] ?? 3);
for (let pass = 0; pass < passes; pass++) {
  for (let k = 0; k < bulks.length; k++) {
    mode = k % 2 === 0 ? 'before' : 'after';
    const b = bulks[k] as Buffer;
    const actions = mode === 'before' ? parseBulk(b, undefined) : await parseBulkSliced(b, undefined, false, undefined, undefined, 10);
    await service.bulkEachSliced(actions, () => undefined, 10);
    await new Promise((r) => setTimeout(r, 5));
  }
}
clearInterval(timer);
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]?.toFixed(1); };
for (const m of ['before', 'after'] as const) {
  const g = gaps[m];
  console.log(`${m}: event-loop gaps during bulks p50 ${pct(g, 50)} p90 ${pct(g, 90)} p99 ${pct(g, 99)} max ${pct(g, 100)} ms; gaps over 30 ms ${g.filter((x) => x > 30).length} of ${g.length}`);
}
store.close();
