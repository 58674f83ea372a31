/**
 * Server cost per request of two builds side by side, over real HTTP (not a test):
 * `node --import tsx bench/search-request-cost-probe.ts --a /tmp/dist-before --b dist [--rounds 5] [--requests 1000]`
 * `node --import tsx bench/search-request-cost-probe.ts --callgrind --a /tmp/dist-before --b dist [--requests 300]`
 *
 * `--a` and `--b` are directories holding a built `cli.js` (copy `dist/` aside before a change,
 * rebuild, compare), or `bare` for a bare `node:http` server (the floor; see BARE_SERVER). Both servers are started at once and loaded with the first `--docs` documents
 * of the corpus (default 2,000: the requests measured do little query work, a rare term or a page
 * past the last hit, so what is left is the per-request cost of HTTP, Fastify and the route). The
 * kind `_search 20 queries cycling from 0` sends the bench's queries in turn; with `--docs 63666`
 * (the whole corpus, loaded in bulks of 5,000) it is the bench's from-0 page.
 *
 * Default mode: CPU time of all the server's threads (schedstat) per request, one batch on A then
 * one on B for each kind and round, best round kept (a shared machine only ever adds time).
 * `--callgrind`: each server runs under `valgrind --tool=callgrind`; after a warm-up the counters
 * are zeroed (callgrind_control -z), a batch is sent, and the dump's instruction total divided by
 * the batch size is the instructions per request (stable under load, unlike time). Slow: keep
 * `--requests` to a few hundred.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'undici';
import { corpusPath, flag, opt, QUERIES, readCorpus, threadsCpuUs } from './search-workload.js';

const rounds = Number(opt('rounds', flag('callgrind') ? '1' : '5'));
const requests = Number(opt('requests', flag('callgrind') ? '300' : '1000'));
const warmup = Number(opt('warmup', flag('callgrind') ? '400' : '100'));
const docs = Number(opt('docs', '2000'));
const callgrind = flag('callgrind');
/** Keep each server's callgrind dumps in `<keep>/<A|B>/` for callgrind_annotate (default: removed). */
const keep = opt('keep', '');
/** Only the kinds whose name contains one of these comma-separated texts (e.g. `GET /,empty`). */
const only = opt('only', '').split(',');
/** Node flags for both servers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), from BENCH_SERVER_NODE_ARGS. */
const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

/**
 * `--a bare` (or `--b bare`): a bare `node:http` server that reads each request's body and answers
 * every request with the same fixed JSON body and headers. No Fastify app goes under its cost per
 * request: the difference to it is what Fastify and Portico's route code add.
 */
const BARE_SERVER = `
import { createServer } from 'node:http';
const body = Buffer.from('{"took":0,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":0,"relation":"eq"},"max_score":null,"hits":[]}}');
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'x-elastic-product': 'Elasticsearch', 'content-length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ listeners: { search: server.address().port } })));
`;

interface Server {
  readonly label: string;
  readonly child: ChildProcess;
  readonly client: Client;
  readonly dataDir: string;
  readonly outDir: string;
}

async function start(label: string, dist: string): Promise<Server> {
  const cli = dist === 'bare' ? '' : resolve(dist, 'cli.js');
  if (cli !== '' && !existsSync(cli)) throw new Error(`${cli} is missing (build, or copy dist/ aside first)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-cost-probe-'));
  const outDir = mkdtempSync(join(tmpdir(), 'portico-cost-cg-'));
  const serve = [cli, 'serve', '--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--search.durability', 'async', '--log.level', 'info'];
  const program = cli === '' ? ['--input-type=module', '-e', BARE_SERVER] : serve;
  const child = callgrind
    ? spawn('valgrind', ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${outDir}/cg.%p`, process.execPath, ...nodeArgs, ...program], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [...nodeArgs, ...program], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res, rej) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const m = /"search":(\d+)/.exec(line);
      if (m) res(Number(m[1]));
    });
    child.on('exit', (code) => rej(new Error(`${label} server exited with ${code}`)));
  });
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1, headersTimeout: 600_000, bodyTimeout: 600_000 });
  return { label, child, client, dataDir, outDir };
}

async function send(s: Server, method: 'GET' | 'HEAD' | 'POST' | 'PUT', path: string, body?: string, ct = 'application/json'): Promise<void> {
  // reset: false, or undici closes the connection after each HEAD (nodejs/undici#258) and the
  // batch would measure connection setup.
  const r = await s.client.request({ method, path, body, headers: body === undefined ? {} : { 'content-type': ct }, reset: false });
  await r.body.text();
}

