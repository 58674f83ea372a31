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
 * Then, once Portico has stopped, the same run on the OpenSearch node of the differential tests
 * (test/search/opensearch-node.ts: OpenSearch 2.19 with C2 and G1, heap `--opensearch-heap`, 1g by
 * default, see openSearchHeap): the same index settings (one shard, no replica) and dynamic mappings
 * (compared), the same `_bulk` bodies with the same ids through the same client, one request in
 * flight, a refresh and a force merge to one segment (timed apart from the bulk rate), the same
 * check pass, warm-up, HTTP floor and query rounds, and the JVM's RSS from /proc. Every page's
 * total, ids and scores are compared between the two servers. After the queries each server loads
 * the corpus again into a second index (`--skip-second-load` leaves it out): a fresh JVM's first
 * load is much of it HotSpot compiling, so the bulk rate is printed for both loads.
 * `--skip-opensearch` leaves the node out.
 * Targets of issue 21 against the node: Portico's median and p95 at most a third of OpenSearch's at
 * every depth, bulk at least 1.5× its documents per second, RSS at most a quarter of its.
 *
 * The same queries run in-process on Xapian (bench/xapian-reference.py, BM25, on-disk database with
 * a warm page cache) and SQLite FTS5 (bench/fts5-reference.ts: better-sqlite3, bm25(), in memory) as
 * references, each in a process of its own that times its queries itself. To be fair,
 * every engine does the work of one `_search` with default settings: find the page, count the
 * total exactly up to 10,000 (ES's default track_total_hits; Xapian needs check_at_least for that,
 * FTS5 a count over the matches), fetch each hit's stored document and render ES's response JSON
 * with `_source` spliced in verbatim. The servers also pay the HTTP round trip the references do not:
 * each one's floor (GET / over the same connection) is printed with the client's and the server's CPU time
 * per request, so that the share of HTTP is visible. The client is undici's Client on one
 * keep-alive connection, driven through `dispatch` (node:http's client measured up to twice the CPU
 * per request of undici's `request` here, fetch three times; `dispatch` about 100 µs less than
 * `request`), and the client's process holds nothing else once the corpus is loaded. Total hits of the three engines are compared as a check that they answer the same
 * queries (analyzers differ slightly, so a few totals may too). After indexing, each server's query
 * rounds are interleaved with the references' (server, Xapian, FTS5, depth by depth, round by round) so that a burst of
 * load on a shared machine weighs on all of them instead of whichever ran at that moment; Xapian's
 * medians beside each server show how much the machine's load moved between the two servers' runs.
 * `--skip-references` leaves Xapian and FTS5 out.
 *
 * Targets: Portico/Xapian ≤ 1.5× for median and p95 at every depth, ≥ 20,000 docs/s bulk indexing,
 * the same at 16 copies of the corpus (`--copies 16 --rounds 5 --skip-opensearch`: 1M documents; Portico's RSS peaked at
 * 1.8 GiB and FTS5's process about 1.7 GiB; about 10 minutes on this busy
 * 2-core machine, half of it loading Portico over `_bulk`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'undici';
import { launchOpenSearch } from '../test/search/opensearch-node.js';
import { corpusPath, DEPTHS, flag, opt, QUERIES, readCorpus, ROOT, threadsCpuUs } from './search-workload.js';
import { startSearchServer } from './search-server.js';

const corpus = corpusPath();
const copies = Number(opt('copies', '1'));
// 10 rounds of 20 queries: 200 samples per depth, so that p95 is not just the 5th worst of 100.
const rounds = Number(opt('rounds', '10'));
const batch = Number(opt('batch', '5000'));
/** Only Portico (e.g. a quick --copies 16 memory run on a shared machine). */
const skipReferences = flag('skip-references');
/** Portico alone, without the OpenSearch node (e.g. where Java is not installed). */
const skipOpenSearch = flag('skip-opensearch');
/** No second load of the corpus after the queries (see ServerRun.bulkAgain). */
const skipSecondLoad = flag('skip-second-load');
/**
 * The node's JVM heap, -Xms and -Xmx (`--opensearch-heap`, default 1g). OpenSearch's install docs
 * ("Important settings") say of OPENSEARCH_JAVA_OPTS "we recommend half of system RAM", and the
 * jvm.options its distribution ships sets 1 GiB (-Xms1g -Xmx1g). Half of RAM is a ceiling that
 * leaves the other half to the file-system cache, not a size an index needs: this machine's half
 * would be 12 GiB for a corpus of 44 MB, and G1 sizes its young generation from the heap, so the
 * process would touch (and keep resident) gigabytes it does not need, which would make Portico's
 * memory ratio look better than it is. The default 1 GiB is the docs' own size for a small node, it
 * is what the differential tests and search-fuzzy-bench.ts run with, and the node's statistics
 * printed after the queries (heap in use, collections) show whether it was short of heap.
 */
const openSearchHeap = opt('opensearch-heap', '1g');

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
interface HttpClient {
  request: (method: 'GET' | 'POST' | 'PUT', path: string, body?: string, ct?: string) => Promise<{ status: number; text: string }>;
  close: () => Promise<void>;
}
function httpClient(url: string): HttpClient {
  // Idle connections are dropped after 4 s and a new one is made: while the references index
  // 1M documents (minutes) the server closes the idle keep-alive connection, and a request sent on
  // it then failed with "other side closed".
  const client = new Client(url, { pipelining: 1, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });
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

/**
 * CPU milliseconds a process has used, including threads that have ended (utime + stime of
 * /proc/<pid>/stat, in clock ticks of 10 ms: for spans of seconds, such as loading the corpus).
 */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on: utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
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

/** A server under test: Portico or the OpenSearch node, both spoken to over HTTP by the same client. */
interface Server {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
}

/** One `from` depth's answer of a query, as both servers must give it: the total and the page's ids. */
interface Page {
  readonly total: number;
  readonly relation: string;
  readonly ids: string[];
  /** Not compared, printed with a disagreement. */
  readonly scores: number[];
}

/** What one server's run measured. */
interface ServerRun {
  readonly name: string;
  /** Documents loaded into each index. */
  readonly docs: number;
  /** The corpus loaded into the fresh server: the index that is then queried. */
  readonly bulk: { seconds: number; cpuSeconds: number };
  /**
   * The same load again into a second index, after the queries and memory readings (so that it
   * changes neither): the rate of a server whose JIT has seen the work, without `--skip-second-load`.
   */
  readonly bulkAgain: { seconds: number; cpuSeconds: number } | undefined;
  /** Refresh (and, for the node, force merge) after loading, seconds. */
  readonly prepareSeconds: number;
  readonly memAfterLoad: { rss: number; peak: number };
  readonly memAfterQueries: { rss: number; peak: number };
  readonly settled: number;
  readonly floor: { stats: DepthStats; serverCpuUs: number; clientCpuUs: number };
  /** Server and client CPU per timed `_search`, µs. */
  readonly searchCpu: { serverUs: number; clientUs: number };
  /** The server's CPU while the references ran their rounds, ms per second (undefined without references). */
  readonly idleCpuMsPerS: number | undefined;
  /** hits.total of every query at from 0 (for the references' check). */
  readonly totals: number[];
  /** `pages[depth index][query index]`, read once before warming up. */
  readonly pages: Page[][];
  /** Timed samples per depth: this server's, then each reference's rounds interleaved with them. */
  readonly samples: Map<number, number[]>[];
  readonly load: string;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/**
 * Loads the corpus into `server` over `_bulk`, refreshes it (and runs `prepare`, the node's force
 * merge), checks its answers, warms it up, times its HTTP floor and then the query rounds, interleaved
 * with those of the references `references()` gives (started on first call, kept for the next server).
 */
async function runServer(server: Server, corpusLines: () => string[], prepare: (http: HttpClient) => Promise<void>, references: () => Promise<Engine[]>): Promise<ServerRun> {
  const http = httpClient(server.url);
  let lines = corpusLines();
  try {
    // The same index on both servers: one shard (Portico has one; BM25 statistics are per shard), no
    // replica, dynamic mappings from the same documents (checked equal by the caller).
    const created = await http.request('PUT', '/packages', JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
    if (created.status !== 200) throw new Error(`${server.name}: create index failed: ${created.text.slice(0, 300)}`);
    const total = lines.length * copies;
    const first = await bulkLoad(server, http, 'packages', lines);
    // The client needs the corpus no more: its heap holds only the HTTP client while it times.
    lines = [];
    const memAfterLoad = memMiB(server.pid);
    // Searches see the index as of its last refresh (as in ES): everything loaded, refreshed once.
    const p0 = performance.now();
    const refreshed = await http.request('POST', '/packages/_refresh', '', 'application/json');
    if (refreshed.status !== 200) throw new Error(`${server.name}: refresh failed: ${refreshed.text.slice(0, 300)}`);
    await prepare(http);
    const prepareSeconds = (performance.now() - p0) / 1000;
    // Loading leaves work behind on both sides (the server's writer and garbage collector, this
    // process's collection of the request bodies): timed before it ends, Portico's floor read up
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
      if (r.status !== 200) throw new Error(`${server.name}: GET / failed: ${r.text.slice(0, 300)}`);
    };
    const search = async (q: string, from: number): Promise<string> => {
      const r = await http.request('POST', `/packages/_search?from=${from}&size=10`, JSON.stringify({ query: { match: { description: q } } }));
      if (r.status !== 200) throw new Error(`${server.name}: search failed: ${r.text.slice(0, 300)}`);
      return r.text;
    };
    // Every query's answer at every depth, read once: the servers are compared on these.
    const pages: Page[][] = [];
    for (const from of DEPTHS) {
      const atDepth: Page[] = [];
      for (const q of QUERIES) {
        const parsed = JSON.parse(await search(q, from)) as { hits: { total: { value: number; relation: string }; hits: { _id: string; _score: number }[] } };
        atDepth.push({ total: parsed.hits.total.value, relation: parsed.hits.total.relation, ids: parsed.hits.hits.map((h) => h._id), scores: parsed.hits.hits.map((h) => h._score) });
      }
      pages.push(atDepth);
    }
    // Warm up (JIT, scratch buffers) on every depth before measuring, as the references do. Both
    // servers run on a JIT (V8, HotSpot's C2): V8's optimizing compiler keeps recompiling the request
    // path for thousands of requests (on V8's background threads, which share the two cores with
    // everything else). Measured in windows of 400 requests on this machine, Portico's median at from
    // 9,990 went from 0.93 ms in the first window to 0.33–0.43 ms from the seventh on, the server's
    // CPU per request from 2.8 ms to 0.5–0.6 ms and the client's from 990 to 115–150 µs. Two rounds,
    // as before, timed the compiler. 50 rounds are 4,000 requests: a server's steady state, which is
    // what its users see. The node gets the same rounds.
    const warmupRounds = Number(opt('warmup-rounds', '50'));
    for (let r = 0; r < warmupRounds; r++) for (const from of DEPTHS) for (const q of QUERIES) await search(q, from);
    for (let i = 0; i < 2_000; i++) await info();
    const floorSamples = await timedBatch(500, info);
    const floor = { stats: stats(floorSamples), serverCpuUs: (serverCpuMs * 1000) / 500, clientCpuUs: clientCpuUs / 500 };
    const self: Engine = {
      totals: pages[0]?.map((p) => p.total) ?? [],
      round: (from) => timedBatch(QUERIES.length, (i) => search(QUERIES[i] as string, from)),
      close: () => Promise.resolve(),
    };
    // Rounds are interleaved, engine by engine and depth by depth, so that a burst of load on a
    // shared machine falls on every engine rather than on whichever ran at that moment.
    const engines = [self, ...(await references())];
    const samples = engines.map(() => new Map<number, number[]>(DEPTHS.map((d) => [d, []])));
    // The figures printed for _search cover the timed queries only.
    serverCpuMs = 0;
    clientCpuUs = 0;
    const roundsCpu0 = processCpuMs(server.pid);
    const roundsT0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const from of DEPTHS) {
        for (const [i, e] of engines.entries()) samples[i]?.get(from)?.push(...(await e.round(from)));
      }
    }
    const perRequest = rounds * DEPTHS.length * QUERIES.length;
    // What the server used while the references ran their rounds (its own background work: JIT
    // compilation, collectors, timers), in ms of CPU per second of their rounds.
    const ownMs = (samples[0] === undefined ? [] : [...samples[0].values()].flat()).reduce((a, b) => a + b, 0);
    const othersMs = performance.now() - roundsT0 - ownMs;
    const idleCpuMsPerS = engines.length > 1 && othersMs > 0 ? (Math.max(0, processCpuMs(server.pid) - roundsCpu0 - serverCpuMs) / othersMs) * 1000 : undefined;
    const memAfterQueries = memMiB(server.pid);
    const load = loadAverage();
    // The first load measures a fresh process, whose JIT compiles the indexing path as it goes: in
    // bench/opensearch-bulk-warmup-probe.ts the node's rate per CPU-second rose load after load
    // (1,946, 2,850, 3,611 docs per CPU-second in three loads of the corpus in a row, load average
    // 7). The second load, into an index of its own, is that of a server that has run a while.
    let bulkAgain: { seconds: number; cpuSeconds: number } | undefined;
    if (!skipSecondLoad) {
      const again = await http.request('PUT', '/packages-again', JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
      if (again.status !== 200) throw new Error(`${server.name}: create index failed: ${again.text.slice(0, 300)}`);
      lines = corpusLines();
      bulkAgain = await bulkLoad(server, http, 'packages-again', lines);
      lines = [];
    }
    return {
      name: server.name,
      docs: total,
      bulk: first,
      bulkAgain,
      prepareSeconds,
      memAfterLoad,
      memAfterQueries,
      settled,
      floor,
      searchCpu: { serverUs: (serverCpuMs * 1000) / perRequest, clientUs: clientCpuUs / perRequest },
      idleCpuMsPerS,
      totals: self.totals,
      pages,
      samples,
      load,
    };
  } finally {
    await http.close().catch(() => undefined);
  }
}

/**
 * Loads `copies` times the corpus into `index` over `_bulk`, one request in flight, and returns the
 * wall seconds and the server's CPU seconds it took.
 */
async function bulkLoad(server: Server, http: HttpClient, index: string, lines: readonly string[]): Promise<{ seconds: number; cpuSeconds: number }> {
  const t0 = performance.now();
  const cpu0 = processCpuMs(server.pid);
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
      const sent = http.request('POST', `/${index}/_bulk`, body, 'application/x-ndjson');
      const next = i + batch < lines.length ? await bodyAt(i + batch) : '';
      const r = await sent;
      // Both servers put `errors` within the first bytes ({"errors":… or {"took":…,"errors":…).
      if (r.status !== 200 || r.text.slice(0, 64).includes('"errors":true')) throw new Error(`${server.name}: bulk failed: ${r.text.slice(0, 300)}`);
      body = next;
    }
    if (copies > 1) {
      // How the rate holds up as the index grows (copy by copy).
      const now = { t: performance.now(), cpu: processCpuMs(server.pid) };
      const mem = memMiB(server.pid);
      console.log(
        `  ${server.name} ${index} copy ${c + 1}: ${Math.round(lines.length / ((now.t - lap.t) / 1000))} docs/s wall, ${Math.round(lines.length / ((now.cpu - lap.cpu) / 1000))} docs per server CPU-second, ` +
          `server RSS ${mem.rss.toFixed(0)} MiB, load average ${loadAverage()}`,
      );
      lap = now;
    }
  }
  // On a shared machine wall time depends on everyone else; server CPU time much less. Read from
  // /proc/<pid>/stat, which keeps the CPU of threads that have ended (the JVM's merge threads come
  // and go; a sum over the live threads would lose theirs).
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (processCpuMs(server.pid) - cpu0) / 1000 };
}

