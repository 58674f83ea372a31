import { describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';
import { CACHED_BODY_TYPES } from '../../../src/search/http/request-hooks.js';

describe('search HTTP edge', () => {
  const h = searchForAll(['--search.max-body-size', '2mb']);

  it('accepts compatible-with media types and answers with the same family', async () => {
    for (const v of [7, 8, 9]) {
      const res = await h.app.inject({
        method: 'PUT',
        url: `/m${v}/_doc/1`,
        payload: '{"a":"b"}',
        headers: { 'content-type': `application/vnd.elasticsearch+json; compatible-with=${v}`, accept: `application/vnd.elasticsearch+json; compatible-with=${v}` },
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers['content-type']).toMatch(new RegExp(`^application/vnd\\.elasticsearch\\+json;compatible-with=${v}`));
    }
    const bulk = await h.app.inject({
      method: 'POST',
      url: '/_bulk?refresh=true',
      payload: '{"index":{"_index":"m8","_id":"2"}}\n{"a":"c"}\n',
      // Both headers versioned alike, as the clients send them (ES refuses a one-sided version).
      headers: { 'content-type': 'application/vnd.elasticsearch+x-ndjson; compatible-with=8', accept: 'application/vnd.elasticsearch+json; compatible-with=8' },
    });
    expect(bulk.json()).toMatchObject({ errors: false });
  });

  it('refuses other content types with 406 and ES flat error', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/m8/_search', payload: 'x', headers: { 'content-type': 'application/octet-stream' } });
    expect(res.statusCode).toBe(406);
    expect(res.json()).toEqual({ error: 'Content-Type header [application/octet-stream] is not supported', status: 406 });
    expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
  });

  it('answers a too large body with 413 in ES envelope', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/m8/_search', payload: JSON.stringify({ query: { match: { a: 'x'.repeat(3_000_000) } } }), headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, error: { type: 'content_too_long_exception' } });
    expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
  });

  it('pretty-prints like Jackson and marks every response as Elasticsearch', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/m8/_count?pretty' });
    expect(res.body).toBe('{\n  "count" : 2,\n  "_shards" : {\n    "total" : 1,\n    "successful" : 1,\n    "skipped" : 0,\n    "failed" : 0\n  }\n}\n');
    const unknown = await h.app.inject({ method: 'GET', url: '/m8/_nothing/here/at/all' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers['x-elastic-product']).toBe('Elasticsearch');
    const head = await h.app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['x-elastic-product']).toBe('Elasticsearch');
  });

  it('reads a GET body, and from/size from the query string over the body', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/m8/_search?size=1', payload: '{"size":5,"query":{"match_all":{}}}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().hits.hits).toHaveLength(1);
  });

  it('keeps documents and ordering across a restart', async () => {
    await h.app.inject({ method: 'PUT', url: '/keep/_doc/a', payload: { t: 'same' } });
    await h.app.inject({ method: 'PUT', url: '/keep/_doc/b', payload: { t: 'same' } });
    await h.app.inject({ method: 'PUT', url: '/keep/_doc/a?refresh=true', payload: { t: 'same' } });
    const before = (await h.app.inject({ method: 'POST', url: '/keep/_search', payload: { query: { match: { t: 'same' } } } })).json();
    const app = await h.restart();
    const after = (await app.inject({ method: 'POST', url: '/keep/_search', payload: { query: { match: { t: 'same' } } } })).json();
    expect(after.hits.hits.map((x: { _id: string }) => x._id)).toEqual(['b', 'a']);
    expect(after.hits.hits).toEqual(before.hits.hits);
    expect((await app.inject({ method: 'GET', url: '/keep/_doc/a' })).json()).toMatchObject({ _version: 2, found: true });
  });

  it('counts exactly up to 10,000 hits by default, then reports a lower bound', async () => {
    let body = '';
    for (let i = 0; i < 10_050; i++) body += `{"index":{}}\n{"v":${i % 7}}\n`;
    const bulk = await h.app.inject({ method: 'POST', url: '/many/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(bulk.statusCode).toBe(200);
    const res = (await h.app.inject({ method: 'GET', url: '/many/_search?size=0' })).json();
    expect(res.hits.total).toEqual({ value: 10_000, relation: 'gte' });
    const exact = (await h.app.inject({ method: 'GET', url: '/many/_search?size=0&track_total_hits=true' })).json();
    expect(exact.hits.total).toEqual({ value: 10_050, relation: 'eq' });
    expect((await h.app.inject({ method: 'GET', url: '/many/_count' })).json().count).toBe(10_050);
  });
});

// The body parser is registered for '*' and again for CACHED_BODY_TYPES (request-hooks.ts), so that
// Fastify keeps the lookup per Content-Type value: every route must read a body the same way
// whichever of them a request's header reaches.
describe('bodies under the cached content types and the catch-all', () => {
  const h = searchForAll(['--search.max-body-size', '1kb']);
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const types = [
    ...CACHED_BODY_TYPES,
    'application/json; charset=UTF-8',
    'Application/JSON',
    'application/vnd.elasticsearch+json; compatible-with=8',
    'text/plain',
  ];

  it('has a parser of its own for each cached type', () => {
    for (const type of CACHED_BODY_TYPES) expect({ type, own: h.app.hasContentTypeParser(type) }).toEqual({ type, own: true });
  });

  it('skips a byte order mark and refuses a body over the limit under each', async () => {
    const accept = (type: string) => (type.includes('compatible-with') ? { accept: 'application/vnd.elasticsearch+json; compatible-with=8' } : {});
    for (const type of types) {
      const ndjson = type.includes('ndjson');
      const body = ndjson ? `{"index":{"_index":"ct","_id":"${type}"}}\n{"t":"x"}\n` : '{"t":"x"}';
      const url = ndjson ? '/_bulk?refresh=true' : `/ct/_doc/${encodeURIComponent(type)}?refresh=true`;
      const res = await h.app.inject({ method: ndjson ? 'POST' : 'PUT', url, payload: Buffer.concat([BOM, Buffer.from(body)]), headers: { 'content-type': type, ...accept(type) } });
      expect({ type, status: res.statusCode }).toEqual({ type, status: ndjson ? 200 : 201 });
      const big = await h.app.inject({ method: 'POST', url: '/ct/_search', payload: JSON.stringify({ query: { match: { t: 'x'.repeat(2000) } } }), headers: { 'content-type': type, ...accept(type) } });
      expect({ type, status: big.statusCode }).toEqual({ type, status: 413 });
    }
    const stored = await h.app.inject({ method: 'GET', url: `/ct/_source/${encodeURIComponent('application/json')}` });
    expect(stored.body).toBe('{"t":"x"}');
    const count = await h.app.inject({ method: 'GET', url: '/ct/_count' });
    expect(count.json().count).toBe(types.length);
  });
});
