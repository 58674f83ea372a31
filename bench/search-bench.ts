/**
 * Search benchmark (not a test): `npm run bench:search [-- --copies 16 --rounds 5]`.
 *
 * Starts the built Portico (`dist/cli.js serve`, other listeners off, temporary data dir), loads
 * ../shared/data/debian-packages.ndjson.gz through `_bulk` over HTTP, then runs a fixed set of
 * match queries on `description` at from = 0, 100, 1000 and 9990 with size 10 over HTTP (keep-alive)
 * and prints median and p95 latency per depth, the bulk indexing rate and the server's memory.
 * The same queries run in-process on Xapian (bench/xapian-reference.py, BM25) and on SQLite FTS5
 * (better-sqlite3, bm25()) as references; the table shows Portico / reference ratios.
 * Targets: ≤ 1.5× Xapian at every depth, ≥ 20,000 docs/s bulk indexing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? def : (args[i + 1] ?? def);
};
// ../shared from the main checkout; worktrees sit one level deeper.
const corpus = resolve(root, opt('corpus', ['../shared', '../../shared'].map((d) => `${d}/data/debian-packages.ndjson.gz`).find((p) => existsSync(resolve(root, p))) ?? '../shared/data/debian-packages.ndjson.gz'));
const copies = Number(opt('copies', '1'));
const rounds = Number(opt('rounds', '5'));
const batch = Number(opt('batch', '5000'));
/** Only Portico (e.g. a quick --copies 16 memory run on a shared machine). */
const skipReferences = args.includes('--skip-references');
const DEPTHS = [0, 100, 1000, 9990];
const QUERIES = [
  'python library', 'game', 'network monitoring tool', 'web server', 'perl module', 'documentation', 'development files',
  'linux kernel', 'image editor', 'database client', 'command line utility', 'audio player', 'font', 'java',
  'debug symbols', 'shared library', 'window manager', 'haskell', 'ruby', 'email client',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? NaN;
}
function median(sorted: number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[m] as number) : ((sorted[m - 1] as number) + (sorted[m] as number)) / 2;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function request(port: number, method: string, path: string, body: string | undefined, ct = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((res, rej) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: body === undefined ? {} : { 'content-type': ct, 'content-length': Buffer.byteLength(body) } }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => res({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', rej);
    req.end(body);
  });
}

async function startPortico(dataDir: string): Promise<{ port: number; pid: number; stop: () => Promise<void> }> {
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  const child = spawn(process.execPath, [cli, 'serve', '--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--log.level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res, rej) => {
    let buf = '';
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"search":(\d+)/.exec(buf);
      if (m) res(Number(m[1]));
    });
    child.on('exit', (code) => rej(new Error(`portico exited with ${code}`)));
  });
  return {
    port,
    pid: child.pid as number,
    stop: () => new Promise((res) => {
      child.on('exit', () => res());
      child.kill('SIGTERM');
    }),
  };
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface DepthStats {
  median_ms: number;
  p95_ms: number;
}

