/**
 * `npx tsx bench/search-stall-probe.ts [--seconds 15] [--docs 20000] [--search-only] [--root DIR]`
 * (BENCH_SERVER_NODE_ARGS: Node flags for the server process):
 * where the search p99 of `npm run bench:mixed` comes from (issue 23), measured inside the server so
 * that a loaded machine shows the same causes. Not a test.
 *
 * The server runs in a child process (this file with `--serve`), built from `--root`'s sources (this
 * checkout by default) with the listeners and data bench:mixed gives it: the Debian corpus's first
 * `--docs` documents indexed and refreshed, 2,000 push groups, 10,000 routers (`--search-only`: the
 * search listener alone). The parent then searches at 40/s over 4 connections, timed from when each
 * search was due, alone and while one client re-indexes the corpus in bulks of 1,000 back to back,
 * as bench:mixed does.
 *
 * In the server, a 1 ms interval timer notes every gap between its runs over 5 ms (a stall: what a
 * search arriving then waited for at least), and what ran in it: the engine's work is timed by
 * wrapping its methods (a bulk's slice, a body's parse slice, the store's commit, a refresh and the
 * view it drops or a write takes, a compaction's copy slice and its swap, a search), garbage
 * collections by a PerformanceObserver on 'gc' entries (scavenges, mark-compacts, incremental
 * marking steps). Nested work counts for the innermost only, a collection for itself only; what no
 * wrapper covers (HTTP parsing, responses, timers) is `other`. The time the thread waited for a CPU
 * (the run-queue wait of /proc/thread-self/schedstat: other processes of a loaded machine) is `no
 * CPU`, taken out of the work it interrupted (in proportion, inside a stall). A stall's cause is
 * what took most of it. Prints, for the re-index phase, the stalls per cause and length, the time each cause took in
 * stalls, each cause's own durations, and the search latencies of both phases.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { corpusPath, flag, opt, readCorpus, ROOT } from './search-workload.js';

const root = resolve(opt('root', ROOT));
const SECONDS = Number(opt('seconds', '15'));
const DOCS = Number(opt('docs', '20000'));
const STALL_MS = 5;
const SEARCH = { rate: 40, connections: 4 };

/** What the server timed (see the top), by index in CAUSES. */
const CAUSES = ['bulk slice', 'parse slice', 'commit', 'refresh', 'view', 'compaction copy', 'compaction swap', 'search', 'gc scavenge', 'gc mark-compact', 'gc incremental', 'gc other', 'other', 'no CPU'] as const;
type Cause = (typeof CAUSES)[number];
const C = Object.fromEntries(CAUSES.map((c, i) => [c, i])) as Record<Cause, number>;

interface Report {
  /** Per stall: its length, then the ms of each cause in it (CAUSES order). */
  stalls: number[][];
  /** Per cause: the own time of each call (nested calls and collections out; a collection's duration), in ms. */
  spans: number[][];
  /** Event-loop gaps measured (all, stalls or not). */
  gaps: number;
  seconds: number;
}

// ---------------------------------------------------------------------------------------------
// The server (child).

