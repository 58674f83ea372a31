import { describe, expect, it } from 'vitest';
import { searchForEach, esCalls, type EsBody } from '../harness.js';

/**
 * The frozen index view a point in time searches (InvertedIndex.frozenView), over HTTP: every read
 * path, under each kind of write.
 */

describe('frozen point-in-time view', () => {
  // A point in time searches a frozen view of the index (InvertedIndex.frozenView): the live set,
  // field statistics and per-term records copied at the first write after it opened, everything else
  // shared with the live index. Each test records the answers of many query kinds when the point in
  // time opens, then writes in one particular way (new documents with new terms, updates, deletes,
  // re-created ids, new fields, keyword values, bulk) and expects the point in time to give exactly
  // the same answers (ids, order, scores, totals, sort values, sources, versions) while plain searches
  // see the writes.


  const h = searchForEach();

  type Body = EsBody;

  const { call, ok } = esCalls(h);

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
});

describe('frozen point-in-time view under random writes', () => {
  // The frozen point-in-time view and the query kinds the describe above leaves out (dictionary walks over text and keyword terms, case-insensitive terms,
  // query_string, frequencies past the packed 4 bits, multi-valued sorts with a mode, search_after),
  // under a seeded random mix of writes, each compared with the answer at the open, scores exactly.


  const h = searchForEach();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  async function ok(method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<Body> {
    const res = await h.app.inject({
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

  describe('a point in time over a written index, every query kind', () => {
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

  describe('deleted documents without any point in time', () => {
    it('answer no query, sort or exists, before and after a restart', async () => {
      await ok('PUT', '/r', { mappings: { properties: { only: { type: 'text' }, kw: { type: 'keyword' }, num: { type: 'long' }, keep: { type: 'keyword' } } } });
      await ok('PUT', '/r/_doc/gone', { only: 'lonely words', kw: ['x', 'y'], num: [5, 500], keep: 'a' });
      await ok('PUT', '/r/_doc/upd', { only: 'first words', kw: 'z', num: 7, keep: 'b' });
      await ok('PUT', '/r/_doc/stay', { keep: 'c' });
      await ok('DELETE', '/r/_doc/gone');
      await ok('PUT', '/r/_doc/upd?refresh=true', { keep: 'b' });
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
      await h.restart();
      await check();
    });
  });
});
