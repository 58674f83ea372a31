/**
 * In-process probe of the `_search` path (not a test, not the HTTP benchmark):
 * `node --expose-gc --import tsx bench/search-query-probe.ts [--copies 1] [--rounds 5] [--depths 0,100,1000,9990] [--per-query] [--skip-checksum] [--skip-timing]`.
 *
 * Builds the search app as `portico serve` does (SQLite store on a temporary data dir, async
 * durability), loads the Debian corpus through `_bulk` with `inject()` (no sockets), then:
 *
 * - `query checksum`: hashes the response body (with `took` blanked) of every QUERY at every depth of
 *   the benchmark plus variants that take the other paths of the search phase (track_total_hits true
 *   and false, size 0, a page past the end, `and`, minimum_should_match, sort by `_score`, `q=`,
 *   `_source` filtering, rest_total_hits_as_int, two indices). Two versions printing the same
 *   checksum gave byte-identical answers to all of them.
 * - timing: the benchmark's workload (20 queries × from 0, 100, 1,000, 9,990, size 10) through
 *   `inject()` for `--rounds` rounds, and prints the process's CPU per request and depth of the
 *   best round (a shared machine only ever adds time). `inject()` skips the socket and the HTTP
 *   parser, so this is the route, the query and the response, not the GET / floor.
 *
 * `--against <dir>` (a checkout of another version with its own package.json and tsconfig.json)
 * instead builds that version's search app next to this one's in the same process, loads the same
 * documents into both, and times the benchmark's queries at `--depths` on both, alternating
 * batches of `--reps` requests (default 5) for `--batches` rounds (default 15): each query's best
 * CPU µs per request for both, the median over the queries and the median per-query ratio
 * (this / other), and any query whose responses differ (`took` aside). Host noise moves such a
 * pair much less than two runs of the probe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildVersionedApp, type SearchApp } from './versioned-search-app.js';
import { corpusPath, DEPTHS, flag, fnv, opt, processCpuUs, QUERIES, readCorpus } from './search-workload.js';

const copies = Number(opt('copies', '1'));
const rounds = Number(opt('rounds', '5'));
/** `--depths 9990` or `--depths 0,100`: time only these depths (e.g. to profile one). */
const depths = opt('depths', DEPTHS.join(',')).split(',').map(Number);

const cpuUs = processCpuUs;

type App = SearchApp;
const buildApp = buildVersionedApp;

