/**
 * npm run bench:mixed: fairness under mixed load (issue 23). One `portico serve` process, its three
 * listeners loaded at once, as in production:
 *   - search: `_search` queries at a fixed rate while one client re-indexes 20,000 Debian documents
 *     in bulks of 1,000, back to back (target: search p99 under 50 ms);
 *   - push gateway: pushes to 2,000 groups over 64 connections at a fixed rate, while a
 *     Prometheus-style scrape of all 2,000 groups runs every second (target: push p99 under 50 ms);
 *   - management API: 100-router pages of 10,000 routers over 64 connections at a fixed rate
 *     (target: page p99 under 10 ms).
 * The scenarios, one after the other on one server: search alone (the reference), search during the
 * re-index bulks, pushes during the scrapes, management pages, then all of it at once (no target:
 * what one process does when everything comes together); and search during the bulks again on a
 * server started with `--search.bulk-slice 0` (each bulk applied whole, as before slicing). Latency is taken from when a request was due, not when it was sent (an
 * open-loop load), so a server that falls behind is charged for the wait.
 *
 * Flags: --seconds=N per phase (default 10), --docs=N documents re-indexed (default 20000),
 * --slice=<duration> the first server's --search.bulk-slice (default 10ms, Portico's default),
 * --scenarios=a,b,… runs only those scenarios (see SCENARIOS; default all), in their usual order,
 * on a server loaded as usual.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startPortico, type RunningPortico } from '../test/support/portico-process.js';
import { corpusPath } from './search-workload.js';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const SECONDS = opt('seconds', 10);
const SLICE = args.find((a) => a.startsWith('--slice='))?.slice(8) ?? '10ms';
const DOCS = opt('docs', 20_000);
/** The scenarios in the order they run; `--scenarios` picks some. */
const SCENARIOS = ['search-alone', 'search-bulks', 'push', 'management', 'all', 'whole-bulks'] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const PICKED = args.find((a) => a.startsWith('--scenarios='))?.slice(12).split(',').filter((n) => n !== '');
for (const n of PICKED ?? []) {
  if (!(SCENARIOS as readonly string[]).includes(n)) throw new Error(`--scenarios: unknown "${n}" (known: ${SCENARIOS.join(', ')})`);
}
const runs = (n: ScenarioName): boolean => PICKED === undefined || PICKED.includes(n);
const GROUPS = 2_000;
const ROUTERS = 10_000;
// The Debian corpus in ../shared of the main checkout, or of a worktree's (one level deeper).
const CORPUS = corpusPath();

/** Rates of the open-loop streams (requests per second) and their connections. */
const STREAMS = {
  search: { rate: 40, connections: 4, target: 50 },
  push: { rate: 300, connections: 64, target: 50 },
  management: { rate: 300, connections: 64, target: 10 },
} as const;
type StreamName = keyof typeof STREAMS;

interface Target {
  readonly port: number;
  readonly method: string;
  path(i: number): string;
  body?(i: number): string;
}

