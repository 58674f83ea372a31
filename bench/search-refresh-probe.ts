/**
 * In-process probe of what near-real-time refresh costs bulk indexing (not a test):
 * `node --import tsx bench/search-refresh-probe.ts [--runs 3] [--batch 1000] [--root DIR] [--mode interval|each]`.
 *
 * Loads the Debian packages corpus (`--corpus FILE`, see bench/README.md) in `_bulk`-sized requests
 * as the route applies them (parseBulk → SearchService.bulkEach → BulkResponseWriter), into an
 * index created with `refresh_interval: 1s`, giving the event loop a turn between bulks so that
 * scheduled refreshes run, and prints the main thread's CPU ms per bulk (its mean over a run, as
 * /proc counts it in 10 ms ticks; then the median of `--runs` runs), the refreshes seen and the wall time. `--mode each` refreshes
 * after every bulk (`?refresh=true` on each: the dearest pattern). `--root` points at another
 * checkout's src/ parent (A/B against main, whose engine has no refresh: the calls are skipped).
 * `--passes 2` loads the corpus a second time over itself: each overwrite of a document the last
 * refresh shows keeps its old `_source` for that view (a store read).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { corpusPath, opt, readCorpus, ROOT } from './search-workload.js';

const root = resolve(opt('root', ROOT));
const runs = Number(opt('runs', '3'));
const batch = Number(opt('batch', '1000'));
const mode = opt('mode', 'interval');
/** `--passes 2`: load the corpus again over itself (every document overwritten), reported per pass. */
const passes = Number(opt('passes', '1'));

/** CPU microseconds of the main thread alone (the store's writer thread is on the other core). */
const mainCpuUs = (): number => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

interface Service {
  createIndex(name: string, body: unknown): unknown;
  bulkEach(actions: unknown, each: (item: unknown) => void): void;
  refresh?(states: unknown[]): void;
  get(name: string): unknown;
  close(): void;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  const { parseBulk } = (await import(join(root, 'src/search/requests/bulk.ts'))) as { parseBulk: (b: Buffer, index: string) => unknown[] };
  const { BulkResponseWriter } = (await import(join(root, 'src/search/engine/bulk-response.ts'))) as {
    BulkResponseWriter: new (f: boolean, n: number) => { add(item: unknown): void; finish(took: number): Buffer };
  };
  const { SqliteDocumentStore } = (await import(join(root, 'src/search/store/document-store.ts'))) as { SqliteDocumentStore: new (dir: string, d: string) => { close(): void } };
  const { SearchService } = (await import(join(root, 'src/search/engine/search-service.ts'))) as { SearchService: new (store: unknown, now: () => number) => Service };
  const lines = readCorpus(corpusPath());
  const bodies: Buffer[] = [];
  for (let i = 0; i < lines.length; i += batch) {
    let body = '';
    lines.slice(i, i + batch).forEach((l, k) => (body += `{"index":{"_id":"${i + k}"}}\n${l}\n`));
    bodies.push(Buffer.from(body));
  }
  const medians: number[][] = Array.from({ length: passes }, () => []);
  for (let r = 0; r < runs; r++) {
    const dir = mkdtempSync(join(tmpdir(), 'portico-refresh-probe-'));
    const store = new SqliteDocumentStore(dir, 'request');
    const service = new SearchService(store, Date.now);
    service.createIndex('packages', { settings: { refresh_interval: '1s' } });
    const contexts = (service as unknown as { contexts?: { searcher?: (s: unknown) => unknown } }).contexts;
    for (let pass = 0; pass < passes; pass++) {
    let refreshes = 0;
    const perBulk: number[] = [];
    const wall = performance.now();
    for (const body of bodies) {
      const dirty = contexts?.searcher?.(service.get('packages')) !== undefined;
      const started = mainCpuUs();
      const actions = parseBulk(body, 'packages');
      const response = new BulkResponseWriter(false, actions.length);
      service.bulkEach(actions, (item) => response.add(item));
      response.finish(0);
      if (mode === 'each') service.refresh?.([service.get('packages')]);
      perBulk.push((mainCpuUs() - started) / 1000);
      // A turn of the event loop: a due refresh timer runs here, as between two requests.
      await turn();
      if (dirty && contexts?.searcher?.(service.get('packages')) === undefined) refreshes++;
    }
    const ms = performance.now() - wall;
    medians[pass]?.push(perBulk.reduce((a, b) => a + b, 0) / perBulk.length);
    console.log(`run ${r + 1} pass ${pass + 1}: ${bodies.length} bulks of ${batch}, CPU per bulk ${(perBulk.reduce((a, b) => a + b, 0) / perBulk.length).toFixed(2)} ms (mean over the run: the clock ticks are 10 ms), ${mode === 'each' ? bodies.length : refreshes} refreshes, ${ms.toFixed(0)} ms wall`);
    }
    service.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  medians.forEach((m, pass) => console.log(`${root} mode=${mode} pass ${pass + 1}: CPU per ${batch}-document bulk, median of ${runs} runs: ${median(m).toFixed(2)} ms`));
}

await main();
