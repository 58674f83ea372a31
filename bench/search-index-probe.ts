/**
 * In-process probe of the search core (not a test, not the HTTP benchmark):
 * `node --expose-gc --import tsx bench/search-index-probe.ts [--copies 1] [--rounds 3] [--durability request]`.
 *
 * Loads the Debian packages corpus (`--corpus FILE`, see bench/README.md) through the service layer exactly as the `_bulk`
 * route does (parseBulk → SearchService.bulkEach → BulkResponseWriter, 5,000 documents per request,
 * SQLite under a temporary directory) and reports CPU time per document (process.cpuUsage, stable
 * on a shared machine, unlike wall-clock time), then the bench's match queries at from = 0, 100,
 * 1000, 9990 (size 10) with CPU per query, memory after a full GC, and the CPU a restart spends
 * loading the index snapshot saved by close, and rebuilding the index from the store without it. `checksum` hashes every returned id and score so two
 * versions of the core can be compared for identical results.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBulk } from '../src/search/requests/bulk.js';
import { BulkResponseWriter } from '../src/search/engine/bulk-response.js';
import { SqliteDocumentStore, type Durability } from '../src/search/store/document-store.js';
import { renderJson } from '../src/search/http/json-render.js';
import { SearchService } from '../src/search/engine/search-service.js';
import { parseSearchRequest } from '../src/search/requests/search-request.js';
import { corpusPath, DEPTHS, flag, opt, QUERIES, readCorpus } from './search-workload.js';

const corpus = corpusPath();
const copies = Number(opt('copies', '1'));
const rounds = Number(opt('rounds', '3'));
const batch = Number(opt('batch', '5000'));
const durability = opt('durability', 'request') as Durability;
/** Stop after loading (profiling the bulk path). */
const bulkOnly = flag('bulk-only');
/**
 * Read the corpus and build the request bodies, then stop before applying them: under callgrind,
 * a run with this flag minus one without it counts the bulk path alone, without the probe's own
 * gunzip, split and body building (about a sixth of a 10,000-document run).
 */
const setupOnly = flag('setup-only');

const gc = (globalThis as { gc?: () => void }).gc;
const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** CPU microseconds of the main thread alone (the store's writer thread is on the other core). */
const mainCpuUs = (): number => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // utime, stime in clock ticks (USER_HZ = 100)
};
/** One `_bulk` request as the route applies it: its response bytes. */
function applyBulk(service: SearchService, body: Buffer): Buffer {
  const actions = parseBulk(body, 'packages');
  const response = new BulkResponseWriter(false, actions.length);
  service.bulkEach(actions, (item) => response.add(item));
  return response.finish(0);
}
const mib = (n: number): string => (n / 1024 / 1024).toFixed(0);
function pct(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? NaN;
}

