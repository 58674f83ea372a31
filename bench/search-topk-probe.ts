/**
 * In-process probe of the query core of `_search` (not a test): `node --import tsx bench/search-topk-probe.ts
 * [--copies 1] [--rounds 5] [--depths 0,100,1000,9990] [--per-query]`.
 *
 * Indexes the corpus in memory (parseDocument + InvertedIndex.add, as search-core-probe.ts does;
 * no store, no HTTP), then runs the search phase (runSearch, with stored sources served from the
 * parsed corpus' own JSON text) for the benchmark's match queries at its depths, size 10, and prints
 * the best round's CPU per search by depth. `topk checksum` hashes every rendered response (with
 * `took` blanked) at every depth plus `track_total_hits` true, false and 100, and a second copy of the
 * index for the multi-index merge: two versions printing the same checksum answered alike.
 *
 * `--against <dir>` (a checkout of another version, e.g. `git worktree add /tmp/base HEAD~1`, with
 * its own package.json and tsconfig.json so tsx compiles it alike) times that version's runSearch
 * and this one's in the same process on the same index, alternating batches of `--reps` searches
 * (default 20) per query and depth, and prints each query's best µs per search for both, the
 * median over the queries and the median per-query ratio (this / other): an A/B that host noise
 * moves much less than two runs of the probe. It also reports any query whose rendered responses
 * differ. The other version must read this version's index (same posting store and fields).
 */
import { parseDocument, type ParsedDoc } from '../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../src/search/index/inverted-index.js';
import { renderJson } from '../src/search/http/json-render.js';
import { Mappings } from '../src/search/mapping/mapping.js';
import type { ScratchArena } from '../src/search/query/scratch-arena.js';
import { runSearch, type SearchEnv } from '../src/search/engine/search-phase.js';
import { parseSearchRequest } from '../src/search/requests/search-request.js';
import { newIndexState, type IndexState } from '../src/search/engine/index-state.js';
import { parseSettings } from '../src/search/engine/index-settings.js';
import { resolve } from 'node:path';
import { corpusPath, DEPTHS, flag, fnv, opt, processCpuUs, QUERIES, readCorpus } from './search-workload.js';

const copies = Number(opt('copies', '1'));
const rounds = Number(opt('rounds', '5'));
const depths = opt('depths', DEPTHS.join(',')).split(',').map(Number);

const cpuUs = processCpuUs;

function buildState(name: string, lines: readonly string[]): { state: IndexState; sources: Map<string, string> } {
  const index = new InvertedIndex();
  let mappings = Mappings.empty();
  const sources = new Map<string, string>();
  let id = 0;
  for (let c = 0; c < copies; c++) {
    for (const line of lines) {
      const docId = String(id++);
      const parsed: { doc: ParsedDoc; mappings: Mappings } = parseDocument(JSON.parse(line) as unknown, mappings, docId);
      mappings = parsed.mappings;
      index.add(docId, parsed.doc);
      sources.set(docId, line);
    }
  }
  const state = newIndexState(name, name, 0, parseSettings({}), mappings, [{ index, versions: [], seqNos: [], nextSeqNo: 0 }]);
  return { state, sources };
}

