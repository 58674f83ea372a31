import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchText, startSearch, type SearchHarness } from '../harness.js';

// A relevance-ordered `match` on one index is answered by matchTopK (heap up to from + size 128,
// term at a time with MaxScore early stop beyond); `min_score` sends the same query through the
// general path (score everything, then select). Both must give the same bytes.
describe('_search match fast path against the general path', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    // Even documents: "c" alone (short). Odd documents: "r" in a long text, except one short
    // document that repeats "r", which makes the extreme score of "r" the largest in magnitude.
    const long = Array.from({ length: 99 }, () => 'x').join(' ');
    let body = '';
    for (let i = 0; i < 3000; i++) {
      const t = i === 1 ? 'r r r r r r r r r r' : i % 2 === 1 ? `r ${long}` : 'c';
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ t })}\n`;
    }
    const res = await h.app.inject({ method: 'POST', url: '/n/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });
  afterAll(async () => h.close());

  const search = (url: string, body: unknown): Promise<string> => searchText(h, url, body);

  // Lucene forbids negative scores and ES >= 7 refuses negative boosts, but Portico accepts them:
  // term score bounds are then lower bounds, and pruning by them drops the best documents.
  for (const boost of [1, 0.5, 0, -1]) {
    for (const [from, size, tth] of [[0, 10, 10_000], [0, 10, 5], [130, 10, 10_000], [200, 10, 10_000], [500, 10, 100], [1200, 10, 10_000]] as const) {
      it(`boost ${boost}, from ${from}, size ${size}, track_total_hits ${tth}`, async () => {
        const query = { match: { t: { query: 'c r', boost } } };
        const url = `/n/_search?from=${from}&size=${size}&track_total_hits=${tth}&_source=false`;
        const fast = await search(url, { query });
        const general = await search(url, { query, min_score: -1e9 });
        expect(fast).toBe(general);
      });
    }
  }
});