/** The `--against` A/B: this version (A) and the one in `dir` (B), same documents, alternating. */
async function against(dir: string): Promise<void> {
  const dataDirs = [mkdtempSync(join(tmpdir(), 'portico-query-ab-')), mkdtempSync(join(tmpdir(), 'portico-query-ab-'))];
  const apps = [await buildApp(undefined, dataDirs[0] as string), await buildApp(dir, dataDirs[1] as string)];
  try {
    const lines = readCorpus(corpusPath());
    const post = async (k: number, url: string, body: string, ct = 'application/json') => {
      const r = await (apps[k] as App).inject({ method: 'POST', url, payload: body, headers: { 'content-type': ct } });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return r.body;
    };
    for (const k of [0, 1]) {
      await (apps[k] as App).inject({ method: 'PUT', url: '/packages', payload: '{}', headers: { 'content-type': 'application/json' } });
      let id = 0;
      for (let c = 0; c < copies; c++) {
        for (let i = 0; i < lines.length; i += 5000) {
          let body = '';
          for (const l of lines.slice(i, i + 5000)) body += `{"index":{"_id":"${id++}"}}\n${l}\n`;
          await post(k, '/packages/_bulk', body, 'application/x-ndjson');
        }
      }
      // Searches see the index as of its last refresh (as in ES).
      await post(k, '/packages/_refresh', '{}', 'application/json');
    }
    const reps = Number(opt('reps', '5'));
    const batches = Number(opt('batches', '15'));
    const bodies = QUERIES.map((q) => JSON.stringify({ query: { match: { description: q } } }));
    const median = (xs: readonly number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
    };
    for (const from of depths) {
      const url = `/packages/_search?from=${from}&size=10`;
      for (const [i, b] of bodies.entries()) {
        const [x, y] = [await post(0, url, b), await post(1, url, b)];
        if (x.replace(/^\{"took":\d+,/, '{') !== y.replace(/^\{"took":\d+,/, '{')) console.log(`from ${from} ${QUERIES[i] as string}: responses differ`);
      }
      for (let w = 0; w < 3; w++) for (const b of bodies) for (const k of [0, 1]) await post(k, url, b);
      const best = [bodies.map(() => Infinity), bodies.map(() => Infinity)];
      for (let bt = 0; bt < batches; bt++) {
        for (const [qi, b] of bodies.entries()) {
          for (const k of bt % 2 === 0 ? [0, 1] : [1, 0]) {
            const t0 = cpuUs();
            for (let r = 0; r < reps; r++) await post(k, url, b);
            const us = (cpuUs() - t0) / reps;
            const row = best[k] as number[];
            if (us < (row[qi] as number)) row[qi] = us;
          }
        }
      }
      const [a, o] = best as [number[], number[]];
      console.log(`from ${from} best µs per _search (this/other): ${QUERIES.map((q, i) => `${q} ${(a[i] as number).toFixed(0)}/${(o[i] as number).toFixed(0)}`).join(', ')}`);
      console.log(`from ${from}: median over queries ${median(a).toFixed(0)} / ${median(o).toFixed(0)} µs, median per-query ratio this/other ${median(a.map((x, i) => x / (o[i] as number))).toFixed(3)}`);
    }
  } finally {
    for (const app of apps) await app.close();
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const otherDir = opt('against', '');
  if (otherDir !== '') {
    await against(otherDir);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-query-probe-'));
  const app = await buildApp(undefined, dataDir);
  try {
    const lines = readCorpus(corpusPath());
    const post = async (url: string, body: string, ct = 'application/json') => {
      const r = await app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': ct } });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
      return r.body;
    };
    await app.inject({ method: 'PUT', url: '/packages', payload: '{}', headers: { 'content-type': 'application/json' } });
    await app.inject({ method: 'PUT', url: '/small', payload: '{}', headers: { 'content-type': 'application/json' } });
    let id = 0;
    for (let c = 0; c < copies; c++) {
      for (let i = 0; i < lines.length; i += 5000) {
        let body = '';
        for (const l of lines.slice(i, i + 5000)) body += `{"index":{"_id":"${id++}"}}\n${l}\n`;
        await post('/packages/_bulk', body, 'application/x-ndjson');
      }
    }
    // A second, small index (and a few deletes in the big one) for the multi-index and liveness paths.
    let small = '';
    for (let i = 0; i < 3000; i++) small += `{"index":{"_id":"s${i}"}}\n${lines[(i * 7) % lines.length] as string}\n`;
    for (let i = 0; i < 200; i++) small += `{"delete":{"_index":"packages","_id":"${i * 13}"}}\n`;
    await post('/small/_bulk?refresh=true', small, 'application/x-ndjson');
    console.log(`loaded ${id} documents (+3,000 in a second index, 200 deleted)`);

    if (!flag('skip-checksum')) {
      let h = 0x811c9dc5;
      let n = 0;
      const check = async (url: string, body: unknown) => {
        const text = await post(url, JSON.stringify(body));
        h = fnv(h, url);
        h = fnv(h, text.replace(/^\{"took":\d+,/, '{'));
        n++;
      };
      for (const q of QUERIES) {
        const match = { query: { match: { description: q } } };
        for (const from of DEPTHS) await check(`/packages/_search?from=${from}&size=10`, match);
        for (const from of [0, 5, 9_990]) await check(`/packages/_search?from=${from}&size=10&track_total_hits=true`, match);
        await check('/packages/_search?from=0&size=10&track_total_hits=false', match);
        await check('/packages/_search?from=0&size=10&track_total_hits=100', match);
        await check('/packages/_search?from=200&size=30&track_total_hits=150', match);
        await check('/packages/_search?size=0', match);
        await check('/packages/_search?from=9999&size=1', match);
        await check('/packages/_search?from=1000&size=0', match);
        await check('/packages/_search?from=0&size=10', { ...match, _source: ['package', 'version'] });
        await check('/packages/_search?from=0&size=10&rest_total_hits_as_int=true', match);
        await check('/packages/_search', { query: { match: { description: { query: q, operator: 'and' } } } });
        await check('/packages/_search', { query: { match: { description: { query: q, minimum_should_match: 2 } } } });
        await check('/packages/_search?from=500&size=10', { ...match, sort: ['_score'] });
        await check('/packages/_search?from=20&size=10', { ...match, sort: [{ _score: 'desc' }], track_scores: true });
        await check(`/packages/_search?q=${encodeURIComponent(q)}&from=30&size=10`, {});
        await check('/packages,small/_search?from=0&size=10', match);
        await check('/packages,small/_search?from=9990&size=10', match);
        await check('/small/_search?from=0&size=20&track_total_hits=true', match);
      }
      console.log(`query checksum ${(h >>> 0).toString(16).padStart(8, '0')} over ${n} responses`);
    }

    if (!flag('skip-timing')) {
      const bodies = QUERIES.map((q) => JSON.stringify({ query: { match: { description: q } } }));
      const best = new Map<number, number>();
      for (let r = 0; r < rounds; r++) {
        const row: string[] = [];
        for (const from of depths) {
          const url = `/packages/_search?from=${from}&size=10`;
          const t0 = cpuUs();
          for (let rep = 0; rep < 5; rep++) for (const b of bodies) await post(url, b);
          const us = (cpuUs() - t0) / (5 * bodies.length);
          best.set(from, Math.min(best.get(from) ?? Infinity, us));
          row.push(`from ${from}: ${us.toFixed(0)} µs`);
        }
        console.log(`round ${r + 1}: ${row.join(', ')}`);
      }
      let floor = Infinity;
      for (let r = 0; r < rounds; r++) {
        const t0 = cpuUs();
        for (let i = 0; i < 200; i++) await app.inject({ method: 'GET', url: '/' });
        floor = Math.min(floor, (cpuUs() - t0) / 200);
      }
      console.log(`floor (GET / through inject): ${floor.toFixed(0)} µs`);
      if (flag('per-query')) {
        for (const from of depths) {
          const row: string[] = [];
          for (const [i, b] of bodies.entries()) {
            let q = Infinity;
            for (let r = 0; r < rounds; r++) {
              const t0 = cpuUs();
              for (let rep = 0; rep < 10; rep++) await post(`/packages/_search?from=${from}&size=10`, b);
              q = Math.min(q, (cpuUs() - t0) / 10);
            }
            row.push(`${QUERIES[i] as string} ${q.toFixed(0)}`);
          }
          console.log(`from ${from} best µs per query: ${row.join(', ')}`);
        }
      }
      console.log(`best CPU per _search: ${depths.map((d) => `from ${d} ${(best.get(d) ?? NaN).toFixed(0)} µs`).join(', ')}`);
    }
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The store's writer thread is unref'd (it never keeps a server up), and inject() holds no socket:
// without a handle of its own the process would exit while a bulk waits for the writer's commit.
const keepAlive = setInterval(() => undefined, 1 << 30);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
