/**
 * Search benchmark (not a test): `npm run build && npm run bench:search [-- --copies 16 --rounds 10 --warmup-rounds 50]`.
 *
 * Starts the built Portico (`dist/cli.js serve`, other listeners off, temporary data dir), loads
 * the Debian packages corpus (63,666 documents; `--corpus FILE`, see bench/README.md) through `_bulk` over HTTP (5,000 documents a request,
 * one at a time; the client builds the next body while the server indexes the current one),
 * then runs 20 fixed `match` queries on `description` (1 to 3 words each, see QUERIES) at from = 0,
 * 100, 1000 and 9990 with size 10 over HTTP and prints median and p95 latency per depth, the bulk
 * indexing rate and the server's memory (RSS after loading, after querying, and its peak).
 * BENCH_SERVER_NODE_ARGS passes Node flags to the server process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 *
 * The same queries run in-process on Xapian (bench/xapian-reference.py, BM25, on-disk database with
 * a warm page cache) and SQLite FTS5 (bench/fts5-reference.ts: better-sqlite3, bm25(), in memory) as
 * references, each in a process of its own that times its queries itself. To be fair,
 * every engine does the work of one `_search` with default settings: find the page, count the
 * total exactly up to 10,000 (ES's default track_total_hits; Xapian needs check_at_least for that,
 * FTS5 a count over the matches), fetch each hit's stored document and render ES's response JSON
 * with `_source` spliced in verbatim. Portico also pays the HTTP round trip the references do not:
 * its floor (GET / over the same connection) is printed with the client's and the server's CPU time
 * per request, so that the share of HTTP is visible. The client is undici's Client on one
 * keep-alive connection, driven through `dispatch` (node:http's client measured up to twice the CPU
 * per request of undici's `request` here, fetch three times; `dispatch` about 100 µs less than
 * `request`), and the client's process holds nothing else once the corpus is loaded. Total hits of the three engines are compared as a check that they answer the same
 * queries (analyzers differ slightly, so a few totals may too). After indexing, the engines' query
 * rounds are interleaved (Portico, Xapian, FTS5, depth by depth, round by round) so that a burst of
 * load on a shared machine weighs on all of them instead of whichever ran at that moment.
 *
 * Targets: Portico/Xapian ≤ 1.5× for median and p95 at every depth, ≥ 20,000 docs/s bulk indexing,
 * the same at 16 copies of the corpus (`--copies 16 --rounds 5`: 1M documents; Portico's RSS peaked at
 * 1.8 GiB and FTS5's process about 1.7 GiB; about 10 minutes on this busy
 * 2-core machine, half of it loading Portico over `_bulk`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'undici';
import { corpusPath, DEPTHS, flag, opt, QUERIES, readCorpus, ROOT, threadsCpuUs } from './search-workload.js';
import { startSearchServer } from './search-server.js';

const corpus = corpusPath();
const copies = Number(opt('copies', '1'));
// 10 rounds of 20 queries: 200 samples per depth, so that p95 is not just the 5th worst of 100.
const rounds = Number(opt('rounds', '10'));
const batch = Number(opt('batch', '5000'));
/** Only Portico (e.g. a quick --copies 16 memory run on a shared machine). */
const skipReferences = flag('skip-references');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? NaN;
}
function median(sorted: number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[m] as number) : ((sorted[m - 1] as number) + (sorted[m] as number)) / 2;
}

/**
 * One keep-alive connection; requests are sent one at a time, as the references run queries.
 * Requests go through undici's `dispatch` with a handler that only collects the response's
 * chunks: `Client.request` wraps every response body in a Readable stream and `.text()` reads it
 * through a consumer, which cost this client about 100 µs of CPU per request more on this machine
 * (measured side by side on one connection), all of it inside the timed round trip.
 */
function httpClient(port: number): { request: (method: 'GET' | 'POST' | 'PUT', path: string, body?: string, ct?: string) => Promise<{ status: number; text: string }>; close: () => Promise<void> } {
  // Idle connections are dropped after 4 s and a new one is made: while the references index
  // 1M documents (minutes) the server closes the idle keep-alive connection, and a request sent on
  // it then failed with "other side closed".
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });
  return {
    request: (method, path, body, ct = 'application/json') =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let status = 0;
        client.dispatch(
          { method, path, body, headers: body === undefined ? {} : { 'content-type': ct } },
          {
            // undici takes a handler of this (non-deprecated) kind when it has onRequestStart.
            onRequestStart: () => undefined,
            onResponseStart: (_controller, statusCode) => {
              status = statusCode;
            },
            onResponseData: (_controller, chunk) => {
              chunks.push(chunk);
            },
            onResponseEnd: () => resolve({ status, text: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString() }),
            onResponseError: (_controller, error) => reject(error),
          },
        );
      }),
    close: () => client.close(),
  };
}

