/**
 * Re-indexing the same documents again and again (not a test):
 * `npm run bench:reindex -- [--passes 10] [--no-reclaim] [--corpus f]`
 *
 * Loads the Debian corpus through the `_bulk` path (parseBulk and SearchService.bulkEach, the
 * SQLite store and its writer thread, durability async) in bulks of 1,000 documents, then loads it
 * again `--passes` times with the same ids, as a nightly re-index of a catalogue does. After each
 * pass, once the background reclaim (engine/index-reclaimer.ts) has nothing left to do, prints:
 * - the compactions that ran during the pass and the wait after it: their time in slices and the
 *   longest slice (wall time, as the activity log reports them), the number of slices and the
 *   longest slice in CPU time of the main thread (schedstat; wall time swings with the machine's
 *   load): the longest a request could wait behind the reclaim;
 * - RSS and the retained heap (heap + array buffers after full GCs) of this process;
 * - the postings held against those of the live documents, and the ordinals held;
 * - the size of the index snapshot a clean shutdown would write then (compacted first, as the
 *   shutdown does);
 * - a `match` query's latency: the median and the largest of 60 runs of 20 queries.
 * `--no-reclaim` never reclaims (the code before reclaiming: the anchor). The last line is the
 * ratio of the last pass's figures to the first's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { SearchActivityLog } from '../src/search/engine/search-activity-log.js';
import { SearchService } from '../src/search/engine/search-service.js';
import { saveIndices } from '../src/search/index/index-snapshot.js';
import { renderJson } from '../src/search/http/json-render.js';
import { parseBulk } from '../src/search/requests/bulk.js';
import { parseSearchRequest } from '../src/search/requests/search-request.js';
import { SqliteDocumentStore } from '../src/search/store/document-store.js';
import { corpusPath, flag, opt, QUERIES, readCorpus } from './search-workload.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const passes = Number(opt('passes', '10'));
const reclaim = !flag('no-reclaim');
const lines = readCorpus(corpusPath());
const BULK = 1000;
const bodies: Buffer[] = [];
for (let i = 0; i < lines.length; i += BULK) {
  bodies.push(Buffer.from(lines.slice(i, i + BULK).map((l, k) => `{"index":{"_id":"p${i + k}"}}\n${l}\n`).join('')));
}

const dir = mkdtempSync(join(tmpdir(), 'portico-reindex-'));
const store = new SqliteDocumentStore(join(dir, 'search'), 'async');
const policy = reclaim ? undefined : { minDead: Number.POSITIVE_INFINITY, deadShare: 1, sliceMs: 4 };
/** The compactions of the current pass, as the activity log reports them. */
let compactions: { ms: number; longestSliceMs: number }[] = [];
const logger = {
  info: (o: { longestSliceMs?: number; ms?: number }) => {
    if (o.longestSliceMs !== undefined) compactions.push({ ms: o.ms ?? 0, longestSliceMs: o.longestSliceMs });
  },
  warn: () => undefined,
};
const activity = new SearchActivityLog({ logger: logger as unknown as ConstructorParameters<typeof SearchActivityLog>[0]['logger'], clock: () => performance.now() });
/** CPU time of this process's main thread, ns (schedstat: the machine's other load adds nothing to it). */
const mainThreadNs = (): number => Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
/** The main thread's CPU time of each reclaim slice of the current pass, ms. */
let sliceCpuMs: number[] = [];
const schedule = (run: () => void): void => {
  setImmediate(() => {
    const t = mainThreadNs();
    run();
    sliceCpuMs.push((mainThreadNs() - t) / 1e6);
  });
};
const service = new SearchService(store, Date.now, activity, { policy, schedule });
service.load();
service.createIndex('packages', {});

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function loadPass(): Promise<number> {
  const started = performance.now();
  for (const body of bodies) {
    const items = service.bulk(parseBulk(body, 'packages'));
    if (items.some((it) => 'error' in it)) throw new Error('a bulk item failed');
    // Let the writer thread's commit and the reclaim's slices run between bulks, as between requests.
    await tick();
  }
  return performance.now() - started;
}

