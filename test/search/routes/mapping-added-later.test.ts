import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// A field mapped after documents were written (dynamic: false, then PUT _mapping) is not indexed
// for those documents, as in Elasticsearch; removing one of them must not take anything out of
// the field's statistics either.
describe('field mapped after documents were written', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  it('a document written before the mapping leaves the new field alone when deleted', async () => {
    const req = (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) => h.app.inject({ method, url, payload: payload as Record<string, unknown> });
    expect((await req('PUT', '/m', { mappings: { dynamic: false, properties: { t: { type: 'text' } } } })).statusCode).toBe(200);
    expect((await req('PUT', '/m/_doc/old', { t: 'x', u: 'hello world' })).statusCode).toBe(201);
    expect((await req('PUT', '/m/_mapping', { properties: { u: { type: 'text' } } })).statusCode).toBe(200);
    expect((await req('PUT', '/m/_doc/new', { t: 'y', u: 'hello' })).statusCode).toBe(201);
    const hits = async () => (await req('POST', '/m/_search', { query: { match: { u: 'hello' } } })).json() as { hits: { total: { value: number }; hits: { _id: string; _score: number }[] } };
    const before = await hits();
    expect(before.hits.hits.map((x) => x._id)).toEqual(['new']);
    expect((await req('DELETE', '/m/_doc/old')).statusCode).toBe(200);
    expect(await hits()).toEqual({ ...before, took: expect.any(Number) as number });
  });
});
