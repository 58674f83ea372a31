import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';

/**
 * Request bodies as ES reads them: nesting depth (Jackson's StreamReadConstraints) and a leading
 * UTF-8 byte order mark.
 */

// ES 8.8+ reads request bodies with Jackson's StreamReadConstraints: more than 1000 levels of
// nesting are refused as they are read. JSON.parse takes any depth, but the walks after it
// (JSON.stringify, the document parser, settings and mappings) exhausted the stack near 10,000
// levels and answered 500. In a document the refusal is a document_parsing_exception (that item
// alone in a bulk); elsewhere a 400 x_content_parse_exception.
const MESSAGE = 'Document nesting depth (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)';
const arrays = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;
const objects = (n: number): string => `${'{"a":'.repeat(n)}"x"${'}'.repeat(n)}`;

describe('request bodies nested 10,000 deep', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/n/_doc/1?refresh=true', payload: { t: 'hello' } });
  });

  const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload: string, type = 'application/json') =>
    h.app.inject({ method, url, payload, headers: { 'content-type': type } });

  it('are refused with a 400 wherever a body is read', async () => {
    const cases: [method: 'GET' | 'POST' | 'PUT', url: string, body: string, type?: string][] = [
      ['POST', '/n/_search', `{"query":{"terms":{"t":${arrays(10_000)}}}}`],
      ['GET', '/n/_search', `{"_source":${arrays(10_000)}}`],
      ['POST', '/n/_search', `{"sort":["_doc"],"search_after":${arrays(10_000)}}`],
      ['POST', '/n/_msearch', `{}\n{"_source":${arrays(10_000)}}\n`, 'application/x-ndjson'],
      ['POST', '/n/_msearch', `${objects(10_000)}\n{}\n`, 'application/x-ndjson'],
      ['POST', '/n/_update/1', `{"doc":${objects(10_000)}}`],
      ['POST', '/n/_bulk', `{"update":{"_id":"1"}}\n{"doc":${objects(10_000)}}\n`, 'application/x-ndjson'],
      ['PUT', '/m1', `{"mappings":{"properties":${objects(10_000)}}}`],
      ['PUT', '/m2', `{"settings":${objects(10_000)}}`],
      ['POST', '/n/_mget', `{"docs":[{"_id":"1","_source":${arrays(10_000)}}]}`],
      ['POST', '/_search/scroll', `{"scroll_id":${arrays(10_000)}}`],
    ];
    for (const [method, url, body, type] of cases) {
      const res = await send(method, url, body, type);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
      const error = res.json().error as { type: string; reason: string; caused_by: unknown };
      expect(error.type).toBe('x_content_parse_exception');
      expect(error.reason).toMatch(/^\[1:\d+\] Document nesting depth \(1001\)/);
      expect(error.caused_by).toEqual({ type: 'stream_constraints_exception', reason: MESSAGE });
    }
  });

  it('refuses a document with arrays nested past 1000, alone in a bulk, and keeps one within', async () => {
    const one = await send('PUT', '/n/_doc/2', `{"x":${arrays(10_000)}}`);
    expect(one.statusCode).toBe(400);
    expect(one.json().error).toMatchObject({
      type: 'document_parsing_exception',
      reason: expect.stringMatching(/^\[\d+:\d+\] failed to parse: Document nesting depth \(1001\)/) as unknown,
      caused_by: { type: 'stream_constraints_exception', reason: MESSAGE },
    });
    // The root object and 999 arrays: 1000 levels.
    expect((await send('PUT', '/n/_doc/3', `{"x":${arrays(999)}}`)).statusCode).toBe(201);
    expect((await send('PUT', '/n/_doc/4', `{"x":${arrays(1000)}}`)).statusCode).toBe(400);

    const bulk = `{"index":{"_id":"5"}}\n{"x":${arrays(10_000)}}\n{"index":{"_id":"6"}}\n{"x":1}\n`;
    const res = await send('POST', '/n/_bulk', bulk, 'application/x-ndjson');
    expect(res.statusCode).toBe(200);
    const items = (res.json() as { items: { index: { status: number; error?: { type: string } } }[] }).items;
    expect(items.map((i) => [i.index.status, i.index.error?.type])).toEqual([
      [400, 'document_parsing_exception'],
      [201, undefined],
    ]);

    // The deepest document accepted comes back whole, compact and pretty.
    const got = await h.app.inject({ method: 'GET', url: '/n/_doc/3' });
    expect(got.json()._source).toEqual({ x: JSON.parse(arrays(999)) as unknown });
    expect((await h.app.inject({ method: 'GET', url: '/n/_doc/3?pretty' })).statusCode).toBe(200);
  });

  it('counts the arrays around objects in a document, as Jackson counts every level', async () => {
    // The root, 499 arrays, the object in them, then 499 or 500 arrays: 1000 and 1001 levels.
    const within = `{"a":${arrays(499).replace('1', `{"b":${arrays(499)}}`)}}`;
    const past = `{"a":${arrays(499).replace('1', `{"b":${arrays(500)}}`)}}`;
    expect((await send('PUT', '/arr/_doc/1', within)).statusCode).toBe(201);
    const refused = await send('PUT', '/arr/_doc/2', past);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ type: 'document_parsing_exception', caused_by: { type: 'stream_constraints_exception', reason: MESSAGE } });

    // 19 objects each under 980 arrays: 18,640 levels, once stored and then a 500 on every read of the index.
    let deep = '1';
    for (let i = 0; i < 19; i++) deep = `{"a":${arrays(980).replace('1', deep)}}`;
    expect((await send('PUT', '/arr/_doc/3', deep)).statusCode).toBe(400);
    expect((await h.app.inject({ method: 'GET', url: '/arr/_search' })).statusCode).toBe(200);
  });

  it('reads filter_path and _source parameters 10,000 levels deep', async () => {
    const path = `${'a.'.repeat(10_000)}b`;
    const filtered = await h.app.inject({ method: 'GET', url: `/n/_search?filter_path=${path}` });
    expect(filtered.statusCode).toBe(200);
    const source = await h.app.inject({ method: 'GET', url: `/n/_search?_source=${path}` });
    expect(source.statusCode).toBe(200);
  });
});

