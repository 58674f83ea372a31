/**
 * Server CPU per `_search` request over real HTTP, next to the GET / floor (not a test):
 * `npm run build && node --import tsx bench/search-http-probe.ts [--rounds 5] [--requests 2000]`.
 *
 * Starts the built Portico like search-bench.ts, loads the corpus, then sends requests one at a
 * time on one keep-alive connection (undici) and reads the server's CPU time from /proc before and
 * after each batch: GET /, and `_search` requests whose query work is small (a rare term, a page
 * past the last hit), so that what is left is the per-request cost of the route (body, parsing,
 * response). Prints the best round per kind (a shared machine only ever adds time).
 * BENCH_SERVER_NODE_ARGS passes Node flags to the server, as for search-bench.ts.
 *
 * The kinds `_search 20 queries cycling from 0` (and from 100, from 9990) send the benchmark's
 * queries at that depth in its order (each request another query, as search-bench.ts does), where the previous query's
 * data has left the caches; for it the median wall time per request of the best round is printed
 * too. `--cli <path>` runs another build (e.g. a checkout of an earlier commit) for an A/B.
 * `--only <texts>` keeps the kinds whose name contains one of the comma-separated texts (e.g.
 * `--only 'GET /,cycling from 0'`), so that a CPU profile of the server holds those requests alone
 * (besides the load).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'undici';
import { corpusPath, opt, QUERIES, readCorpus, ROOT, threadsCpuUs } from './search-workload.js';

const rounds = Number(opt('rounds', '5'));
const requests = Number(opt('requests', '2000'));
const only = opt('only', '').split(',');
/** Node flags for the server process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), from BENCH_SERVER_NODE_ARGS. */
const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

async function main(): Promise<void> {
  const cli = opt('cli', join(ROOT, 'dist', 'cli.js'));
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-http-probe-'));
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--search.durability', 'async', '--log.level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res, rej) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      const m = /"search":(\d+)/.exec(line);
      if (m) res(Number(m[1]));
    });
    child.on('exit', (code) => rej(new Error(`server exited with ${code}`)));
  });
  const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
  const request = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: string, ct = 'application/json'): Promise<string> => {
    const r = await client.request({ method, path, body, headers: body === undefined ? {} : { 'content-type': ct } });
    return r.body.text();
  };
  try {
    await request('PUT', '/packages', '{}');
    const lines = readCorpus(corpusPath());
    let id = 0;
    for (let i = 0; i < lines.length; i += 5000) {
      let body = '';
      for (const l of lines.slice(i, i + 5000)) body += `{"index":{"_id":"${id++}"}}\n${l}\n`;
      await request('POST', '/packages/_bulk', body, 'application/x-ndjson');
    }
    // Searches see the index as of its last refresh (as in ES).
    await request('POST', '/packages/_refresh', '{}', 'application/json');
    const match = (q: string) => JSON.stringify({ query: { match: { description: q } } });
    const kinds: [string, () => Promise<string>][] = [
      ['GET /', () => request('GET', '/')],
      ['_search ruby from 9990 (empty page)', () => request('POST', '/packages/_search?from=9990&size=10', match('ruby'))],
      ['_search ruby size 0', () => request('POST', '/packages/_search?size=0', match('ruby'))],
      ['_search ruby _source false', () => request('POST', '/packages/_search?from=0&size=10&_source=false', match('ruby'))],
      ['_search ruby from 0', () => request('POST', '/packages/_search?from=0&size=10', match('ruby'))],
      ['_search 20 queries cycling from 0', () => request('POST', '/packages/_search?from=0&size=10', match(QUERIES[cycle++ % QUERIES.length] as string))],
      ['_search 20 queries cycling from 100', () => request('POST', '/packages/_search?from=100&size=10', match(QUERIES[cycle++ % QUERIES.length] as string))],
      ['_search 20 queries cycling from 9990', () => request('POST', '/packages/_search?from=9990&size=10', match(QUERIES[cycle++ % QUERIES.length] as string))],
    ];
    const chosen = kinds.filter(([name]) => only.some((o) => name.includes(o)));
    let cycle = 0;
    const wallMedian = new Map<string, number>();
    const best = new Map<string, number>();
    for (let r = 0; r < rounds; r++) {
      for (const [name, send] of chosen) {
        for (let i = 0; i < 50; i++) await send();
        const walls = new Float64Array(requests);
        const c0 = threadsCpuUs(child.pid as number);
        for (let i = 0; i < requests; i++) {
          const t0 = performance.now();
          await send();
          walls[i] = performance.now() - t0;
        }
        const us = (threadsCpuUs(child.pid as number) - c0) / requests;
        if (us < (best.get(name) ?? Infinity)) {
          best.set(name, us);
          walls.sort();
          wallMedian.set(name, walls[requests >> 1] as number);
        }
      }
    }
    for (const [name, us] of best) console.log(`${name}: server CPU ${us.toFixed(0)} µs per request (best of ${rounds}), median wall ${((wallMedian.get(name) ?? NaN) * 1000).toFixed(0)} µs`);
  } finally {
    await client.close();
    child.kill('SIGTERM');
    await new Promise((res) => child.once('exit', res));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