async function main(): Promise<void> {
  const lines = gunzipSync(readFileSync(corpus)).toString('utf8').split('\n').filter((l) => l.trim() !== '');
  const total = lines.length * copies;
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const server = await startPortico(dataDir);
  try {
    await request(server.port, 'PUT', '/packages', JSON.stringify({ settings: { number_of_replicas: 0 } }));
    const t0 = performance.now();
    const cpu0 = cpuSeconds(server.pid);
    let id = 0;
    for (let c = 0; c < copies; c++) {
      for (let i = 0; i < lines.length; i += batch) {
        let body = '';
        for (const l of lines.slice(i, i + batch)) body += `{"index":{"_id":"${id++}"}}\n${l}\n`;
        const r = await request(server.port, 'POST', '/packages/_bulk', body, 'application/x-ndjson');
        if (r.status !== 200 || r.text.includes('"errors":true')) throw new Error(`bulk failed: ${r.text.slice(0, 300)}`);
      }
    }
    const bulkSeconds = (performance.now() - t0) / 1000;
    const rate = total / bulkSeconds;
    // On a shared machine wall time depends on everyone else; server CPU time does not.
    const ratePerCpu = total / (cpuSeconds(server.pid) - cpu0);
    const floor: number[] = [];
    for (let i = 0; i < 100; i++) {
      const s = performance.now();
      await request(server.port, 'GET', '/', undefined);
      floor.push(performance.now() - s);
    }
    floor.sort((a, b) => a - b);
    const memAfterLoad = rssMiB(server.pid);

    const run = async (q: string, from: number) => {
      const r = await request(server.port, 'POST', `/packages/_search?from=${from}&size=10`, JSON.stringify({ query: { match: { description: q } } }));
      if (r.status !== 200) throw new Error(`search failed: ${r.text.slice(0, 300)}`);
    };
    // Warm up (JIT, scratch buffers) on every depth before measuring, as the references do.
    for (let r = 0; r < 2; r++) for (const from of DEPTHS) for (const q of QUERIES) await run(q, from);
    const portico: Record<number, DepthStats> = {};
    for (const from of DEPTHS) {
      const samples: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of QUERIES) {
          const s = performance.now();
          await run(q, from);
          samples.push(performance.now() - s);
        }
      }
      samples.sort((a, b) => a - b);
      portico[from] = { median_ms: median(samples), p95_ms: percentile(samples, 0.95) };
    }
    const memAfterQueries = rssMiB(server.pid);

    if (skipReferences) {
      console.log(`\n${total} documents: bulk ${Math.round(rate)} docs/s wall, ${Math.round(ratePerCpu)} docs per server CPU-second; RSS ${memAfterLoad.toFixed(0)} MiB after load, ${memAfterQueries.toFixed(0)} MiB after queries`);
      for (const from of DEPTHS) console.log(`from ${String(from).padStart(5)}: median ${(portico[from] as DepthStats).median_ms.toFixed(2)} ms, p95 ${(portico[from] as DepthStats).p95_ms.toFixed(2)} ms`);
      return;
    }
    // Xapian, in-process in Python.
    const xap = spawnSync('/usr/bin/python3', [join(root, 'bench', 'xapian-reference.py'), corpus, String(copies), String(rounds), JSON.stringify(QUERIES), JSON.stringify(DEPTHS)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (xap.status !== 0) throw new Error(`xapian reference failed (Debian package python3-xapian needed): ${xap.stderr}`);
    const xapian = JSON.parse(xap.stdout) as { index_docs_per_s: number; depths: Record<string, DepthStats> };

    // SQLite FTS5, in-process.
    const fts = new Database(':memory:');
    fts.exec("CREATE VIRTUAL TABLE docs USING fts5(description, source UNINDEXED, tokenize = 'unicode61')");
    const ins = fts.prepare('INSERT INTO docs (description, source) VALUES (?, ?)');
    const f0 = performance.now();
    fts.transaction(() => {
      for (let c = 0; c < copies; c++) for (const l of lines) ins.run((JSON.parse(l) as { description?: string }).description ?? '', l);
    })();
    const ftsRate = total / ((performance.now() - f0) / 1000);
    const sel = fts.prepare('SELECT source FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10 OFFSET ?');
    const ftsQuery = (q: string) => q.split(/\s+/).map((t) => `"${t}"`).join(' OR ');
    const ftsStats: Record<number, DepthStats> = {};
    for (const from of DEPTHS) {
      const samples: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of QUERIES) {
          const s = performance.now();
          sel.all(ftsQuery(q), from);
          samples.push(performance.now() - s);
        }
      }
      samples.sort((a, b) => a - b);
      ftsStats[from] = { median_ms: median(samples), p95_ms: percentile(samples, 0.95) };
    }
    fts.close();

    const fmt = (n: number) => n.toFixed(2).padStart(8);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`.padStart(7);
    console.log(`\nSearch benchmark: ${total} documents (${copies} × corpus), ${QUERIES.length} match queries × ${rounds} rounds per depth, size 10`);
    console.log(`bulk indexing over HTTP: ${Math.round(rate)} docs/s wall (${bulkSeconds.toFixed(1)} s; target ≥ 20000), ${Math.round(ratePerCpu)} docs per server CPU-second | Xapian in-process: ${Math.round(xapian.index_docs_per_s)} docs/s | FTS5 in-process: ${Math.round(ftsRate)} docs/s`);
    console.log(`HTTP floor (GET / round trip): median ${median(floor).toFixed(2)} ms, p95 ${percentile(floor, 0.95).toFixed(2)} ms; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    console.log(`Portico RSS: ${memAfterLoad.toFixed(0)} MiB after load, ${memAfterQueries.toFixed(0)} MiB after queries\n`);
    console.log('  from | Portico med   p95 | Xapian med   p95 | FTS5 med     p95 | vs Xapian med  p95 | vs FTS5 med  p95');
    for (const from of DEPTHS) {
      const p = portico[from] as DepthStats;
      const x = xapian.depths[String(from)] as DepthStats;
      const s = ftsStats[from] as DepthStats;
      console.log(
        `${String(from).padStart(6)} | ${fmt(p.median_ms)} ${fmt(p.p95_ms)} | ${fmt(x.median_ms)} ${fmt(x.p95_ms)} | ${fmt(s.median_ms)} ${fmt(s.p95_ms)} | ` +
          `${ratio(p.median_ms, x.median_ms)} ${ratio(p.p95_ms, x.p95_ms)} | ${ratio(p.median_ms, s.median_ms)} ${ratio(p.p95_ms, s.p95_ms)}`,
      );
    }
    console.log('\nlatencies in ms; Portico over HTTP (keep-alive), references in-process; target: Portico/Xapian ≤ 1.5x');
  } finally {
    await server.stop();
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
