/**
 * npm run bench:pushgateway: Portico's push gateway against Pushgateway 1.11.1 (built from the Go
 * module proxy by scripts/build-peers.sh, cached in ~/.cache/portico-peers) on this machine, one
 * server at a time: each is started, measured and stopped before the next starts, so that a server
 * still working off queued pushes never shares the cores with the other's run.
 *
 * Prints pushes per second (wrk, POST of a 10-metric body, 32 connections, spread over 2,000
 * groups; Portico also with a persistence file with and without its write-ahead log, and with its
 * groups in Redis), GET /metrics latency at 2,000 and 200,000 groups of 10 series, and resident
 * memory per added series between those two sizes, each with the ratio Portico/Pushgateway.
 *
 * Scrape times are measured with curl, pushes with wrk, so that Node's own HTTP client does not
 * weigh on the figures. Resident memory is the lowest of samples taken once the process is quiet,
 * soon after the load and once its runtime has returned freed memory (quietRss); the store's live heap per series (bench/pushgateway-heap-probe.ts, after a forced GC) is
 * printed beside it, as the steadier figure.
 *
 * Flags: --no-build (use the existing dist/), --seconds=N (wrk duration per run, default 8),
 * --large=N (the large store's groups, default 200000), --settle=N (seconds each memory reading
 * waits for the runtime to return freed memory, default 150; see quietRss).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseText } from '../src/pushgateway/exposition/text-parser.js';
import { InMemoryGroupStore } from '../src/pushgateway/store/group-store.js';
import { redisStoreRun } from './pushgateway-redis-run.js';

const WRK = '/usr/bin/wrk';
const CURL = '/usr/bin/curl';
const SMALL = 2_000;
const args = process.argv.slice(2);
const LARGE = Number(args.find((a) => a.startsWith('--large='))?.slice(8) ?? 200_000);
const SERIES = 10;
const seconds = Number(args.find((a) => a.startsWith('--seconds='))?.slice(10) ?? 8);
const SETTLE = Number(args.find((a) => a.startsWith('--settle='))?.slice(9) ?? 150);
const root = new URL('..', import.meta.url).pathname;

/** Pushgateway's binary from scripts/build-peers.sh (built on the first run: a few minutes). */
function pushgatewayBinary(): string {
  try {
    const out = execFileSync('bash', [join(root, 'scripts/build-peers.sh'), 'pushgateway'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    return out.trim().split('\n').pop() ?? '';
  } catch (err) {
    throw new Error(`scripts/build-peers.sh pushgateway failed: the benchmark needs Go 1.26 or newer (https://go.dev/doc/install) and the Go module proxy`, { cause: err });
  }
}
const PG_BIN = pushgatewayBinary();

for (const [bin, pkg] of [
  [WRK, 'wrk'],
  [CURL, 'curl'],
] as const) {
  if (!existsSync(bin)) throw new Error(`${bin} not found: install the Debian package "${pkg}"`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

interface Proc {
  readonly child: ChildProcess;
  readonly url: string;
  stop(): Promise<void>;
}

async function start(cmd: string, argv: string[], url: string): Promise<Proc> {
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited: ${err}`);
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) return { child, url, stop };
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${cmd} did not start: ${err}`);
}

function body(seed: number): string {
  let out = '';
  for (let m = 0; m < SERIES; m++) out += `# TYPE bench_metric_${m} gauge\nbench_metric_${m}{worker="w"} ${seed + m}\n`;
  return out;
}

async function fill(url: string, from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const res = await fetch(`${url}/metrics/job/bench/instance/i${i}`, { method: 'PUT', body: body(i) });
      if (res.status >= 300) throw new Error(`fill push to ${url} failed: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

function wrkPushes(url: string, groups: number, secs: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'pg-bench-wrk-'));
  const script = join(dir, 'push.lua');
  writeFileSync(
    script,
    `local body = ${JSON.stringify(body(7))}
local n = ${groups}
local tid = 0
setup = function(thread) tid = tid + 1; thread:set("tid", tid) end
init = function() math.randomseed(os.time() + (tid or 0) * 7919) end
request = function()
  return wrk.format("POST", "/metrics/job/bench/instance/i" .. math.random(0, n - 1), nil, body)
end
`,
  );
  const out = execFileSync(WRK, ['-t', '2', '-c', '32', '-d', `${secs}s`, '--timeout', '60s', '-s', script, url], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`wrk saw ${non2xx} failed pushes against ${url}:\n${out}`);
  return rps;
}

/** Median GET /metrics time in ms, measured by curl (a C client, so that the client's own cost stays small). */
async function scrapeMs(url: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(CURL, ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}', `${url}/metrics`], { encoding: 'utf8' });
    const [code, size, total] = out.trim().split(' ');
    if (code !== '200' || Number(size) === 0) throw new Error(`scrape of ${url} failed: ${out}`);
    times.push(Number(total) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** Resident memory of a process: soon after the load stops, and once its runtime has returned what it freed. */
interface Rss {
  /** Lowest sample 8-14 s after the load. */
  readonly early: number;
  /** Lowest sample within SETTLE seconds of the load. */
  readonly settled: number;
}

/**
 * Resident memory of a process once it is quiet. Both runtimes return memory after the load stops,
 * at moments of their own: V8's memory reducer ran about 105 s after a 100,000-group fill in a
 * `--trace-gc` run (`Mark-Compact (reduce)`, committed heap 592 → 466 MB, RSS 748 → 540 MiB, nothing
 * returned before), Go's scavenger returns pages gradually. So the process is sampled once a second
 * for SETTLE seconds (default 150, `--settle=N`); `early` is the lowest sample from 8 to 14 s (what
 * the bench printed before), `settled` the lowest of all: memory kept, not garbage not yet returned.
 */
async function quietRss(pid: number | undefined): Promise<Rss> {
  await sleep(8000);
  let early = Infinity;
  let settled = Infinity;
  for (let i = 8; i < SETTLE; i++) {
    const now = rssMiB(pid);
    if (i <= 14) early = Math.min(early, now);
    settled = Math.min(settled, now);
    await sleep(1000);
  }
  return { early, settled };
}

/** The store's live heap per series, from bench/pushgateway-heap-probe.ts in a child process (steadier than RSS). */
function probeHeapBytesPerSeries(): number {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'bench/pushgateway-heap-probe.ts'), '--openmetrics=no'], {
    cwd: root,
    encoding: 'utf8',
  });
  return Number(/heap bytes per added series:\s+(\d+)/.exec(out)?.[1] ?? NaN);
}

/**
 * CPU time of one POST in the store alone (parse excluded), at a given number of groups: the HTTP
 * measurement on a shared machine is noisy, this one shows whether push cost grows with the store.
 */
function storePushMicros(groups: number): number {
  const store = new InMemoryGroupStore();
  for (let i = 0; i < groups; i++) store.push({ grouping: [['instance', `i${i}`], ['job', 'bench']], families: parseText(body(i)), replace: true, nowMs: 1 });
  const bodies = Array.from({ length: 20_000 }, (_, i) => parseText(body(i)));
  const c0 = process.cpuUsage();
  for (let i = 0; i < bodies.length; i++) {
    store.push({ grouping: [['instance', `i${(i * 7919) % groups}`], ['job', 'bench']], families: bodies[i] as ReturnType<typeof parseText>, replace: false, nowMs: 2 });
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / bodies.length;
}

/** Portico's `serve` with only the push gateway listening, in one of the persistence modes. */
async function startPortico(dir: string, mode: 'none' | 'file' | string): Promise<Proc> {
  const port = await freePort();
  const persistence =
    mode === 'none'
      ? ['--persistence.file=off']
      : [`--persistence.file=${join(dir, `portico-${mode}.json`)}`, `--persistence.wal-sync-interval=${mode === 'file' ? 'off' : mode}`];
  return start(
    process.execPath,
    [
      join(root, 'dist/cli.js'),
      'serve',
      `--pushgateway.listen-address=127.0.0.1:${port}`,
      '--management.listen-address=off',
      '--search.listen-address=off',
      ...persistence,
      '--log.level=warn',
    ],
    `http://127.0.0.1:${port}`,
  );
}

interface ServerFigures {
  pushes: number;
  scrapeMs: number;
  scrapeMsLarge: number;
  rssSmall: Rss;
  rssLarge: Rss;
  pushesLarge: number;
}

/**
 * Portico alone on the machine: pushes and scrapes at SMALL groups, then filled to LARGE groups for
 * the scrape time and the memory per added series (both RSS readings from the same process).
 */
async function porticoRun(dir: string): Promise<ServerFigures> {
  const p = await startPortico(dir, 'none');
  try {
    console.log(`Portico: filling ${SMALL} groups × ${SERIES} series…`);
    await fill(p.url, 0, SMALL);
    const pushes = wrkPushes(p.url, SMALL, seconds);
    const scrapeMs_ = await scrapeMs(p.url, 21);
    const rssSmall = await quietRss(p.child.pid);
    console.log(`Portico: filling ${LARGE} groups…`, new Date().toISOString());
    await fill(p.url, SMALL, LARGE);
    const pushesLarge = wrkPushes(p.url, LARGE, Math.max(2, Math.round(seconds / 2)));
    const scrapeMsLarge = await scrapeMs(p.url, 5);
    const rssLarge = await quietRss(p.child.pid);
    return { pushes, scrapeMs: scrapeMs_, scrapeMsLarge, rssSmall, rssLarge, pushesLarge };
  } finally {
    await p.stop();
  }
}

/** Portico's push rate at SMALL groups with a persistence file, its write-ahead log synced every `mode` (or `file`: no log). */
async function porticoPersistentPushes(dir: string, mode: string): Promise<number> {
  const p = await startPortico(dir, mode);
  try {
    await fill(p.url, 0, SMALL);
    return wrkPushes(p.url, SMALL, seconds);
  } finally {
    await p.stop();
  }
}

/**
 * Pushgateway alone on the machine. Filling it takes O(n²) time with its consistency check on (each
 * push re-checks the whole store), so the push measurement's store is filled with the check off and
 * a persistence file, then Pushgateway is restarted from that file with the check on (its default).
 * The large store is filled by a Pushgateway with the check off and no file (no periodic write of
 * millions of series while it is measured); its two RSS readings come from that one process.
 */
async function pushgatewayRun(dir: string): Promise<ServerFigures> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const pgFile = join(dir, 'pg.data');
  const argv = (check: boolean, file: boolean) => [
    `--web.listen-address=127.0.0.1:${port}`,
    ...(file ? [`--persistence.file=${pgFile}`] : []),
    '--log.level=warn',
    ...(check ? [] : ['--push.disable-consistency-check']),
  ];
  console.log(`Pushgateway: filling ${SMALL} groups × ${SERIES} series…`);
  let pg = await start(PG_BIN, argv(false, true), url);
  await fill(url, 0, SMALL);
  await pg.stop();
  pg = await start(PG_BIN, argv(true, true), url);
  let pushes: number;
  let scrape: number;
  try {
    pushes = wrkPushes(url, SMALL, seconds);
    scrape = await scrapeMs(url, 7);
  } finally {
    await pg.stop();
  }
  pg = await start(PG_BIN, argv(false, false), url);
  try {
    await fill(url, 0, SMALL);
    const rssSmall = await quietRss(pg.child.pid);
    console.log(`Pushgateway: filling ${LARGE} groups…`, new Date().toISOString());
    await fill(url, SMALL, LARGE);
    const scrapeMsLarge = await scrapeMs(url, 3);
    const rssLarge = await quietRss(pg.child.pid);
    return { pushes, scrapeMs: scrape, scrapeMsLarge, rssSmall, rssLarge, pushesLarge: NaN };
  } finally {
    await pg.stop();
  }
}

async function main(): Promise<void> {
  if (!args.includes('--no-build')) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'pg-bench-'));
  const rows: [string, number, number][] = [];
  try {
    // One server at a time: each run starts its server, measures and stops it before the next.
    const p = await porticoRun(dir);
    const walOff = await porticoPersistentPushes(dir, 'file');
    const wal2ms = await porticoPersistentPushes(dir, '2ms');
    const onRedis = await redisStoreRun({ root, start, fill, wrkPushes, scrapeMs, freePort }, SMALL, seconds);
    const g = await pushgatewayRun(dir);

    rows.push([`pushes/s, ${SMALL} groups (higher is better)`, p.pushes, g.pushes]);
    rows.push([`  with a persistence file, no log (as Pushgateway's)`, walOff, g.pushes]);
    rows.push([`  with the file and its log synced every 2ms (default)`, wal2ms, g.pushes]);
    rows.push([`GET /metrics ms, ${SMALL} groups (lower is better)`, p.scrapeMs, g.scrapeMs]);
    rows.push([`scrapes/s, ${SMALL} groups (higher is better)`, 1000 / p.scrapeMs, 1000 / g.scrapeMs]);
    if (onRedis !== undefined) {
      rows.push([`Redis store pushes/s, ${SMALL} groups (higher is better)`, onRedis.pushes, g.pushes]);
      rows.push([`Redis store scrapes/s, ${SMALL} groups (higher is better)`, 1000 / onRedis.scrapeMs, 1000 / g.scrapeMs]);
    }
    rows.push([`Portico pushes/s, ${LARGE} groups (vs ${SMALL}: ×${(p.pushesLarge / p.pushes).toFixed(2)})`, p.pushesLarge, NaN]);
    rows.push([`GET /metrics ms, ${LARGE} groups (lower is better)`, p.scrapeMsLarge, g.scrapeMsLarge]);
    for (const when of ['early', 'settled'] as const) {
      const label = when === 'early' ? '8-14 s after the load' : `lowest within ${SETTLE} s`;
      rows.push([`RSS MiB, ${SMALL} groups, ${label}`, p.rssSmall[when], g.rssSmall[when]]);
      rows.push([`RSS MiB, ${LARGE} groups, ${label}`, p.rssLarge[when], g.rssLarge[when]]);
      const perSeries = (f: ServerFigures) => ((f.rssLarge[when] - f.rssSmall[when]) * 1024 * 1024) / ((LARGE - SMALL) * SERIES);
      rows.push([`RSS bytes per added series, ${label}`, perSeries(p), perSeries(g)]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  rows.push(['Portico store live heap bytes per series (heap probe)', probeHeapBytesPerSeries(), NaN]);
  const small = storePushMicros(SMALL);
  const large = storePushMicros(LARGE);
  rows.push([`Portico store CPU µs per push, ${SMALL} groups`, small, NaN]);
  rows.push([`Portico store CPU µs per push, ${LARGE} groups (vs ${SMALL}: ×${(large / small).toFixed(2)})`, large, NaN]);
  const fmt = (n: number) => (Number.isNaN(n) ? '-' : n >= 100 ? n.toFixed(0) : n.toFixed(2));
  console.log(`\n${'measure'.padEnd(58)} ${'Portico'.padStart(10)} ${'Pushgw'.padStart(10)} ${'Portico/Pushgw'.padStart(15)}`);
  for (const [name, pv, gv] of rows) {
    console.log(`${name.padEnd(58)} ${fmt(pv).padStart(10)} ${fmt(gv).padStart(10)} ${(Number.isNaN(gv) ? '-' : (pv / gv).toFixed(2)).padStart(15)}`);
  }
  console.log(
    `\nTargets (issue 20): at ${SMALL} groups pushes/s ratio ≥ 200 and scrapes/s ratio ≥ 10; with the Redis store ≥ 50 and ≥ 5; at ${LARGE} groups RSS per series ratio ≤ 0.5 (memory kept: the settled row).`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
