import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Issue 3: other methods on `_mget` and `_msearch`. ES's RestController tries every route pattern
// that matches the path (the literal `/_msearch` first, then `/{index}`), and answers 405 only when
// no pattern serves the method: DELETE and PUT on `/_msearch` or `/_mget` reach the index APIs with
// an index named `_msearch` (delete: 404 no such index; create: 400 invalid name), HEAD reaches
// index-exists (404); on `/<index>/_mget` nothing else matches, so other methods are a 405.
describe('_mget and _msearch asked with other methods', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: '{"a":1}', headers: { 'content-type': 'application/json' } });
  });
  afterAll(async () => h.close());

  it('DELETE and PUT on the bare paths go to the index APIs, as ES routes them', async () => {
    for (const name of ['_msearch', '_mget']) {
      const del = await h.app.inject({ method: 'DELETE', url: `/${name}` });
      expect(del.statusCode).toBe(404);
      expect(del.json().error.type).toBe('index_not_found_exception');
      expect(del.json().error.reason).toBe(`no such index [${name}]`);
      const put = await h.app.inject({ method: 'PUT', url: `/${name}` });
      expect(put.statusCode).toBe(400);
      expect(put.json().error.reason).toBe(`Invalid index name [${name}], must not start with '_', '-', or '+'`);
    }
  });

  it('HEAD on the bare paths is index-exists (404), not the GET handler without a body', async () => {
    for (const url of ['/_msearch', '/_mget']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('');
    }
  });

  it('any other method on /<index>/_mget and /<index>/_msearch is a 405 naming GET and POST', async () => {
    for (const url of ['/i/_mget', '/i/_msearch']) {
      for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
        const res = await h.app.inject({ method, url });
        expect(res.statusCode).toBe(405);
        expect(res.json()).toEqual({ error: `Incorrect HTTP method for uri [${url}] and method [${method}], allowed: [GET, POST]`, status: 405 });
        expect(res.headers.allow).toBe('GET,POST');
      }
      const head = await h.app.inject({ method: 'HEAD', url });
      expect(head.statusCode).toBe(405);
      expect(head.headers.allow).toBe('GET,POST');
    }
  });

  it('PATCH on a bare path, served by no pattern, is a 405 naming the union of their methods', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: '/_msearch' });
    expect(res.statusCode).toBe(405);
    expect(String(res.headers.allow).split(',').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST', 'PUT']);
  });
});
