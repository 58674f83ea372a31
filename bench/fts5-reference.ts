/**
 * SQLite FTS5 reference of the search benchmark, in a process of its own as the Xapian one is:
 * `node --import tsx bench/fts5-reference.ts [--corpus F] [--copies N]` (started by search-bench.ts).
 *
 * Why a process of its own: run inside the bench's process, FTS5's in-memory database and the
 * garbage of its rounds lived in the heap of the process that is also Portico's HTTP client, whose
 * collector then ran during Portico's timed requests. Each engine now times itself apart from the
 * others, and the client does nothing but send requests.
 *
 * Protocol (the same as bench/xapian-reference.py's): indexes the corpus in memory, warms up, then
 * prints one JSON line {"index_docs_per_s", "totals": [hits.total.value per query]}; then, for each
 * line {"from": N} read on stdin, runs every query once at that depth and prints {"samples": [ms per
 * query]}; exits at the end of stdin. Each query does a `_search`'s work: the page, the total counted
 * up to 10,000 (ES's default track_total_hits) and the response JSON with each hit's `_source`.
 */
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { corpusPath, DEPTHS, opt, QUERIES, readCorpus } from './search-workload.js';

const TRACK_TOTAL_HITS = 10_000;

function main(): void {
  const copies = Number(opt('copies', '1'));
  const fts = new Database(':memory:');
  fts.exec("CREATE VIRTUAL TABLE docs USING fts5(description, source UNINDEXED, tokenize = 'unicode61')");
  const ins = fts.prepare('INSERT INTO docs (rowid, description, source) VALUES (?, ?, ?)');
  let lines: string[] = readCorpus(corpusPath());
  const f0 = performance.now();
  let id = 0;
  fts.transaction(() => {
    for (let c = 0; c < copies; c++) for (const l of lines) ins.run(id++, (JSON.parse(l) as { description?: string }).description ?? '', l);
  })();
  const rate = (copies * lines.length) / ((performance.now() - f0) / 1000);
  lines = [];
  // The window count is computed over every match before LIMIT applies, so one pass gives the
  // page and the total; the stored source is joined for the page's rows only (sorting the
  // matches with their source attached measured slower than this).
  const page = fts
    .prepare(
      'SELECT p.id, p.s, d.source, p.n FROM (SELECT id, s, count(*) OVER () AS n FROM (SELECT rowid AS id, bm25(docs) AS s FROM docs WHERE docs MATCH ?) ' +
        'ORDER BY s LIMIT ? OFFSET ?) p JOIN docs d ON d.rowid = p.id ORDER BY p.s',
    )
    .raw(true);
  const count = fts.prepare('SELECT count(*) FROM docs WHERE docs MATCH ?').pluck();
  const ftsQuery = (q: string) => q.split(/\s+/).map((t) => `"${t}"`).join(' OR ');
  const run = (q: string, from: number): { value: number; body: string } => {
    const rows = page.all(ftsQuery(q), 10, from) as [number, number, string, number][];
    // Past the last match the page is empty and so is the window: count separately.
    const total = rows[0]?.[3] ?? (count.get(ftsQuery(q)) as number);
    const hits = rows.map((r) => `{"_index":"packages","_id":"${r[0]}","_score":${-r[1]},"_source":${r[2]}}`).join(',');
    const value = Math.min(total, TRACK_TOTAL_HITS);
    const body = `{"took":0,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":${value},"relation":"${total > TRACK_TOTAL_HITS ? 'gte' : 'eq'}"},"max_score":${rows[0] !== undefined ? -rows[0][1] : null},"hits":[${hits}]}}`;
    return { value, body };
  };
  const totals = QUERIES.map((q) => run(q, 0).value);
  for (let r = 0; r < 2; r++) for (const from of DEPTHS) for (const q of QUERIES) run(q, from);
  process.stdout.write(`${JSON.stringify({ index_docs_per_s: rate, totals })}\n`);

  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    const { from } = JSON.parse(line) as { from: number };
    const samples: number[] = [];
    for (const q of QUERIES) {
      const s = performance.now();
      run(q, from);
      samples.push(performance.now() - s);
    }
    process.stdout.write(`${JSON.stringify({ samples })}\n`);
  });
  input.on('close', () => fts.close());
}

main();
