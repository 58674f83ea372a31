import { beforeAll, describe, expect, it } from 'vitest';
import { clientForAll } from '../search/harness.js';
import { OFFICIAL_CLIENTS } from '../search/es-clients.js';

// The official clients' scroll and point-in-time APIs, unmodified, against a listening search
// app: helpers.scrollSearch must walk every document (it stopped after one page while `?scroll`
// was ignored), and the raw scroll / clear_scroll / open_point_in_time / close_point_in_time calls
// must parse our answers.
const N = 1234;

describe.each(OFFICIAL_CLIENTS)('%s', (_name, make) => {
  const s = clientForAll(make);
  beforeAll(async () => {
    const operations = Array.from({ length: N }, (_, i) => [{ index: { _index: 'logs', _id: `l${i}` } }, { msg: i % 2 === 0 ? 'disk full' : 'disk ok', n: i }]).flat();
    const bulk = await s.client.bulk({ refresh: true, operations });
    expect(bulk.errors).toBe(false);
  });

  it('helpers.scrollSearch walks every document, in batches of size', async () => {
    const seen = new Set<string>();
    let batches = 0;
    for await (const result of s.client.helpers.scrollSearch({ index: 'logs', size: 100, query: { match_all: {} }, scroll: '30s' })) {
      batches++;
      for (const hit of result.body.hits.hits) seen.add(hit._id as string);
    }
    expect(seen.size).toBe(N);
    expect(batches).toBe(Math.ceil(N / 100));
  });

  it('scroll and clearScroll', async () => {
    const first = await s.client.search({ index: 'logs', scroll: '1m', size: 500, query: { match: { msg: 'full' } } });
    expect(first._scroll_id).toEqual(expect.any(String));
    const second = await s.client.scroll({ scroll_id: first._scroll_id as string, scroll: '1m' });
    expect(second.hits.hits).toHaveLength(N / 2 - 500);
    const cleared = await s.client.clearScroll({ scroll_id: first._scroll_id as string });
    expect(cleared).toEqual({ succeeded: true, num_freed: 1 });
    const gone = await s.client.scroll({ scroll_id: first._scroll_id as string }).catch((e: unknown) => e);
    expect((gone as { statusCode?: number }).statusCode).toBe(404);
  });

  it('openPointInTime, search_after on it while documents change, closePointInTime', async () => {
    const pit = await s.client.openPointInTime({ index: 'logs', keep_alive: '1m' });
    expect(pit.id).toEqual(expect.any(String));
    await s.client.index({ index: 'logs', id: 'late', document: { msg: 'disk full', n: -1 }, refresh: true });
    await s.client.delete({ index: 'logs', id: 'l0', refresh: true });
    const ids: string[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const page = await s.client.search({
        pit: { id: pit.id, keep_alive: '1m' },
        size: 300,
        sort: [{ n: 'asc' }],
        ...(after === undefined ? {} : { search_after: after as never }),
      });
      if (page.hits.hits.length === 0) break;
      ids.push(...page.hits.hits.map((x) => x._id as string));
      after = page.hits.hits.at(-1)?.sort as unknown[];
    }
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => `l${i}`));
    const closed = await s.client.closePointInTime({ id: pit.id });
    expect(closed).toEqual({ succeeded: true, num_freed: 1 });
  });
});
