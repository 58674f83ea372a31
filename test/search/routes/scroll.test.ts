import { beforeEach, describe, expect, it } from 'vitest';
import { injectJson, searchForEach, esCalls, bulkIndex, type EsHit } from '../harness.js';
import { MAX_PIT_VIEWS_PER_INDEX } from '../../../src/search/engine/open-contexts.js';

/**
 * Scroll over HTTP (routes/scroll-routes.ts), and the edges it shares with point in time: clearing,
 * closing, deleted indices, held views and sort values.
 */

describe('scroll', () => {
  // Scroll as ES 8 does it: a consistent snapshot taken when the scroll begins, batches of `size`
  // until an empty one, clear, expiry, the limit on open scrolls, and ES's validation errors.

  type Hit = EsHit;
  interface Page {
    _scroll_id?: string;
    hits: { total: { value: number; relation: string } | number; max_score: number | null; hits: Hit[] };
  }

  let clock = 1_700_000_000_000;

  beforeEach(() => {
    clock = 1_700_000_000_000;
  });
  const h = searchForEach([], { now: () => clock });
  beforeEach(async () => {
    await bulkIndex(h.app, 's', Array.from({ length: 25 }, (_, i) => [`d${i}`, { text: i % 3 === 0 ? 'red fox' : 'red dog', n: i }] as const));
  });

  const call = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, body?: unknown) => injectJson<Record<string, unknown> & Page>(h.app, method, url, body);

  async function ok(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<Page> {
    const res = await call(method, url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  /** Every batch of a scroll until the empty one. */
  async function drain(first: Page): Promise<Hit[][]> {
    const batches = [first.hits.hits];
    let id = first._scroll_id as string;
    for (;;) {
      const next = await ok('POST', '/_search/scroll', { scroll: '1m', scroll_id: id });
      id = next._scroll_id as string;
      if (next.hits.hits.length === 0) return batches;
      batches.push(next.hits.hits);
    }
  }

  function errorOf(body: Record<string, unknown>): { type: string; reason: string; root_cause: { type: string; reason: string }[] } {
    return body.error as { type: string; reason: string; root_cause: { type: string; reason: string }[] };
  }

  describe('scroll', () => {
    it('returns a _scroll_id and walks every hit in batches of size, in the order of a plain search, until an empty batch', async () => {
      const query = { query: { match: { text: 'red fox' } }, size: 10 };
      const first = await ok('POST', '/s/_search?scroll=1m', query);
      expect(Object.keys(first)[0]).toBe('_scroll_id');
      expect(first.hits.total).toEqual({ value: 25, relation: 'eq' });
      const batches = await drain(first);
      expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
      const plain = await ok('POST', '/s/_search', { ...query, size: 25 });
      expect(batches.flat()).toEqual(plain.hits.hits);
      // The first batch is the plain search's first page, byte for byte but for the id.
      const page1 = await ok('POST', '/s/_search', query);
      const { _scroll_id: _, ...rest } = first;
      expect({ ...rest, took: 0 }).toEqual({ ...page1, took: 0 });
    });

    it('takes the id and keep-alive in the query string, in the path, and with GET', async () => {
      const first = await ok('POST', '/s/_search?scroll=1m&size=20', { sort: [{ n: 'asc' }] });
      const second = await ok('GET', `/_search/scroll?scroll=1m&scroll_id=${first._scroll_id as string}`);
      expect(second.hits.hits.map((h) => h._id)).toEqual(['d20', 'd21', 'd22', 'd23', 'd24']);
      expect(second.hits.hits[0]?.sort).toEqual([20]);
      expect(second.hits.max_score).toBeNull();
      const third = await ok('GET', `/_search/scroll/${first._scroll_id as string}`);
      expect(third.hits.hits).toEqual([]);
      const asInt = await ok('GET', `/_search/scroll?scroll_id=${first._scroll_id as string}&rest_total_hits_as_int=true`);
      expect(asInt.hits.total).toBe(25);
    });

    it('is a point-in-time view: later writes neither add, drop nor change documents in later batches', async () => {
      const first = await ok('POST', '/s/_search?scroll=1m', { sort: [{ n: 'asc' }], size: 5 });
      // d7 updated, d12 deleted, d3 (already returned) updated, new documents added.
      await ok('POST', '/s/_doc/d7?refresh=true', { text: 'changed', n: 7 });
      const del = await call('DELETE', '/s/_doc/d12?refresh=true');
      expect(del.status).toBe(200);
      await ok('POST', '/s/_doc/d3?refresh=true', { text: 'changed', n: 3 });
      expect((await call('POST', '/s/_doc/new1?refresh=true', { text: 'red', n: 1 })).status).toBe(201);
      await ok('POST', '/s/_doc/d7?refresh=true', { text: 'changed twice', n: 7 });
      const hits = (await drain(first)).flat();
      expect(hits.map((h) => h._id)).toEqual(Array.from({ length: 25 }, (_, i) => `d${i}`));
      expect(hits.find((h) => h._id === 'd7')?._source).toEqual({ text: 'red dog', n: 7 });
      expect(hits.find((h) => h._id === 'd12')?._source).toEqual({ text: 'red fox', n: 12 });
      // A new scroll sees the writes.
      const now = (await drain(await ok('POST', '/s/_search?scroll=1m', { sort: [{ n: 'asc' }], size: 50 }))).flat();
      expect(now.map((h) => h._id)).toContain('new1');
      expect(now.map((h) => h._id)).not.toContain('d12');
    });

    it('clears scrolls by id, by list and with _all, answering 404 when none was open', async () => {
      const a = await ok('POST', '/s/_search?scroll=1m', {});
      const b = await ok('POST', '/s/_search?scroll=1m', {});
      const c = await ok('POST', '/s/_search?scroll=1m', {});
      expect(await call('DELETE', '/_search/scroll', { scroll_id: a._scroll_id })).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
      expect(await call('DELETE', '/_search/scroll', { scroll_id: [a._scroll_id] })).toEqual({ status: 404, body: { succeeded: true, num_freed: 0 } });
      // ClearScrollController counts the nodes that cleared all their scrolls (one), not the scrolls.
      expect(await call('DELETE', '/_search/scroll/_all')).toEqual({ status: 200, body: { succeeded: true, num_freed: 1 } });
      for (const p of [a, b, c]) {
        const gone = await call('POST', '/_search/scroll', { scroll_id: p._scroll_id });
        expect(gone.status).toBe(404);
        const e = errorOf(gone.body);
        expect(e.type).toBe('search_phase_execution_exception');
        expect(e.root_cause[0]?.type).toBe('search_context_missing_exception');
        expect(e.root_cause[0]?.reason).toMatch(/^No search context found for id \[\d+\]$/);
      }
      const bad = await call('DELETE', '/_search/scroll', { scroll_id: 'not-an-id' });
      expect(bad.status).toBe(400);
      expect(errorOf(bad.body).reason).toBe('Cannot parse scroll id');
      const none = await call('DELETE', '/_search/scroll', {});
      expect(errorOf(none.body).reason).toBe('Validation Failed: 1: no scroll ids specified;');
    });

    it('frees a scroll when its keep-alive runs out, and a batch renews it', async () => {
      const first = await ok('POST', '/s/_search?scroll=30s&size=5', {});
      clock += 20_000;
      await ok('POST', '/_search/scroll', { scroll_id: first._scroll_id, scroll: '30s' });
      clock += 25_000;
      await ok('POST', '/_search/scroll', { scroll_id: first._scroll_id });
      clock += 31_000;
      const gone = await call('POST', '/_search/scroll', { scroll_id: first._scroll_id });
      expect(gone.status).toBe(404);
      expect(errorOf(gone.body).root_cause[0]?.type).toBe('search_context_missing_exception');
    });

    it('refuses a scroll beyond search.max_open_scroll_context (500) with 429', async () => {
      for (let i = 0; i < 500; i++) await ok('POST', '/s/_search?scroll=1m&size=1', { query: { match_none: {} } });
      const over = await call('POST', '/s/_search?scroll=1m&size=1', {});
      expect(over.status).toBe(429);
      expect(errorOf(over.body).root_cause[0]).toEqual({
        type: 'too_many_scroll_contexts_exception',
        reason: 'Trying to create too many scroll contexts. Must be less than or equal to: [500]. This limit can be set by changing the [search.max_open_scroll_context] setting.',
      });
      await ok('DELETE', '/_search/scroll/_all');
      await ok('POST', '/s/_search?scroll=1m&size=1', {});
    });

    it('answers ES validation errors', async () => {
      const cases: [string, unknown, number, string, string][] = [
        ['/s/_search?scroll=1m', { from: 5 }, 400, 'action_request_validation_exception', 'Validation Failed: 1: using [from] is not allowed in a scroll context;'],
        ['/s/_search?scroll=1m', { size: 0 }, 400, 'action_request_validation_exception', 'Validation Failed: 1: [size] cannot be [0] in a scroll context;'],
        ['/s/_search?scroll=1m', { sort: ['n'], search_after: [3] }, 400, 'action_request_validation_exception', 'Validation Failed: 1: [search_after] cannot be used in a scroll context;'],
        ['/s/_search?scroll=1m', { track_total_hits: false }, 400, 'action_request_validation_exception', 'Validation Failed: 1: disabling [track_total_hits] is not allowed in a scroll context;'],
        ['/s/_search?scroll=1m', { slice: { id: 2, max: 2 } }, 400, 'x_content_parse_exception', '[1:2] [slice] failed to parse field [max]'],
        ['/s/_search?scroll=foo', {}, 400, 'parse_exception', 'failed to parse setting [scroll] with value [foo] as a time value: unit is missing or unrecognized'],
        ['/s/_search?scroll=-5m', {}, 400, 'illegal_argument_exception', 'failed to parse setting [scroll] with value [-5m] as a time value: negative durations are not supported'],
        ['/_search/scroll', { scroll: '1m' }, 400, 'action_request_validation_exception', 'Validation Failed: 1: scrollId is missing;'],
        ['/_search/scroll', { scroll_id: 'garbage' }, 400, 'illegal_argument_exception', 'Cannot parse scroll id'],
        ['/_search/scroll', { scroll_id: 'x', size: 3 }, 400, 'illegal_argument_exception', 'Unknown parameter [size] in request body or parameter is of the wrong type[VALUE_NUMBER] '],
      ];
      for (const [url, body, status, type, reason] of cases) {
        const res = await call('POST', url, body);
        expect(res.status, url + JSON.stringify(body)).toBe(status);
        expect(errorOf(res.body).type, JSON.stringify(res.body)).toBe(type);
        expect(errorOf(res.body).reason).toBe(reason);
      }
      const big = await call('POST', '/s/_search?scroll=1m', { size: 10_001 });
      expect(big.status).toBe(400);
      expect(errorOf(big.body).type).toBe('search_phase_execution_exception');
      expect(errorOf(big.body).root_cause[0]?.reason).toBe(
        'Batch size is too large, size must be less than or equal to: [10000] but was [10001]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
      );
      const long = await call('POST', '/s/_search?scroll=2d', {});
      expect(long.status).toBe(400);
      expect(errorOf(long.body).root_cause[0]?.reason).toBe(
        'Keep alive for request (2d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
      );
    });

    it('frees the scrolls of an index that is deleted', async () => {
      const first = await ok('POST', '/s/_search?scroll=1m&size=5', {});
      await ok('DELETE', '/s');
      const gone = await call('POST', '/_search/scroll', { scroll_id: first._scroll_id });
      expect(gone.status).toBe(404);
    });
  });
});

describe('scroll and point in time edges', () => {
  // Edges of scroll and point in time: each case is what ES 8 answers (sources:
  // RestClearScrollAction / ClearScrollRequest.fromXContent, ClearScrollController,
  // TransportClosePointInTimeAction, RestSearchAction.preparePointInTime, the YAML test
  // scroll/11_clear.yml) or a bound the implementation states but does not keep.

  const clock = 1_700_000_000_000;

  const h = searchForEach([], { now: () => clock });
  beforeEach(async () => {
    await bulkIndex(h.app, 's', Array.from({ length: 12 }, (_, i) => [`d${i}`, { text: 'red fox', n: i }] as const));
  });

  const { call, ok } = esCalls(h, 200);

  describe('clear scroll', () => {
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

  describe('close point in time', () => {
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

  describe('point in time search parameters', () => {
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

  describe('contexts of a deleted index', () => {
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

  describe('index views held by points in time', () => {
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

  describe('scroll sort values', () => {
    it('are kept in one column per key, numbers in a Float64Array (8 bytes a hit instead of an array per hit)', async () => {
      const { sortColumnsOf, sortValuesAt } = await import('../../../src/search/engine/scroll-hits.js');
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

  describe('what a scroll or point in time must not ignore', () => {
    it('splits by slice: slices are disjoint and together hold every document, on a scroll and a point in time', async () => {
      const all = ((await ok('POST', '/s/_search', { size: 1000 })).hits.hits as { _id: string }[]).map((h) => h._id).sort();
      const pit = (await ok('POST', '/s/_pit?keep_alive=1m')).id as string;
      const ways: [string, Record<string, unknown>][] = [['/s/_search?scroll=1m', {}], ['/_search', { pit: { id: pit } }]];
      for (const [url, extra] of ways) {
        const seen: string[] = [];
        for (let id = 0; id < 3; id++) {
          const res = await ok('POST', url, { size: 1000, slice: { id, max: 3 }, ...extra });
          const ids = (res.hits.hits as { _id: string }[]).map((h) => h._id);
          expect(res.hits.total.value).toBe(ids.length);
          seen.push(...ids);
        }
        expect(seen.sort()).toEqual(all);
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
});
