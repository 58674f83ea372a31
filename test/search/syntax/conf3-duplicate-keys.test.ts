import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Issue 3: ES 8 parses request bodies with Jackson's strict duplicate detection on, so a key that
// repeats one of its object's fails the request: x_content_parse_exception "[line:col] Duplicate
// field 'k'" (caused by json_parse_exception), the location just past the repeated key. Here for
// `_search`, `_count` and `_mget` bodies (update bodies and `_msearch` lines: their own tests).

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('duplicate keys in request bodies (issue 3)', () => {
  let h: SearchHarness;
  const post = async (url: string, payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    await post('/d/_doc/1?refresh=true', '{"t":"fox"}');
  });
  afterAll(async () => h.close());

  it('refuses a repeated key in a search or count body, at any depth', async () => {
    const top = await post('/d/_search', '{"size":1,"size":2}');
    expect(top.status).toBe(400);
    expect(top.body.error).toMatchObject({ type: 'x_content_parse_exception', reason: "[1:17] Duplicate field 'size'" });
    expect(top.body.error.caused_by.type).toBe('json_parse_exception');
    const nested = await post('/d/_search', '{\n"query": {"match": {"t": "fox", "t": "dog"}}\n}');
    expect(nested.body.error.reason).toBe("[2:36] Duplicate field 't'");
    expect((await post('/d/_count', '{"query":{"match_all":{}},"query":{"match_all":{}}}')).body.error.reason).toBe("[1:34] Duplicate field 'query'");
  });

  it('refuses a repeated key in an _mget body or one of its docs', async () => {
    expect((await post('/d/_mget', '{"ids":["1"],"ids":["2"]}')).body.error.reason).toBe("[1:19] Duplicate field 'ids'");
    const doc = await post('/_mget', '{"docs":[{"_index":"d","_id":"1","_id":"2"}]}');
    expect(doc.status).toBe(400);
    expect(doc.body.error.reason).toBe("[1:39] Duplicate field '_id'");
  });

  it('accepts the same key in sibling objects', async () => {
    const res = await post('/d/_search', '{"query":{"bool":{"must":[{"match":{"t":"fox"}},{"match":{"t":"fox"}}]}}}');
    expect(res.status).toBe(200);
    expect(res.body.hits.total.value).toBe(1);
    expect((await post('/_mget', '{"docs":[{"_index":"d","_id":"1"},{"_index":"d","_id":"1"}]}')).status).toBe(200);
  });
});
