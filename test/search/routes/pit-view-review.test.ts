import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../../src/search/app.js';
import { searchConfig } from '../harness.js';

// Second reader's checks of the frozen point-in-time view (s-pit2): query kinds the branch's own
// tests leave out (dictionary walks over text and keyword terms, case-insensitive terms,
// query_string, frequencies past the packed 4 bits, multi-valued sorts with a mode, search_after),
// under a seeded random mix of writes, each compared with the answer at the open, scores exactly.

let app: FastifyInstance;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-pit-review-'));
  app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

async function ok(method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<Body> {
  const res = await app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' } }),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as Body;
}

const WORDS = ['red', 'fox', 'dog', 'blue', 'lazy', 'quick', 'brown', 'cat', 'Émile', 'straße'];

/** A tiny deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function doc(r: () => number, tag: string): Record<string, unknown> {
  const n = 1 + Math.floor(r() * 6);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]);
  // Now and then a word repeated past 15 times (frequencies kept in the side table).
  if (r() < 0.2) for (let i = 0; i < 16 + Math.floor(r() * 5); i++) words.push('often');
  return {
    text: `${words.join(' ')} ${tag}`,
    k: `K${Math.floor(r() * 6)}${tag}`,
    tags: Array.from({ length: Math.floor(r() * 4) }, () => `t${Math.floor(r() * 8)}`),
    nums: Array.from({ length: Math.floor(r() * 3) }, () => Math.floor(r() * 50)),
    n: Math.floor(r() * 20),
  };
}

const QUERIES: Record<string, unknown>[] = [
  { query: { range: { text: { gte: 'b', lt: 'q' } } }, size: 1000 },
  { query: { prefix: { text: 'o' } }, size: 1000 },
  { query: { prefix: { k: { value: 'k1', case_insensitive: true } } }, size: 1000 },
  { query: { term: { k: { value: 'k2', case_insensitive: true } } }, size: 1000 },
  { query: { range: { k: { gt: 'K2' } } }, size: 1000 },
  { query: { query_string: { query: 'red OR often OR t* OR k:K3*', default_field: 'text' } }, size: 1000 },
  { query: { query_string: { query: 'often dog' } }, size: 1000 },
  { query: { match: { text: 'often red' } }, size: 5 },
  { query: { match: { text: 'often' } }, from: 50, size: 5, track_total_hits: true },
  { query: { match_phrase: { text: 'often often' } }, size: 1000 },
  { query: { terms: { tags: ['t1', 't7'] } }, size: 1000 },
  { query: { exists: { field: 'nums' } }, size: 1000 },
  { query: { exists: { field: 'tags' } }, size: 1000 },
  { query: { range: { nums: { gte: 10, lte: 20 } } }, size: 1000 },
  { query: { match_all: {} }, sort: [{ nums: { order: 'desc', mode: 'max' } }, { tags: { order: 'asc', mode: 'max' } }], size: 1000 },
  { query: { match_all: {} }, sort: [{ nums: { order: 'asc', mode: 'min', missing: '_first' } }], size: 1000 },
  { query: { match: { text: 'red dog' } }, sort: [{ n: 'asc' }, '_score'], search_after: [5, 0], size: 1000 },
  { query: { bool: { must: [{ match: { text: 'cat' } }], must_not: [{ term: { tags: 't3' } }], should: [{ range: { n: { lt: 7 } } }] } }, size: 1000 },
  { query: { match: { text: 'émile strasse straße' } }, size: 1000 },
];

async function answers(pit?: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const body = pit === undefined ? q : { ...q, pit: { id: pit, keep_alive: '5m' } };
    const res = await ok('POST', pit === undefined ? '/r/_search?version=true&seq_no_primary_term=true' : '/_search?version=true&seq_no_primary_term=true', body);
    // A point in time adds its implicit tiebreaker to sorted searches.
    const keys = (q.sort as unknown[] | undefined)?.length ?? 0;
    const hits = (res.hits.hits as Body[]).map((h) => (h.sort === undefined ? h : { ...h, sort: (h.sort as unknown[]).slice(0, keys) }));
    out.push({ total: res.hits.total, maxScore: res.hits.max_score, hits });
  }
  return out;
}

describe('a point in time over a written index (review)', () => {
  for (const seed of [1, 2, 3]) {
    it(`answers as at its open through random writes (seed ${seed})`, async () => {
      const r = rng(seed);
      await ok('PUT', '/r', { mappings: { properties: { text: { type: 'text' }, k: { type: 'keyword' }, tags: { type: 'keyword' }, nums: { type: 'long' }, n: { type: 'integer' } } } });
      let body = '';
      for (let i = 0; i < 150; i++) body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify(doc(r, ''))}\n`;
      await ok('POST', '/r/_bulk?refresh=true', body);
      const before = await answers();
      const pit = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
      expect(await answers(pit)).toEqual(before);
      for (let round = 0; round < 4; round++) {
        body = '';
        for (let j = 0; j < 60; j++) {
          const id = `d${Math.floor(r() * 220)}`;
          const x = r();
          if (x < 0.3) body += `{"delete":{"_id":"${id}"}}\n`;
          else if (x < 0.5) body += `{"update":{"_id":"${id}"}}\n${JSON.stringify({ doc: { nums: [99, 1], text: 'often zebra' }, doc_as_upsert: true })}\n`;
          else body += `{"index":{"_id":"${id}"}}\n${JSON.stringify(doc(r, `x${round}`))}\n`;
        }
        await ok('POST', '/r/_bulk?refresh=true', body);
        expect(await answers()).not.toEqual(before);
        const got = await answers(pit);
        for (let i = 0; i < QUERIES.length; i++) expect(got[i], `round ${round} ${JSON.stringify(QUERIES[i])}`).toEqual(before[i]);
      }
    });
  }
});

describe('deleted documents without any point in time (review)', () => {
  it('answer no query, sort or exists, before and after a restart', async () => {
    await ok('PUT', '/r', { mappings: { properties: { only: { type: 'text' }, kw: { type: 'keyword' }, num: { type: 'long' }, keep: { type: 'keyword' } } } });
    await ok('PUT', '/r/_doc/gone', { only: 'lonely words', kw: ['x', 'y'], num: [5, 500], keep: 'a' });
    await ok('PUT', '/r/_doc/upd', { only: 'first words', kw: 'z', num: 7, keep: 'b' });
    await ok('PUT', '/r/_doc/stay', { keep: 'c' });
    await ok('DELETE', '/r/_doc/gone');
    await ok('PUT', '/r/_doc/upd', { keep: 'b' });
    const check = async (): Promise<void> => {
      for (const q of [
        { exists: { field: 'only' } },
        { exists: { field: 'kw' } },
        { exists: { field: 'num' } },
        { range: { num: { gte: 0 } } },
        { terms: { kw: ['x', 'y', 'z'] } },
        { prefix: { only: 'w' } },
        { match: { only: 'lonely first words' } },
        { query_string: { query: 'kw:* OR only:w*' } },
      ]) {
        const res = await ok('POST', '/r/_search', { query: q });
        expect(res.hits.total.value, JSON.stringify(q)).toBe(0);
      }
      const sorted = await ok('POST', '/r/_search', { query: { match_all: {} }, sort: [{ num: { order: 'desc', mode: 'max' } }, { kw: 'asc' }, 'keep'] });
      expect(sorted.hits.hits.map((h: Body) => [h._id, h.sort])).toEqual([
        ['upd', [-9223372036854776000, null, 'b']],
        ['stay', [-9223372036854776000, null, 'c']],
      ]);
    };
    await check();
    await app.close();
    app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: Date.now, requestShutdown: () => undefined });
    await check();
  });
});
