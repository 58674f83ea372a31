import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Review of a31d281 (pins ES's order; passes): RestSearchAction checks rest_total_hits_as_int against track_total_hits only
// after the body is parsed (checkRestTotalHits), so a repeated key anywhere in the body fails the
// request first, and so must readInTextOrder even though the check depends only on a member before
// the repeated key.

describe('rest_total_hits_as_int and a repeated key (review)', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/o/_doc/1?refresh=true', payload: '{"t":"fox"}', headers: { 'content-type': 'application/json' } });
  });
  afterAll(async () => h.close());

  it('answers the repeated key', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/o/_search?rest_total_hits_as_int=true',
      payload: '{"track_total_hits":false,"size":1,"size":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as { error: { reason: string } }).error.reason).toBe("[1:42] Duplicate field 'size'");
  });
});
