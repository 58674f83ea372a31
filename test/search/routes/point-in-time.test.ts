import { beforeEach, describe, expect, it } from 'vitest';
import { searchForEach, esCalls, bulkIndex, type EsHit } from '../harness.js';

/**
 * Point in time over HTTP (routes/scroll-routes.ts), and scroll and point in time under seeded
 * random writes.
 */

describe('point in time', () => {
  // Point in time as ES 8 does it: open, search with `pit` (no index in the path), search_after
  // with the implicit `_shard_doc` tiebreaker, close, expiry, and the same snapshot as a scroll:
  // writes after it opened change neither the documents, their sources nor their scores.

  type Hit = EsHit;
  interface Answer {
    pit_id?: string;
    id?: string;
    hits: { total: { value: number; relation: string }; max_score: number | null; hits: Hit[] };
  }

  let clock = 1_700_000_000_000;

  beforeEach(() => {
    clock = 1_700_000_000_000;
  });
  const h = searchForEach([], { now: () => clock });
  beforeEach(async () => {
    await bulkIndex(h.app, 'p', Array.from({ length: 30 }, (_, i) => [`d${i}`, { text: i % 4 === 0 ? 'quick brown fox' : 'lazy brown dog', n: i % 7 }] as const));
  });

  async function call(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) {
    const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> & Answer };
  }

  async function ok(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<Answer> {
    const res = await call(method, url, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  }

  function errorOf(body: Record<string, unknown>): { type: string; reason: string; root_cause: { type: string; reason: string }[] } {
    return body.error as { type: string; reason: string; root_cause: { type: string; reason: string }[] };
  }

  async function open(keepAlive = '1m'): Promise<string> {
    const res = await call('POST', `/p/_pit?keep_alive=${keepAlive}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String), _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } });
    return res.body.id as string;
  }

  /** Every page of a sorted query through search_after on the point in time. */
  async function pages(pit: string, query: Record<string, unknown>, size: number): Promise<Hit[]> {
    const out: Hit[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const body: Record<string, unknown> = { ...query, size, pit: { id: pit, keep_alive: '1m' } };
      if (after !== undefined) body.search_after = after;
      const page = await ok('POST', '/_search', body);
      expect(page.pit_id).toBe(pit);
      if (page.hits.hits.length === 0) return out;
      out.push(...page.hits.hits);
      after = page.hits.hits.at(-1)?.sort;
    }
  }

  describe('point in time', () => {
    it('opens, searches with pit_id first in the answer, adds the _shard_doc tiebreaker to a sorted search, and closes', async () => {
      const pit = await open();
      const page = await ok('POST', '/_search', { pit: { id: pit }, sort: [{ n: 'asc' }], size: 3 });
      expect(Object.keys(page)[0]).toBe('pit_id');
      // Sort values: the field, then the tiebreaker (the document's position in its shard).
      expect(page.hits.hits.map((h) => h.sort)).toEqual([[0, 0], [0, 7], [0, 14]]);
      const unsorted = await ok('POST', '/_search', { pit: { id: pit }, size: 2 });
      expect(unsorted.hits.hits[0]?.sort).toBeUndefined();
      expect(await call('DELETE', '/_pit', { id: pit })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
      expect(await call('DELETE', '/_pit', { id: pit })).toEqual({ status: 404, body: { succeeded: false, num_freed: 0 } });
      const gone = await call('POST', '/_search', { pit: { id: pit } });
      expect(gone.status).toBe(404);
      expect(errorOf(gone.body).root_cause[0]?.type).toBe('search_context_missing_exception');
    });

    it('pages through every hit with search_after, each once, in the order of one big search', async () => {
      const pit = await open();
      const query = { query: { match: { text: 'brown fox' } }, sort: [{ n: 'desc' }] };
      const all = await pages(pit, query, 4);
      expect(all.length).toBe(30);
      expect(new Set(all.map((h) => h._id)).size).toBe(30);
      const big = await ok('POST', '/_search', { ...query, size: 100, pit: { id: pit } });
      expect(all).toEqual(big.hits.hits);
    });

    it('is a snapshot: writes after it opened change no document, source, score or total', async () => {
      const pit = await open();
      const query = { query: { match: { text: 'quick fox dog' } }, size: 100 };
      const before = await ok('POST', '/_search', { ...query, pit: { id: pit } });
      await ok('POST', '/p/_doc/d0?refresh=true', { text: 'changed entirely', n: 1 });
      await ok('DELETE', '/p/_doc/d4?refresh=true');
      await ok('POST', '/p/_doc/extra?refresh=true', { text: 'quick quick fox', n: 2 });
      await ok('POST', '/p/_doc/d8?refresh=true', { text: 'dog', n: 3 });
      const after = await ok('POST', '/_search', { ...query, pit: { id: pit } });
      expect({ ...after, took: 0 }).toEqual({ ...before, took: 0 });
      expect(after.hits.hits.find((h) => h._id === 'd0')?._source).toEqual({ text: 'quick brown fox', n: 0 });
      // A point in time opened now sees the writes.
      const pit2 = await open();
      const now = await ok('POST', '/_search', { ...query, pit: { id: pit2 } });
      expect(now.hits.hits.map((h) => h._id)).toContain('extra');
      expect(now.hits.hits.map((h) => h._id)).not.toContain('d4');
      // And the first one still does not.
      expect({ ...(await ok('POST', '/_search', { ...query, pit: { id: pit } })), took: 0 }).toEqual({ ...before, took: 0 });
    });

    it('expires after its keep-alive, which each search may renew', async () => {
      const pit = await open('30s');
      clock += 20_000;
      await ok('POST', '/_search', { pit: { id: pit, keep_alive: '30s' } });
      clock += 25_000;
      await ok('POST', '/_search', { pit: { id: pit } });
      clock += 31_000;
      expect((await call('POST', '/_search', { pit: { id: pit } })).status).toBe(404);
    });

    it('answers ES errors', async () => {
      const pit = await open();
      const cases: [string, string, unknown, number, string, string][] = [
        ['POST', '/p/_search', { pit: { id: pit } }, 400, 'action_request_validation_exception', 'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;'],
        ['POST', '/_search?scroll=1m', { pit: { id: pit } }, 400, 'action_request_validation_exception', 'Validation Failed: 1: using [point in time] is not allowed in a scroll context;'],
        ['POST', '/p/_search', { sort: [{ _shard_doc: 'asc' }] }, 400, 'action_request_validation_exception', 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];'],
        ['POST', '/p/_pit', undefined, 400, 'action_request_validation_exception', 'Validation Failed: 1: [keep_alive] is not specified;'],
        ['POST', '/p/_pit?keep_alive=1x', undefined, 400, 'parse_exception', 'failed to parse setting [keep_alive] with value [1x] as a time value: unit is missing or unrecognized'],
        ['DELETE', '/_pit', {}, 400, 'illegal_argument_exception', 'reader id must be specified'],
        ['POST', '/_search', { pit: { id: 'nope' } }, 400, 'illegal_argument_exception', 'invalid id: [nope]'],
        ['POST', '/missing/_pit?keep_alive=1m', undefined, 404, 'index_not_found_exception', 'no such index [missing]'],
        ['POST', '/p/_pit?keep_alive=1m', { index_filter: {} }, 400, 'illegal_argument_exception', 'A request body (index_filter) when opening a point in time is not supported by this server'],
      ];
      for (const [method, url, body, status, type, reason] of cases) {
        const res = await call(method as 'POST', url, body);
        expect(res.status, url + JSON.stringify(body)).toBe(status);
        expect(errorOf(res.body).type, JSON.stringify(res.body)).toBe(type);
        expect(errorOf(res.body).reason).toBe(reason);
      }
    });

    it('orders the _shard_doc tiebreaker over several indices by shard position, then ordinal', async () => {
      await ok('POST', '/q/_doc/x?refresh=true', { text: 'brown', n: 1 });
      const res = await call('POST', '/p,q/_pit?keep_alive=1m');
      const pit = res.body.id as string;
      const unsorted = await ok('POST', '/_search', { pit: { id: pit }, size: 100 });
      expect(unsorted.hits.hits.length).toBe(31);
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (;;) {
        const page = await ok('POST', '/_search', { pit: { id: pit }, size: 4, sort: [{ n: 'asc' }], ...(after === undefined ? {} : { search_after: after }) });
        if (page.hits.hits.length === 0) break;
        const hits = page.hits.hits as unknown as { _index: string; _id: string; sort: number[] }[];
        for (const x of hits) {
          seen.push(`${x._index}/${x._id}`);
          // The shard's position among the point in time's shards (p, then q) in the high 32 bits.
          expect(Math.floor((x.sort[1] as number) / 2 ** 32)).toBe(x._index === 'p' ? 0 : 1);
        }
        after = hits.at(-1)?.sort;
      }
      expect([seen.length, new Set(seen).size]).toEqual([31, 31]);
    });
  });
});

describe('scroll and point in time under random writes', () => {
  // Scroll and point in time under a seeded random mix of writes (new
  // documents, updates, deletes, re-creations of deleted ids, dynamic mapping changes, refreshes)
  // between batches must leave every scroll batch and every point-in-time search exactly as they
  // were when the context opened (ids, order, scores, sort values, sources, versions).

  let clock = 1_700_000_000_000;

  beforeEach(() => {
    clock = 1_700_000_000_000;
  });
  const h = searchForEach([], { now: () => clock });

  const { ok } = esCalls(h);

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

  describe('scroll and point in time under seeded random writes', () => {
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
});
