import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../../src/search/app.js';
import { injectJson, searchConfig } from '../harness.js';

// Second reader's checks of scroll and point in time: a seeded random mix of writes (new
// documents, updates, deletes, re-creations of deleted ids, dynamic mapping changes, refreshes)
// between batches must leave every scroll batch and every point-in-time search exactly as they
// were when the context opened (ids, order, scores, sort values, sources, versions).

let app: FastifyInstance;
let dir: string;
let clock = 1_700_000_000_000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-ctx-review-'));
  clock = 1_700_000_000_000;
  app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: () => clock, requestShutdown: () => undefined });
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

/** A small seeded generator (mulberry32), so a failure is reproducible. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['red', 'fox', 'dog', 'blue', 'lazy', 'quick', 'brown', 'cat'];

function doc(r: () => number, i: number): Record<string, unknown> {
  const n = 1 + Math.floor(r() * 6);
  const text = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  return { text, n: Math.floor(r() * 20), k: `k${Math.floor(r() * 5)}`, gen: i };
}

const QUERIES: Record<string, unknown>[] = [
  { query: { match: { text: 'red fox' } } },
  { query: { match: { text: 'quick brown dog' } }, sort: [{ n: 'asc' }, { k: 'desc' }] },
  { query: { match_all: {} }, sort: ['_doc'] },
  { query: { bool: { should: [{ match: { text: 'cat' } }, { term: { k: 'k1' } }] } }, track_scores: true, sort: [{ n: 'desc' }] },
];

/** Random writes to index `r`: new ids, updates, deletes, re-created ids, new fields, refreshes. */
async function randomWrites(r: () => number, live: Set<string>, dead: Set<string>, count: number, gen: { i: number }): Promise<void> {
  for (let w = 0; w < count; w++) {
    const x = r();
    gen.i++;
    if (x < 0.25) {
      const id = `n${gen.i}`;
      await ok('PUT', `/r/_doc/${id}`, doc(r, gen.i));
      live.add(id);
    } else if (x < 0.5 && live.size > 0) {
      const id = [...live][Math.floor(r() * live.size)] as string;
      await ok('PUT', `/r/_doc/${id}`, doc(r, gen.i));
    } else if (x < 0.65 && live.size > 0) {
      const id = [...live][Math.floor(r() * live.size)] as string;
      await ok('DELETE', `/r/_doc/${id}`);
      live.delete(id);
      dead.add(id);
    } else if (x < 0.75 && dead.size > 0) {
      const id = [...dead][Math.floor(r() * dead.size)] as string;
      await ok('PUT', `/r/_doc/${id}`, doc(r, gen.i));
      dead.delete(id);
      live.add(id);
    } else if (x < 0.8 && live.size > 0) {
      const id = [...live][Math.floor(r() * live.size)] as string;
      await ok('POST', `/r/_update/${id}`, { doc: { [`extra${gen.i % 3}`]: 'red', n: gen.i % 20 } });
    } else if (x < 0.9) {
      let body = '';
      for (let j = 0; j < 3; j++) {
        const pick = r();
        if (pick < 0.5 && live.size > 0) {
          const id = [...live][Math.floor(r() * live.size)] as string;
          body += `{"delete":{"_id":"${id}"}}\n`;
          live.delete(id);
          dead.add(id);
        } else {
          const id = `b${gen.i}_${j}`;
          body += `{"index":{"_id":"${id}"}}\n${JSON.stringify(doc(r, gen.i))}\n`;
          live.add(id);
        }
      }
      await ok('POST', '/r/_bulk', body);
    } else {
      await ok('POST', '/r/_refresh');
    }
  }
}

async function seed(r: () => number, live: Set<string>): Promise<void> {
  await ok('PUT', '/r', { mappings: { properties: { text: { type: 'text' }, n: { type: 'long' }, k: { type: 'keyword' }, gen: { type: 'long' } } } });
  let body = '';
  for (let i = 0; i < 80; i++) {
    body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify(doc(r, i))}\n`;
    live.add(`d${i}`);
  }
  const res = await ok('POST', '/r/_bulk?refresh=true', body);
  expect(res.errors).toBe(false);
}

describe('scroll and point in time under random writes (second reader)', () => {
  for (const s of [1, 2, 3, 4, 5]) {
    it(`scroll batches equal the search at the start (seed ${s})`, async () => {
      const r = rng(s);
      const live = new Set<string>();
      const dead = new Set<string>();
      const gen = { i: 1000 };
      await seed(r, live);
      for (const q of QUERIES) {
        const expected = (await ok('POST', '/r/_search?version=true&seq_no_primary_term=true', { ...q, size: 1000 })).hits.hits;
        let page = await ok('POST', '/r/_search?scroll=1m&version=true&seq_no_primary_term=true', { ...q, size: 7 });
        const got = [...page.hits.hits];
        expect(page.hits.total.value).toBe(expected.length);
        for (;;) {
          await randomWrites(r, live, dead, 3, gen);
          page = await ok('POST', '/_search/scroll', { scroll: '1m', scroll_id: page._scroll_id });
          expect(page.hits.total.value).toBe(expected.length);
          if (page.hits.hits.length === 0) break;
          got.push(...page.hits.hits);
        }
        expect(got).toEqual(expected);
      }
    });

    it(`point in time searches equal the search at the open (seed ${s})`, async () => {
      const r = rng(100 + s);
      const live = new Set<string>();
      const dead = new Set<string>();
      const gen = { i: 1000 };
      await seed(r, live);
      const expected = [];
      for (const q of QUERIES) expected.push((await ok('POST', '/r/_search?version=true', { ...q, size: 1000 })).hits.hits);
      const pit = (await ok('POST', '/r/_pit?keep_alive=5m')).id as string;
      for (let round = 0; round < 4; round++) {
        await randomWrites(r, live, dead, 6, gen);
        for (let qi = 0; qi < QUERIES.length; qi++) {
          const q = QUERIES[qi] as Record<string, unknown>;
          const got = (await ok('POST', '/_search?version=true', { ...q, size: 1000, pit: { id: pit, keep_alive: '5m' } })).hits.hits as Record<string, unknown>[];
          // The implicit tiebreaker adds one sort value to sorted searches.
          const strip = got.map((h) => (h.sort === undefined ? h : { ...h, sort: (h.sort as unknown[]).slice(0, -1) }));
          expect(strip, `query ${qi} round ${round}`).toEqual(expected[qi]);
        }
      }
    });
  }
});