function request(agent: http.Agent, t: Target, i: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = t.body?.(i);
    const req = http.request({ host: '127.0.0.1', port: t.port, method: t.method, path: t.path(i), agent, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `rate` requests per second for `seconds`, each timed from when it was due. */
async function openLoop(t: Target, rate: number, connections: number, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  while (sent < total) {
    const due = start + (sent * 1000) / rate;
    const now = performance.now();
    if (due > now) {
      await new Promise((r) => setTimeout(r, Math.max(1, due - now)));
      continue;
    }
    const i = sent++;
    pending.push(
      request(agent, t, i).then((status) => {
        if (status >= 300) throw new Error(`${t.method} ${t.path(i)}: ${status}`);
        latencies.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return latencies;
}

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

interface Server {
  readonly portico: RunningPortico;
  readonly dir: string;
  readonly bulks: Buffer[];
}

const lines = gunzipSync(readFileSync(CORPUS)).toString('utf8').split('\n').filter((l) => l !== '').slice(0, DOCS);
const WORDS = ['library', 'python', 'development files', 'documentation', 'perl module', 'server', 'gnome', 'kernel', 'font', 'data'];

function bulkBodies(): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < lines.length; i += 1000) {
    out.push(Buffer.from(lines.slice(i, i + 1000).map((l, j) => `{"index":{"_index":"deb","_id":"${i + j}"}}\n${l}\n`).join('')));
  }
  return out;
}

function managementSnapshot(): string {
  const routers: Record<string, unknown> = {};
  const services: Record<string, unknown> = {};
  for (let i = 0; i < ROUTERS; i++) {
    routers[`ns-${i % 50}-app-${i}`] = { rule: `Host(\`app-${i}.example.com\`)`, service: `ns-${i % 50}-app-${i}` };
    services[`ns-${i % 50}-app-${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.${(i >> 8) & 255}.${i & 255}:80` }] } };
  }
  return JSON.stringify({ configuration: { http: { routers, services } }, version: 'mixed-1' });
}

const pushBody = (i: number): string => Array.from({ length: 10 }, (_, s) => `mixed_metric{series="${s}"} ${i + s}`).join('\n') + '\n';

async function startServer(slice: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-mixed-'));
  const token = randomBytes(16).toString('hex');
  writeFileSync(join(dir, 'token'), token);
  const portico = await startPortico([
    '--data.dir', dir,
    '--search.listen-address', '127.0.0.1:0',
    '--pushgateway.listen-address', '127.0.0.1:0',
    '--management.listen-address', '127.0.0.1:0',
    '--internal.listen-address', '127.0.0.1:0',
    '--internal.token-file', join(dir, 'token'),
    '--search.bulk-slice', slice,
  ]);
  const bulks = bulkBodies();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  for (const b of bulks) {
    const s = await request(agent, { port: portico.ports.search as number, method: 'POST', path: () => '/_bulk', body: () => b.toString() }, 0);
    if (s !== 200) throw new Error(`bulk: ${s}`);
  }
  // The searches below see the index as of its last refresh: the initial load, refreshed.
  if ((await request(agent, { port: portico.ports.search as number, method: 'POST', path: () => '/_refresh', body: () => '' }, 0)) !== 200) throw new Error('refresh failed');
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    for (let g = w; g < GROUPS; g += 8) await request(agent, { port: portico.ports.pushgateway as number, method: 'PUT', path: () => `/metrics/job/mixed/group/${g}`, body: pushBody }, g);
  }));
  const res = await fetch(`http://127.0.0.1:${portico.ports.internal as number}/internal/v1/providers/bench`, { method: 'PUT', body: managementSnapshot(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`snapshot PUT: ${res.status} ${await res.text()}`);
  agent.destroy();
  return { portico, dir, bulks };
}

async function stopServer(s: Server): Promise<void> {
  await s.portico.stop();
  rmSync(s.dir, { recursive: true, force: true });
}

const targets = (s: Server): Record<StreamName, Target> => ({
  search: {
    port: s.portico.ports.search as number,
    method: 'POST',
    path: () => '/deb/_search',
    body: (i) => JSON.stringify({ query: { match: { description: WORDS[i % WORDS.length] } }, size: 10 }),
  },
  push: { port: s.portico.ports.pushgateway as number, method: 'PUT', path: (i) => `/metrics/job/mixed/group/${(i * 7) % GROUPS}`, body: pushBody },
  management: { port: s.portico.ports.management as number, method: 'GET', path: (i) => `/api/http/routers?page=${(i % 50) + 1}&per_page=100` },
});

/** Re-indexes the corpus in bulks of 1,000, back to back, until `stop`; documents per second. */
async function reindex(s: Server, stop: { done: boolean }): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t = { port: s.portico.ports.search as number, method: 'POST', path: () => '/_bulk' };
  const started = performance.now();
  let docs = 0;
  for (let i = 0; !stop.done; i = (i + 1) % s.bulks.length) {
    const b = s.bulks[i] as Buffer;
    if ((await request(agent, { ...t, body: () => b.toString() }, i)) !== 200) throw new Error('bulk failed');
    docs += 1000;
  }
  agent.destroy();
  return (docs * 1000) / (performance.now() - started);
}

/** Prometheus-style scrapes of every group, one per second, until `stop`; their durations. */
async function scrapes(s: Server, stop: { done: boolean }): Promise<number[]> {
  const out: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (!stop.done) {
    const t0 = performance.now();
    await request(agent, { port: s.portico.ports.pushgateway as number, method: 'GET', path: () => '/metrics' }, 0);
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - t0))));
  }
  agent.destroy();
  return out;
}

interface Figures {
  readonly p50: number;
  readonly p99: number;
}

const figures = (l: readonly number[]): Figures => ({ p50: percentile(l, 50), p99: percentile(l, 99) });