async function serve(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-stall-'));
  const token = randomBytes(16).toString('hex');
  writeFileSync(join(dir, 'token'), token);
  const src = (p: string): Promise<Record<string, unknown>> => import(join(root, 'src', p)) as Promise<Record<string, unknown>>;
  type Proto = Record<string, unknown>;
  type Ctor = { prototype: Proto };

  // The main thread's run-queue wait so far, in ms (schedstat's second field, ns).
  const schedFd = openSync('/proc/thread-self/schedstat', 'r');
  const schedBuf = Buffer.alloc(128);
  const waited = (): number => {
    const n = readSync(schedFd, schedBuf, 0, 128, 0);
    const text = schedBuf.toString('latin1', 0, n);
    const a = text.indexOf(' ');
    return Number(text.slice(a + 1, text.indexOf(' ', a + 1))) / 1e6;
  };
  let segWait = waited();
  // Segments of exclusive time: [start, end, cause, call, waited] quintuples, flat (a call: one outermost
  // run of a wrapped method, numbered). Reset at 'begin'.
  let segs: number[] = [];
  const stack: number[] = [];
  const calls: number[] = [];
  let nextCall = 0;
  let segStart = 0;
  const enter = (cause: number): void => {
    const now = performance.now();
    const w = waited();
    const top = stack[stack.length - 1];
    if (top !== undefined && now > segStart) segs.push(segStart, now, top, calls[calls.length - 1] as number, w - segWait);
    stack.push(cause);
    calls.push(nextCall++);
    segStart = now;
    segWait = w;
  };
  const exit = (): void => {
    const now = performance.now();
    const w = waited();
    const cause = stack.pop() as number;
    const call = calls.pop() as number;
    if (now > segStart) segs.push(segStart, now, cause, call, w - segWait);
    segStart = now;
    segWait = w;
  };
  /** Wraps `proto[name]` (synchronous work; a promise's synchronous part only). */
  const wrap = (proto: Proto | undefined, name: string, cause: Cause, unless?: Cause): void => {
    const f = proto?.[name];
    if (proto === undefined || typeof f !== 'function') {
      process.stderr.write(`stall probe: ${name} not found, its time counts as other\n`);
      return;
    }
    proto[name] = function (this: unknown, ...args: unknown[]): unknown {
      // A compaction's copy steps inside its swap count as the swap.
      if (unless !== undefined && stack[stack.length - 1] === C[unless]) return (f as (...a: unknown[]) => unknown).apply(this, args);
      enter(C[cause]);
      try {
        return (f as (...a: unknown[]) => unknown).apply(this, args);
      } finally {
        exit();
      }
    };
  };
  const proto = (m: Record<string, unknown>, name: string): Proto | undefined => (m[name] as Ctor | undefined)?.prototype;
  const service = await src('search/engine/search-service.ts');
  wrap(proto(service, 'SearchService'), 'applySlice', 'bulk slice');
  wrap(proto(service, 'SearchService'), 'search', 'search');
  wrap(proto(await src('search/requests/bulk.ts'), 'BulkParse'), 'items', 'parse slice');
  wrap(proto(await src('search/engine/refresh-schedule.ts'), 'RefreshSchedule'), 'refresh', 'refresh');
  wrap(proto(await src('search/index/inverted-index.ts'), 'InvertedIndex'), 'frozenView', 'view');
  wrap(proto(await src('search/index/index-compaction.ts'), 'IndexCompaction'), 'step', 'compaction copy', 'compaction swap');
  wrap(proto(await src('search/engine/index-reclaimer.ts'), 'IndexReclaimer'), 'finish', 'compaction swap');
  const store = proto(await src('search/store/document-store.ts'), 'SqliteDocumentStore') as Proto;
  const openTransaction = store.openTransaction as (this: unknown, o: unknown) => Record<string, (...a: unknown[]) => unknown>;
  store.openTransaction = function (this: unknown, o: unknown) {
    const t = openTransaction.call(this, o);
    const timed = (name: string): void => {
      const f = t[name];
      if (f === undefined) return;
      t[name] = (...a: unknown[]) => {
        enter(C.commit);
        try {
          return f(...a);
        } finally {
          exit();
        }
      };
    };
    // run: what it does before the slice (an earlier commit settled) counts as the commit; the
    // slice inside counts as itself.
    for (const n of ['run', 'commit', 'commitAsync']) timed(n);
    return t;
  };
  wrap(store, 'transaction', 'commit');

  let gcs: number[] = [];
  let gcSpans: number[][] = CAUSES.map(() => []);
  const gcCause = (kind: number): number => (kind === 1 ? C['gc scavenge'] : kind === 4 ? C['gc mark-compact'] : kind === 8 ? C['gc incremental'] : C['gc other']);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      gcs.push(e.startTime, e.startTime + e.duration, gcCause(kind));
      gcSpans[gcCause(kind)]?.push(e.duration);
    }
  }).observe({ entryTypes: ['gc'] });

  let gapsAt: number[] = [];
  let gapCount = 0;
  let last = performance.now();
  let lastWait = waited();
  setInterval(() => {
    const now = performance.now();
    const w = waited();
    gapCount++;
    if (now - last > STALL_MS) gapsAt.push(last, now, w - lastWait);
    last = now;
    lastWait = w;
  }, 1);
  let began = performance.now();

  const { loadConfig } = (await src('config/load-config.ts')) as { loadConfig: (t: unknown, o: unknown) => Record<string, unknown> };
  const { serveFlags } = await src('flag-groups.ts');
  const { createLogger } = (await src('log/logger.ts')) as { createLogger: (o: unknown) => unknown };
  const { buildServer } = (await src('server.ts')) as { buildServer: (c: unknown, d: unknown) => Promise<{ start(): Promise<Map<string, number>>; close(): Promise<void> }> };
  const searchOnly = process.argv.includes('--search-only');
  const argv = [
    '--data.dir', dir,
    '--search.listen-address', '127.0.0.1:0',
    '--pushgateway.listen-address', searchOnly ? 'off' : '127.0.0.1:0',
    '--management.listen-address', searchOnly ? 'off' : '127.0.0.1:0',
    '--internal.listen-address', searchOnly ? 'off' : '127.0.0.1:0',
    '--internal.token-file', join(dir, 'token'),
    '--log.level', 'warn',
  ];
  const config = loadConfig(serveFlags, { argv, env: {}, readFile: (p: string) => readFileSync(p, 'utf8') });
  const server = await buildServer(config, { logger: createLogger({ level: 'warn', format: 'json', stdoutIsTerminal: false }), now: Date.now, requestShutdown: () => undefined });
  const ports = await server.start();
  process.send?.({ ports: Object.fromEntries(ports), token });

  process.on('message', (m) => {
    if (m === 'begin') {
      segs = [];
      gcs = [];
      gapsAt = [];
      gapCount = 0;
      gcSpans = CAUSES.map(() => []);
      began = performance.now();
      return;
    }
    if (m !== 'report') return;
    // A segment's own time: without the collections that ran in it, and without the time the
    // thread waited for a CPU (spread over the segment: schedstat is read at its ends only).
    const own = (i: number, s: number, e: number): number => {
      const a = segs[i] as number;
      const b = segs[i + 1] as number;
      let t = e - s - ((segs[i + 4] as number) * (e - s)) / Math.max(1e-9, b - a);
      for (let k = 0; k < gcs.length; k += 3) t -= Math.max(0, Math.min(e, gcs[k + 1] as number) - Math.max(s, gcs[k] as number));
      return Math.max(0, t);
    };
    // Each call's own time, by cause.
    const callTime = new Map<number, [number, number]>();
    for (let i = 0; i < segs.length; i += 5) {
      const c = callTime.get(segs[i + 3] as number) ?? [segs[i + 2] as number, 0];
      c[1] += own(i, segs[i] as number, segs[i + 1] as number);
      callTime.set(segs[i + 3] as number, c);
    }
    const spans = gcSpans.map((x) => [...x]);
    for (const [cause, ms] of callTime.values()) spans[cause]?.push(ms);
    // Each stall: the time of each cause inside it.
    const stalls: number[][] = [];
    for (let g = 0; g < gapsAt.length; g += 3) {
      const a = gapsAt[g] as number;
      const b = gapsAt[g + 1] as number;
      const row: number[] = CAUSES.map(() => 0);
      row[C['no CPU']] = Math.min(b - a, gapsAt[g + 2] as number);
      for (let i = 0; i < gcs.length; i += 3) {
        const s = Math.max(a, gcs[i] as number);
        const e = Math.min(b, gcs[i + 1] as number);
        if (e > s) row[gcs[i + 2] as number] = (row[gcs[i + 2] as number] as number) + e - s;
      }
      for (let i = 0; i < segs.length; i += 5) {
        const s = Math.max(a, segs[i] as number);
        const e = Math.min(b, segs[i + 1] as number);
        if (e > s) row[segs[i + 2] as number] = (row[segs[i + 2] as number] as number) + own(i, s, e);
      }
      const known = row.reduce((x, y) => x + y, 0);
      row[C.other] = Math.max(0, b - a - known);
      stalls.push([b - a, ...row]);
    }
    const report: Report = { stalls, spans, gaps: gapCount, seconds: (performance.now() - began) / 1000 };
    process.send?.(report);
  });
  process.on('disconnect', () => {
    void server.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The client (parent).

function request(agent: http.Agent, port: number, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const h = body === undefined ? headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: h }, (res) => {
      res.resume();
      res.on('end', () => resolvePromise(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const WORDS = ['library', 'python', 'development files', 'documentation', 'perl module', 'server', 'gnome', 'kernel', 'font', 'data'];

/** Searches at SEARCH.rate for `seconds`, each timed from when it was due (bench:mixed's open loop). */
async function searches(port: number, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SEARCH.connections });
  const out: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(SEARCH.rate * seconds);
  for (let sent = 0; sent < total; ) {
    const due = start + (sent * 1000) / SEARCH.rate;
    const now = performance.now();
    if (due > now) {
      await new Promise((r) => setTimeout(r, Math.max(1, due - now)));
      continue;
    }
    const i = sent++;
    const body = JSON.stringify({ query: { match: { description: WORDS[i % WORDS.length] } }, size: 10 });
    pending.push(request(agent, port, 'POST', '/deb/_search', body).then((s) => {
      if (s !== 200) throw new Error(`search: ${s}`);
      out.push(performance.now() - due);
    }));
  }
  await Promise.all(pending);
  agent.destroy();
  return out;
}

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const f1 = (n: number): string => (Number.isNaN(n) ? '-' : n.toFixed(1));

function print(report: Report, alone: number[], during: number[], docsPerSecond: number): void {
  const out: string[] = [];
  out.push(`searches alone: p50 ${f1(pct(alone, 50))} / p99 ${f1(pct(alone, 99))} ms (${alone.length}); during re-index bulks (${docsPerSecond.toFixed(0)} docs/s indexed): p50 ${f1(pct(during, 50))} / p99 ${f1(pct(during, 99))} / max ${f1(pct(during, 100))} ms (${during.length})`);
  const buckets = [5, 10, 15, 20, 30, 50, Infinity];
  const label = (i: number): string => (buckets[i + 1] === Infinity ? `>${buckets[i]}` : `${buckets[i]}-${buckets[i + 1]}`);
  out.push(`stalls over ${STALL_MS} ms in ${report.seconds.toFixed(1)} s of re-index (${report.gaps} timer runs): ${report.stalls.length}; by cause (what took most of the stall) and length in ms:`);
  out.push(`| cause | ${buckets.slice(0, -1).map((_, i) => label(i)).join(' | ')} | stalls | ms in stalls (any stall) | own durations p50 / p99 / max (count), total ms |`);
  out.push(`|---|${buckets.slice(0, -1).map(() => '---|').join('')}---|---|---|`);
  for (let c = 0; c < CAUSES.length; c++) {
    const counts = buckets.slice(0, -1).map(() => 0);
    let n = 0;
    let inStalls = 0;
    for (const s of report.stalls) {
      const row = s.slice(1);
      inStalls += row[c] as number;
      const top = row.indexOf(Math.max(...row));
      if (top !== c) continue;
      n++;
      const len = s[0] as number;
      const b = buckets.findIndex((x, i) => len >= x && len < (buckets[i + 1] as number));
      counts[b] = (counts[b] as number) + 1;
    }
    const own = report.spans[c] ?? [];
    const ownText = own.length === 0 ? '-' : `${f1(pct(own, 50))} / ${f1(pct(own, 99))} / ${f1(pct(own, 100))} (${own.length}), ${own.reduce((a, b) => a + b, 0).toFixed(0)}`;
    if (n === 0 && inStalls === 0 && own.length === 0) continue;
    out.push(`| ${CAUSES[c]} | ${counts.join(' | ')} | ${n} | ${inStalls.toFixed(0)} | ${ownText} |`);
  }
  const lens = report.stalls.map((s) => s[0] as number);
  const cpu = report.stalls.map((s) => (s[0] as number) - (s[1 + C['no CPU']] as number));
  out.push(`stall lengths p50 ${f1(pct(lens, 50))} / p90 ${f1(pct(lens, 90))} / p99 ${f1(pct(lens, 99))} / max ${f1(pct(lens, 100))} ms; without the waits for a CPU p50 ${f1(pct(cpu, 50))} / p90 ${f1(pct(cpu, 90))} / p99 ${f1(pct(cpu, 99))} / max ${f1(pct(cpu, 100))} ms; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  const searchOnly = flag('search-only');
  // BENCH_SERVER_NODE_ARGS: Node flags for the server alone (e.g. --max-semi-space-size=32).
  const serverArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  process.stdout.write(`${root}: ${DOCS} documents, ${SECONDS} s per phase${searchOnly ? ', search listener alone' : ''}${serverArgs.length > 0 ? `, server flags ${serverArgs.join(' ')}` : ''}; load average ${loadavg()[0]?.toFixed(1)} at start\n`);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', '--root', root, ...(searchOnly ? ['--search-only'] : [])], { execArgv: [...process.execArgv, ...serverArgs], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { ports, token } = await new Promise<{ ports: Record<string, number>; token: string }>((res, rej) => {
    child.once('message', (m) => res(m as { ports: Record<string, number>; token: string }));
    child.once('exit', (code) => rej(new Error(`server exited with ${code}`)));
  });
  const port = ports.search as number;
  const lines = readCorpus(corpusPath()).slice(0, DOCS);
  const bulks: Buffer[] = [];
  for (let i = 0; i < lines.length; i += 1000) bulks.push(Buffer.from(lines.slice(i, i + 1000).map((l, j) => `{"index":{"_index":"deb","_id":"${i + j}"}}\n${l}\n`).join('')));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  for (const b of bulks) if ((await request(agent, port, 'POST', '/_bulk', b)) !== 200) throw new Error('bulk failed');
  if ((await request(agent, port, 'POST', '/_refresh', '')) !== 200) throw new Error('refresh failed');
  if (!searchOnly) {
    const push = (i: number): string => Array.from({ length: 10 }, (_, s) => `mixed_metric{series="${s}"} ${i + s}`).join('\n') + '\n';
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      for (let g = w; g < 2000; g += 8) await request(agent, ports.pushgateway as number, 'PUT', `/metrics/job/mixed/group/${g}`, push(g));
    }));
    const routers: Record<string, unknown> = {};
    const services: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) {
      routers[`ns-${i % 50}-app-${i}`] = { rule: `Host(\`app-${i}.example.com\`)`, service: `ns-${i % 50}-app-${i}` };
      services[`ns-${i % 50}-app-${i}`] = { loadBalancer: { servers: [{ url: `http://10.0.${(i >> 8) & 255}.${i & 255}:80` }] } };
    }
    const snapshot = JSON.stringify({ configuration: { http: { routers, services } }, version: 'mixed-1' });
    if ((await request(agent, ports.internal as number, 'PUT', '/internal/v1/providers/bench', snapshot, { authorization: `Bearer ${token}` })) !== 200) throw new Error('snapshot PUT failed');
  }
  agent.destroy();
  const alone = await searches(port, SECONDS);
  // Re-index back to back, as bench:mixed: the searches start half a second after the first bulk.
  const stop = { done: false };
  child.send('begin');
  const reindex = (async (): Promise<number> => {
    const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const t0 = performance.now();
    let docs = 0;
    for (let i = 0; !stop.done; i = (i + 1) % bulks.length) {
      if ((await request(a, port, 'POST', '/_bulk', bulks[i] as Buffer)) !== 200) throw new Error('bulk failed');
      docs += 1000;
    }
    a.destroy();
    return (docs * 1000) / (performance.now() - t0);
  })();
  await new Promise((r) => setTimeout(r, 500));
  const during = await searches(port, SECONDS);
  stop.done = true;
  const docsPerSecond = await reindex;
  const report = await new Promise<Report>((res) => {
    child.once('message', (m) => res(m as Report));
    child.send('report');
  });
  child.disconnect();
  print(report, alone, during, docsPerSecond);
}

if (process.argv.includes('--serve')) await serve();
else await main();