async function load(s: Server, lines: readonly string[]): Promise<void> {
  await send(s, 'PUT', '/packages', '{}');
  // In bulks of 5,000, as the bench loads (one body of the whole corpus would pass the body limit).
  for (let at = 0; at < lines.length; at += 5000) {
    let body = '';
    lines.slice(at, at + 5000).forEach((l, i) => (body += `{"index":{"_id":"${at + i}"}}\n${l}\n`));
    await send(s, 'POST', '/packages/_bulk', body, 'application/x-ndjson');
  }
  await send(s, 'POST', '/packages/_refresh', '{}');
}

/**
 * Instructions counted since the last zeroing, dumped now (callgrind_control talks to the valgrind
 * gdbserver): the main thread's (the `-01` dump), where requests are served, and all threads'.
 * V8 compiles and marks on helper threads at times no two runs share, so the main thread's count
 * is the steadier figure.
 */
function dumpInstructions(s: Server): { main: number; all: number } {
  const pid = String(s.child.pid);
  const before = new Set(readdirSync(s.outDir));
  execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
  const files = readdirSync(s.outDir).filter((f) => !before.has(f));
  if (files.length === 0) throw new Error('callgrind wrote no dump');
  let main = 0;
  let all = 0;
  for (const file of files) {
    const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(s.outDir, file), 'utf8'));
    if (m === null) continue;
    all += Number(m[1]);
    if (file.endsWith('-01')) main += Number(m[1]);
  }
  return { main, all };
}

async function main(): Promise<void> {
  const lines = readCorpus(corpusPath()).slice(0, docs);
  const servers = [await start('A', opt('a', 'dist')), await start('B', opt('b', 'dist'))];
  const match = (q: string) => JSON.stringify({ query: { match: { description: q } } });
  const allKinds: [string, (s: Server) => Promise<void>][] = [
    ['GET /', (s) => send(s, 'GET', '/')],
    ['HEAD /', (s) => send(s, 'HEAD', '/')],
    ['_search ruby from 9990 (empty page)', (s) => send(s, 'POST', '/packages/_search?from=9990&size=10', match('ruby'))],
    ['_search ruby from 0', (s) => send(s, 'POST', '/packages/_search?from=0&size=10', match('ruby'))],
    // The benchmark's queries in its order, each server its own turn through them (with `--docs 63666`, the whole corpus: the bench's page).
    ['_search 20 queries cycling from 0', (s) => send(s, 'POST', '/packages/_search?from=0&size=10', match(QUERIES[(cycles.set(s, (cycles.get(s) ?? 0) + 1).get(s) as number) % QUERIES.length] as string))],
  ];
  const cycles = new Map<Server, number>();
  const kinds = allKinds.filter(([name]) => only.some((o) => name.includes(o)));
  try {
    for (const s of servers) await load(s, lines);
    const best = new Map<string, number>();
    for (let r = 0; r < rounds; r++) {
      for (const [name, run] of kinds) {
        // A then B, then B then A on the next round: neither always follows the other.
        for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
          for (let i = 0; i < warmup; i++) await run(s);
          const pid = s.child.pid as number;
          if (callgrind) execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
          const c0 = callgrind ? 0 : threadsCpuUs(pid);
          for (let i = 0; i < requests; i++) await run(s);
          const counts = callgrind ? dumpInstructions(s) : undefined;
          const per = counts === undefined ? (threadsCpuUs(pid) - c0) / requests : counts.main / requests;
          const key = `${name}\t${s.label}`;
          best.set(key, Math.min(best.get(key) ?? Infinity, per));
          if (counts !== undefined) best.set(`${key}\tall`, Math.min(best.get(`${key}\tall`) ?? Infinity, counts.all / requests));
        }
      }
    }
    const unit = callgrind ? 'main-thread instructions' : 'µs CPU';
    for (const [name] of kinds) {
      const a = best.get(`${name}\tA`) as number;
      const b = best.get(`${name}\tB`) as number;
      const fmt = (x: number) => (callgrind ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
      console.log(`${name}: A ${fmt(a)}, B ${fmt(b)} ${unit} per request (B/A ${(b / a).toFixed(3)}; best of ${rounds} x ${requests})`);
      const aAll = best.get(`${name}\tA\tall`);
      const bAll = best.get(`${name}\tB\tall`);
      if (aAll !== undefined && bAll !== undefined) console.log(`  all threads: A ${fmt(aAll)}, B ${fmt(bAll)} (B/A ${(bAll / aAll).toFixed(3)})`);
    }
  } finally {
    for (const s of servers) {
      await s.client.close();
      s.child.kill('SIGTERM');
      await new Promise((res) => s.child.once('exit', res));
      rmSync(s.dataDir, { recursive: true, force: true });
      if (keep !== '') execFileSync('cp', ['-r', s.outDir, join(keep, s.label)]);
      rmSync(s.outDir, { recursive: true, force: true });
    }
  }
}

await main();
