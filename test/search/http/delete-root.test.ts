import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

/**
 * `DELETE /` matched the `/:index` route with an empty index expression, which resolves to every
 * index: one stray request deleted all data. ES serves only GET and HEAD on `/` (405 otherwise).
 */
describe('search: DELETE / and PUT /', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  it('is refused with 405 and deletes nothing', async () => {
    const put = await h.app.inject({ method: 'PUT', url: '/keep/_doc/1?refresh=true', payload: '{"t":"x"}', headers: { 'content-type': 'application/json' } });
    expect(put.statusCode).toBe(201);
    const res = await h.app.inject({ method: 'DELETE', url: '/' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET,HEAD');
    expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
    expect((await h.app.inject({ method: 'GET', url: '/keep/_doc/1' })).statusCode).toBe(200);
    await h.restart();
    expect((await h.app.inject({ method: 'GET', url: '/keep/_doc/1' })).statusCode).toBe(200);
  });

  // The same route shape: `PUT /` created an index named "" (listed by _cat, searched by _search).
  it('PUT / is refused with 405 and creates no index', async () => {
    const res = await h.app.inject({ method: 'PUT', url: '/', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET,HEAD');
    const cat = await h.app.inject({ method: 'GET', url: '/_cat/indices?h=index' });
    expect(cat.body.split('\n').filter((l) => l !== '')).toEqual(['keep']);
  });
});
