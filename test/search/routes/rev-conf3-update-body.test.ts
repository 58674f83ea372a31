import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Review of s-conf3: UpdateRequest's booleans are read with XContentParser.booleanValue, which
// gives Booleans.parseBoolean(char[], …)'s default (false) for an empty string and refuses only
// other strings. So `"detect_noop": ""` is a valid body meaning false, not a parse error.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('update body booleans given "" (review)', () => {
  let h: SearchHarness;
  const call = async (method: 'POST' | 'PUT', url: string, payload: string, ndjson = false): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method, url, payload, headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  beforeAll(async () => {
    h = await startSearch();
    expect((await call('PUT', '/ub/_doc/1', '{"a":1}')).status).toBe(201);
  });
  afterAll(async () => h.close());

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
