import { describe, expect, it, beforeAll } from 'vitest';
import { RouteMethods } from '../../../src/search/http/route-methods.js';
import { searchForAll } from '../harness.js';

/**
 * Which methods a search path answers (http/route-methods.ts): the route table, 405 with an Allow
 * header for a known path, HEAD, other methods on _mget and _msearch, and DELETE or PUT on `/`.
 */

describe('route methods', () => {
  const routes = new RouteMethods();
  routes.add('GET', '/:index/_search');
  routes.add('post', '/:index/_search');
  routes.add('PUT', '/:index');
  routes.add('DELETE', '/:index');
  routes.add('GET', '/_cat/indices');
  routes.add('GET', '/');

  it('unions the methods of every pattern matching the path, in the order added', () => {
    expect(routes.allowed('/test/_search')).toEqual(['GET', 'POST']);
    expect(routes.allowed('/test')).toEqual(['PUT', 'DELETE']);
    expect(routes.allowed('/_cat/indices')).toEqual(['GET']);
    expect(routes.allowed('/')).toEqual(['GET']);
  });

  it('matches literal segments after percent-decoding and never matches an empty parameter', () => {
    expect(routes.allowed('/test/%5Fsearch')).toEqual(['GET', 'POST']);
    expect(routes.allowed('//_search')).toEqual([]);
  });

  it('knows nothing of other paths', () => {
    expect(routes.allowed('/a/b/c/d')).toEqual([]);
    expect(routes.allowed('/test/_nothing')).toEqual([]);
  });
});

// ES answers a known path with a method it does not serve with 405, a flat error body naming the
// allowed methods and an Allow header; "no handler found" (400) is only for unknown paths.
describe('search: wrong HTTP method on a known path', () => {
  const h = searchForAll();

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

// ES's router has no HEAD-to-GET fallback (RestController looks the method up per route pattern):
// HEAD is served only where a HEAD route is registered (`/`, `/{index}`, `_doc`, `_source`).
// `HEAD /_search` still matches `HEAD /{index}` (index exists, for an index named `_search`: 404);
// on `/<index>/_search` no pattern serves HEAD, so it is the router's 405 with an Allow header and
// no body, its Content-Length that of the error body it would have sent.
describe('HEAD on the search routes', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: '{"a":1}', headers: { 'content-type': 'application/json' } });
  });

  it('HEAD on the bare paths is index-exists for an index of that name: 404, no body', async () => {
    for (const url of ['/_search', '/_count', '/_pit']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe('');
    }
  });

  it('HEAD on /<index>/_search and /<index>/_count is a 405 naming GET and POST, without a body', async () => {
    for (const url of ['/i/_search', '/i/_count', '/_all/_search', '/i,j/_count']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(405);
      expect(res.headers.allow).toBe('GET,POST');
      expect(res.body).toBe('');
      const wouldBe = JSON.stringify({ error: `Incorrect HTTP method for uri [${url}] and method [HEAD], allowed: [GET, POST]`, status: 405 });
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(wouldBe)));
    }
  });

  it('HEAD on the scroll paths is a 405 naming their methods', async () => {
    for (const url of ['/_search/scroll', '/_search/scroll/abc']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(405);
      expect(String(res.headers.allow).split(',').sort()).toEqual(['DELETE', 'GET', 'POST']);
      expect(res.body).toBe('');
    }
  });

  it('HEAD on the other GET-only paths is a 405 too, and HEAD where ES serves it still answers', async () => {
    for (const url of ['/i/_mapping', '/i/_settings', '/i/_refresh', '/_cluster/health', '/_cat/indices']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(405);
      expect(res.headers.allow).not.toContain('HEAD');
    }
    for (const [url, status] of [['/', 200], ['/i', 200], ['/i/_doc/1', 200], ['/i/_source/1', 200], ['/i/_doc/2', 404]] as const) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(status);
    }
  });
});

// Other methods on `_mget` and `_msearch`. ES's RestController tries every route pattern
// that matches the path (the literal `/_msearch` first, then `/{index}`), and answers 405 only when
// no pattern serves the method: DELETE and PUT on `/_msearch` or `/_mget` reach the index APIs with
// an index named `_msearch` (delete: 404 no such index; create: 400 invalid name), HEAD reaches
// index-exists (404); on `/<index>/_mget` nothing else matches, so other methods are a 405.
describe('_mget and _msearch asked with other methods', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: '{"a":1}', headers: { 'content-type': 'application/json' } });
  });

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

/**
 * `DELETE /` matched the `/:index` route with an empty index expression, which resolves to every
 * index: one stray request deleted all data. ES serves only GET and HEAD on `/` (405 otherwise).
 */
describe('search: DELETE / and PUT /', () => {
  const h = searchForAll();

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
