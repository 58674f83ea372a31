import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../../src/search/app.js';
import { searchConfig } from '../harness.js';

// Second reader's findings on s-conf2's update bodies: UpdateRequest's parser declares
// `if_seq_no`, `if_primary_term` and `detect_noop`, and ES acts on them (the conditions are checked
// when the current document is read, UpdateHelper / getForUpdate; detect_noop false writes an
// unchanged document). s-conf2 accepts them as declared fields but ignored them, so an update ES
// refuses with 409 was applied.

let app: FastifyInstance;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-update-review-'));
  app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: () => 1_700_000_000_000, requestShutdown: () => undefined });
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

async function call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const ndjson = typeof body === 'string';
  const res = await app.inject({ method, url, ...(body === undefined ? {} : { payload: ndjson ? body : JSON.stringify(body), headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' } }) });
  return { status: res.statusCode, body: res.json() as Body };
}

describe('update body conditions (second reader)', () => {
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

describe('update detect_noop (second reader)', () => {
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

describe('a refused _bulk changes nothing (second reader: checked, holds)', () => {
  it('an update line with an unknown field refuses the whole request before any item is applied', async () => {
    const res = await call('POST', '/_bulk', '{"index":{"_index":"j","_id":"a"}}\n{"x":1}\n{"update":{"_index":"j","_id":"a"}}\n{"doc":{"x":2},"foo":1}\n');
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('x_content_parse_exception');
    expect((await call('GET', '/j/_doc/a')).status).toBe(404);
  });
});
