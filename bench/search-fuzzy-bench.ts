/**
 * Typo tolerance and prefix benchmark (not a test), run by `npm run bench:search` after the main
 * search benchmark, or alone: `npm run build && npx tsx bench/search-fuzzy-bench.ts [-- --rounds 10]`.
 *
 * Loads the Debian packages corpus (bench/README.md) into the built Portico (`dist/cli.js serve`)
 * and, after it has stopped, into the OpenSearch node of the differential tests
 * (test/search/opensearch-node.ts: Java 17 and Maven, 1 GiB heap), one server at a time, with the
 * same mappings, and sends each the same requests over HTTP on one keep-alive connection (undici):
 * `match` with `fuzziness: AUTO` on misspelled words, `prefix`, `wildcard`, `regexp`,
 * `match_phrase_prefix` and the `term` suggester. Prints each case's median and p95 per server and
 * the ratio Portico / OpenSearch of the medians; the target (issue 22) is at most 0.5 for each.
 * The totals of both are compared as a check that they answer the same requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { startOpenSearch } from '../test/search/opensearch-node.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS } from '../test/search/differential/corpus.js';
import { corpusPath, opt, readCorpus } from './search-workload.js';
import { startSearchServer } from './search-server.js';

const TYPOS = ['pyton', 'libary', 'dokumentation', 'kernal', 'grapical', 'utlity', 'databse', 'netwrok', 'editr', 'serer'];
const PREFIXES = ['pyth', 'lib', 'doc', 'kern', 'gra', 'util', 'datab', 'netw', 'edit', 'serv'];

/** The cases: a name and its request bodies. */
const CASES: [string, Record<string, unknown>[]][] = [
  ['match fuzziness AUTO', TYPOS.map((t) => ({ query: { match: { description: { query: t, fuzziness: 'AUTO' } } } }))],
  ['match 2 typos AUTO', TYPOS.slice(0, 5).map((t, i) => ({ query: { match: { description: { query: `${t} ${TYPOS[i + 5] as string}`, fuzziness: 'AUTO' } } } }))],
  ['fuzzy query', TYPOS.map((t) => ({ query: { fuzzy: { summary: { value: t } } } }))],
  ['prefix', PREFIXES.map((p) => ({ query: { prefix: { description: p } } }))],
  ['wildcard', ['pyth*n', 'li?rary', 'doc*ation', 'k*nel', 'gra*al', 'util*', 'dat?base', 'net*k', 'edi*', 'ser?er'].map((w) => ({ query: { wildcard: { description: w } } }))],
  ['regexp', ['pyth.n.*', 'lib[a-z]{3}', 'doc.*', 'kern(el|al)', 'gr.*cal', 'util.*', 'data(base)?', 'net.*', 'edit(or)?s?', 'serv.*'].map((r) => ({ query: { regexp: { description: r } } }))],
  ['match_phrase_prefix', ['python lib', 'development fi', 'shared lib', 'command line t', 'web ser', 'perl mod', 'header fi', 'java lib', 'the gn', 'data fo'].map((t) => ({ query: { match_phrase_prefix: { description: t } } }))],
  ['term suggester', TYPOS.map((t) => ({ size: 0, suggest: { s: { text: `${t} ${PREFIXES[0] as string}`, term: { field: 'description' } } } }))],
];

function client(url: string) {
  const c = new Client(url, { pipelining: 1, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });
  return {
    async call(method: 'GET' | 'POST' | 'PUT', path: string, body?: string, ct = 'application/json'): Promise<{ status: number; text: string }> {
      const res = await c.request({ method, path, body, headers: body === undefined ? {} : { 'content-type': ct } });
      return { status: res.statusCode, text: await res.body.text() };
    },
    close: () => c.close(),
  };
}

function startPortico(dataDir: string): ReturnType<typeof startSearchServer> {
  return startSearchServer(dataDir);
}

interface Timings {
  readonly perCase: Map<string, { median: number; p95: number; totals: number[] }>;
}

async function load(call: ReturnType<typeof client>['call'], lines: readonly string[]): Promise<void> {
  const created = await call('PUT', '/debian', JSON.stringify({ settings: INDEX_SETTINGS, mappings: DEBIAN_MAPPINGS }));
  if (created.status !== 200) throw new Error(`create: ${created.status} ${created.text}`);
  for (let i = 0; i < lines.length; i += 5_000) {
    let nd = '';
    for (const line of lines.slice(i, i + 5_000)) nd += `{"index":{}}\n${line}\n`;
    const res = await call('POST', '/debian/_bulk', nd, 'application/x-ndjson');
    if (res.status !== 200 || (JSON.parse(res.text) as { errors: boolean }).errors) throw new Error(`bulk: ${res.status} ${res.text.slice(0, 300)}`);
  }
  await call('POST', '/debian/_refresh');
}

async function measure(call: ReturnType<typeof client>['call'], rounds: number): Promise<Timings> {
  const perCase = new Map<string, { median: number; p95: number; totals: number[] }>();
  for (const [name, bodies] of CASES) {
    const totals: number[] = [];
    for (const b of bodies) {
      const res = await call('POST', '/debian/_search', JSON.stringify(b));
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 300)}`);
      const parsed = JSON.parse(res.text) as { hits: { total: { value: number } }; suggest?: { s: { options: unknown[] }[] } };
      totals.push(parsed.suggest === undefined ? parsed.hits.total.value : parsed.suggest.s.reduce((n, e) => n + e.options.length, 0));
    }
    // Warm-up: two rounds untimed.
    for (let r = 0; r < 2; r++) for (const b of bodies) await call('POST', '/debian/_search', JSON.stringify(b));
    const ms: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const b of bodies) {
        const t0 = process.hrtime.bigint();
        await call('POST', '/debian/_search', JSON.stringify(b));
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    ms.sort((a, b) => a - b);
    perCase.set(name, { median: ms[Math.floor(ms.length / 2)] as number, p95: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.95) - 1)] as number, totals });
  }
  return { perCase };
}

async function main(): Promise<void> {
  const rounds = Number(opt('rounds', '10'));
  const lines = readCorpus(corpusPath());
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-fuzzy-bench-'));
  let portico: Timings;
  const p = await startPortico(dataDir);
  try {
    const c = client(p.url);
    await load(c.call, lines);
    portico = await measure(c.call, rounds);
    await c.close();
  } finally {
    await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const os = await startOpenSearch({ heap: '1g', startTimeoutMs: 400_000 });
  let reference: Timings;
  try {
    const c = client(os.url);
    await load(c.call, lines);
    reference = await measure(c.call, rounds);
    await c.close();
  } finally {
    await os.stop();
  }
  console.log(`\nTypo tolerance and prefixes: ${lines.length} documents, ${rounds} rounds of 10 requests (5 for two typos) per case, one server at a time over HTTP`);
  console.log('case                     Portico median / p95 ms   OpenSearch median / p95 ms   ratio of medians (target ≤ 0.5)   same totals');
  for (const [name] of CASES) {
    const a = portico.perCase.get(name);
    const b = reference.perCase.get(name);
    if (a === undefined || b === undefined) continue;
    const same = a.totals.filter((t, i) => t === b.totals[i]).length;
    console.log(`${name.padEnd(24)} ${a.median.toFixed(2).padStart(8)} / ${a.p95.toFixed(2).padStart(7)}        ${b.median.toFixed(2).padStart(8)} / ${b.p95.toFixed(2).padStart(7)}           ${(a.median / b.median).toFixed(2).padStart(5)}${a.median / b.median <= 0.5 ? ' met' : ' MISSED'}                    ${same}/${a.totals.length}`);
  }
}

await main();
