/**
 * In-process probe of the phrase queries (not a test, not the HTTP benchmark):
 * `node --expose-gc --import tsx bench/search-phrase-probe.ts [--rounds 5] [--set bench|all] [--only TEXT]`.
 *
 * Builds the search app as `portico serve` does (SQLite store on a temporary data dir, async
 * durability), loads the Debian corpus with the side-by-side mappings through `_bulk` with
 * `inject()` (fixed `_id`s), then for each request of the set prints its hit total and the best CPU
 * µs per request over `--rounds` rounds (each round runs the request 20 times; process.cpuUsage,
 * so a shared machine only adds time), then per group the mean of those bests and a checksum of
 * the group's response bodies (`took` blanked: total, ids, scores, sources). Two versions printing
 * the same checksums gave byte-identical answers.
 *
 * Sets: `bench` (the default): the `match_phrase_prefix` requests of search-fuzzy-bench.ts;
 * `all`: those and other phrase requests whose answers must not change (match_phrase with and
 * without slop, phrase prefixes with slop and on two fields through multi_match, a phrase prefix
 * behind a `from` deep enough to count every match, highlights of phrase queries).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serveFlags } from '../src/flag-groups.js';
import { loadConfig } from '../src/config/load-config.js';
import { buildSearchApp } from '../src/search/app.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS } from '../test/search/differential/corpus.js';
import { FUZZY_CASES } from './search-fuzzy-cases.js';
import { corpusPath, fnv, opt, processCpuUs, readCorpus } from './search-workload.js';

const rounds = Number(opt('rounds', '5'));
const set = opt('set', 'bench');
/** Only the requests whose JSON holds this text (profiling one request). */
const only = opt('only', '');

const BENCH = (FUZZY_CASES.find(([name]) => name === 'match_phrase_prefix')?.[1] ?? []) as Record<string, unknown>[];
const PHRASES = ['python library', 'web server', 'development files', 'command line utility', 'shared library', 'the gnu', 'data for', 'header files', 'this package', 'of the'];

const GROUPS: [string, Record<string, unknown>[]][] = [
  ['match_phrase_prefix (bench)', BENCH],
  ...(set === 'all'
    ? ([
        ['match_phrase', PHRASES.map((t) => ({ query: { match_phrase: { description: t } } }))],
        ['match_phrase slop 2', PHRASES.slice(0, 6).map((t) => ({ query: { match_phrase: { description: { query: t, slop: 2 } } } }))],
        ['match_phrase_prefix slop 1', ['python lib', 'the gn', 'data fo', 'command line t'].map((t) => ({ query: { match_phrase_prefix: { description: { query: t, slop: 1 } } } }))],
        ['match_phrase_prefix max_expansions 200', ['development fi', 'the gn', 'header fi'].map((t) => ({ query: { match_phrase_prefix: { description: { query: t, max_expansions: 200 } } } }))],
        ['match_phrase_prefix 3+ terms', ['this package contains the', 'the gnu c lib', 'a set of to', 'this is a dummy tr'].map((t) => ({ query: { match_phrase_prefix: { description: t } } }))],
        ['match_phrase_prefix deep from', ['the gn', 'this pa'].map((t) => ({ from: 300, size: 20, query: { match_phrase_prefix: { description: t } } }))],
        ['multi_match phrase_prefix', ['python lib', 'the gn', 'web ser'].map((t) => ({ query: { multi_match: { query: t, type: 'phrase_prefix', fields: ['summary', 'description'] } } }))],
        ['multi_match phrase', ['python library', 'the gnu', 'web server'].map((t) => ({ query: { multi_match: { query: t, type: 'phrase', fields: ['summary^2', 'description'] } } }))],
        ['phrase highlight', ['python lib', 'the gn'].map((t) => ({ query: { match_phrase_prefix: { description: t } }, highlight: { fields: { description: {} } } }))],
        ['bool of phrases', [{ query: { bool: { should: [{ match_phrase_prefix: { description: 'the gn' } }, { match_phrase: { summary: 'python library' } }], filter: [{ term: { section: 'libs' } }] } } }]],
      ] as [string, Record<string, unknown>[]][])
    : []),
];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-phrase-probe-'));
  const config = loadConfig(serveFlags, { argv: ['--data.dir', dataDir, '--search.durability', 'async'], env: {}, readFile: () => '' });
  const app = await buildSearchApp(config, { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
  // Without a listening socket nothing else holds the event loop while a bulk waits for the store's worker.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const post = async (url: string, body: string, ct = 'application/json') => {
      const r = await app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': ct } });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return r.body;
    };
    const created = await app.inject({ method: 'PUT', url: '/debian', payload: JSON.stringify({ settings: INDEX_SETTINGS, mappings: DEBIAN_MAPPINGS }), headers: { 'content-type': 'application/json' } });
    if (created.statusCode !== 200) throw new Error(`create: ${created.body}`);
    const lines = readCorpus(corpusPath());
    for (let i = 0; i < lines.length; i += 5000) {
      let body = '';
      for (let k = i; k < Math.min(i + 5000, lines.length); k++) body += `{"index":{"_id":"${k}"}}\n${lines[k] as string}\n`;
      await post('/debian/_bulk', body, 'application/x-ndjson');
    }
    await post('/debian/_refresh', '{}');
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    console.log(`loaded ${lines.length} documents; RSS ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, array buffers ${(mem.arrayBuffers / 2 ** 20).toFixed(0)} MiB`);
    let all = 0x811c9dc5;
    for (const [name, bodies] of GROUPS) {
      let h = 0x811c9dc5;
      let sum = 0;
      let n = 0;
      console.log(`-- ${name}`);
      for (const b of bodies) {
        const text = JSON.stringify(b);
        if (!text.includes(only)) continue;
        const answer = (await post('/debian/_search', text)).replace(/^\{"took":\d+,/, '{');
        h = fnv(h, answer);
        const total = (JSON.parse(answer) as { hits: { total: { value: number; relation: string } } }).hits.total;
        let best = Infinity;
        for (let r = 0; r < rounds; r++) {
          const t0 = processCpuUs();
          for (let rep = 0; rep < 20; rep++) await post('/debian/_search', text);
          best = Math.min(best, (processCpuUs() - t0) / 20);
        }
        sum += best;
        n++;
        console.log(`   ${text.length > 90 ? `${text.slice(0, 87)}...` : text.padEnd(90)} ${String(total.value).padStart(6)}${total.relation === 'eq' ? ' ' : '+'} ${best.toFixed(0).padStart(7)} µs`);
      }
      all = fnv(all, h.toString());
      console.log(`   mean ${(sum / n).toFixed(0)} µs/request   checksum ${(h >>> 0).toString(16).padStart(8, '0')}`);
    }
    console.log(`all groups checksum ${(all >>> 0).toString(16).padStart(8, '0')}`);
  } finally {
    clearInterval(keepAlive);
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
