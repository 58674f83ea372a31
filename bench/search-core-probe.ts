/**
 * In-process probe of the indexing core alone (not a test, not the HTTP benchmark):
 * `node --expose-gc --import tsx bench/search-core-probe.ts [--repeat 5] [--limit N] [--copies 1] [--skip-checksum] [--batch N]`.
 *
 * Parses the corpus' JSON texts once, outside the measurement, then runs what `SearchService.write`
 * does in memory for every document, `parseDocument` (with dynamic mapping) and `InvertedIndex.add`,
 * into a fresh index per run, and prints the main thread's CPU per document of each run and of
 * the best one (a shared machine only ever adds time). No store, no bulk parsing, no response: those
 * belong to the request path (search-bench.ts and search-index-probe.ts measure the whole).
 *
 * `--batch N` brackets every N documents with InvertedIndex.beginBatch/endBatch, as `_bulk` does
 * per request (text postings appended term by term per batch); the checksum must not change.
 *
 * `index checksum` hashes everything the index holds that a query can see (terms and their ids,
 * postings with frequencies, per-term score bounds, norms, statistics, keyword values per
 * document, numeric values, the dynamic mapping): two versions of the core that print the same
 * checksum built the same index.
 */
import { readFileSync } from 'node:fs';
import type { ParsedDoc } from '../src/search/mapping/document-parser.js';
import { parseDocument } from '../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../src/search/index/inverted-index.js';
import { Mappings } from '../src/search/mapping/mapping.js';
import { corpusPath, flag, opt, readCorpus } from './search-workload.js';

const gc = (globalThis as { gc?: () => void }).gc;
/** CPU microseconds of the main thread alone (GC helper threads excluded; 10 ms ticks). */
const mainCpuUs = (): number => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const processCpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const mib = (n: number): string => (n / 1024 / 1024).toFixed(0);

function indexChecksum(index: InvertedIndex, mappings: Mappings): string {
  let h = 0x811c9dc5;
  const n = (x: number): void => {
    h = Math.imul(h ^ (x | 0), 0x01000193);
    h = Math.imul(h ^ Math.floor(x / 2 ** 32), 0x01000193);
  };
  const s = (t: string): void => {
    n(t.length);
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  };
  s(JSON.stringify(mappings.toJSON()));
  n(index.maxOrd);
  n(index.liveCount);
  for (const [path, f] of [...index.text].sort(([a], [b]) => (a < b ? -1 : 1))) {
    s(path);
    n(f.docCount);
    n(f.sumTotalTermFreq);
    for (let d = 0; d < index.maxOrd; d++) {
      n(f.norms[d] ?? 0);
      n(f.present[d] ?? 0);
    }
    n(f.terms.size);
    for (const [term, id] of f.terms.entries()) {
      s(term);
      n(id);
      if (f.lookup(term) !== id) throw new Error(`text ${path}: lookup(${term}) != ${id}`);
      n(f.postings.docFreq(id));
      n(f.postings.maxFreq(id));
      n(f.postings.minNorm(id));
      for (const p of f.postings.postings(id)) {
        n(p);
        n(f.postings.freqOf(id, p));
      }
    }
  }
  for (const [path, f] of [...index.keyword].sort(([a], [b]) => (a < b ? -1 : 1))) {
    s(path);
    n(f.docCount);
    n(f.sumDocFreq);
    const terms = [...f.terms.entries()].sort(([, a], [, b]) => a - b);
    n(terms.length);
    for (const [term, id] of terms) {
      s(term);
      n(id);
      if (f.lookup(term) !== id) throw new Error(`keyword ${path}: lookup(${term}) != ${id}`);
      n(f.postings.docFreq(id));
      for (const p of f.postings.postings(id)) n(p);
    }
    for (let d = 0; d < index.maxOrd; d++) {
      const vals = f.valuesOf(d);
      n(vals === undefined ? -1 : vals.length);
      for (const v of vals ?? []) s(v);
    }
  }
  for (const [path, f] of [...index.numeric].sort(([a], [b]) => (a < b ? -1 : 1))) {
    s(path);
    for (let d = 0; d < index.maxOrd; d++) for (const v of f.valuesOf(d)) n(v);
  }
  return (h >>> 0).toString(16);
}

function main(): void {
  const limit = Number(opt('limit', 'Infinity'));
  const copies = Number(opt('copies', '1'));
  const repeat = Number(opt('repeat', '5'));
  const batch = Number(opt('batch', '0'));
  const sources = readCorpus(corpusPath())
    .slice(0, limit)
    .map((l) => JSON.parse(l) as unknown);
  const total = sources.length * copies;
  let best = Infinity;
  let index = new InvertedIndex();
  let mappings = Mappings.empty();
  for (let r = 0; r < repeat; r++) {
    index = new InvertedIndex();
    mappings = Mappings.empty();
    gc?.();
    const m0 = mainCpuUs();
    const p0 = processCpuUs();
    let id = 0;
    for (let c = 0; c < copies; c++) {
      for (const source of sources) {
        const docId = String(id++);
        const parsed: { doc: ParsedDoc; mappings: Mappings } = parseDocument(source, mappings, docId);
        mappings = parsed.mappings;
        if (batch > 0 && id % batch === 1) index.beginBatch();
        index.add(docId, parsed.doc);
        if (batch > 0 && id % batch === 0) index.endBatch();
      }
    }
    if (batch > 0) index.endBatch();
    const main = (mainCpuUs() - m0) / total;
    const proc = (processCpuUs() - p0) / total;
    best = Math.min(best, main);
    console.log(`run ${r + 1}: main thread ${main.toFixed(2)} us/doc, process ${proc.toFixed(2)} us/doc`);
  }
  sources.length = 0;
  gc?.();
  const m = process.memoryUsage();
  console.log(`best: main thread ${best.toFixed(2)} us/doc over ${total} docs`);
  console.log(`memory with the index: rss ${mib(m.rss)} MiB, heapUsed ${mib(m.heapUsed)} MiB, external+arrayBuffers ${mib(m.external + m.arrayBuffers)} MiB`);
  if (!flag('skip-checksum')) console.log(`index checksum ${indexChecksum(index, mappings)}`);
}

main();
