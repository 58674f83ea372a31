import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll, searchForEach } from '../harness.js';

/**
 * _update over HTTP (routes/document-routes.ts): update bodies and _bulk update lines, booleans,
 * conditions and detect_noop.
 */

// Update bodies as read by ES 8's UpdateRequest parser over Jackson with strict
// duplicate detection): booleans are Booleans.parseBoolean (only "true"/"false" as strings), a
// repeated key fails the request where Jackson meets it, and `_source` adds the `get` member.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('update bodies', () => {
  const h = searchForAll();
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await h.app.inject({ method, url, ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    await call('PUT', '/u/_doc/1?refresh=true', { a: 1, b: { c: 2 } });
  });

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

describe('update lines of _bulk', () => {
  const h = searchForAll();

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

describe('update body booleans', () => {
  // UpdateRequest's booleans are read with XContentParser.booleanValue, which
  // gives Booleans.parseBoolean(char[], …)'s default (false) for an empty string and refuses only
  // other strings. So `"detect_noop": ""` is a valid body meaning false, not a parse error.

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  describe('update body booleans given ""', () => {
    const h = searchForAll();
    const call = async (method: 'POST' | 'PUT', url: string, payload: string, ndjson = false): Promise<{ status: number; body: Body }> => {
      const res = await h.app.inject({ method, url, payload, headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' } });
      return { status: res.statusCode, body: res.json() as Body };
    };
    beforeAll(async () => {
      expect((await call('PUT', '/ub/_doc/1', '{"a":1}')).status).toBe(201);
    });

    it('reads "detect_noop": "" as false (the same doc is written again, not a noop)', async () => {
      const res = await call('POST', '/ub/_update/1', '{"doc":{"a":1},"detect_noop":""}');
      expect(res.status).toBe(200);
      expect(res.body.result).toBe('updated');
    });

    it('reads "doc_as_upsert": "" as false (a missing document stays missing)', async () => {
      const res = await call('POST', '/ub/_update/2', '{"doc":{"a":1},"doc_as_upsert":""}');
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('document_missing_exception');
    });

    it('takes "" in a _bulk update line too', async () => {
      const res = await call('POST', '/_bulk', '{"update":{"_index":"ub","_id":"1"}}\n{"doc":{"a":1},"detect_noop":""}\n', true);
      expect(res.status).toBe(200);
      expect(res.body.items[0].update.result).toBe('updated');
    });

    it('still refuses any other string', async () => {
      const res = await call('POST', '/ub/_update/1', '{"doc":{"a":1},"detect_noop":" "}');
      expect(res.status).toBe(400);
      expect(res.body.error.caused_by.reason).toBe('Failed to parse value [ ] as only [true] or [false] are allowed.');
    });
  });
});

describe('update conditions and detect_noop', () => {
  // UpdateRequest's parser declares
  // `if_seq_no`, `if_primary_term` and `detect_noop`, and ES acts on them (the conditions are checked
  // when the current document is read, UpdateHelper / getForUpdate; detect_noop false writes an
  // unchanged document). Accepting them as declared fields but ignoring them would apply an update
  // ES refuses with 409.


  const h = searchForEach([], { now: () => 1_700_000_000_000 });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
  type Body = Record<string, any>;

  async function call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const ndjson = typeof body === 'string';
    const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: ndjson ? body : JSON.stringify(body), headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' } }) });
    return { status: res.statusCode, body: res.json() as Body };
  }

  describe('update body conditions', () => {
    it('_update refuses with 409 when the body if_seq_no does not match, and changes nothing', async () => {
      expect((await call('PUT', '/i/_doc/1', { n: 1 })).status).toBe(201);
      const res = await call('POST', '/i/_update/1', { doc: { n: 2 }, if_seq_no: 99, if_primary_term: 1 });
      expect(res.status).toBe(409);
      expect(res.body.error.type).toBe('version_conflict_engine_exception');
      expect(res.body.error.reason).toBe('[1]: version conflict, required seqNo [99], primary term [1]. current document has seqNo [0] and primary term [1]');
      expect((await call('GET', '/i/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
      // A matching one goes ahead.
      const okRes = await call('POST', '/i/_update/1', { doc: { n: 3 }, if_seq_no: 0, if_primary_term: 1 });
      expect(okRes.status).toBe(200);
      expect(okRes.body).toMatchObject({ result: 'updated', _version: 2, _seq_no: 1 });
    });

    it('a _bulk update line with a stale if_seq_no in its body fails its item and changes nothing', async () => {
      expect((await call('PUT', '/i/_doc/1', { n: 1 })).status).toBe(201);
      const res = await call('POST', '/_bulk', '{"update":{"_index":"i","_id":"1"}}\n{"doc":{"n":8},"if_seq_no":99,"if_primary_term":1}\n');
      expect(res.status).toBe(200);
      expect(res.body.errors).toBe(true);
      expect(res.body.items[0].update.status).toBe(409);
      expect((await call('GET', '/i/_doc/1')).body).toMatchObject({ _version: 1, _source: { n: 1 } });
    });

    it('validates body conditions as UpdateRequest.validate does (with upsert)', async () => {
      const res = await call('POST', '/i/_update/1', { doc: { n: 2 }, doc_as_upsert: true, if_seq_no: 0, if_primary_term: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.reason).toBe('Validation Failed: 1: compare and write operations can not be used with upsert;');
      expect((await call('GET', '/i/_doc/1')).status).toBe(404);
    });
  });

  describe('update detect_noop', () => {
    it('detect_noop false writes an unchanged document as an update', async () => {
      expect((await call('PUT', '/i/_doc/1', { n: 1 })).status).toBe(201);
      expect((await call('POST', '/i/_update/1', { doc: { n: 1 } })).body).toMatchObject({ result: 'noop', _version: 1 });
      const res = await call('POST', '/i/_update/1', { doc: { n: 1 }, detect_noop: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ result: 'updated', _version: 2, _seq_no: 1 });
      const bulk = await call('POST', '/_bulk', '{"update":{"_index":"i","_id":"1"}}\n{"doc":{"n":1},"detect_noop":false}\n');
      expect(bulk.body.items[0].update).toMatchObject({ result: 'updated', _version: 3 });
    });
  });

  describe('a refused _bulk changes nothing', () => {
    it('an update line with an unknown field refuses the whole request before any item is applied', async () => {
      const res = await call('POST', '/_bulk', '{"index":{"_index":"j","_id":"a"}}\n{"x":1}\n{"update":{"_index":"j","_id":"a"}}\n{"doc":{"x":2},"foo":1}\n');
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('x_content_parse_exception');
      expect((await call('GET', '/j/_doc/a')).status).toBe(404);
    });
  });
});