function retained(): number {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function latencies(): { median: number; max: number } {
  const states = service.resolve('packages');
  // Searches see the index as of its last refresh (as in ES): the pass just loaded, refreshed.
  service.refresh(states);
  const times: number[] = [];
  for (let round = 0; round < 60; round++) {
    for (const q of QUERIES) {
      const t = performance.now();
      renderJson(service.search(states, parseSearchRequest({ query: { match: { description: q } } }, {}), 0), false, true);
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1] as number, max: times.at(-1) as number };
}

const MiB = 2 ** 20;
const rows: { rss: number; heap: number; snapshot: number; median: number }[] = [];
console.log(`corpus ${lines.length} documents, ${bodies.length} bulks of ${BULK}; reclaim ${reclaim ? 'on' : 'off (--no-reclaim)'}`);
console.log('pass  load s  wait s  compactions  their ms  longest slice ms  slices  slice CPU max ms  RSS MiB  heap MiB  ordinals  postings/live  snapshot MB  match median ms  max ms');
for (let pass = 0; pass <= passes; pass++) {
  compactions = [];
  sliceCpuMs = [];
  const loadMs = await loadPass();
  const waitStarted = performance.now();
  const state = service.get('packages');
  // Nothing left to do: no compaction under way, and none due (the next one starts a turn after a swap).
  while (service.reclaimer.isRunning(state) || service.reclaimer.due(state)) await tick();
  const waitMs = performance.now() - waitStarted;
  const heap = retained();
  const rss = process.memoryUsage().rss;
  const lat = latencies();
  // Postings held (live or not) against those of live documents (the sum of the docFreqs).
  let held = 0;
  let live = 0;
  for (const f of state.index.text.values()) {
    held += f.postings.postingCount;
    for (let t = 0; t < f.postings.termCount; t++) live += f.postings.docFreq(t);
  }
  const ordinals = state.index.maxOrd;
  // What a clean shutdown writes now: the reclaimer compacts the index first (IndexRegistry.snapshot).
  if (reclaim) service.reclaimer.compactNow(state);
  const snapshot = saveIndices(service.list()).length;
  rows.push({ rss, heap, snapshot, median: lat.median });
  console.log(
    `${String(pass).padStart(4)}  ${(loadMs / 1000).toFixed(1).padStart(6)}  ${(waitMs / 1000).toFixed(2).padStart(6)}  ${String(compactions.length).padStart(11)}  ${compactions.reduce((a, c) => a + c.ms, 0).toFixed(0).padStart(8)}  ${Math.max(0, ...compactions.map((c) => c.longestSliceMs)).toFixed(0).padStart(16)}  ${String(sliceCpuMs.length).padStart(6)}  ${Math.max(0, ...sliceCpuMs).toFixed(1).padStart(16)}  ${(rss / MiB).toFixed(0).padStart(7)}  ${(heap / MiB).toFixed(0).padStart(8)}  ${String(ordinals).padStart(8)}  ${(held / live).toFixed(2).padStart(13)}  ${(snapshot / 1e6).toFixed(1).padStart(11)}  ${lat.median.toFixed(2).padStart(15)}  ${lat.max.toFixed(1).padStart(6)}`,
  );
}
const first = rows[0] as (typeof rows)[number];
const last = rows.at(-1) as (typeof rows)[number];
console.log(`last / first pass: RSS ${(last.rss / first.rss).toFixed(2)}, heap ${(last.heap / first.heap).toFixed(2)}, snapshot ${(last.snapshot / first.snapshot).toFixed(2)}, match median ${(last.median / first.median).toFixed(2)}`);
service.close();
store.close();
rmSync(dir, { recursive: true, force: true });
