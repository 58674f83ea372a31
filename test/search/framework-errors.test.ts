import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

/**
 * Requests Fastify refuses before routing (a malformed percent-escape in the path, a path parameter
 * over the router's 2,048-character limit) used to get Fastify's own raw answer: no
 * X-Elastic-Product and Fastify's body shape instead of ES's error envelope.
 */
describe('search: refusals made before routing', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  for (const [what, method, url] of [
    ['a malformed percent-escape', 'GET', '/%zz/_search'],
    ['a malformed percent-escape, HEAD', 'HEAD', '/idx/_doc/%zz'],
    ['a path parameter over the router limit', 'GET', `/idx/_doc/${'a'.repeat(2100)}`],
  ] as const) {
    it(`answers ${what} in ES's dialect, marked as Elasticsearch`, async () => {
      const res = await h.app.inject({ method, url });
      expect(res.statusCode).toBe(400);
      expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
      expect(res.headers['content-type']).toBe(method === 'HEAD' ? 'application/json' : 'application/json; charset=UTF-8');
      if (method === 'HEAD') return;
      const body = res.json() as { error: { type: string; root_cause: unknown[] }; status: number };
      expect(body.status).toBe(400);
      expect(body.error.type).toBe('illegal_argument_exception');
      expect(body.error.root_cause).toHaveLength(1);
    });
  }
});