// A body that starts with a UTF-8 byte order mark (EF BB BF): ES's content sniffing and Jackson's
// byte bootstrapper both skip it, so the request is read as if it were absent. Whether ES keeps
// the mark in a stored `_source` is not confirmed; Portico does not store it.
describe('a body starting with a UTF-8 BOM', () => {
  const h = searchForAll();
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const withBom = (text: string) => Buffer.concat([BOM, Buffer.from(text)]);
  const json = { 'content-type': 'application/json' };
  const ndjson = { 'content-type': 'application/x-ndjson' };

  it('indexes a _doc PUT and stores the source without the mark', async () => {
    const put = await h.app.inject({ method: 'PUT', url: '/i/_doc/1?refresh=true', payload: withBom('{"t":"hello"}'), headers: json });
    expect(put.statusCode).toBe(201);
    const got = await h.app.inject({ method: 'GET', url: '/i/_source/1' });
    expect(got.body).toBe('{"t":"hello"}');
  });

  it('runs a _search and a _count', async () => {
    const search = await h.app.inject({ method: 'POST', url: '/i/_search', payload: withBom('{"query":{"match":{"t":"hello"}}}'), headers: json });
    expect(search.statusCode).toBe(200);
    expect(search.json().hits.total.value).toBe(1);
    const count = await h.app.inject({ method: 'POST', url: '/i/_count', payload: withBom('{"query":{"match":{"t":"hello"}}}'), headers: json });
    expect(count.json().count).toBe(1);
  });

  it('reads a _bulk and a _msearch body', async () => {
    const bulk = await h.app.inject({ method: 'POST', url: '/_bulk?refresh=true', payload: withBom('{"index":{"_index":"i","_id":"2"}}\n{"t":"world"}\n'), headers: ndjson });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json().errors).toBe(false);
    expect((await h.app.inject({ method: 'GET', url: '/i/_source/2' })).body).toBe('{"t":"world"}');
    const msearch = await h.app.inject({ method: 'POST', url: '/_msearch', payload: withBom('{"index":"i"}\n{"query":{"match":{"t":"world"}}}\n'), headers: ndjson });
    expect(msearch.statusCode).toBe(200);
    expect(msearch.json().responses[0].hits.total.value).toBe(1);
  });

  it('reads a ?source= body that starts with the mark', async () => {
    // RestRequest.contentOrSourceParam turns the parameter into UTF-8 bytes (EF BB BF for U+FEFF)
    // and hands them to the same Jackson bootstrapper, which skips the mark.
    const source = (text: string) => `source=${encodeURIComponent(`\uFEFF${text}`)}&source_content_type=application/json`;
    const search = await h.app.inject({ method: 'GET', url: `/i/_search?${source('{"query":{"match":{"t":"hello"}}}')}` });
    expect(search.statusCode).toBe(200);
    expect(search.json().hits.total.value).toBe(1);
    const bulk = await h.app.inject({ method: 'POST', url: `/_bulk?refresh=true&${source('{"index":{"_index":"i","_id":"3"}}\n{"t":"again"}\n')}` });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json().errors).toBe(false);
    expect((await h.app.inject({ method: 'GET', url: '/i/_source/3' })).body).toBe('{"t":"again"}');
  });
});
