import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

// Review (found while checking readInTextOrder; already so before a31d281): a query nested a few
// thousand bool levels deep overflows the stack while it is read and answers a 500. ES refuses a
// query nested past its limit (indices.query.bool.max_nested_depth) with a 4xx.

describe('a deeply nested query (review)', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  it('is refused with a 4xx, not a 500', async () => {
    const payload = '{"query":' + '{"bool":{"must":['.repeat(3000) + '{"match_all":{}}' + ']}}'.repeat(3000) + '}';
    const res = await h.app.inject({ method: 'POST', url: '/o/_search', payload, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});
