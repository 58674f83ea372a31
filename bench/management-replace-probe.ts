/**
 * Whole-snapshot replacement probe (`node --expose-gc --import tsx bench/management-replace-probe.ts`):
 * the "snapshot applied" figure of `npm run bench:management` (its measureApply: one provider of
 * BENCH_RECORDS routers and services, default 50,000, every router's rule changed per
 * generation, applied with RecordStore.set, then the first page encoded), alone and in process,
 * so that a change to the runtime build can be measured in a minute. Prints the CPU time of each
 * of BENCH_GENERATIONS (default 7) applies and the median; the first two differ (an empty store,
 * then the first replacement) and are counted like the others, as in the bench.
 *
 * `--optimize-for-size` sets V8's flag the way `portico serve` does by default
 * (`--runtime.optimize-for-size`: set at start, not on the command line), which is what a served
 * apply costs: its collector keeps the heap close to the live data, so each apply of 50,000
 * records runs a full mark-compact. BENCH_PROFILE=file.cpuprofile writes a CPU profile of the
 * applies from the third on. `--dist` applies with the compiled code of `npm run build` instead
 * of the sources under tsx (the bench and this probe otherwise measure tsx's output).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import type { ProviderSnapshot } from '../src/dynamic-config/configuration.js';
import type * as RecordStoreModule from '../src/management/record-store.js';
import { BENCH_ENTRY_POINTS, benchSnapshot } from './management-snapshot.js';

if (process.argv.includes('--optimize-for-size')) setFlagsFromString('--optimize-for-size');

const N = Number(process.env.BENCH_RECORDS ?? 50_000);
const GENERATIONS = Number(process.env.BENCH_GENERATIONS ?? 7);
const ENTRY_POINTS = BENCH_ENTRY_POINTS;

const snapshot = (generation: number): ProviderSnapshot => benchSnapshot(N, generation);

async function main(): Promise<void> {
  // --dist: the compiled code `node dist/cli.js serve` runs (after `npm run build`), not tsx's
  // transform of the sources (which, among other things, names every closure it makes).
  const modulePath = process.argv.includes('--dist') ? '../dist/management/record-store.js' : '../src/management/record-store.js';
  const { RecordStore } = (await import(modulePath)) as typeof RecordStoreModule;
  const store = new RecordStore({ entryPoints: ENTRY_POINTS, now: Date.now });
  const session = new Session();
  const profile = process.env.BENCH_PROFILE;
  const cpu: number[] = [];
  // A checksum of the first pages, to compare two versions' answers.
  let check = 0;
  for (let g = 1; g <= GENERATIONS; g++) {
    if (g === 3 && profile !== undefined) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const s = snapshot(g);
    // The garbage of making the snapshot is not the apply's.
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = process.cpuUsage();
    store.set('kubernetes', s);
    const page = store.view.http.routers.ascending('name').slice(0, 100).map((e) => e.json);
    const c1 = process.cpuUsage(c0);
    cpu.push((c1.user + c1.system) / 1000);
    for (const json of page) for (let i = 0; i < json.length; i++) check = (check * 31 + json.charCodeAt(i)) >>> 0;
  }
  if (profile !== undefined) writeFileSync(profile, JSON.stringify((await session.post('Profiler.stop')).profile));
  const median = [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)] ?? NaN;
  const flags = `${process.argv.includes('--optimize-for-size') ? ', --optimize-for-size' : ''}${process.argv.includes('--dist') ? ', dist/' : ''}`;
  process.stdout.write(`${N} routers + ${N} services replaced${flags}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  process.stdout.write(`CPU ms per apply: ${cpu.map((x) => x.toFixed(0)).join(' ')}; median ${median.toFixed(0)}; first pages checksum ${check}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
