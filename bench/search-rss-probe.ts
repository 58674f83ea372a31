/**
 * Where the search server's resident memory goes, in the bench's situation (issue 21):
 * `npx tsx bench/search-rss-probe.ts [--rounds 20] [--heap-snapshot] [--gc]`, after `npm run build`.
 *
 * Starts `dist/cli.js serve` as bench/search-bench.ts does (search listener only, BENCH_SERVER_NODE_ARGS
 * passed on), with bench/rss-accounting.mjs preloaded, and loads the Debian corpus over `_bulk` the
 * same way (5,000 documents per request, one in flight, the next body built meanwhile). At the
 * bench's moments (idle, after the load, after the query rounds) it reads the server's RSS and
 * peak from /proc and asks the server (SIGUSR2) for its accounting: process.memoryUsage, V8's heap
 * spaces (size, used), /proc/self/smaps summed by mapping, and the largest anonymous mappings. `--gc` adds a reading after a full
 * collection (the server then runs with --expose-gc); `--heap-snapshot` writes a heap snapshot
 * with the last reading (the snapshot's own memory then pollutes later readings).
 */
import { readFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { startSearchServer } from './search-server.js';
import { corpusPath, DEPTHS, flag, opt, QUERIES, readCorpus, ROOT } from './search-workload.js';

const rounds = Number(opt('rounds', '20'));
const batch = Number(opt('batch', '5000'));
const out = opt('out', join(tmpdir(), `portico-rss-${process.pid}`));
const withGc = flag('gc');
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

function memMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
/** utime + stime of a process, ms (/proc/<pid>/stat keeps the CPU of threads that ended). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) * 10;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function account(pid: number, label: string, n: number): Promise<void> {
  process.kill(pid, 'SIGUSR2');
  const file = `${out}.${n}.json`;
  for (let i = 0; i < 600 && !existsSync(file); i++) await sleep(50);
  await sleep(100);
  const a = JSON.parse(readFileSync(file, 'utf8')) as {
    memoryUsage: Record<string, number>;
    spaces: Record<string, { size: number; used: number; physical: number }>;
    status: Record<string, string>;
    smaps: Record<string, number>;
    largestAnon: [string, number, number][];
    peak: Record<string, unknown>;
    gcs: Record<string, { count: number; ms: number }>;
  };
  const m = memMiB(pid);
  console.log(`\n== ${label}: RSS ${m.rss.toFixed(0)} MiB, peak ${m.peak.toFixed(0)} MiB (${a.status.RssAnon} anon, ${a.status.RssFile} file, ${a.status.Threads} threads)`);
  console.log(`  collections so far by kind (1 minor, 4 major, 8 incremental): ${JSON.stringify(a.gcs)}`);
  console.log(`  at the highest RSS sampled (every 50 ms) MiB: ${JSON.stringify(a.peak)}`);
  console.log(`  memoryUsage MiB: ${Object.entries(a.memoryUsage).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  V8 spaces size/used MiB: ${Object.entries(a.spaces).filter(([, s]) => s.size > 0.5).map(([k, s]) => `${k.replace('_space', '')} ${s.size}/${s.used}`).join(', ')}`);
  console.log(`  smaps RSS by mapping MiB: ${Object.entries(a.smaps).slice(0, 12).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  // [heap] is malloc's main arena (brk); 64 MiB-aligned mappings are other threads' arenas; the rest
  // are V8's pages and blocks malloc took with mmap (buffers above its threshold).
  console.log(`  largest anonymous mappings, size/resident MiB: ${a.largestAnon.slice(0, 10).map(([r, size, rss]) => `${r.split('-')[0]} ${size}/${rss}`).join(', ')}`);
}

async function main(): Promise<void> {
  const lines = readCorpus(corpusPath());
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-rss-'));
  const preload = join(ROOT, 'bench', 'rss-accounting.mjs');
  process.env.ACCT_OUT = out;
  if (withGc) process.env.ACCT_GC = '1';
  if (flag('heap-snapshot')) process.env.ACCT_SNAP = withGc ? '3' : '2';
  const server = await startSearchServer(dataDir, [...(withGc ? ['--expose-gc'] : []), '--import', preload, ...serverNodeArgs]);
  const client = new Client(server.url, { pipelining: 1 });
  const request = async (method: string, path: string, body?: string, type = 'application/json'): Promise<string> => {
    const r = await client.request({ method: method as 'GET', path, body, headers: body === undefined ? {} : { 'content-type': type } });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  let n = 0;
  try {
    await sleep(1000);
    await account(server.pid, 'idle', n++);
    await request('PUT', '/packages', JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
    let id = 0;
    const load0 = cpuMs(server.pid);
    const bodyAt = (i: number): string => {
      let body = '';
      for (let k = i; k < Math.min(i + batch, lines.length); k++) body += `{"index":{"_id":"${id++}"}}\n${lines[k] as string}\n`;
      return body;
    };
    let body = bodyAt(0);
    for (let i = 0; i < lines.length; i += batch) {
      const sent = request('POST', '/packages/_bulk', body, 'application/x-ndjson');
      const next = i + batch < lines.length ? bodyAt(i + batch) : '';
      const r = await sent;
      if (r.slice(0, 64).includes('"errors":true')) throw new Error(`bulk failed: ${r.slice(0, 200)}`);
      body = next;
    }
    const total = lines.length;
    lines.length = 0;
    console.log(`\nbulk: ${total} docs, server CPU ${((cpuMs(server.pid) - load0) / total * 1000).toFixed(1)} us/doc`);
    await account(server.pid, 'after load (the bench reads RSS here)', n++);
    await request('POST', '/packages/_refresh', '');
    const query0 = cpuMs(server.pid);
    for (let r = 0; r < rounds; r++) {
      for (const from of DEPTHS) {
        for (const q of QUERIES) await request('POST', `/packages/_search?from=${from}&size=10`, JSON.stringify({ query: { match: { description: q } } }));
      }
    }
    console.log(`\nqueries: server CPU ${(((cpuMs(server.pid) - query0) * 1000) / (rounds * DEPTHS.length * QUERIES.length)).toFixed(0)} us per _search`);
    await account(server.pid, `after ${rounds} query rounds (the bench reads RSS and peak here)`, n++);
    if (withGc) await account(server.pid, 'after a full collection', n++);
  } finally {
    await client.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
