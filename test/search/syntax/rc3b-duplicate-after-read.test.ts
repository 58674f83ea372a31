import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Review of a31d281/fa678ed: readInTextOrder answers an error that both the cut text and the text
// without the repeated member give, as one met before the repeated key. A check ES makes only once
// its parser has read the whole body or line (ActionRequest.validate, BulkRequestParser's checks
// after the action line's object) gives the same error on both texts when it depends only on
// members before the repeated key, yet ES never reaches it: the parser fails on the key first.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('a repeated key before a check ES makes after reading (review)', () => {
  let h: SearchHarness;
  const post = async (url: string, payload: string, type = 'application/json'): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    await post('/o/_doc/1?refresh=true', '{"t":"fox"}');
  });
  afterAll(async () => h.close());

  it('_search: search_after with a from repeated (validation comes after the parse)', async () => {
    const res = await post('/o/_search', '{"search_after":[1],"from":5,"from":0}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:36] Duplicate field 'from'");
  });

  it('_search?scroll: search_after with a repeated size', async () => {
    const res = await post('/o/_search?scroll=1m', '{"search_after":[1],"size":1,"size":2}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:36] Duplicate field 'size'");
  });

  it('_search: an unknown key before the repeated one is still answered', async () => {
    const res = await post('/o/_search', '{"bogus":1,"size":1,"size":2}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toContain('bogus');
  });

  const bulk = (payload: string) => post('/_bulk', payload, 'application/x-ndjson');

  it('_bulk: a delete with dynamic_templates and a repeated _id', async () => {
    const res = await bulk('{"delete":{"_index":"o","_id":"1","dynamic_templates":{"a":"b"},"_id":"2"}}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:70] Duplicate field '_id'");
  });

  it('_bulk: an update with a version and a repeated _id', async () => {
    const res = await bulk('{"update":{"_index":"o","_id":"1","version":3,"_id":"2"}}\n{"doc":{}}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:52] Duplicate field '_id'");
  });

  it('_bulk: a negative if_seq_no and a repeated _id', async () => {
    const res = await bulk('{"index":{"_index":"o","_id":"1","if_seq_no":-3,"_id":"2"}}\n{}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:54] Duplicate field '_id'");
  });

  it('_bulk: the same checks still refuse a line without a repeated key', async () => {
    expect((await bulk('{"delete":{"_index":"o","_id":"1","dynamic_templates":{"a":"b"}}}\n')).body.error.reason).toBe(
      'Delete request in line [1] does not accept dynamic_templates',
    );
    expect((await bulk('{"update":{"_index":"o","_id":"1","version":3}}\n{"doc":{}}\n')).body.error.reason).toContain('Update requests do not support versioning');
    expect((await bulk('{"index":{"_index":"o","_id":"1","if_seq_no":-3}}\n{}\n')).body.error.reason).toBe('sequence numbers must be non negative. got [-3].');
  });

  it('_bulk: an unknown parameter before the repeated key is still answered', async () => {
    const res = await bulk('{"index":{"_index":"o","bogus":1,"_id":"1","_id":"2"}}\n{}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('Action/metadata line [1] contains an unknown parameter [bogus]');
  });
});

describe('_msearch: a repeated key in a header line (review)', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/o/_doc/1?refresh=true', payload: '{"t":"fox"}', headers: { 'content-type': 'application/json' } });
  });
  afterAll(async () => h.close());
  const msearch = async (payload: string): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url: '/_msearch', payload, headers: { 'content-type': 'application/x-ndjson' } });
    return { status: res.statusCode, body: res.json() as Body };
  };

  // ES reads the header with parser.map() and only then checks its keys: the repeated key wins
  // over an unsupported key or a bad value earlier in the line.
  it('answers the repeated key, not an unsupported key before it', async () => {
    const res = await msearch('{"bogus":1,"index":"o","index":"o"}\n{}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:31] Duplicate field 'index'");
  });

  it('answers the repeated key, not a bad search_type before it', async () => {
    const res = await msearch('{"search_type":"nope","index":"o","index":"o"}\n{}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe("[1:42] Duplicate field 'index'");
  });

  it('still refuses an unsupported key alone', async () => {
    const res = await msearch('{"bogus":1,"index":"o"}\n{}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('key [bogus] is not supported in the metadata section');
  });
});

describe('_bulk: an action line _source that is a number (review)', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  // BulkRequestParser hands the value to FetchSourceContext.fromXContent, whose refusal of a
  // number names the tokens it takes (FetchSourceContextTests.testFromXContentException).
  it('is refused as FetchSourceContext.fromXContent refuses it', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/_bulk',
      payload: '{"update":{"_index":"o","_id":"1","_source":5}}\n{"doc":{}}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.statusCode).toBe(400);
    const error = (res.json() as Body).error;
    expect(error.type).toBe('parsing_exception');
    expect(error.reason).toBe('Expected one of [VALUE_BOOLEAN, VALUE_STRING, START_ARRAY, START_OBJECT] but found [VALUE_NUMBER]');
  });
});