/** The index's mappings as a server reports them, keys sorted, for comparing two servers. */
async function mappingsOf(url: string): Promise<string> {
  const http = httpClient(url);
  try {
    const r = await http.request('GET', '/packages/_mapping');
    const sorted = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sorted) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)])) : v;
    return JSON.stringify(sorted((JSON.parse(r.text) as { packages: unknown }).packages));
  } finally {
    await http.close();
  }
}

/** The node's heap in use and its collectors' counts and times, from `_nodes/stats/jvm`. */
async function jvmStats(url: string): Promise<string> {
  const http = httpClient(url);
  try {
    const r = await http.request('GET', '/_nodes/_local/stats/jvm');
    type Jvm = { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number }; gc: { collectors: Record<string, { collection_count: number; collection_time_in_millis: number }> } };
    const jvm = Object.values((JSON.parse(r.text) as { nodes: Record<string, { jvm: Jvm }> }).nodes)[0]?.jvm;
    if (jvm === undefined) return 'no JVM statistics';
    const gcs = Object.entries(jvm.gc.collectors).map(([k, g]) => `${k} ${g.collection_count} (${g.collection_time_in_millis} ms)`);
    return `heap in use ${(jvm.mem.heap_used_in_bytes / 2 ** 20).toFixed(0)} of ${(jvm.mem.heap_max_in_bytes / 2 ** 20).toFixed(0)} MiB; collections ${gcs.join(', ')}`;
  } finally {
    await http.close();
  }
}

