import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

/**
 * Every kind of answer the search listener gives, with its status and its headers in the order
 * they are sent (the date left out): the product header must be on all of them, and the paths a
 * response takes (route, error handler, not-found handler, auth hook, HEAD) must not change what
 * is sent when the way the header is set changes.
 */

type Req = { method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS'; url: string; body?: string; headers?: Record<string, string> };

const json = { 'content-type': 'application/json' };
const vnd8 = 'application/vnd.elasticsearch+json; compatible-with=8';

const REQUESTS: Req[] = [
  { method: 'GET', url: '/' },
  { method: 'HEAD', url: '/' },
  { method: 'PUT', url: '/idx', body: '{"mappings":{"properties":{"t":{"type":"text"}}}}', headers: json },
  { method: 'PUT', url: '/idx/_doc/1?refresh=true', body: '{"t":"ruby gem"}', headers: json },
  { method: 'HEAD', url: '/idx' },
  { method: 'HEAD', url: '/nope' },
  { method: 'HEAD', url: '/idx/_doc/1' },
  { method: 'HEAD', url: '/idx/_doc/2' },
  { method: 'HEAD', url: '/idx/_source/1' },
  { method: 'GET', url: '/idx/_doc/1' },
  { method: 'GET', url: '/idx/_doc/2' },
  { method: 'POST', url: '/idx/_search', body: '{"query":{"match":{"t":"ruby"}}}', headers: json },
  { method: 'POST', url: '/idx/_search?from=9990', body: '{"query":{"match":{"t":"ruby"}}}', headers: json },
  { method: 'POST', url: '/idx/_search', body: '{"query":{"match":{"t":"ruby"}}}', headers: { 'content-type': vnd8, accept: vnd8 } },
  { method: 'GET', url: '/idx/_search?pretty' },
  { method: 'HEAD', url: '/idx/_search' },
  { method: 'GET', url: '/idx/_count' },
  { method: 'POST', url: '/idx/_search', body: '{"query":', headers: json },
  { method: 'POST', url: '/idx/_search?bogus=1', body: '{}', headers: json },
  { method: 'POST', url: '/idx/_search', body: '{}', headers: { 'content-type': 'application/octet-stream' } },
  { method: 'POST', url: '/idx/_search', body: '{}', headers: { 'content-type': vnd8, accept: 'application/vnd.elasticsearch+json; compatible-with=7' } },
  { method: 'POST', url: '/missing/_search', body: '{}', headers: json },
  { method: 'DELETE', url: '/idx/_search' },
  { method: 'OPTIONS', url: '/idx/_search' },
  { method: 'GET', url: '/no/such/path/here' },
  { method: 'HEAD', url: '/no/such/path/here' },
  { method: 'GET', url: '/_cat/indices?v&h=index' },
  { method: 'GET', url: '/_cat/indices?format=json&h=index' },
];

function row(r: Req, status: number, headers: Record<string, unknown>, body: string): string {
  // `took` is as many digits as the milliseconds it took: lengths are shown as with a 1-digit took
  // (a HEAD's length is its GET's, whose took is not seen: shown as n).
  const tookDigits = /^\{\s*"took"\s*:\s*(\d+)/.exec(body)?.[1]?.length ?? 1;
  const length = (v: unknown) => (r.method === 'HEAD' ? 'n' : String(Number(v) - (tookDigits - 1)));
  const shown = Object.entries(headers)
    .filter(([k]) => k !== 'date')
    .map(([k, v]) => `${k}: ${k === 'content-length' ? length(v) : String(v)}`)
    .join(' | ');
  return `${r.method} ${r.url} -> ${status} | ${shown}`;
}

describe('search response headers', () => {
  let h: SearchHarness;
  let dir: string;
  let auth: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    dir = mkdtempSync(join(tmpdir(), 'portico-headers-'));
    writeFileSync(join(dir, 'users'), `elastic:${bcrypt.hashSync('changeme', 4)}\n`);
    auth = await startSearch(['--search.users-file', join(dir, 'users')]);
  });
  afterAll(async () => {
    await h.close();
    await auth.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the same headers, in the same order, on every kind of answer', async () => {
    const rows: string[] = [];
    for (const r of REQUESTS) {
      const res = await h.app.inject({ method: r.method, url: r.url, payload: r.body, headers: r.headers });
      rows.push(row(r, res.statusCode, res.headers, res.body));
    }
    const basic = (p: string) => `Basic ${Buffer.from(`elastic:${p}`).toString('base64')}`;
    for (const [r, authorization] of [
      [{ method: 'GET', url: '/' }, undefined],
      [{ method: 'HEAD', url: '/' }, basic('wrong')],
      [{ method: 'GET', url: '/' }, basic('changeme')],
    ] as const) {
      const res = await auth.app.inject({ method: r.method, url: r.url, headers: authorization === undefined ? {} : { authorization } });
      rows.push(`auth ${row(r, res.statusCode, res.headers, res.body)}`);
    }
    for (const r of rows) expect(r).toContain('x-elastic-product: Elasticsearch');
    expect(rows).toMatchInlineSnapshot(`
      [
        "GET / -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 401 | connection: keep-alive",
        "HEAD / -> 200 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "PUT /idx -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 62 | connection: keep-alive",
        "PUT /idx/_doc/1?refresh=true -> 201 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 158 | connection: keep-alive",
        "HEAD /idx -> 200 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "HEAD /nope -> 404 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "HEAD /idx/_doc/1 -> 200 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "HEAD /idx/_doc/2 -> 404 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "HEAD /idx/_source/1 -> 200 | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "GET /idx/_doc/1 -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 109 | connection: keep-alive",
        "GET /idx/_doc/2 -> 404 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 40 | connection: keep-alive",
        "POST /idx/_search -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 239 | connection: keep-alive",
        "POST /idx/_search?from=9990 -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 166 | connection: keep-alive",
        "POST /idx/_search -> 200 | content-type: application/vnd.elasticsearch+json;compatible-with=8 | x-elastic-product: Elasticsearch | content-length: 239 | connection: keep-alive",
        "GET /idx/_search?pretty -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 406 | connection: keep-alive",
        "HEAD /idx/_search -> 405 | allow: GET,POST | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: n | connection: keep-alive",
        "GET /idx/_count -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 71 | connection: keep-alive",
        "POST /idx/_search -> 400 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 428 | connection: keep-alive",
        "POST /idx/_search?bogus=1 -> 400 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 263 | connection: keep-alive",
        "POST /idx/_search -> 406 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 88 | connection: keep-alive",
        "POST /idx/_search -> 400 | content-type: application/vnd.elasticsearch+json;compatible-with=7 | x-elastic-product: Elasticsearch | content-length: 597 | connection: keep-alive",
        "POST /missing/_search -> 404 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 371 | connection: keep-alive",
        "DELETE /idx/_search -> 405 | allow: GET,POST | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 111 | connection: keep-alive",
        "OPTIONS /idx/_search -> 200 | allow: GET,POST | x-elastic-product: Elasticsearch | content-length: 0 | connection: keep-alive",
        "GET /no/such/path/here -> 400 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 87 | connection: keep-alive",
        "HEAD /no/such/path/here -> 400 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: n | connection: keep-alive",
        "GET /_cat/indices?v&h=index -> 200 | content-type: text/plain; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 10 | connection: keep-alive",
        "GET /_cat/indices?format=json&h=index -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 17 | connection: keep-alive",
        "auth GET / -> 401 | www-authenticate: Basic realm="security" charset="UTF-8" | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 381 | connection: keep-alive",
        "auth HEAD / -> 401 | www-authenticate: Basic realm="security" charset="UTF-8" | content-type: application/json | x-elastic-product: Elasticsearch | connection: keep-alive",
        "auth GET / -> 200 | content-type: application/json; charset=UTF-8 | x-elastic-product: Elasticsearch | content-length: 401 | connection: keep-alive",
      ]
    `);
  });

  // undici closes its connection after every HEAD it sends (`connection: close`, nodejs/undici
  // issue 258: servers that wrongly send a body), which is why HEAD looked slower than GET over
  // one undici client. Asked to keep the connection (reset: false), the server does.
  it('keeps the connection open after a HEAD answer when the client asks to', async () => {
    const app = h.app;
    let connections = 0;
    app.server.on('connection', () => connections++);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
    try {
      for (const [method, path] of [['HEAD', '/'], ['HEAD', '/idx'], ['HEAD', '/nope'], ['HEAD', '/idx/_doc/1'], ['GET', '/'], ['HEAD', '/']] as const) {
        const res = await client.request({ method, path, reset: false });
        await res.body.text();
        expect(res.headers.connection, `${method} ${path}`).toBe('keep-alive');
      }
    } finally {
      await client.close();
    }
    expect(connections).toBe(1);
  });
});
