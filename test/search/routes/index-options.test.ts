import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// The indices options `_search` and `_count` take (ES 8 IndicesOptions): both accepted the
// parameters and ignored some of them.
describe('allow_no_indices and ignore_unavailable', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/logs-1' });
    await h.app.inject({ method: 'PUT', url: '/logs-1/_doc/1?refresh=true', payload: { t: 'red' } });
  });
  afterAll(() => h.close());

  const get = async (url: string) => {
    const res = await h.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() as { error: { type: string; reason: string }; count: number } };
  };

  it('answers a wildcard that matches nothing with index_not_found_exception under allow_no_indices=false', async () => {
    for (const api of ['_search', '_count']) {
      const r = await get(`/nomatch-*/${api}?allow_no_indices=false`);
      expect(r.status, api).toBe(404);
      expect(r.body.error.type).toBe('index_not_found_exception');
      expect(r.body.error.reason).toBe('no such index [nomatch-*]');
      // Also when another expression of the list matches (ES checks each wildcard).
      expect((await get(`/logs-*,nomatch-*/${api}?allow_no_indices=false`)).status, api).toBe(404);
      // The default (true) still resolves such a wildcard to nothing.
      expect((await get(`/nomatch-*/${api}`)).status, api).toBe(200);
      expect((await get(`/logs-*/${api}?allow_no_indices=false`)).status, api).toBe(200);
    }
  });

  it('lets _count skip a missing index under ignore_unavailable=true, as _search does', async () => {
    const r = await get('/missing/_count?ignore_unavailable=true');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ count: 0, _shards: { total: 0, successful: 0, skipped: 0, failed: 0 } });
    const both = await get('/missing,logs-1/_count?ignore_unavailable=true');
    expect(both.body.count).toBe(1);
    expect((await get('/missing/_count')).status).toBe(404);
  });
});
