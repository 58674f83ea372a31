/**
 * In-process probe of the phrase queries (not a test, not the HTTP benchmark):
 * `node --expose-gc --import tsx bench/search-phrase-probe.ts [--rounds 5] [--set bench|all] [--only TEXT] [--against DIR]`.
 *
 * Builds the search app as `portico serve` does (SQLite store on a temporary data dir, async
 * durability), loads the Debian corpus with the side-by-side mappings through `_bulk` with
 * `inject()` (fixed `_id`s), then for each request of the set prints its hit total and the best CPU
 * µs per request over `--rounds` rounds (each round runs the request 20 times; process.cpuUsage,
 * so a shared machine only adds time), then per group the mean of those bests and a checksum of
 * the group's response bodies (`took` blanked: total, ids, scores, sources). Two versions printing
 * the same checksums gave byte-identical answers. `--against DIR` (a checkout of another version,
 * with node_modules) loads that version too and times both, alternating, request by request: the
 * second figure is the other's; a response that differs between them is reported.
 *
 * Sets: `bench` (the default): the `match_phrase_prefix` requests of search-fuzzy-bench.ts;
 * `all`: those and other phrase requests whose answers must not change (match_phrase with and
 * without slop, phrase prefixes with slop and on two fields through multi_match, a phrase prefix
 * behind a `from` deep enough to count every match, highlights of phrase queries).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildVersionedApp, type SearchApp } from './versioned-search-app.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS } from '../test/search/differential/corpus.js';
import { FUZZY_CASES } from './search-fuzzy-cases.js';
import { corpusPath, fnv, opt, processCpuUs, readCorpus } from './search-workload.js';

const rounds = Number(opt('rounds', '5'));
const set = opt('set', 'bench');
/** Only the requests whose JSON holds this text (profiling one request). */
const only = opt('only', '');
/** A checkout of another version (its own src/): both are loaded and timed request by request, alternating (an A/B in one process). */
const other = opt('against', '');

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

type App = SearchApp;
const buildApp = buildVersionedApp;

async function main(): Promise<void> {
  const roots = other === '' ? [undefined] : [undefined, other];
  const dataDirs = roots.map(() => mkdtempSync(join(tmpdir(), 'portico-phrase-probe-')));
  const apps: App[] = [];
  for (const [k, root] of roots.entries()) apps.push(await buildApp(root, dataDirs[k] as string));
  // Without a listening socket nothing else holds the event loop while a bulk waits for the store's worker.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    const post = async (k: number, url: string, body: string, ct = 'application/json') => {
      const r = await (apps[k] as App).inject({ method: 'POST', url, payload: body, headers: { 'content-type': ct } });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return r.body;
    };
    const lines = readCorpus(corpusPath());
    for (const k of apps.keys()) {
      const created = await (apps[k] as App).inject({ method: 'PUT', url: '/debian', payload: JSON.stringify({ settings: INDEX_SETTINGS, mappings: DEBIAN_MAPPINGS }), headers: { 'content-type': 'application/json' } });
      if (created.statusCode !== 200) throw new Error(`create: ${created.body}`);
      for (let i = 0; i < lines.length; i += 5000) {
        let body = '';
        for (let d = i; d < Math.min(i + 5000, lines.length); d++) body += `{"index":{"_id":"${d}"}}\n${lines[d] as string}\n`;
        await post(k, '/debian/_bulk', body, 'application/x-ndjson');
      }
      await post(k, '/debian/_refresh', '{}');
    }
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    console.log(`loaded ${lines.length} documents${apps.length > 1 ? ' into each version' : ''}; RSS ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, array buffers ${(mem.arrayBuffers / 2 ** 20).toFixed(0)} MiB`);
    if (apps.length > 1) console.log(`best µs per request: this version / ${other}`);
    let all = 0x811c9dc5;
    for (const [name, bodies] of GROUPS) {
      let h = 0x811c9dc5;
      const sums = apps.map(() => 0);
      let n = 0;
      console.log(`-- ${name}`);
      for (const b of bodies) {
        const text = JSON.stringify(b);
        if (!text.includes(only)) continue;
        const answers = [];
        for (const k of apps.keys()) answers.push((await post(k, '/debian/_search', text)).replace(/^\{"took":\d+,/, '{'));
        const answer = answers[0] as string;
        if (answers.some((a) => a !== answer)) console.log(`   ${text}: the versions' responses differ`);
        h = fnv(h, answer);
        const total = (JSON.parse(answer) as { hits: { total: { value: number; relation: string } } }).hits.total;
        const best = apps.map(() => Infinity);
        for (let r = 0; r < rounds; r++) {
          // Alternating which version goes first: load that comes and goes falls on both.
          for (const k of r % 2 === 0 ? [...apps.keys()] : [...apps.keys()].reverse()) {
            const t0 = processCpuUs();
            for (let rep = 0; rep < 20; rep++) await post(k, '/debian/_search', text);
            best[k] = Math.min(best[k] as number, (processCpuUs() - t0) / 20);
          }
        }
        best.forEach((x, k) => (sums[k] = (sums[k] as number) + x));
        n++;
        console.log(`   ${text.length > 90 ? `${text.slice(0, 87)}...` : text.padEnd(90)} ${String(total.value).padStart(6)}${total.relation === 'eq' ? ' ' : '+'} ${best.map((x) => x.toFixed(0).padStart(7)).join(' /')} µs`);
      }
      all = fnv(all, h.toString());
      console.log(`   mean ${sums.map((x) => (x / n).toFixed(0)).join(' / ')} µs/request   checksum ${(h >>> 0).toString(16).padStart(8, '0')}`);
    }
    console.log(`all groups checksum ${(all >>> 0).toString(16).padStart(8, '0')}`);
  } finally {
    clearInterval(keepAlive);
    for (const app of apps) await app.close();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
