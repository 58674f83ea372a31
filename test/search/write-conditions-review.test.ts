import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

/**
 * Second reader's cases for the write conditions (version, version_type, if_seq_no,
 * if_primary_term): ES 8 behaviour the first version missed, and what must survive a restart.
 */

let h: SearchHarness;
beforeEach(async () => {
  h = await startSearch();
});
afterEach(async () => h.close());

type Json = Record<string, unknown> & { error?: { type: string; reason: string } };

async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const res = await h.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.statusCode, body: res.json() as Json };
}

describe('a write that fails after auto-creating its index', () => {
  // ES creates the index before the write is tried, and keeps it whatever becomes of the write.
  // Here the index was created inside the write's store transaction: the failure rolled the
  // index's row back while the in-memory index stayed, so every later document of that index was
  // acknowledged but gone after a restart.
  it('keeps the index, and the documents written to it later, across a restart (409 on if_seq_no)', async () => {
    const cas = await call('PUT', '/fresh/_doc/1?if_seq_no=0&if_primary_term=1', { n: 1 });
    expect(cas.status).toBe(409);
    expect((await call('PUT', '/fresh/_doc/2', { n: 2 })).status).toBe(201);
    await h.restart();
    expect(await call('GET', '/fresh/_doc/2')).toMatchObject({ status: 200, body: { found: true, _source: { n: 2 } } });
  });

  it('keeps the index, and the documents written to it later, across a restart (document parsing error)', async () => {
    expect((await call('PUT', '/fresh2/_doc/1', { _id: 'x' })).status).toBe(400);
    expect((await call('PUT', '/fresh2/_doc/2', { n: 2 })).status).toBe(201);
    await h.restart();
    expect(await call('GET', '/fresh2/_doc/2')).toMatchObject({ status: 200, body: { found: true, _source: { n: 2 } } });
  });
});