function main(): void {
  // --limit N: only the first N documents of the corpus (e.g. under valgrind --tool=callgrind).
  const limit = Number(opt('limit', 'Infinity'));
  const lines = readCorpus(corpus).slice(0, limit);
  // Buffers, as the route gets bodies from Fastify (parseBulk works on the bytes).
  const bodies: Buffer[] = [];
  let id = 0;
  for (let c = 0; c < copies; c++) {
    for (let i = 0; i < lines.length; i += batch) {
      let body = '';
      for (const l of lines.slice(i, i + batch)) body += `{"index":{"_id":"${id++}"}}\n${l}\n`;
      bodies.push(Buffer.from(body));
    }
  }
  const total = id;
  // --repeat N (with --bulk-only): load N times into fresh stores and report the best run, which
  // filters out the noise of a shared machine when comparing two versions.
  const repeat = Number(opt('repeat', '1'));
  for (let r = 1; r < repeat; r++) {
    const dir = mkdtempSync(join(tmpdir(), 'portico-probe-'));
    const store = new SqliteDocumentStore(dir, durability);
    const service = new SearchService(store, Date.now);
    service.createIndex('packages', {});
    const m0 = mainCpuUs();
    for (const body of bodies) applyBulk(service, body);
    console.log(`bulk run ${r}: main thread ${((mainCpuUs() - m0) / total).toFixed(1)} us/doc`);
    store.close();
    rmSync(dir, { recursive: true, force: true });
    gc?.();
  }
  const dir = mkdtempSync(join(tmpdir(), 'portico-probe-'));
  try {
    let store = new SqliteDocumentStore(dir, durability);
    let service = new SearchService(store, Date.now);
    service.load();
    service.createIndex('packages', { settings: { number_of_replicas: 0 } });
    gc?.();
    if (setupOnly) {
      console.log(`setup only: ${total} docs in ${bodies.length} bodies, not applied`);
      return;
    }
    const c0 = cpuUs();
    const m0 = mainCpuUs();
    const t0 = performance.now();
    for (const body of bodies) {
      const answer = applyBulk(service, body);
      if (answer.includes('"errors":true')) throw new Error(`bulk failed: ${answer.toString('utf8', 0, 300)}`);
    }
    const bulkCpu = cpuUs() - c0;
    const bulkMain = mainCpuUs() - m0;
    const bulkWall = performance.now() - t0;
    // Memory of the index alone: drop the corpus text this probe holds.
    lines.length = 0;
    bodies.length = 0;
    console.log(`bulk: ${total} docs, ${(bulkCpu / total).toFixed(1)} us CPU/doc (${Math.round(total / (bulkCpu / 1e6))} docs/CPU-s), main thread ${(bulkMain / total).toFixed(1)} us/doc, wall ${Math.round(total / (bulkWall / 1000))} docs/s`);
    gc?.();
    const m = process.memoryUsage();
    console.log(`memory after load: rss ${mib(m.rss)} MiB, heapUsed ${mib(m.heapUsed)} MiB, external+arrayBuffers ${mib(m.external + m.arrayBuffers)} MiB`);

    if (bulkOnly) return;
    const state = service.get('packages');
    // Searches see the index as of its last refresh (as in ES): what was loaded, refreshed.
    service.refresh([state]);
    let checksum = 0;
    const mix = (s: string): void => {
      for (let i = 0; i < s.length; i++) checksum = (Math.imul(checksum, 31) + s.charCodeAt(i)) | 0;
    };
    for (const from of DEPTHS) {
      const wall: number[] = [];
      let cpu = 0;
      for (let r = 0; r < rounds; r++) {
        for (const q of QUERIES) {
          const req = parseSearchRequest({ query: { match: { description: q } }, from, size: 10 }, {});
          const ca = cpuUs();
          const ta = performance.now();
          const body = service.search([state], req, Date.now());
          renderJson(body, false, true);
          wall.push(performance.now() - ta);
          cpu += cpuUs() - ca;
          if (r === 0) {
            const hits = (body.hits as { hits: { _id: string; _score: number }[] }).hits;
            for (const h of hits) mix(`${h._id}:${h._score};`);
            mix(`${hits.length}|`);
          }
        }
      }
      wall.sort((a, b) => a - b);
      console.log(`from ${String(from).padStart(4)}: CPU ${(cpu / wall.length / 1000).toFixed(3)} ms/query, wall median ${pct(wall, 0.5).toFixed(3)} p95 ${pct(wall, 0.95).toFixed(3)} ms`);
    }
    console.log(`checksum ${(checksum >>> 0).toString(16)}`);

    const c2 = cpuUs();
    const t2 = performance.now();
    store.close(); // saves the index snapshot
    const snapshotMiB = statSync(join(dir, 'index.snapshot')).size / 1048576;
    console.log(`close: snapshot of ${snapshotMiB.toFixed(0)} MiB saved in ${((cpuUs() - c2) / 1e6).toFixed(2)} s CPU, ${((performance.now() - t2) / 1000).toFixed(2)} s wall`);
    service = undefined as unknown as SearchService;
    for (const mode of ['from snapshot', 'rebuild from documents']) {
      gc?.();
      if (mode !== 'from snapshot') rmSync(join(dir, 'index.snapshot'));
      store = new SqliteDocumentStore(dir, durability);
      const c1 = cpuUs();
      const t1 = performance.now();
      service = new SearchService(store, Date.now);
      service.load();
      console.log(`restart ${mode}: ${((cpuUs() - c1) / 1e6).toFixed(2)} s CPU, ${((performance.now() - t1) / 1000).toFixed(2)} s wall, ${service.get('packages').index.liveCount} docs`);
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
