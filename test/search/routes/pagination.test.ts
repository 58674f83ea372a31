import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Walking every page of a query with any page size gives exactly the full ordered result list:
// no document repeats and none is skipped (the order is total: score, then write order).
describe('pagination', () => {
  let h: SearchHarness;
  const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
  beforeAll(async () => {
    h = await startSearch();
    let body = '';
    for (let i = 0; i < 240; i++) {
      // Few distinct texts: many equal scores, so the tie-break decides most of the order.
      const text = Array.from({ length: 1 + (i % 4) }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ text, n: i % 9, tag: `t${i % 5}` })}\n`;
    }
    const res = await h.app.inject({ method: 'POST', url: '/p/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });
  afterAll(async () => h.close());

  const search = async (body: Record<string, unknown>) => {
    const res = await h.app.inject({ method: 'POST', url: '/p/_search', payload: body });
    expect(res.statusCode).toBe(200);
    return (res.json() as { hits: { hits: { _id: string }[] } }).hits.hits.map((x) => x._id);
  };

  it('any page size partitions the full list', async () => {
    const queries = [
      { match: { text: 'alpha gamma' } },
      { match_all: {} },
      { bool: { should: [{ match: { text: 'beta' } }, { term: { 'tag.keyword': 't1' } }] } },
    ];
    const sorts = [undefined, [{ n: 'desc' }], [{ 'tag.keyword': 'asc' }, { n: 'asc' }]];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 60 }), async (qi, si, pageSize) => {
        const base: Record<string, unknown> = { query: queries[qi] };
        if (sorts[si] !== undefined) base.sort = sorts[si];
        const full = await search({ ...base, size: 1000 });
        const walked: string[] = [];
        for (let from = 0; from < full.length; from += pageSize) walked.push(...(await search({ ...base, from, size: pageSize })));
        expect(walked).toEqual(full);
        expect(new Set(walked).size).toBe(walked.length);
      }),
      { numRuns: 25 },
    );
  });
});
