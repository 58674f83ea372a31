/**
 * Aggregation benchmark (not a test), side by side with OpenSearch: `npm run build && npx tsx
 * bench/search-aggs-bench.ts [-- --agg-rounds 50]`, alone (`npm run bench:search` times the same kinds of
 * aggregation in search-fuzzy-bench.ts, one server at a time, with the side-by-side mappings).
 *
 * Starts the built Portico (`dist/cli.js serve`, temporary data dir) and the OpenSearch node of the
 * differential suite (test/search/opensearch-node.ts, heap 1 GiB, one shard), loads the whole
 * Debian corpus (63,666 documents, dynamic mappings: `section.keyword`, `priority.keyword`,
 * `installed_size` long) into both through `_bulk`, then times aggregation requests over HTTP
 * with `size: 0` (one keep-alive connection each, fetch): a `terms` on section and on priority
 * over every document, a `terms` with an `avg` sub-aggregation, a `histogram`, a `terms` under a
 * `match` query, and `stats`. The two servers take turns request by request, so that load on the
 * shared machine weighs on both; each case first checks that both answer the same buckets.
 * Prints median and p95 per case and the ratio Portico/OpenSearch. Targets: the `terms` over the
 * whole corpus under 20 ms median, and Portico at most half of OpenSearch's median in every case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startOpenSearch } from '../test/search/opensearch-node.js';
import { corpusPath, opt, readCorpus } from './search-workload.js';
import { startSearchServer } from './search-server.js';

interface Server {
  readonly name: string;
  call(method: string, path: string, body?: string, ct?: string): Promise<{ status: number; text: string }>;
}

function httpServer(name: string, url: string): Server {
  return {
    name,
    async call(method, path, body, ct = 'application/json') {
      const res = await fetch(url + path, { method, body, headers: body === undefined ? {} : { 'content-type': ct } });
      return { status: res.status, text: await res.text() };
    },
  };
}

function startPortico(dataDir: string): ReturnType<typeof startSearchServer> {
  return startSearchServer(dataDir);
}

const CASES: [string, Record<string, unknown>][] = [
  ['terms section (all docs)', { size: 0, aggs: { s: { terms: { field: 'section.keyword', size: 10 } } } }],
  ['terms priority (all docs)', { size: 0, aggs: { s: { terms: { field: 'priority.keyword' } } } }],
  ['terms section + avg', { size: 0, aggs: { s: { terms: { field: 'section.keyword', size: 20 }, aggs: { a: { avg: { field: 'installed_size' } } } } } }],
  ['histogram installed_size', { size: 0, aggs: { h: { histogram: { field: 'installed_size', interval: 10_000, min_doc_count: 1 } } } }],
  ['match "library" + terms', { size: 0, query: { match: { description: 'library' } }, aggs: { s: { terms: { field: 'section.keyword' } } } }],
  ['stats installed_size', { size: 0, aggs: { s: { stats: { field: 'installed_size' } } } }],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function load(server: Server, lines: readonly string[]): Promise<void> {
  const put = await server.call('PUT', '/packages', JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } }));
  if (put.status !== 200) throw new Error(`${server.name}: create failed: ${put.text.slice(0, 300)}`);
  for (let i = 0; i < lines.length; i += 5000) {
    let body = '';
    for (let k = i; k < Math.min(i + 5000, lines.length); k++) body += `{"index":{"_id":"${k}"}}\n${lines[k] as string}\n`;
    const r = await server.call('POST', '/packages/_bulk', body, 'application/x-ndjson');
    if (r.status !== 200 || r.text.startsWith('{"errors":true')) throw new Error(`${server.name}: bulk failed: ${r.text.slice(0, 300)}`);
  }
  await server.call('POST', '/packages/_refresh');
  await server.call('POST', '/packages/_forcemerge?max_num_segments=1');
}

/** Runs the aggregation cases against Portico and OpenSearch and prints the table; true when every target is met. */
export async function aggregationBench(rounds = Number(opt('agg-rounds', '50'))): Promise<boolean> {
  const lines = readCorpus(corpusPath());
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-aggs-bench-'));
  const portico = await startPortico(dataDir);
  const node = await startOpenSearch({ heap: '1g', startTimeoutMs: 300_000 });
  const servers = [httpServer('Portico', portico.url), httpServer('OpenSearch', node.url)];
  try {
    for (const s of servers) await load(s, lines);
    console.log(`\nAggregation benchmark: ${lines.length} documents, ${rounds} rounds per case, size 0, over HTTP; the servers take turns`);
    console.log('case                        | Portico median   p95 | OpenSearch median   p95 | ratio median   p95 | target');
    let met = true;
    for (const [name, body] of CASES) {
      const text = JSON.stringify(body);
      const answers = await Promise.all(servers.map((s) => s.call('POST', '/packages/_search', text)));
      const aggs = answers.map((a) => (JSON.parse(a.text) as { aggregations?: unknown }).aggregations);
      const same = isDeepStrictEqual(aggs[0], aggs[1]);
      const times: number[][] = [[], []];
      for (let r = 0; r < rounds + 5; r++) {
        for (const [i, s] of servers.entries()) {
          const t = performance.now();
          const res = await s.call('POST', '/packages/_search', text);
          if (res.status !== 200) throw new Error(`${s.name} ${name}: ${res.text.slice(0, 300)}`);
          if (r >= 5) times[i]?.push(performance.now() - t);
        }
      }
      const [p, o] = times.map((t) => t.sort((a, b) => a - b)) as [number[], number[]];
      const pm = percentile(p, 0.5);
      const om = percentile(o, 0.5);
      const ok = pm <= om / 2 && (!name.startsWith('terms section (all') || pm < 20);
      met &&= ok && same;
      const f = (v: number) => v.toFixed(2).padStart(7);
      console.log(
        `${name.padEnd(27)} | ${f(pm)} ${f(percentile(p, 0.95))} | ${f(om)} ${f(percentile(o, 0.95))} | ${(pm / om).toFixed(2).padStart(6)}x ${(percentile(p, 0.95) / percentile(o, 0.95)).toFixed(2).padStart(5)}x | ${ok ? 'met' : 'NOT met'}${same ? '' : ' (aggregations differ)'}`,
      );
    }
    return met;
  } finally {
    await node.stop();
    await portico.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  aggregationBench().then(
    (met) => console.log(met ? 'every aggregation target met' : 'some aggregation targets NOT met'),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