/** Extra Node flags for the server process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), from BENCH_SERVER_NODE_ARGS. */
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

function startPortico(dataDir: string): ReturnType<typeof startSearchServer> {
  return startSearchServer(dataDir, serverNodeArgs);
}

/** CPU milliseconds a process has used, all threads. */
function cpuMs(pid: number): number {
  return threadsCpuUs(pid) / 1000;
}

/** Current and peak resident set of a process, MiB. */
function memMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Waits until the server and this process each use under 5 % of a core over 200 ms (at most 20 s)
 * and returns the seconds waited.
 */
async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < 20_000) {
    const s0 = cpuMs(pid);
    const c0 = ownCpuUs();
    await new Promise<void>((res) => setTimeout(res, 200));
    if (cpuMs(pid) - s0 < 10 && (ownCpuUs() - c0) / 1000 < 10) break;
  }
  return (performance.now() - t0) / 1000;
}

/** This process's CPU microseconds (the client's share of a round trip). */
function ownCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

interface DepthStats {
  median_ms: number;
  p95_ms: number;
}

const stats = (samples: number[]): DepthStats => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median_ms: median(sorted), p95_ms: percentile(sorted, 0.95) };
};

/** An engine answering the query set: one round = every query once at one depth, ms per query. */
interface Engine {
  readonly totals: number[];
  round(from: number): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * A reference engine in a process of its own, indexed and then driven one round at a time over
 * stdin/stdout (the protocol of bench/xapian-reference.py and bench/fts5-reference.ts): it times
 * its queries itself, in-process, and nothing of it runs inside the client's process.
 */
async function startReference(command: string, args: string[], missing: string): Promise<Engine & { rate: number }> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: ROOT });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const r = await lines.next();
    if (r.done === true) throw new Error(`${missing}: ${stderr}`);
    return JSON.parse(r.value) as unknown;
  };
  const ready = (await next()) as { index_docs_per_s: number; totals: number[] };
  return {
    rate: ready.index_docs_per_s,
    totals: ready.totals,
    async round(from) {
      child.stdin.write(`${JSON.stringify({ from })}\n`);
      return ((await next()) as { samples: number[] }).samples;
    },
    close: () => {
      child.stdin.end();
      return exited;
    },
  };
}

/** Xapian in /usr/bin/python3 (BM25, on-disk database with a warm page cache). */
const startXapian = () =>
  startReference('/usr/bin/python3', [join(ROOT, 'bench', 'xapian-reference.py'), corpus, String(copies), JSON.stringify(QUERIES), JSON.stringify(DEPTHS)], 'xapian reference failed (Debian package python3-xapian needed)');

/** SQLite FTS5 in a Node process of its own (better-sqlite3, bm25(), in memory). */
const startFts5 = () =>
  startReference(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'fts5-reference.ts'), '--corpus', corpus, '--copies', String(copies)], 'FTS5 reference failed');

