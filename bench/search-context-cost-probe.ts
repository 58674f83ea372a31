/**
 * What one scroll and one point in time cost over an index of N documents (not a test):
 * `node --expose-gc --max-old-space-size=8000 --import tsx bench/search-context-cost-probe.ts --docs 1000000 --field description --q "python library"`.
 *
 * Builds an in-memory index of `--docs` corpus documents (repeated as needed; no store), then for
 * a few queries: the CPU of the search that begins a scroll (every hit selected) against the same
 * search as a plain page, and the heap the scroll keeps (its hit columns); and the CPU, wall time
 * and heap of the copy a point in time takes of the index at the first write after it opened
 * (open-contexts.ts). Second reader's measurement of s-scroll (2026-11-23, 1M docs: scroll start
 * 0.9-1.1 s CPU against 65-117 ms for a page; the copy 3.6 s CPU, 13 s wall on the shared machine,
 * 354 MiB kept for a 547 MiB index).
 */
import { parseDocument } from '../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../src/search/index/inverted-index.js';
import { Mappings } from '../src/search/mapping/mapping.js';
import { parseSettings } from '../src/search/engine/index-settings.js';
import { runSearch, type Candidate } from '../src/search/engine/search-phase.js';
import { parseSearchRequest } from '../src/search/requests/search-request.js';
import { SearchContexts } from '../src/search/engine/open-contexts.js';
import { sortColumnsOf } from '../src/search/engine/scroll-hits.js';
import { execute } from '../src/search/query/query-exec.js';
import { newIndexState, type IndexState } from '../src/search/engine/index-state.js';
import { corpusPath, opt, readCorpus } from './search-workload.js';

const gc = (globalThis as { gc?: () => void }).gc as () => void;
const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);
const heap = (): number => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
const target = Number(opt('docs', '1000000'));
const sources = readCorpus(corpusPath()).map((l) => JSON.parse(l) as unknown);
const index = new InvertedIndex();
let mappings = Mappings.empty();
const t0 = Date.now();
for (let id = 0; id < target; id++) {
  const parsed = parseDocument(sources[id % sources.length], mappings, String(id));
  mappings = parsed.mappings;
  index.add(String(id), parsed.doc);
}
sources.length = 0;
console.log(`indexed ${target} docs in ${Date.now() - t0} ms`);
const h0 = heap();
console.log(`heap+arrayBuffers with the index: ${mib(h0)} MiB`);
const state: IndexState = newIndexState('i', 'u', 0, parseSettings(undefined), mappings, [{ index, versions: new Array(target).fill(1), seqNos: new Array(target).fill(0), nextSeqNo: target }]);
const env = {
  ctx: (s: IndexState) => ({ arena: s.arena, indexName: s.name, index: s.index, mappings: s.mappings, sourceOf: () => ({}), now: () => 0 }),
  sourceText: () => '{}',
  now: () => 0,
};
for (const [label, body] of [['match_all', {}], ['match', { query: { match: { [opt('field', 'title')]: opt('q', 'the') } } }], ['sort _doc', { sort: ['_doc'] }]] as const) {
  const req = { ...parseSearchRequest(body, {}), trackTotalHits: Infinity };
  let page: readonly Candidate[] = [];
  const hb = heap();
  const c0 = process.cpuUsage();
  runSearch([state], req, 0, env, (all) => { page = all; });
  const c1 = process.cpuUsage(c0);
  const n = page.length;
  let pg: readonly Candidate[] | undefined = page;
  page = [];
  let kept: unknown = { s: new Uint32Array(n), o: new Int32Array(n), sc: new Float64Array(n), sv: sortColumnsOf(n, (i) => pg?.[i]?.sortValues) };
  let perHit: unknown = pg[0]?.sortValues === undefined ? undefined : pg.map((c) => c.sortValues);
  pg = undefined;
  const h1 = heap();
  perHit = undefined;
  const h2 = heap();
  kept = undefined;
  const h3 = heap();
  void kept; void perHit;
  console.log(`scroll start (${label}): ${n} hits, cpu ${((c1.user + c1.system) / 1000).toFixed(0)} ms, kept (columns) ${mib(h2 - h3)} MiB, per-hit sort arrays would add ${mib(h1 - h2)} MiB; other growth ${mib(h3 - hb)} MiB`);
  const c2 = process.cpuUsage();
  runSearch([state], { ...parseSearchRequest(body, {}) }, 0, env);
  const c3 = process.cpuUsage(c2);
  console.log(`  plain search same query: cpu ${((c3.user + c3.system) / 1000).toFixed(0)} ms`);
}
void execute;
// Point in time: the copy taken at the first write after it opened.
const contexts = new SearchContexts();
const hb = heap();
contexts.openPit([state], 60_000, 0);
const c0 = process.cpuUsage();
const w0 = Date.now();
contexts.beforeWrite(state, undefined, () => undefined);
const c1 = process.cpuUsage(c0);
console.log(`pit copy at first write: wall ${Date.now() - w0} ms, cpu ${((c1.user + c1.system) / 1000).toFixed(0)} ms, retained ${mib(heap() - hb)} MiB`);