/** The A/B of `--against`: best µs per search of this version (A) and the other (B), per query. */
async function against(dir: string, state: IndexState, env: SearchEnv): Promise<void> {
  const other = (await import(resolve(dir, 'src/search/engine/search-phase.ts'))) as { runSearch: typeof runSearch };
  // Its own renderer: hits are its own RawJson class.
  const otherRender = (await import(resolve(dir, 'src/search/http/json-render.ts'))) as { renderJson: typeof renderJson };
  const otherArena = (await import(resolve(dir, 'src/search/query/scratch-arena.ts'))) as { ScratchArena: new () => ScratchArena };
  const stateB: IndexState = { ...state, arena: new otherArena.ScratchArena() };
  // The probe's env finds sources by state object.
  const envB: SearchEnv = { ...env, sourceText: (s, id) => env.sourceText(s === stateB ? state : s, id) };
  const reps = Number(opt('reps', '20'));
  const batches = Number(opt('batches', '15'));
  const run = [
    (body: unknown, params: Record<string, string>) => renderJson(runSearch([state], parseSearchRequest(body, params), 0, env), false, true),
    (body: unknown, params: Record<string, string>) => otherRender.renderJson(other.runSearch([stateB], parseSearchRequest(body, params), 0, envB), false, true),
  ] as const;
  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? (s[s.length >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
  };
  for (const from of depths) {
    const params = { from: String(from), size: '10' };
    const bodies = QUERIES.map((q) => ({ query: { match: { description: q } } }));
    for (const [i, b] of bodies.entries()) {
      const ra = run[0](b, params);
      const rb = run[1](b, params);
      if (ra !== rb) console.log(`from ${from} ${QUERIES[i] as string}: responses differ`);
    }
    for (let w = 0; w < 5; w++) for (const b of bodies) for (const f of run) f(b, params);
    const best = [bodies.map(() => Infinity), bodies.map(() => Infinity)];
    for (let bt = 0; bt < batches; bt++) {
      for (const [qi, b] of bodies.entries()) {
        // Alternate which version goes first, so neither always runs right after the other's garbage.
        for (const k of bt % 2 === 0 ? [0, 1] : [1, 0]) {
          const t0 = cpuUs();
          for (let r = 0; r < reps; r++) (run[k] as (typeof run)[0])(b, params);
          const us = (cpuUs() - t0) / reps;
          const row = best[k] as number[];
          if (us < (row[qi] as number)) row[qi] = us;
        }
      }
    }
    const [a, b] = best as [number[], number[]];
    console.log(`from ${from} best µs per search (this/other): ${QUERIES.map((q, i) => `${q} ${(a[i] as number).toFixed(1)}/${(b[i] as number).toFixed(1)}`).join(', ')}`);
    console.log(`from ${from}: median over queries ${median(a).toFixed(1)} / ${median(b).toFixed(1)} µs, median per-query ratio this/other ${median(a.map((x, i) => x / (b[i] as number))).toFixed(3)}`);
  }
}

async function main(): Promise<void> {
  const lines = readCorpus(corpusPath());
  const a = buildState('packages', lines);
  const b = buildState('other', lines.slice(0, 5000));
  const sources = new Map([[a.state, a.sources], [b.state, b.sources]]);
  const env: SearchEnv = {
    ctx: (state) => {
      state.arena.reset();
      return { arena: state.arena, indexName: state.name, index: state.index, mappings: state.mappings, sourceOf: () => ({}) };
    },
    sourceText: (state, id) => sources.get(state)?.get(id) ?? '{}',
    now: () => 0,
  };
  const search = (states: IndexState[], body: unknown, params: Record<string, string>): string =>
    renderJson(runSearch(states, parseSearchRequest(body, params), 0, env), false, true);
  console.log(`indexed ${a.state.index.liveCount} documents`);

  let h = 0x811c9dc5;
  let n = 0;
  for (const q of QUERIES) {
    const body = { query: { match: { description: q } } };
    for (const from of [...DEPTHS, 5, 37, 300, 2_000, 5_000, 9_989]) {
      for (const tth of [undefined, 'true', 'false', '100']) {
        const params: Record<string, string> = { from: String(from), size: '10' };
        if (tth !== undefined) params.track_total_hits = tth;
        h = fnv(h, search([a.state], body, params));
        n++;
      }
    }
    h = fnv(h, search([a.state, b.state], body, { from: '0', size: '10' }));
    h = fnv(h, search([a.state, b.state], body, { from: '990', size: '10' }));
    h = fnv(h, search([a.state], body, { from: '0', size: '0' }));
    n += 3;
  }
  console.log(`topk checksum ${(h >>> 0).toString(16).padStart(8, '0')} over ${n} responses`);
  const otherDir = opt('against', '');
  if (otherDir !== '') {
    await against(otherDir, a.state, env);
    return;
  }

  const best = new Map<number, number>();
  const perQuery = new Map<string, number>();
  for (let r = 0; r < rounds; r++) {
    const row: string[] = [];
    for (const from of depths) {
      const params = { from: String(from), size: '10' };
      const t0 = cpuUs();
      for (let rep = 0; rep < 5; rep++) {
        for (const q of QUERIES) {
          const q0 = flag('per-query') ? cpuUs() : 0;
          search([a.state], { query: { match: { description: q } } }, params);
          if (flag('per-query')) {
            const key = `${from} ${q}`;
            perQuery.set(key, Math.min(perQuery.get(key) ?? Infinity, cpuUs() - q0));
          }
        }
      }
      const us = (cpuUs() - t0) / (5 * QUERIES.length);
      best.set(from, Math.min(best.get(from) ?? Infinity, us));
      row.push(`from ${from}: ${us.toFixed(0)} µs`);
    }
    console.log(`round ${r + 1}: ${row.join(', ')}`);
  }
  if (flag('per-query')) {
    for (const from of depths) console.log(`from ${from}: ${QUERIES.map((q) => `${q} ${perQuery.get(`${from} ${q}`) ?? NaN}`).join(', ')}`);
  }
  console.log(`best CPU per search: ${depths.map((d) => `from ${d} ${(best.get(d) ?? NaN).toFixed(0)} µs`).join(', ')}`);
}

await main();
