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
 */
import { parseDocument, type ParsedDoc } from '../src/search/document-parser.js';
import { InvertedIndex } from '../src/search/inverted-index.js';
import { renderJson } from '../src/search/json-render.js';
import { Mappings } from '../src/search/mapping.js';
import { ScratchArena } from '../src/search/scratch-arena.js';
import { runSearch, type SearchEnv } from '../src/search/search-phase.js';
import { parseSearchRequest } from '../src/search/search-request.js';
import type { IndexState } from '../src/search/search-service.js';
import { parseSettings } from '../src/search/index-settings.js';
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
  const state = { name, uuid: name, createdMs: 0, settings: parseSettings({}), mappings, index, versions: [], seqNos: [], nextSeqNo: 0, arena: new ScratchArena() } satisfies IndexState;
  return { state, sources };
}

function main(): void {
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

main();
