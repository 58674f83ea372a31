import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchApp } from '../../src/search/app.js';
import { MAX_PIT_VIEWS_PER_INDEX } from '../../src/search/engine/open-contexts.js';
import { injectJson, searchConfig } from './harness.js';

// Second reader's findings on scroll and point in time: each case is what ES 8 answers (sources:
// RestClearScrollAction / ClearScrollRequest.fromXContent, ClearScrollController,
// TransportClosePointInTimeAction, RestSearchAction.preparePointInTime, the YAML test
// scroll/11_clear.yml) or a bound the implementation states but does not keep.

let app: FastifyInstance;
let dir: string;
const clock = 1_700_000_000_000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-ctx-findings-'));
  app = await buildSearchApp(searchConfig(dir), { logger: pino({ level: 'silent' }), now: () => clock, requestShutdown: () => undefined });
  let body = '';
  for (let i = 0; i < 12; i++) body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ text: 'red fox', n: i })}\n`;
  const res = await app.inject({ method: 'POST', url: '/s/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
  expect(res.json()).toMatchObject({ errors: false });
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

const call = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown) => injectJson<Body>(app, method, url, body);

async function ok(method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown): Promise<Body> {
  const res = await call(method, url, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('clear scroll (second reader)', () => {
  it('takes the ids of a body instead of those of the URL (YAML scroll/11_clear.yml)', async () => {
    const a = (await ok('POST', '/s/_search?scroll=1m&size=2', {}))._scroll_id as string;
    // ClearScrollRequest.fromXContent starts from no ids: the body's replace the URL's.
    expect(await call('DELETE', '/_search/scroll/invalid_scroll_id', { scroll_id: [a] })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
    const b = (await ok('POST', '/s/_search?scroll=1m&size=2', {}))._scroll_id as string;
    expect(await call('DELETE', '/_search/scroll?scroll_id=invalid_scroll_id', { scroll_id: b })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
  });

  it('answers _all as ClearScrollController does: one freed per node, whatever was open', async () => {
    // cleanAllScrolls counts the nodes that answered (one here), not the contexts.
    expect(await call('DELETE', '/_search/scroll/_all')).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
    await ok('POST', '/s/_search?scroll=1m&size=2', {});
    const b = (await ok('POST', '/s/_search?scroll=1m&size=2', {}))._scroll_id as string;
    expect(await call('DELETE', '/_search/scroll', { scroll_id: '_all' })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
    expect((await call('POST', '/_search/scroll', { scroll_id: b })).status).toBe(404);
    // `_all` means all only alone; among other ids it is one more id, which does not parse.
    const c = (await ok('POST', '/s/_search?scroll=1m&size=2', {}))._scroll_id as string;
    const mixed = await call('DELETE', '/_search/scroll', { scroll_id: [c, '_all'] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.reason).toBe('Cannot parse scroll id');
    await ok('POST', '/_search/scroll', { scroll_id: c });
  });
});

describe('close point in time (second reader)', () => {
  it('answers succeeded false for a point in time already gone, and one freed context per index', async () => {
    expect((await call('POST', '/t/_doc/x?refresh=true', { text: 'red', n: 1 })).status).toBe(201);
    const one = (await ok('POST', '/s/_pit?keep_alive=1m')).id as string;
    expect(await call('DELETE', '/_pit', { id: one })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
    // TransportClosePointInTimeAction: succeeded = (freed == number of shard contexts).
    expect(await call('DELETE', '/_pit', { id: one })).toEqual({ status: 404, body: { succeeded: false, num_freed: 0 } });
    const two = (await ok('POST', '/s,t/_pit?keep_alive=1m')).id as string;
    expect(await call('DELETE', '/_pit', { id: two })).toEqual({ status: 200, body: { succeeded: true, num_freed: 2 } });
  });
});

describe('point in time search parameters (second reader)', () => {
  it('refuses indices options, routing and preference with a point in time instead of ignoring them', async () => {
    const pit = (await ok('POST', '/s/_pit?keep_alive=1m')).id as string;
    const res = await call('POST', '/_search?ignore_unavailable=true&routing=1&preference=_local', { pit: { id: pit } });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('action_request_validation_exception');
    expect(res.body.error.reason).toBe(
      'Validation Failed: 1: [indicesOptions] cannot be used with point in time;2: [routing] cannot be used with point in time;3: [preference] cannot be used with point in time;',
    );
    // The default options, given explicitly, are no different from none.
    await ok('POST', '/_search?ignore_unavailable=false&allow_no_indices=true', { pit: { id: pit } });
  });
});

describe('contexts of a deleted index (second reader)', () => {
  it('are freed when the index is deleted, as ES frees its shards contexts, not when next asked for', async () => {
    const scroll = (await ok('POST', '/s/_search?scroll=1m&size=2', {}))._scroll_id as string;
    const pit = (await ok('POST', '/s/_pit?keep_alive=1m')).id as string;
    await ok('DELETE', '/s');
    // Nothing left to free: ES answers 404 with num_freed 0 (the deleted index's in-memory index
    // must not stay pinned by contexts nobody can use until their keep-alive runs out).
    expect(await call('DELETE', '/_search/scroll', { scroll_id: scroll })).toEqual({ status: 404, body: { succeeded: true, num_freed: 0 } });
    expect(await call('DELETE', '/_pit', { id: pit })).toEqual({ status: 404, body: { succeeded: false, num_freed: 0 } });
  });
});

describe('index views held by points in time (second reader)', () => {
  it('stay within MAX_PIT_VIEWS_PER_INDEX when the mapping changes between opens', async () => {
    // Each point in time opened after a mapping change needs a view of its own; before the next
    // write none is frozen, so the limit (checked only against a frozen last view) never trips,
    // and the next write freezes each view.
    const opened: number[] = [];
    for (let i = 0; i < MAX_PIT_VIEWS_PER_INDEX + 4; i++) {
      await ok('PUT', '/s/_mapping', { properties: { [`f${i}`]: { type: 'keyword' } } });
      opened.push((await call('POST', '/s/_pit?keep_alive=1m')).status);
    }
    expect(opened.slice(0, MAX_PIT_VIEWS_PER_INDEX)).toEqual(Array<number>(MAX_PIT_VIEWS_PER_INDEX).fill(200));
    expect(opened.slice(MAX_PIT_VIEWS_PER_INDEX)).toEqual([400, 400, 400, 400]);
  });
});

describe('scroll sort values (second reader)', () => {
  it('are kept in one column per key, numbers in a Float64Array (8 bytes a hit instead of an array per hit)', async () => {
    const { sortColumnsOf, sortValuesAt } = await import('../../src/search/engine/scroll-hits.js');
    const rows: (number | string | null)[][] = [
      [3, 'b', 2 ** 63],
      [-0, null, -(2 ** 63)],
      [1.5, 'a', 7],
    ];
    const cols = sortColumnsOf(rows.length, (i) => rows[i]);
    expect(cols?.[0]).toBeInstanceOf(Float64Array);
    expect(cols?.[1]).toBeInstanceOf(Array);
    expect(cols?.[2]).toBeInstanceOf(Float64Array);
    rows.forEach((r, i) => expect(sortValuesAt(cols, i)).toEqual(r));
    expect(Object.is(sortValuesAt(cols, 1)?.[0], -0)).toBe(true);
    expect(sortColumnsOf(2, () => undefined)).toBeUndefined();
    expect(sortValuesAt(undefined, 0)).toBeUndefined();
  });
});

describe('what a scroll or point in time must not ignore (second reader)', () => {
  it('refuses slice instead of answering every document in every slice', async () => {
    const pit = (await ok('POST', '/s/_pit?keep_alive=1m')).id as string;
    for (const [url, body] of [
      ['/s/_search?scroll=1m', { size: 5, slice: { id: 0, max: 2 } }],
      ['/_search', { size: 5, slice: { id: 1, max: 2 }, pit: { id: pit } }],
    ] as const) {
      const res = await call('POST', url, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.type).toBe('illegal_argument_exception');
      expect(res.body.error.reason).toMatch(/^\[slice\].* is not supported by this server$/);
    }
  });

  it('answers ES validation errors for rescore, collapse and request_cache with a scroll', async () => {
    const cases: [string, unknown, string][] = [
      ['/s/_search?scroll=1m', { rescore: { query: { rescore_query: { match_all: {} } } } }, 'Validation Failed: 1: using [rescore] is not allowed in a scroll context;'],
      ['/s/_search?scroll=1m', { collapse: { field: 'n' } }, 'Validation Failed: 1: cannot use `collapse` in a scroll context;'],
      ['/s/_search?scroll=1m&request_cache=true', {}, 'Validation Failed: 1: [request_cache] cannot be used in a scroll context;'],
    ];
    for (const [url, body, reason] of cases) {
      const res = await call('POST', url, body);
      expect(res.status, url).toBe(400);
      expect(res.body.error.type).toBe('action_request_validation_exception');
      expect(res.body.error.reason).toBe(reason);
    }
  });
});
