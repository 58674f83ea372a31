/**
 * In-process probe of the typo-tolerance, prefix, highlight and aggregation cases (not a test, not
 * the HTTP benchmark): `node --expose-gc --import tsx bench/search-fuzzy-probe.ts [--rounds 5]
 * [--case NAME] [--set fuzzy|aggs|all]` (`fuzzy`, the default: FUZZY_CASES; `aggs`: AGG_CASES).
 *
 * Builds the search app as `portico serve` does (SQLite store on a temporary data dir, async
 * durability), loads the Debian corpus with the mappings of the side-by-side tests through `_bulk`
 * with `inject()` (no sockets), then for each case of the set (or only those whose name contains
 * one of the comma-separated parts of `--case`):
 *
 * - a checksum of every response body (`took` blanked): two versions printing the same checksum
 *   gave byte-identical answers to the case's requests;
 * - the best CPU µs per request over `--rounds` rounds of 5 passes over the case's requests (50
 *   passes for a one-request case; a shared machine only ever adds time).
 *
 * Run it under `node --cpu-prof --cpu-prof-dir=/tmp/prof ...` to profile one case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serveFlags } from '../src/flag-groups.js';
import { loadConfig } from '../src/config/load-config.js';
import { buildSearchApp } from '../src/search/app.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS } from '../test/search/differential/corpus.js';
import { AGG_CASES, FUZZY_CASES } from './search-fuzzy-cases.js';
import { corpusPath, fnv, opt, processCpuUs, readCorpus } from './search-workload.js';

const rounds = Number(opt('rounds', '5'));
const only = opt('case', '');
/** Which cases: `fuzzy` (the default), `aggs`, or `all`. */
const which = opt('set', 'fuzzy');
const CASES = which === 'aggs' ? AGG_CASES : which === 'all' ? [...FUZZY_CASES, ...AGG_CASES] : FUZZY_CASES;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-fuzzy-probe-'));
  const config = loadConfig(serveFlags, { argv: ['--data.dir', dataDir, '--search.durability', 'async'], env: {}, readFile: () => '' });
  const app = await buildSearchApp(config, { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
  // Without a listening socket nothing else holds the event loop while a large bulk waits for the
  // document store's worker (its port is unref'd): the process would exit (code 13) mid-load.
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
    for (const [name, bodies] of CASES) {
      if (!only.split(',').some((c) => name.includes(c))) continue;
      const texts = bodies.map((b) => JSON.stringify(b));
      let h = 0x811c9dc5;
      for (const t of texts) h = fnv(h, (await post('/debian/_search', t)).replace(/^\{"took":\d+,/, '{'));
      all = fnv(all, h.toString());
      let best = Infinity;
      // At least 50 requests a round: a one-request case (the aggregations over every document) too.
      const passes = Math.max(5, Math.ceil(50 / texts.length));
      for (let r = 0; r < rounds; r++) {
        const t0 = processCpuUs();
        for (let rep = 0; rep < passes; rep++) for (const t of texts) await post('/debian/_search', t);
        best = Math.min(best, (processCpuUs() - t0) / (passes * texts.length));
      }
      console.log(`${name.padEnd(24)} best ${best.toFixed(0).padStart(7)} µs/request   checksum ${(h >>> 0).toString(16).padStart(8, '0')}`);
    }
    console.log(`all cases checksum ${(all >>> 0).toString(16).padStart(8, '0')}`);
  } finally {
    clearInterval(keepAlive);
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