async function main(): Promise<void> {
  let total = 0;
  const corpusLines = () => {
    const lines = readCorpus(corpus);
    total = lines.length * copies;
    return lines;
  };
  let refs = undefined as { xapian: Engine & { rate: number }; fts: Engine & { rate: number } } | undefined;
  const references = async (): Promise<Engine[]> => {
    if (skipReferences) return [];
    // Started once Portico is loaded and warm, so that their own indexing does not fall on its load.
    refs ??= { xapian: await startXapian(), fts: await startFts5() };
    return [refs.xapian, refs.fts];
  };
  try {
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
    let portico: ServerRun;
    let porticoMappings: string;
    const p = await startPortico(dataDir);
    try {
      portico = await runServer({ name: 'Portico', url: p.url, pid: p.pid }, corpusLines, () => Promise.resolve(), references);
      porticoMappings = await mappingsOf(p.url);
    } finally {
      await p.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // One server at a time: the node starts once Portico has stopped.
    let node: { run: ServerRun; mappings: string; jvm: string } | undefined;
    if (!skipOpenSearch) {
      const os = await launchOpenSearch({ heap: openSearchHeap, jit: 'full', startTimeoutMs: 400_000 });
      try {
        if (os.pid === undefined) throw new Error('the OpenSearch node has no process id');
        // Lucene writes segments as it indexes; a force merge to one segment (as search-fuzzy-bench.ts
        // does) leaves it the single, fully merged index Portico searches, so queries are compared on
        // equal terms. Its time is printed beside the refresh, not counted in the bulk rate.
        const forceMerge = async (http: HttpClient) => {
          const r = await http.request('POST', '/packages/_forcemerge?max_num_segments=1', '', 'application/json');
          if (r.status !== 200) throw new Error(`OpenSearch: force merge failed: ${r.text.slice(0, 300)}`);
        };
        const run = await runServer({ name: 'OpenSearch', url: os.url, pid: os.pid }, corpusLines, forceMerge, references);
        node = { run, mappings: await mappingsOf(os.url), jvm: await jvmStats(os.url) };
      } finally {
        await os.stop();
      }
    }
    report(total, portico, porticoMappings, node, refs);
  } finally {
    if (refs !== undefined) for (const r of [refs.xapian, refs.fts]) await r.close().catch(() => undefined);
  }
}

function report(
  total: number,
  portico: ServerRun,
  porticoMappings: string,
  node: { run: ServerRun; mappings: string; jvm: string } | undefined,
  refs: { xapian: Engine & { rate: number }; fts: Engine & { rate: number } } | undefined,
): void {
  const fmt = (n: number) => n.toFixed(2).padStart(8);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`.padStart(7);
  const depthStats = (run: ServerRun, engine: number, from: number) => stats(run.samples[engine]?.get(from) ?? []);
  const os = node?.run;
  const servers = os === undefined ? [portico] : [portico, os];
  console.log(`\nSearch benchmark: ${total} documents (${copies} × corpus), ${QUERIES.length} match queries × ${rounds} rounds per depth, size 10, one server at a time; load average after Portico's rounds ${portico.load}${os === undefined ? '' : `, after OpenSearch's ${os.load}`}`);
  const rate = (s: ServerRun, b: { seconds: number; cpuSeconds: number }) => `${Math.round(s.docs / b.seconds)} docs/s wall (${b.seconds.toFixed(1)} s), ${Math.round(s.docs / b.cpuSeconds)} docs per server CPU-second`;
  for (const s of servers) {
    console.log(
      `${s.name.padEnd(10)} bulk over HTTP: first load ${rate(s, s.bulk)}${s.bulkAgain === undefined ? '' : `; second load ${rate(s, s.bulkAgain)}`}; ` +
        `refresh${s === os ? ' + force merge to one segment' : ''} after the first ${s.prepareSeconds.toFixed(1)} s`,
    );
  }
  const porticoRate = portico.docs / portico.bulk.seconds;
  console.log(`Portico bulk target ≥ 20000 docs/s (first load): ${porticoRate >= 20_000 ? 'met' : 'NOT met'}`);
  for (const s of servers) {
    console.log(`${s.name.padEnd(10)} RSS: ${s.memAfterLoad.rss.toFixed(0)} MiB after load, ${s.memAfterQueries.rss.toFixed(0)} MiB after queries, peak ${s.memAfterQueries.peak.toFixed(0)} MiB${s === os ? ` (JVM heap -Xms/-Xmx ${openSearchHeap})` : ''}`);
  }
  if (node !== undefined) console.log(`OpenSearch after queries: ${node.jvm}`);
  for (const s of servers) {
    console.log(
      `${s.name.padEnd(10)} HTTP floor (GET / on the same connection, once server and client were idle, ${s.settled.toFixed(1)} s after loading): ` +
        `median ${s.floor.stats.median_ms.toFixed(2)} ms, p95 ${s.floor.stats.p95_ms.toFixed(2)} ms; CPU per request: server ${s.floor.serverCpuUs.toFixed(0)} µs, client ${s.floor.clientCpuUs.toFixed(0)} µs`,
    );
  }
  for (const s of servers) {
    console.log(
      `${s.name.padEnd(10)} _search CPU per request (all depths): server ${s.searchCpu.serverUs.toFixed(0)} µs, client ${s.searchCpu.clientUs.toFixed(0)} µs` +
        (s.idleCpuMsPerS === undefined ? '' : `; server CPU while the references ran their rounds ${s.idleCpuMsPerS.toFixed(0)} ms per second`),
    );
  }

  if (os !== undefined && node !== undefined) {
    // Both answer from the same documents with the same ids, and the node scores with Lucene's BM25
    // (ES 8's, see test/search/opensearch-node.ts) as Portico does: totals and scores should be the
    // same. Equal scores are not always in the same order: Portico breaks ties in write order, and
    // Lucene in its doc id order, which after these 13 bulk requests was not write order (e.g. two
    // hits of "web server" with the same score, ids 43780 and 59199, came in the opposite order;
    // presumably successive requests filled different indexing buffers, which became segments in
    // another order). So a page is counted apart when only the order of equal scores differs.
    let totals = 0;
    let ties = 0;
    let other = 0;
    const examples: string[] = [];
    const show = (p: Page | undefined) => `${p?.total}${p?.relation === 'gte' ? '+' : ''} [${p?.ids.map((id, k) => `${id}:${p.scores[k]}`).join(' ')}]`;
    DEPTHS.forEach((from, d) =>
      QUERIES.forEach((q, i) => {
        const a = portico.pages[d]?.[i];
        const b = os.pages[d]?.[i];
        if (a === undefined || b === undefined) return;
        if (a.total !== b.total || a.relation !== b.relation) totals++;
        else if (a.ids.join() === b.ids.join()) return;
        // The same scores position by position: the pages differ only in which of equally scored
        // hits comes first (or falls on this page).
        else if (a.scores.join() === b.scores.join()) ties++;
        else other++;
        const example = `"${q}" from ${from}: Portico ${show(a)} OpenSearch ${show(b)}`;
        // Examples of a real difference first.
        if (a.total !== b.total || a.scores.join() !== b.scores.join()) examples.unshift(example);
        else examples.push(example);
      }),
    );
    const disagreements = totals + ties + other;
    console.log(
      `answers (hits.total and the page's ids, ${QUERIES.length} queries × ${DEPTHS.length} depths): ${disagreements} disagreement(s)` +
        (disagreements === 0 ? '' : ` (${totals} in hits.total; ${ties} with the same scores, where equal scores are ordered differently; ${other} other), e.g. ${examples.slice(0, 2).join('; ')}`),
    );
    console.log(`mappings (GET /packages/_mapping) ${porticoMappings === node.mappings ? 'the same on both servers' : `DIFFER: Portico ${porticoMappings} OpenSearch ${node.mappings}`}`);
  }

  const xapian = refs?.xapian;
  const fts = refs?.fts;
  if (xapian !== undefined && fts !== undefined) {
    // Totals are capped at 10,000 like ES's; the analyzers differ a little (Xapian's TermGenerator,
    // FTS5's unicode61 and the standard analyzer split some words differently).
    const compareTotals = (other: number[]) => {
      let same = 0;
      let worst = { diff: 0, q: '' };
      QUERIES.forEach((q, i) => {
        const a = portico.totals[i] as number;
        const b = other[i] as number;
        if (a === b) same++;
        const diff = Math.abs(a - b) / Math.max(1, a);
        if (diff > worst.diff) worst = { diff, q: `"${q}" ${a} vs ${b}` };
      });
      return `${same}/${QUERIES.length} equal${worst.q === '' ? '' : `, largest difference ${(worst.diff * 100).toFixed(1)} % (${worst.q})`}`;
    };
    console.log(`references in-process: Xapian indexing ${Math.round(xapian.rate)} docs/s (first copy), FTS5 ${Math.round(fts.rate)} docs/s`);
    console.log(`hits.total (capped at 10,000) against Portico's: Xapian ${compareTotals(xapian.totals)}; FTS5 ${compareTotals(fts.totals)}`);
    if (os !== undefined) {
      // The same Xapian process ran its rounds beside each server's: if the machine's load changed
      // between the two phases, its medians show by how much.
      console.log(`load check: Xapian's median during OpenSearch's rounds / during Portico's, by depth: ${DEPTHS.map((from) => ratio(depthStats(os, 1, from).median_ms, depthStats(portico, 1, from).median_ms).trim()).join(', ')}`);
    }
  }

  const cols: string[] = ['Portico med   p95'];
  if (os !== undefined) cols.push('OpenSearch med   p95');
  if (xapian !== undefined) cols.push('Xapian med   p95', 'FTS5 med     p95');
  if (os !== undefined) cols.push('vs OpenSearch med  p95 | ≤ 1/3');
  if (xapian !== undefined) cols.push('vs Xapian med  p95 | ≤ 1.5×', 'vs FTS5 med  p95');
  console.log(`\n  from | ${cols.join(' | ')}`);
  let metXapian = 0;
  let metNode = 0;
  for (const from of DEPTHS) {
    const p = depthStats(portico, 0, from);
    const cells = [`${fmt(p.median_ms)} ${fmt(p.p95_ms)}`];
    const o = os === undefined ? undefined : depthStats(os, 0, from);
    if (o !== undefined) cells.push(`   ${fmt(o.median_ms)} ${fmt(o.p95_ms)}`);
    const x = xapian === undefined ? undefined : depthStats(portico, 1, from);
    const f = xapian === undefined ? undefined : depthStats(portico, 2, from);
    if (x !== undefined && f !== undefined) cells.push(`${fmt(x.median_ms)} ${fmt(x.p95_ms)}`, `${fmt(f.median_ms)} ${fmt(f.p95_ms)}`);
    if (o !== undefined) {
      const ok = p.median_ms <= o.median_ms / 3 && p.p95_ms <= o.p95_ms / 3;
      if (ok) metNode++;
      cells.push(`       ${ratio(p.median_ms, o.median_ms)} ${ratio(p.p95_ms, o.p95_ms)} | ${ok ? 'met' : 'NOT met'}`);
    }
    if (x !== undefined && f !== undefined) {
      const ok = p.median_ms <= 1.5 * x.median_ms && p.p95_ms <= 1.5 * x.p95_ms;
      if (ok) metXapian++;
      cells.push(`   ${ratio(p.median_ms, x.median_ms)} ${ratio(p.p95_ms, x.p95_ms)} | ${ok ? 'met' : 'NOT met'}`, ` ${ratio(p.median_ms, f.median_ms)} ${ratio(p.p95_ms, f.p95_ms)}`);
    }
    console.log(`${String(from).padStart(6)} | ${cells.join(' | ')}`);
  }
  const verdicts: string[] = [];
  if (os !== undefined) {
    // Both loads are compared; the target is judged on each.
    const bulkRatios = (pick: (s: ServerRun) => { seconds: number; cpuSeconds: number } | undefined) => {
      const a = pick(portico);
      const b = pick(os);
      return a === undefined || b === undefined ? undefined : { wall: b.seconds / a.seconds, cpu: b.cpuSeconds / a.cpuSeconds };
    };
    const bulks = [
      { k: 'first load', r: bulkRatios((s) => s.bulk) },
      { k: 'second load', r: bulkRatios((s) => s.bulkAgain) },
    ].filter((b): b is { k: string; r: { wall: number; cpu: number } } => b.r !== undefined);
    const rss = (k: 'after load' | 'after queries' | 'peak') => {
      const pick = (s: ServerRun) => (k === 'after load' ? s.memAfterLoad.rss : k === 'after queries' ? s.memAfterQueries.rss : s.memAfterQueries.peak);
      return pick(portico) / pick(os);
    };
    const rssRatios = (['after load', 'after queries', 'peak'] as const).map((k) => ({ k, r: rss(k) }));
    console.log(
      `\nPortico / OpenSearch: bulk docs/s ${bulks.map(({ k, r }) => `${r.wall.toFixed(2)}× wall, ${r.cpu.toFixed(2)}× per server CPU-second (${k})`).join(', ')} (target ≥ 1.5× wall: ${bulks.every(({ r }) => r.wall >= 1.5) ? 'met' : 'NOT met'}); ` +
        `RSS ${rssRatios.map(({ k, r }) => `${r.toFixed(2)}× ${k}`).join(', ')} (target ≤ 0.25: ${rssRatios.every(({ r }) => r <= 0.25) ? 'met' : 'NOT met'}); ` +
        `HTTP floor ${ratio(portico.floor.stats.median_ms, os.floor.stats.median_ms).trim()} median`,
    );
    verdicts.push(`OpenSearch latency target (≤ 1/3, median and p95) met at ${metNode} of ${DEPTHS.length} depths`);
  }
  if (xapian !== undefined) verdicts.push(`Xapian latency target (≤ 1.5×) met at ${metXapian} of ${DEPTHS.length} depths`);
  console.log(`\nlatencies in ms; servers over HTTP (keep-alive, one request in flight), references in-process${verdicts.length === 0 ? '' : `; ${verdicts.join('; ')}`}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
