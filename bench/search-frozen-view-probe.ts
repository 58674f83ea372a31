/**
 * In-process probe of what taking a frozen view of an index costs (the refresh's view: the searcher
 * of open-contexts.ts, taken at the first write after a refresh), not a test:
 * `node --import tsx bench/search-frozen-view-probe.ts [--docs 63666] [--rounds 20] [--root DIR]`.
 *
 * Loads the Debian packages corpus (`--corpus FILE`, see bench/README.md) in `_bulk`s of 1,000, then
 * `--rounds` times: writes one document, times `InvertedIndex.frozenView` (what the first write
 * after a refresh costs), applies a `_bulk` of 1,000 overwrites with the view open and releases it
 * (the next refresh). Prints the best and median ms of the view, the terms the text and keyword
 * fields hold, and the CPU of the `_bulk`s, so that a change to the view is checked against the
 * write path too; then, with a view open over a `_bulk` of overwrites (what searches between two
 * refreshes read), the CPU of a set of searches on it (terms, a prefix and a fuzzy expansion, a
 * terms aggregation; best of the rounds), which read the term records through the view. `--root` points at
 * another checkout (A/B).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { corpusPath, opt, readCorpus, ROOT } from './search-workload.js';

const root = resolve(opt('root', ROOT));
const rounds = Number(opt('rounds', '20'));
const docs = Number(opt('docs', '63666'));

interface Index {
  frozenView(ids: Map<string, number>): unknown;
  releaseView(): void;
  text: Map<string, { postings: { termCount: number } }>;
  keyword: Map<string, { postings: { termCount: number } }>;
}
interface Service {
  createIndex(name: string, body: unknown): unknown;
  search(states: unknown[], request: unknown, now: number): unknown;
  bulkEach(actions: unknown, each: (item: unknown) => void): void;
  get(name: string): { index: Index };
  close(): void;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const { parseBulk } = (await import(join(root, 'src/search/requests/bulk.ts'))) as { parseBulk: (b: Buffer, index: string) => unknown[] };
  const { SqliteDocumentStore } = (await import(join(root, 'src/search/store/document-store.ts'))) as { SqliteDocumentStore: new (dir: string, d: string) => { close(): void } };
  const { SearchService } = (await import(join(root, 'src/search/engine/search-service.ts'))) as { SearchService: new (store: unknown, now: () => number) => Service };
  const { parseSearchRequest } = (await import(join(root, 'src/search/requests/search-request.ts'))) as { parseSearchRequest: (body: unknown, params: object) => unknown };
  const { renderJson } = (await import(join(root, 'src/search/http/json-render.ts'))) as { renderJson: (body: unknown, pretty: boolean, raw: boolean) => string };
  const lines = readCorpus(corpusPath()).slice(0, docs);
  const bulk = (from: number, to: number): Buffer => {
    let body = '';
    for (let i = from; i < to; i++) body += `{"index":{"_id":"${i}"}}\n${lines[i]}\n`;
    return Buffer.from(body);
  };
  const dir = mkdtempSync(join(tmpdir(), 'portico-view-probe-'));
  const store = new SqliteDocumentStore(dir, 'request');
  const service = new SearchService(store, Date.now);
  service.createIndex('packages', { settings: { refresh_interval: '-1' } });
  for (let i = 0; i < lines.length; i += 1000) service.bulkEach(parseBulk(bulk(i, Math.min(lines.length, i + 1000)), 'packages'), () => {});
  const index = (): Index => service.get('packages').index;
  const terms = (m: Map<string, { postings: { termCount: number } }>): number => [...m.values()].reduce((a, f) => a + f.postings.termCount, 0);
  const view: number[] = [];
  const bulkMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const one = r % lines.length;
    service.bulkEach(parseBulk(bulk(one, one + 1), 'packages'), () => {});
    // As near-real-time search does: the view is taken at the first write after a refresh, the
    // writes until the next refresh run with it open, the refresh releases it.
    let t = performance.now();
    index().frozenView(new Map());
    view.push(performance.now() - t);
    const from = (r * 1000) % Math.max(1, lines.length - 1000);
    const body = bulk(from, from + 1000);
    const c = process.cpuUsage();
    t = performance.now();
    service.bulkEach(parseBulk(body, 'packages'), () => {});
    const u = process.cpuUsage(c);
    bulkMs.push((u.user + u.system) / 1000);
    index().releaseView();
  }
  // Searches on the view of the last refresh, with a bulk of overwrites applied after it.
  const searches = [
    { query: { match: { description: 'library for the python programming language' } } },
    { query: { match: { description: { query: 'netwrok protcol', fuzziness: 'AUTO' } } } },
    { query: { prefix: { description: 'lib' } } },
    { query: { bool: { should: [{ match: { summary: 'game' } }, { match: { description: 'strategy' } }], filter: [{ term: { section: 'games' } }] } } },
    { size: 0, aggs: { m: { terms: { field: 'maintainer.keyword', size: 20 } } } },
  ].map((b) => parseSearchRequest(b, {}));
  service.bulkEach(parseBulk(bulk(0, 1), 'packages'), () => {});
  service.bulkEach(parseBulk(bulk(1000, 2000), 'packages'), () => {});
  const searchMs: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const c = process.cpuUsage();
    for (const q of searches) sink += renderJson(service.search([service.get('packages')], q, 0), false, true).length;
    const u = process.cpuUsage(c);
    searchMs.push((u.user + u.system) / 1000);
  }
  console.log(`${root}: ${lines.length} documents, ${terms(index().text)} text terms, ${terms(index().keyword)} keyword terms`);
  console.log(`frozenView after one write: best ${Math.min(...view).toFixed(3)} ms, median ${median(view).toFixed(3)} ms of ${rounds}`);
  console.log(`_bulk of 1,000 overwrites with the view open: CPU best ${Math.min(...bulkMs).toFixed(1)} ms, median ${median(bulkMs).toFixed(1)} ms of ${rounds}`);
  console.log(`${searches.length} searches on the view (a bulk of overwrites after it): CPU best ${Math.min(...searchMs).toFixed(1)} ms, median ${median(searchMs).toFixed(1)} ms of ${rounds} (${sink > 0 ? 'answered' : 'empty'})`);
  service.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