async function main(): Promise<void> {
  const lines = readCorpus(corpus);
  const total = lines.length * copies;
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const server = await startPortico(dataDir);
  const http = httpClient(server.port);
  const references: Engine[] = [];
  try {
    await http.request('PUT', '/packages', JSON.stringify({ settings: { number_of_replicas: 0 } }));
    const t0 = performance.now();
    const cpu0 = cpuMs(server.pid);
    let id = 0;
    let lap = { t: t0, cpu: cpu0 };
    for (let c = 0; c < copies; c++) {
      // As a loader does, the next request's body is built while the server works on the current
      // one (one request in flight at a time): the client's own serialization is not server time.
      // It is built in slices with a turn of the event loop between them: a 3.5 MB body does not
      // fit the socket's buffer, and the rest of the current body is only written on those turns
      // (built in one go, the server sat idle for the rest of its request meanwhile).
      const bodyAt = async (i: number): Promise<string> => {
        let body = '';
        const end = Math.min(i + batch, lines.length);
        for (let k = i; k < end; k++) {
          body += `{"index":{"_id":"${id++}"}}\n${lines[k] as string}\n`;
          if ((k - i) % 250 === 249) await new Promise<void>((res) => setImmediate(res));
        }
        return body;
      };
      let body = await bodyAt(0);
      for (let i = 0; i < lines.length; i += batch) {
        const sent = http.request('POST', '/packages/_bulk', body, 'application/x-ndjson');
        const next = i + batch < lines.length ? await bodyAt(i + batch) : '';
        const r = await sent;
        if (r.status !== 200 || r.text.startsWith('{"errors":true')) throw new Error(`bulk failed: ${r.text.slice(0, 300)}`);
        body = next;
      }
      if (copies > 1) {
        // How the rate holds up as the index grows (copy by copy).
        const now = { t: performance.now(), cpu: cpuMs(server.pid) };
        const mem = memMiB(server.pid);
        console.log(
          `  copy ${c + 1}: ${Math.round(lines.length / ((now.t - lap.t) / 1000))} docs/s wall, ${Math.round(lines.length / ((now.cpu - lap.cpu) / 1000))} docs per server CPU-second, ` +
            `server RSS ${mem.rss.toFixed(0)} MiB, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
        );
        lap = now;
      }
    }
    const bulkSeconds = (performance.now() - t0) / 1000;
    // The client needs the corpus no more: its heap holds only the HTTP client while it times.
    lines.length = 0;
    const rate = total / bulkSeconds;
    // On a shared machine wall time depends on everyone else; server CPU time much less.
    const ratePerCpu = total / ((cpuMs(server.pid) - cpu0) / 1000);
    const memAfterLoad = memMiB(server.pid);
    // Searches see the index as of its last refresh (as in ES): everything loaded, refreshed once.
    const refreshed = await http.request('POST', '/packages/_refresh', '', 'application/json');
    if (refreshed.status !== 200) throw new Error(`refresh failed: ${refreshed.text.slice(0, 300)}`);
    // Loading leaves work behind on both sides (the server's writer and garbage collector, this
    // process's collection of the corpus it just dropped): timed before it ends, the floor read up
    // to 400 µs of server CPU per GET / that was not the request's. Timing starts once both are idle.
    const settled = await settle(server.pid);

    // CPU of server and client over the measured requests only, read around each batch (reading
    // /proc per request would add its own cost between requests).
    let serverCpuMs = 0;
    let clientCpuUs = 0;
    const timedBatch = async (n: number, one: (i: number) => Promise<unknown>): Promise<number[]> => {
      const ms: number[] = [];
      const s0 = cpuMs(server.pid);
      const c0 = ownCpuUs();
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await one(i);
        ms.push(performance.now() - s);
      }
      clientCpuUs += ownCpuUs() - c0;
      serverCpuMs += cpuMs(server.pid) - s0;
      return ms;
    };
    const info = async () => {
      const r = await http.request('GET', '/');
      if (r.status !== 200) throw new Error(`GET / failed: ${r.text.slice(0, 300)}`);
    };
    const search = async (q: string, from: number): Promise<string> => {
      const r = await http.request('POST', `/packages/_search?from=${from}&size=10`, JSON.stringify({ query: { match: { description: q } } }));
      if (r.status !== 200) throw new Error(`search failed: ${r.text.slice(0, 300)}`);
      return r.text;
    };
    const porticoTotals: number[] = [];
    for (const q of QUERIES) porticoTotals.push((JSON.parse(await search(q, 0)) as { hits: { total: { value: number } } }).hits.total.value);
    // Warm up (JIT, scratch buffers) on every depth before measuring, as the references do. Both
    // processes are V8: their optimizing compiler keeps recompiling the request path for thousands of
    // requests (on V8's background threads, which share the two cores with everything else). Measured
    // in windows of 400 requests on this machine, the median at from 9,990 went from 0.93 ms in the
    // first window to 0.33–0.43 ms from the seventh on, the server's CPU per request from 2.8 ms to
    // 0.5–0.6 ms and the client's from 990 to 115–150 µs. Two rounds, as before, timed the
    // compiler. 50 rounds are 4,000 requests: a server's steady state, which is what its users see.
    const warmupRounds = Number(opt('warmup-rounds', '50'));
    for (let r = 0; r < warmupRounds; r++) for (const from of DEPTHS) for (const q of QUERIES) await search(q, from);
    for (let i = 0; i < 2_000; i++) await info();
    const floorSamples = await timedBatch(500, info);
    const floor = { stats: stats(floorSamples), serverCpuUs: (serverCpuMs * 1000) / 500, clientCpuUs: clientCpuUs / 500 };
    // The figures printed for _search cover the timed queries only.
    serverCpuMs = 0;
    clientCpuUs = 0;
    const portico: Engine = {
      totals: porticoTotals,
      round: (from) => timedBatch(QUERIES.length, (i) => search(QUERIES[i] as string, from)),
      close: () => Promise.resolve(),
    };

    let xapian: (Engine & { rate: number }) | undefined;
    let fts: (Engine & { rate: number }) | undefined;
    if (!skipReferences) {
      xapian = await startXapian();
      references.push(xapian);
      fts = await startFts5();
      references.push(fts);
    }
    // Rounds are interleaved, engine by engine and depth by depth, so that a burst of load on a
    // shared machine falls on every engine rather than on whichever ran at that moment.
    const engines = [portico, xapian, fts].filter((e) => e !== undefined);
    const samples = engines.map(() => new Map<number, number[]>(DEPTHS.map((d) => [d, []])));
    serverCpuMs = 0;
    clientCpuUs = 0;
    for (let r = 0; r < rounds; r++) {
      for (const from of DEPTHS) {
        for (const [i, e] of engines.entries()) samples[i]?.get(from)?.push(...(await e.round(from)));
      }
    }
    const perRequest = rounds * DEPTHS.length * QUERIES.length;
    const memAfterQueries = memMiB(server.pid);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const depthStats = (i: number, from: number) => stats(samples[i]?.get(from) ?? []);

    const fmt = (n: number) => n.toFixed(2).padStart(8);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`.padStart(7);
    console.log(`\nSearch benchmark: ${total} documents (${copies} × corpus), ${QUERIES.length} match queries × ${rounds} rounds per depth, size 10; load average ${load}`);
    console.log(`Portico bulk indexing over HTTP: ${Math.round(rate)} docs/s wall (${bulkSeconds.toFixed(1)} s; target ≥ 20000: ${rate >= 20_000 ? 'met' : 'NOT met'}), ${Math.round(ratePerCpu)} docs per server CPU-second`);
    console.log(`Portico RSS: ${memAfterLoad.rss.toFixed(0)} MiB after load, ${memAfterQueries.rss.toFixed(0)} MiB after queries, peak ${memAfterQueries.peak.toFixed(0)} MiB`);
    console.log(
      `HTTP floor (GET / on the same connection, timed once server and client were idle, ${settled.toFixed(1)} s after loading): ` +
        `median ${floor.stats.median_ms.toFixed(2)} ms, p95 ${floor.stats.p95_ms.toFixed(2)} ms; ` +
        `CPU per request: server ${floor.serverCpuUs.toFixed(0)} µs, client ${floor.clientCpuUs.toFixed(0)} µs`,
    );
    console.log(`Portico _search CPU per request (all depths): server ${((serverCpuMs * 1000) / perRequest).toFixed(0)} µs, client ${(clientCpuUs / perRequest).toFixed(0)} µs`);
    if (xapian === undefined || fts === undefined) {
      console.log('\n  from | Portico med   p95');
      for (const from of DEPTHS) console.log(`${String(from).padStart(6)} | ${fmt(depthStats(0, from).median_ms)} ${fmt(depthStats(0, from).p95_ms)}`);
      return;
    }
    // Totals are capped at 10,000 like ES's; the analyzers differ a little (Xapian's TermGenerator,
    // FTS5's unicode61 and the standard analyzer split some words differently).
    const compareTotals = (other: number[]) => {
      let same = 0;
      let worst = { diff: 0, q: '' };
      QUERIES.forEach((q, i) => {
        const a = porticoTotals[i] as number;
        const b = other[i] as number;
        if (a === b) same++;
        const diff = Math.abs(a - b) / Math.max(1, a);
        if (diff > worst.diff) worst = { diff, q: `"${q}" ${a} vs ${b}` };
      });
      return `${same}/${QUERIES.length} equal${worst.q === '' ? '' : `, largest difference ${(worst.diff * 100).toFixed(1)} % (${worst.q})`}`;
    };
    console.log(`references in-process: Xapian indexing ${Math.round(xapian.rate)} docs/s (first copy), FTS5 ${Math.round(fts.rate)} docs/s`);
    console.log(`hits.total (capped at 10,000) against Portico's: Xapian ${compareTotals(xapian.totals)}; FTS5 ${compareTotals(fts.totals)}`);
    console.log('\n  from | Portico med   p95 | Xapian med   p95 | FTS5 med     p95 | vs Xapian med  p95 | vs FTS5 med  p95 | ≤ 1.5× Xapian');
    let met = 0;
    for (const from of DEPTHS) {
      const p = depthStats(0, from);
      const x = depthStats(1, from);
      const f = depthStats(2, from);
      const ok = p.median_ms <= 1.5 * x.median_ms && p.p95_ms <= 1.5 * x.p95_ms;
      if (ok) met++;
      console.log(
        `${String(from).padStart(6)} | ${fmt(p.median_ms)} ${fmt(p.p95_ms)} | ${fmt(x.median_ms)} ${fmt(x.p95_ms)} | ${fmt(f.median_ms)} ${fmt(f.p95_ms)} | ` +
          `${ratio(p.median_ms, x.median_ms)} ${ratio(p.p95_ms, x.p95_ms)} | ${ratio(p.median_ms, f.median_ms)} ${ratio(p.p95_ms, f.p95_ms)} | ${ok ? 'met' : 'NOT met'}`,
      );
    }
    console.log(`\nlatencies in ms; Portico over HTTP (keep-alive), references in-process; latency target met at ${met} of ${DEPTHS.length} depths, bulk target ${rate >= 20_000 ? 'met' : 'NOT met'}`);
  } finally {
    for (const r of references) await r.close().catch(() => undefined);
    await http.close().catch(() => undefined);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
