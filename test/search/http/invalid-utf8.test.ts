import { describe, expect, it } from 'vitest';
import { utf8Problem } from '../../../src/search/syntax/utf8-check.js';
import { searchForAll, type EsBody } from '../harness.js';

// Invalid UTF-8 in a document or a request body is refused as Elasticsearch's parser (Jackson)
// refuses it, never stored as U+FFFD. The messages and columns are those an OpenSearch 2.19.6
// node answered for the same bytes (test/search/opensearch-node.ts): `Invalid UTF-8 start byte
// 0xff` at column 9, `Invalid UTF-8 middle byte 0x28` at column 10, 0x22 at 12, and 27 in _search.

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('utf8Problem', () => {
  it('finds the first bad byte with Jackson\'s words and column', () => {
    expect(utf8Problem(Buffer.from('{"a":"é😀"}'))).toBeUndefined();
    expect(utf8Problem(bytes('{"a":"x', [0xff], 'y"}'))).toEqual({ offset: 7, message: 'Invalid UTF-8 start byte 0xff', line: 1, col: 9 });
    expect(utf8Problem(bytes('{"a":"x', [0xc3, 0x28], 'y"}'))).toMatchObject({ message: 'Invalid UTF-8 middle byte 0x28', col: 10 });
    expect(utf8Problem(bytes('{"a":"x', [0xf0, 0x9f, 0x98], '"}'))).toMatchObject({ message: 'Invalid UTF-8 middle byte 0x22', col: 12 });
    expect(utf8Problem(bytes('{}\n{"a":"', [0x80], '"}'))).toMatchObject({ message: 'Invalid UTF-8 start byte 0x80', line: 2, col: 8 });
    // Overlong forms and encoded surrogates have no faithful string: refused too.
    expect(utf8Problem(bytes([0xc0, 0x80]))).toMatchObject({ message: 'Invalid UTF-8 start byte 0xc0' });
    expect(utf8Problem(bytes([0xed, 0xa0, 0x80]))).toMatchObject({ message: 'Invalid UTF-8 middle byte 0xa0' });
    expect(utf8Problem(bytes('ab', [0xe2, 0x82]))).toMatchObject({ offset: 4 });
  });
});

describe('invalid UTF-8 on the search listener', () => {
  const h = searchForAll();
  const call = async (method: 'PUT' | 'POST' | 'GET', url: string, payload: Buffer, type = 'application/json') => {
    const res = await h.app.inject({ method, url, payload, headers: { 'content-type': type } });
    return { status: res.statusCode, body: JSON.parse(res.body) as EsBody };
  };
  const parseError = (col: number, message: string) => ({
    type: 'x_content_parse_exception',
    reason: `[1:${col}] ${message}`,
    caused_by: { type: 'json_parse_exception', reason: expect.stringContaining(`${message}\n at [Source:`) as unknown },
  });

  it('refuses a document with 400 and stores nothing', async () => {
    await call('PUT', '/u', Buffer.from('{}'));
    const res = await call('PUT', '/u/_doc/1', bytes('{"a":"x', [0xff], 'y"}'));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(parseError(9, 'Invalid UTF-8 start byte 0xff'));
    expect((await call('GET', '/u/_doc/1', Buffer.alloc(0))).status).toBe(404);
  });

  it('fails only the bulk item whose source is not UTF-8', async () => {
    const res = await call('POST', '/u/_bulk?refresh=true', bytes('{"index":{"_id":"5"}}\n{"a":"x', [0xc3, 0x28], 'y"}\n{"index":{"_id":"6"}}\n{"a":"ok"}\n'), 'application/x-ndjson');
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(true);
    expect(res.body.items[0].index).toMatchObject({ _id: '5', status: 400, error: parseError(10, 'Invalid UTF-8 middle byte 0x28') });
    expect(res.body.items[1].index).toMatchObject({ _id: '6', status: 201 });
    expect((await call('GET', '/u/_doc/5', Buffer.alloc(0))).status).toBe(404);
  });

  it('refuses a search body with 400', async () => {
    const res = await call('POST', '/u/_search', bytes('{"query":{"match":{"a":"x', [0xff], '"}}}'));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(parseError(27, 'Invalid UTF-8 start byte 0xff'));
  });

  it('stores no U+FFFD anywhere', async () => {
    const all = await call('POST', '/u/_search', Buffer.from('{"query":{"match_all":{}}}'));
    expect(JSON.stringify(all.body)).not.toContain('\ufffd');
    expect(all.body.hits.total.value).toBe(1);
  });
});
