/**
 * Filtered-search probe (`node --expose-gc --import tsx bench/management-search-probe.ts`): the
 * "filtered search" request of `npm run bench:management` (`/api/http/routers?search=app-12&status=disabled`)
 * through its handler path (query parsing, filter, page, body), in process over the bench's
 * snapshot (BENCH_RECORDS routers and services, default 50,000), so that a change to the list
 * path can be measured in seconds. Prints CPU per call and the p50/p99 of wall time per call over
 * BENCH_CALLS calls (default 2,000) on each of three applied generations (a fresh view each: the
 * first calls after an apply pay for what entries compute lazily), and a checksum of the bodies
 * to compare two versions' answers. More requests with `--all` (other filters and sorts).
 * BENCH_PROFILE=file.cpuprofile writes a CPU profile of the calls.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { listPage } from '../src/management/api/query.js';
import { RecordStore } from '../src/management/record-store.js';
import { BENCH_ENTRY_POINTS, benchSnapshot } from './management-snapshot.js';

const N = Number(process.env.BENCH_RECORDS ?? 50_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const QUERIES = process.argv.includes('--all')
  ? ['search=app-12&status=disabled', 'search=APP-12', 'status=enabled&page=3', 'search=v2&sortBy=priority&direction=desc', 'search=ns-7-&per_page=10&page=4', 'status=Disabled&search=%22app-1']
  : ['search=app-12&status=disabled'];

function checksum(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}

async function main(): Promise<void> {
  const store = new RecordStore({ entryPoints: BENCH_ENTRY_POINTS, now: Date.now });
  const session = new Session();
  const profile = process.env.BENCH_PROFILE;
  let check = 0;
  const lines: string[] = [];
  for (let g = 1; g <= 3; g++) {
    store.set('kubernetes', benchSnapshot(N, g));
    (globalThis as { gc?: () => void }).gc?.();
    if (g === 2 && profile !== undefined) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    for (const q of QUERIES) {
      const view = store.view.http.routers;
      const wall: number[] = [];
      const c0 = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        const page = listPage(view, new URLSearchParams(q));
        wall.push(performance.now() - t0);
        if ('error' in page) throw new Error(page.error);
        if (i === 0) check = checksum(`${page.total} ${page.nextPage} ${page.body}`, check);
      }
      const c1 = process.cpuUsage(c0);
      wall.sort((a, b) => a - b);
      const at = (p: number) => (wall[Math.min(wall.length - 1, Math.floor(p * wall.length))] ?? NaN).toFixed(3);
      lines.push(`gen ${g} ?${q}: CPU ${((c1.user + c1.system) / 1000 / CALLS).toFixed(3)} ms/call, wall p50 ${at(0.5)} p99 ${at(0.99)} max ${at(1 - 1e-9)} ms`);
    }
  }
  if (profile !== undefined) writeFileSync(profile, JSON.stringify((await session.post('Profiler.stop')).profile));
  process.stdout.write(`${N} routers; ${CALLS} calls per query; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n${lines.join('\n')}\nbodies checksum ${check}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
