import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// ES answers a known path with a method it does not serve with 405, a flat error body naming the
// allowed methods and an Allow header; "no handler found" (400) is only for unknown paths.
describe('search: wrong HTTP method on a known path', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  it('answers 405 with the allowed methods', async () => {
    const res = await h.app.inject({ method: 'DELETE', url: '/test/_search' });
    expect(res.statusCode).toBe(405);
    const body = res.json() as { error: string; status: number };
    expect(body.status).toBe(405);
    expect(body.error).toMatch(/^Incorrect HTTP method for uri \[\/test\/_search\] and method \[DELETE\], allowed: \[(GET, POST|POST, GET)\]$/);
    expect(String(res.headers.allow).split(',').map((m) => m.trim()).sort()).toEqual(['GET', 'POST']);
  });

  it('answers OPTIONS with 200 and the Allow header, and leaves out the HEAD Fastify adds to GET routes', async () => {
    const res = await h.app.inject({ method: 'OPTIONS', url: '/test/_search' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    const del = await h.app.inject({ method: 'DELETE', url: '/_cat/indices' });
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe('GET');
  });

  it('keeps 400 "no handler found" for unknown paths', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/_nothing/here/at/all' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'no handler found for uri [/_nothing/here/at/all] and method [GET]', status: 400 });
  });
});
