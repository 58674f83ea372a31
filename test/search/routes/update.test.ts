import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../../src/search/syntax/json-members.js';
import { startSearch, type SearchHarness } from '../harness.js';

// Issue 3, last differences in update bodies (ES 8's UpdateRequest parser over Jackson with strict
// duplicate detection): booleans are Booleans.parseBoolean (only "true"/"false" as strings), a
// repeated key fails the request where Jackson meets it, and `_source` adds the `get` member.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('findDuplicateKey', () => {
  it('finds the first repeated key of an object, at any depth, just past its closing quote', () => {
    expect(findDuplicateKey('{"a":1,"b":2}')).toBeUndefined();
    expect(findDuplicateKey('{"a":1,"a":2}')).toEqual({ key: 'a', at: 10 });
    expect(findDuplicateKey('{"a":{"x":1},"b":{"x":2}}')).toBeUndefined();
    expect(findDuplicateKey('{"a":[{"x":1,"y":"x"},{"x":2}],"d":{"k":1,"k":2}}')).toEqual({ key: 'k', at: 45 });
    expect(findDuplicateKey('{"a\\u0062":1,"ab":2}')).toEqual({ key: 'ab', at: 17 });
    expect(findDuplicateKey('["a","a"]')).toBeUndefined();
  });
});

describe('update bodies (issue 3)', () => {
  let h: SearchHarness;
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await h.app.inject({ method, url, ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    await call('PUT', '/u/_doc/1?refresh=true', { a: 1, b: { c: 2 } });
  });
  afterAll(async () => h.close());

  it('refuses a boolean field given a string other than "true"/"false", at the value, and applies nothing', async () => {
    for (const field of ['doc_as_upsert', 'detect_noop', 'scripted_upsert']) {
      const res = await call('POST', '/u/_update/1', `{"doc":{"a":5},"${field}":"yes"}`);
      expect(res.status).toBe(400);
      const reason = `[1:${19 + field.length}] [UpdateRequest] failed to parse field [${field}]`;
      expect(res.body).toEqual({
        error: {
          root_cause: [{ type: 'x_content_parse_exception', reason }],
          type: 'x_content_parse_exception',
          reason,
          caused_by: { type: 'illegal_argument_exception', reason: 'Failed to parse value [yes] as only [true] or [false] are allowed.' },
        },
        status: 400,
      });
    }
    expect((await call('GET', '/u/_doc/1')).body._source).toEqual({ a: 1, b: { c: 2 } });
    // "true" and "false" stay accepted.
    expect((await call('POST', '/u/_update/1', { doc: { a: 1 }, detect_noop: 'true' })).body.result).toBe('noop');
  });

  it('refuses a repeated key (top level or inside doc) where Jackson meets it', async () => {
    const top = await call('POST', '/u/_update/1', '{"doc":{"a":5},"doc":{"a":6}}');
    expect(top.status).toBe(400);
    expect(top.body.error.type).toBe('x_content_parse_exception');
    expect(top.body.error.reason).toBe("[1:21] Duplicate field 'doc'");
    expect(top.body.error.caused_by.type).toBe('json_parse_exception');
    const inner = await call('POST', '/u/_update/1', '{\n  "doc": {"a": 5, "a": 6}\n}');
    expect(inner.body.error.reason).toBe("[2:22] Duplicate field 'a'");
    // An unknown field before the repeated key is reported first; a repeated key before it wins.
    expect((await call('POST', '/u/_update/1', '{"nope":1,"doc":{"a":5,"a":6}}')).body.error.reason).toBe('[1:2] [UpdateRequest] unknown field [nope]');
    expect((await call('POST', '/u/_update/1', '{"doc":{"a":5,"a":6},"nope":1}')).body.error.reason).toBe("[1:18] Duplicate field 'a'");
    expect((await call('GET', '/u/_doc/1')).body._version).toBe(1);
  });

  it('answers `_source` with ES\'s get member: the document as the update left it, filtered', async () => {
    const res = await call('POST', '/u/_update/1', { doc: { a: 7 }, _source: ['b.*'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'updated', _version: 2, _seq_no: 1 });
    expect(res.body.get).toEqual({ _seq_no: 1, _primary_term: 1, found: true, _source: { b: { c: 2 } } });
    const whole = await call('POST', '/u/_update/1', { doc: { a: 7 }, _source: true });
    expect(whole.body.result).toBe('noop');
    expect(whole.body.get).toEqual({ _seq_no: 1, _primary_term: 1, found: true, _source: { a: 7, b: { c: 2 } } });
    expect((await call('POST', '/u/_update/1', { doc: { a: 8 }, _source: false })).body.get).toBeUndefined();
    expect((await call('POST', '/u/_update/1', { doc: { a: 8 } })).body.get).toBeUndefined();
    // The URL's _source* when the body has none; an upsert that creates answers get too.
    expect((await call('POST', '/u/_update/1?_source_includes=a', { doc: { a: 9 } })).body.get._source).toEqual({ a: 9 });
    const created = await call('POST', '/u/_update/2', { doc: { z: 1 }, doc_as_upsert: true, _source: { includes: 'z' } });
    expect(created.status).toBe(201);
    expect(created.body.get).toEqual({ _seq_no: created.body._seq_no, _primary_term: 1, found: true, _source: { z: 1 } });
  });

  it('refuses a `_source` FetchSourceContext refuses, wrapped as a field parse failure', async () => {
    const res = await call('POST', '/u/_update/1', '{"doc":{"a":1},"_source":{"foo":1}}');
    expect(res.status).toBe(400);
    expect(res.body.error.reason).toBe('[1:26] [UpdateRequest] failed to parse field [_source]');
    expect(res.body.error.caused_by).toEqual({ type: 'parsing_exception', reason: 'Unknown key for a VALUE_NUMBER in [foo].' });
  });
});

describe('update lines of _bulk (issue 3)', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  it('fail the whole request for a boolean given "yes" or a repeated key, as the update API does, and apply nothing', async () => {
    const bulk = async (lines: string[]) => {
      const res = await h.app.inject({ method: 'POST', url: '/_bulk', payload: `${lines.join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } });
      return { status: res.statusCode, body: res.json() as Body };
    };
    const yes = await bulk(['{"index":{"_index":"b","_id":"0"}}', '{"a":0}', '{"update":{"_index":"b","_id":"1"}}', '{"doc":{"a":1},"doc_as_upsert":"yes"}']);
    expect(yes.status).toBe(400);
    expect(yes.body.error.reason).toBe('[1:32] [UpdateRequest] failed to parse field [doc_as_upsert]');
    const dup = await bulk(['{"update":{"_index":"b","_id":"1"}}', '{"doc":{"a":1},"doc":{"a":2},"doc_as_upsert":true}']);
    expect(dup.status).toBe(400);
    expect(dup.body.error.reason).toBe("[1:21] Duplicate field 'doc'");
    expect((await h.app.inject({ method: 'GET', url: '/b/_doc/0' })).statusCode).toBe(404);
  });
});
