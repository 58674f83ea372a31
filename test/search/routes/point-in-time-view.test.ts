import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../../src/search/app.js';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { injectJson, searchConfig } from '../harness.js';

// A point in time searches a frozen view of the index (InvertedIndex.frozenView): the live set,
// field statistics and per-term records copied at the first write after it opened, everything else
// shared with the live index. Each test records the answers of many query kinds when the point in
// time opens, then writes in one particular way (new documents with new terms, updates, deletes,
// re-created ids, new fields, keyword values, bulk) and expects the point in time to give exactly
// the same answers (ids, order, scores, totals, sort values, sources, versions) while plain searches
// see the writes.

let app: FastifyInstance;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-pit-view-'));
  app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

const call = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown) => injectJson<Body>(app, method, url, body);

async function ok(method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<Body> {
  const res = await call(method, url, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

const WORDS = ['red', 'fox', 'dog', 'blue', 'lazy', 'quick', 'brown', 'cat'];

function doc(i: number): Record<string, unknown> {
  const words = Array.from({ length: 1 + (i % 5) }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]);
  return { text: words.join(' '), n: i % 17, k: `k${i % 4}`, tags: [`t${i % 3}`, `t${i % 5}`], gen: i };
}

/** Query bodies covering every read path a view must pin (match top-k, deep pages, keyword terms, doc values, ids, exists). */
const QUERIES: Record<string, unknown>[] = [
  { query: { match: { text: 'red fox' } }, size: 1000 },
  { query: { match: { text: 'red' } }, size: 3 },
  { query: { match: { text: 'red' } }, from: 200, size: 10 },
  { query: { match: { text: 'lazy cat' } }, from: 5, size: 4 },
  { query: { match: { text: { query: 'quick brown dog', operator: 'and' } } }, size: 1000 },
  { query: { match_phrase: { text: 'quick brown' } }, size: 1000 },
  { query: { match: { text: 'zebra' } } },
  { query: { match: { text: 'red w1999' } }, size: 3, track_total_hits: true },
  { query: { match: { text: { query: 'red w1999', operator: 'and' } } } },
  { query: { term: { k: 'new1999' } } },
  { query: { prefix: { k: 'new19' } }, size: 1000 },
  { query: { term: { k: 'k1' } }, size: 1000 },
  { query: { terms: { tags: ['t1', 't4'] } }, size: 1000 },
  { query: { prefix: { k: 'k' } }, size: 1000 },
  { query: { range: { n: { gte: 5, lt: 12 } } }, size: 1000 },
  { query: { exists: { field: 'extra' } }, size: 1000 },
  { query: { exists: { field: 'n' } }, size: 1000 },
  { query: { ids: { values: ['d1', 'd3', 'd5', 'd8', 'fresh1'] } }, size: 1000 },
  { query: { match_all: {} }, sort: [{ n: 'asc' }, { k: 'desc' }], size: 1000 },
  { query: { match_all: {} }, sort: [{ tags: 'desc' }, '_doc'], size: 1000 },
  { query: { bool: { should: [{ match: { text: 'cat' } }, { term: { k: 'k2' } }], filter: [{ range: { n: { lte: 10 } } }] } }, size: 1000 },
  { query: { multi_match: { query: 'blue dog', fields: ['text', 'k'] } }, size: 1000 },
  { query: { match: { text: 'blue' } }, size: 0, track_total_hits: true },
];

async function seed(count: number): Promise<void> {
  await ok('PUT', '/r', { mappings: { properties: { text: { type: 'text' }, n: { type: 'long' }, k: { type: 'keyword' }, tags: { type: 'keyword' }, gen: { type: 'long' } } } });
  let body = '';
  for (let i = 0; i < count; i++) body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify(doc(i))}\n`;
  expect((await ok('POST', '/r/_bulk?refresh=true', body)).errors).toBe(false);
}

type Answer = { total: unknown; maxScore: unknown; hits: unknown[] };

async function answers(pit?: string): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const q of QUERIES) {
    const body = pit === undefined ? q : { ...q, pit: { id: pit, keep_alive: '5m' } };
    const res = await ok('POST', pit === undefined ? '/r/_search?version=true' : '/_search?version=true', body);
    // A search over a point in time adds the implicit tiebreaker to sorted searches.
    const hits = (res.hits.hits as Body[]).map((h) => (pit === undefined || h.sort === undefined || q.sort === undefined ? h : { ...h, sort: (h.sort as unknown[]).slice(0, -1) }));
    out.push({ total: res.hits.total, maxScore: res.hits.max_score, hits });
  }
  return out;
}

/** Opens a point in time over a seeded index, runs `writes`, and expects the point in time's answers to be those at the open. */
async function expectFrozen(writes: () => Promise<void>, seeded = 300): Promise<void> {
  await seed(seeded);
  const before = await answers();
  const pit = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
  expect(await answers(pit)).toEqual(before);
  await writes();
  await ok('POST', '/r/_refresh');
  const now = await answers();
  // The writes must have changed what a plain search sees, or the test proves nothing.
  expect(now).not.toEqual(before);
  const got = await answers(pit);
  for (let i = 0; i < QUERIES.length; i++) expect(got[i], JSON.stringify(QUERIES[i])).toEqual(before[i]);
}

describe('a point in time over a written index', () => {
  it('ignores new documents, their new terms and new keyword values', async () => {
    await expectFrozen(async () => {
      let body = '';
      for (let i = 0; i < 40; i++) body += `{"index":{"_id":"fresh${i}"}}\n${JSON.stringify({ ...doc(i + 1000), text: `zebra red fox ${WORDS[i % 8]}`, k: `new${i}`, tags: ['t1', `n${i}`] })}\n`;
      await ok('POST', '/r/_bulk', body);
      await ok('PUT', '/r/_doc/fresh99', { text: 'red red red zebra', n: 3, k: 'k1', tags: ['t4'] });
      // Thousands of new terms: past the capacity of the per-term records the view copied.
      body = '';
      for (let i = 0; i < 2000; i++) body += `{"index":{"_id":"many${i}"}}\n${JSON.stringify({ text: `w${i} red`, k: `new${i}`, n: i })}\n`;
      await ok('POST', '/r/_bulk', body);
    });
  });

  it('keeps updated documents as they were (old terms, statistics, doc values and sources)', async () => {
    await expectFrozen(async () => {
      for (let i = 0; i < 300; i += 3) await ok('PUT', `/r/_doc/d${i}`, { text: 'zebra quick', n: 100 + i, k: 'changed', tags: ['t9'] });
      await ok('POST', '/r/_update/d1', { doc: { text: 'lazy lazy cat', n: 2 } });
    });
  });

  it('keeps deleted documents, and ids deleted then re-created', async () => {
    await expectFrozen(async () => {
      for (let i = 0; i < 300; i += 4) await ok('DELETE', `/r/_doc/d${i}`);
      let body = '';
      for (let i = 1; i < 300; i += 8) body += `{"delete":{"_id":"d${i}"}}\n`;
      await ok('POST', '/r/_bulk', body);
      for (let i = 0; i < 300; i += 8) await ok('PUT', `/r/_doc/d${i}`, { ...doc(i + 7), text: 'red blue zebra' });
    });
  });

  it('ignores fields created after it opened', async () => {
    await expectFrozen(async () => {
      for (let i = 0; i < 300; i += 5) await ok('POST', `/r/_update/d${i}`, { doc: { extra: 'red fox', other: i } });
      await ok('PUT', '/r/_doc/fresh1', { text: 'cat', extra: 'x', k: 'k1' });
    });
  });

  it('stays exact through many rounds of mixed writes, each after searches over it', async () => {
    await seed(120);
    const before = await answers();
    const pit = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
    for (let round = 0; round < 5; round++) {
      let body = '';
      for (let j = 0; j < 30; j++) {
        const i = (round * 37 + j * 11) % 160;
        body += j % 3 === 0 ? `{"delete":{"_id":"d${i}"}}\n` : `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ ...doc(i + round), text: `${WORDS[(i + round) % 8]} zebra r${round}` })}\n`;
      }
      await ok('POST', '/r/_bulk', body);
      const got = await answers(pit);
      for (let i = 0; i < QUERIES.length; i++) expect(got[i], `round ${round} ${JSON.stringify(QUERIES[i])}`).toEqual(before[i]);
    }
  });

  it('views taken between different writes each keep their own answers', async () => {
    await seed(100);
    const first = await answers();
    const pit1 = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
    for (let i = 0; i < 100; i += 2) await ok('DELETE', `/r/_doc/d${i}`);
    const second = await answers();
    const pit2 = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
    for (let i = 1; i < 100; i += 4) await ok('PUT', `/r/_doc/d${i}`, { text: 'zebra', n: 1, k: 'z', tags: ['tz'] });
    expect(await answers(pit1)).toEqual(first);
    expect(await answers(pit2)).toEqual(second);
  });

  it('is gone with its index, and a re-created index of the same name is not affected by it', async () => {
    await seed(50);
    const pit = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
    await ok('PUT', '/r/_doc/d1', { text: 'zebra' });
    await ok('DELETE', '/r');
    await seed(10);
    const res = await call('POST', '/_search', { query: { match_all: {} }, pit: { id: pit } });
    expect(res.status).toBe(404);
    expect(res.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    expect((await ok('POST', '/r/_search', { query: { match_all: {} } })).hits.total.value).toBe(10);
  });
});

describe('InvertedIndex.frozenView', () => {
  it('knows no term, field or ordinal written after it was taken, and keeps the statistics of then', () => {
    let mappings = Mappings.empty();
    const index = new InvertedIndex();
    const add = (id: string, source: Record<string, unknown>): number => {
      const parsed = parseDocument(source, mappings, id);
      mappings = parsed.mappings;
      return index.add(id, parsed.doc);
    };
    const remove = (ord: number, id: string, source: Record<string, unknown>): void => index.remove(ord, parseDocument(source, mappings, id).doc);
    const a = { text: 'red fox', k: 'one', n: 1 };
    const b = { text: 'red dog', k: 'two', n: 2 };
    add('a', a);
    add('b', b);
    const ids = new Map<string, number>();
    const view = index.frozenView(ids);
    remove(0, 'a', a);
    for (let i = 0; i < 500; i++) add(`x${i}`, { text: `red w${i}`, k: `v${i}`, n: i, late: 'x' });
    const text = view.text.get('text');
    const live = index.text.get('text');
    expect(view.maxOrd).toBe(2);
    expect(view.liveCount).toBe(2);
    expect([...view.allLive()]).toEqual([0, 1]);
    expect(text?.docCount).toBe(2);
    expect(live?.docCount).toBe(501);
    expect(text?.postings.docFreq(text.lookup('red'))).toBe(2);
    expect(text?.postings.docFreq(text.lookup('fox'))).toBe(1);
    // The last term of the view (its record the last one copied).
    expect(text?.postings.docFreq(text.lookup('dog'))).toBe(1);
    expect(text?.lookup('w499')).toBe(-1);
    expect(live?.lookup('w499')).toBeGreaterThanOrEqual(0);
    expect(view.keyword.get('k.keyword')?.lookup('v499')).toBe(-1);
    expect(view.keyword.get('k.keyword')?.valuesOf(0)).toEqual(['one']);
    expect(view.numeric.get('n')?.valuesOf(0)).toEqual([1]);
    expect(view.text.has('late') || view.keyword.has('late')).toBe(false);
  });
});