/** One stream alone, with its companion load (re-index bulks for search, scrapes for push) if asked. */
async function scenario(s: Server, name: StreamName, companion: boolean): Promise<{ latency: Figures; bulkDocsPerSecond?: number; scrapeP50?: number }> {
  const stop = { done: false };
  const bulk = companion && name === 'search' ? reindex(s, stop) : undefined;
  const scraping = companion && name === 'push' ? scrapes(s, stop) : undefined;
  if (bulk !== undefined) await new Promise((r) => setTimeout(r, 500));
  const l = await openLoop(targets(s)[name], STREAMS[name].rate, STREAMS[name].connections, SECONDS);
  stop.done = true;
  return { latency: figures(l), ...(bulk !== undefined && { bulkDocsPerSecond: await bulk }), ...(scraping !== undefined && { scrapeP50: percentile(await scraping, 50) }) };
}

/** Everything at once: the three streams, the re-index bulks and the scrapes. */
async function allAtOnce(s: Server): Promise<Record<StreamName, Figures> & { bulkDocsPerSecond: number }> {
  const t = targets(s);
  const stop = { done: false };
  const bulk = reindex(s, stop);
  const scraping = scrapes(s, stop);
  await new Promise((r) => setTimeout(r, 500));
  const names = Object.keys(STREAMS) as StreamName[];
  const results = await Promise.all(names.map((n) => openLoop(t[n], STREAMS[n].rate, STREAMS[n].connections, SECONDS)));
  stop.done = true;
  const [bulkDocsPerSecond] = await Promise.all([bulk, scraping]);
  return { search: figures(results[0] as number[]), push: figures(results[1] as number[]), management: figures(results[2] as number[]), bulkDocsPerSecond };
}

async function main(): Promise<void> {
  const load = loadavg()[0] ?? 0;
  process.stdout.write(`mixed load: ${DOCS} documents re-indexed in bulks of 1,000, ${GROUPS} push groups of 10 series scraped every second, ${ROUTERS} routers; ${SECONDS} s per phase; load average ${load.toFixed(1)} at start\n`);
  const f = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(1));
  const rows = ['| scenario | stream (rate/s, connections) | p50 / p99 (ms) | target p99 | ratio |', '|---|---|---|---|---|'];
  const row = (what: string, n: StreamName, x: Figures, target?: number): void => {
    rows.push(`| ${what} | ${n} (${STREAMS[n].rate}, ${STREAMS[n].connections}) | ${f(x.p50)} / ${f(x.p99)} | ${target ?? '-'} | ${target === undefined ? '-' : (x.p99 / target).toFixed(2)} |`);
  };
  if (SCENARIOS.slice(0, 5).some(runs)) {
    const server = await startServer(SLICE);
    try {
      if (runs('search-alone')) row('search alone (the reference)', 'search', (await scenario(server, 'search', false)).latency);
      if (runs('search-bulks')) {
        const sliced = await scenario(server, 'search', true);
        row(`search during re-index bulks, ${SLICE} slices (${f(sliced.bulkDocsPerSecond)} docs/s indexed)`, 'search', sliced.latency, STREAMS.search.target);
      }
      if (runs('push')) {
        const push = await scenario(server, 'push', true);
        row(`pushes during scrapes every second (scrape p50 ${f(push.scrapeP50)} ms)`, 'push', push.latency, STREAMS.push.target);
      }
      if (runs('management')) row('management pages', 'management', (await scenario(server, 'management', false)).latency, STREAMS.management.target);
      if (runs('all')) {
        const all = await allAtOnce(server);
        for (const n of Object.keys(STREAMS) as StreamName[]) row(`all at once (${f(all.bulkDocsPerSecond)} docs/s indexed)`, n, all[n]);
      }
    } finally {
      await stopServer(server);
    }
  }
  if (runs('whole-bulks')) {
    const before = await startServer('0');
    let whole: Awaited<ReturnType<typeof scenario>>;
    try {
      whole = await scenario(before, 'search', true);
    } finally {
      await stopServer(before);
    }
    row(`search during re-index bulks, whole bulks (--search.bulk-slice 0; ${f(whole.bulkDocsPerSecond)} docs/s indexed)`, 'search', whole.latency, STREAMS.search.target);
  }
  process.stdout.write(`${rows.join('\n')}\n(ratio: p99 over its target; below 1 meets it; load average ${loadavg()[0]?.toFixed(1)} at the end)\n`);
}

await main();
