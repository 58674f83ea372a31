import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// ES's router has no HEAD-to-GET fallback (RestController looks the method up per route pattern):
// HEAD is served only where a HEAD route is registered (`/`, `/{index}`, `_doc`, `_source`).
// `HEAD /_search` still matches `HEAD /{index}` (index exists, for an index named `_search`: 404);
// on `/<index>/_search` no pattern serves HEAD, so it is the router's 405 with an Allow header and
// no body, its Content-Length that of the error body it would have sent.
describe('HEAD on the search routes', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: '{"a":1}', headers: { 'content-type': 'application/json' } });
  });
  afterAll(async () => h.close());

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
