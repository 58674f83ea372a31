/**
 * Management API benchmark (`npm run bench:management`): 10,000 routers and 10,000 services in
 * one provider snapshot, then the latency of a 100-item page, a filtered search and a full
 * /api/rawdata over real HTTP, the time from a new snapshot to its records being served, and
 * memory. Prints each figure against the issue's target as a ratio (below 1 is within target).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { createManagementApi } from '../src/management/app.js';
import type { DynamicConfiguration, ProviderSnapshot } from '../src/management/dynamic-config.js';
import { RecordStore } from '../src/management/record-store.js';

const N = Number(process.env.BENCH_RECORDS ?? 10_000);

function snapshot(generation: number): ProviderSnapshot {
  const routers: NonNullable<NonNullable<DynamicConfiguration['http']>['routers']> = {};
  const services: NonNullable<NonNullable<DynamicConfiguration['http']>['services']> = {};
  for (let i = 0; i < N; i++) {
    const ns = `ns-${i % 50}`;
    routers[`${ns}-app-${i}-example-com`] = {
      entryPoints: ['web'],
      rule: `Host("app-${i}.example.com") && PathPrefix("/v${generation}")`,
      service: `${ns}-app-${i}-80`,
      ...(i % 10 === 0 ? { middlewares: ['missing-auth'] } : {}),
    };
    services[`${ns}-app-${i}-80`] = {
      loadBalancer: { servers: [{ url: `http://10.${(i >> 8) & 255}.${i & 255}.1:80` }, { url: `http://10.${(i >> 8) & 255}.${i & 255}.2:80` }], passHostHeader: true, strategy: 'wrr' },
    };
  }
  return { configuration: { http: { routers, services } }, version: `gen-${generation}` };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function timeRequests(url: string, n: number): Promise<{ median: number; p99: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    bytes = body.byteLength;
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  }
  times.sort((a, b) => a - b);
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), bytes };
}

async function main(): Promise<void> {
  const store = new RecordStore({
    entryPoints: [{ name: 'web', address: ':80', protocol: 'tcp', isDefault: true }, { name: 'traefik', address: ':8080', protocol: 'tcp', isDefault: false }],
    now: Date.now,
  });
  const app = createManagementApi({ store, logger: pino({ level: 'silent' }), startDate: Date.now() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  // Snapshot applied -> first page served with the new records.
  const applyTimes: number[] = [];
  const applyCpu: number[] = [];
  for (let generation = 1; generation <= 7; generation++) {
    const s = snapshot(generation);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    store.set('kubernetes', s);
    const c1 = process.cpuUsage(c0);
    const res = await fetch(`${base}/api/http/routers?per_page=100`);
    await res.arrayBuffer();
    applyTimes.push(performance.now() - t0);
    applyCpu.push((c1.user + c1.system) / 1000);
  }
  applyTimes.sort((a, b) => a - b);
  applyCpu.sort((a, b) => a - b);

  await timeRequests(`${base}/api/http/routers?page=40&per_page=100`, 50); // warm-up
  const page = await timeRequests(`${base}/api/http/routers?page=40&per_page=100`, 1000);
  const sorted = await timeRequests(`${base}/api/http/services?sortBy=servers&direction=desc&page=7`, 300);
  const search = await timeRequests(`${base}/api/http/routers?search=app-12&status=disabled`, 300);
  const t0 = performance.now();
  const cold = await timeRequests(`${base}/api/rawdata`, 1);
  const rawCold = performance.now() - t0;
  const raw = await timeRequests(`${base}/api/rawdata`, 20);
  // A full collection first, so the figure is what the records hold, not garbage not yet collected.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const mem = process.memoryUsage();
  await app.close();

  const rows: [string, string, number, number][] = [
    ['page of 100 routers (p99)', 'ms', page.p99, 5],
    ['page of 100 routers (median)', 'ms', page.median, 5],
    ['sorted services page (p99)', 'ms', sorted.p99, 5],
    ['filtered search (p99)', 'ms', search.p99, 5],
    ['filtered search (median)', 'ms', search.median, 5],
    ['snapshot applied to served (median)', 'ms', quantile(applyTimes, 0.5), 200],
    ['snapshot applied to served (max)', 'ms', applyTimes[applyTimes.length - 1] ?? NaN, 200],
    ['snapshot applied, CPU time (median)', 'ms', quantile(applyCpu, 0.5), 200],
    ['/api/rawdata first after snapshot', 'ms', rawCold, NaN],
    ['/api/rawdata (median, cached)', 'ms', raw.median, NaN],
    ['/api/rawdata (p99, cached)', 'ms', raw.p99, NaN],
    ['resident memory', 'MB', mem.rss / 1e6, 200],
    ['heap used', 'MB', mem.heapUsed / 1e6, NaN],
  ];
  process.stdout.write(`load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} cores\n`);
  process.stdout.write(`management bench: ${N} routers + ${N} services (rawdata ${(cold.bytes / 1e6).toFixed(1)} MB, page ${(page.bytes / 1e3).toFixed(0)} KB)\n\n`);
  process.stdout.write(`${'measure'.padEnd(40)} ${'value'.padStart(10)}  ${'target'.padStart(8)}  ratio\n`);
  for (const [name, unit, value, target] of rows) {
    const ratio = Number.isNaN(target) ? '' : (value / target).toFixed(3);
    process.stdout.write(`${name.padEnd(40)} ${`${value.toFixed(2)} ${unit}`.padStart(10)}  ${Number.isNaN(target) ? '-'.padStart(8) : `${target} ${unit}`.padStart(8)}  ${ratio}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
