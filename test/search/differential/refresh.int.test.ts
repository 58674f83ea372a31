/**
 * Elasticsearch's near-real-time model side by side with the OpenSearch node (issue 21): searches,
 * counts, scrolls, `realtime=false` gets, `_stats` and `_cat/indices` see an index as of its last
 * refresh; `refresh=true|wait_for|false` on writes, `_refresh`, `refresh_interval` (`-1`, explicit,
 * unset with search-idle) and its dynamic update. Each request goes to both and the answers must be
 * equal once what differs by nature is left out (`took`, uuids, scores). Waits are guards for a busy
 * machine (polls with a deadline), never timing assertions: what each test asserts is what both
 * servers show at the same step.
 */
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';

const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

/** What is compared: an error's status, type and reason; a success's body without `took`, uuids and scores. */
function comparable(a: Answer): unknown {
  if (a.status >= 300 && a.body?.error !== undefined) {
    // Index uuids differ by nature (`[[name/uuid]]` in a settings error).
    return { status: a.status, type: a.body.error.type, reason: String(a.body.error.reason).replace(/\/[\w-]{20,22}\]/g, '/<uuid>]') };
  }
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'took' || k === 'uuid' || k === 'index_uuid' || k === '_score' || k === 'max_score' || k === '_scroll_id') continue;
      out[k] = strip(x);
    }
    return out;
  };
  return { status: a.status, body: strip(a.body) };
}

function expectSame(what: string, p: Answer, r: Answer): void {
  const [a, b] = [comparable(p), comparable(r)];
  if (!isDeepStrictEqual(a, b)) expect.fail(`${what}\nPortico: ${JSON.stringify(a)}\nnode:    ${JSON.stringify(b)}`);
}

/** Sends the request to both (Portico first) and expects equal answers; returns Portico's. */
async function same(method: string, path: string, body?: unknown): Promise<Answer> {
  const p = await porticoCall(method, path, body);
  const r = await nodeCall(method, path, body);
  expectSame(`${method} ${path} ${JSON.stringify(body) ?? ''}`, p, r);
  return p;
}

/** Both answers of a request sent to both at once. */
async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return Promise.all([porticoCall(method, path, body), nodeCall(method, path, body)]);
}

const ndjson = (...lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** The documents each server shows of `index`: `_stats` (primaries), `_cat/indices`, `_count` and a search's ids. */
async function stats(index: string): Promise<void> {
  const [p, r] = await both('GET', `/${index}/_stats/docs`);
  expect(p.status).toBe(200);
  // The count only: `docs.deleted` counts Lucene's deleted documents not merged away yet (an
  // update leaves one, a realtime get may add some), `total_size_in_bytes` is ES 8's alone.
  const docs = (a: Answer) => ({ status: a.status, body: { count: a.body.indices[index].primaries.docs.count } });
  expectSame(`_stats of ${index}`, docs(p), docs(r));
  await same('GET', `/_cat/indices/${index}?format=json&h=index,docs.count`);
}

async function searches(index: string): Promise<void> {
  await same('GET', `/${index}/_count`);
  await same('POST', `/${index}/_search`, { sort: [{ n: 'asc' }], version: true, seq_no_primary_term: true });
  await same('POST', `/${index}/_search`, { size: 0, aggs: { total: { sum: { field: 'n' } } } });
}

/** Polls `check` until it holds on both servers (a guard of 30 s for a busy machine, not a timing assertion). */
async function until(what: string, check: (a: Answer) => boolean, method: string, path: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [p, r] = await both(method, path);
    if (check(p) && check(r)) return;
    if (Date.now() > deadline) expect.fail(`${what}: never seen (Portico ${JSON.stringify(p.body)}, node ${JSON.stringify(r.body)})`);
    await sleep(200);
  }
}

const docsCount = (index: string) => (n: number) => (a: Answer) => a.body?.indices?.[index]?.primaries?.docs?.count === n;

const SETTINGS = { number_of_shards: 1, number_of_replicas: 1 };
const MAPPINGS = { properties: { n: { type: 'integer' }, t: { type: 'keyword' } } };

describe('refresh_interval -1: only refreshes show writes', () => {
  it('hides unrefreshed writes from searches, counts, stats and realtime=false gets, not from realtime gets', async () => {
    await same('PUT', '/nrt-off', { settings: { ...SETTINGS, refresh_interval: '-1' }, mappings: MAPPINGS });
    await same('PUT', '/nrt-off/_doc/1', { n: 1, t: 'a' });
    await same('POST', '/nrt-off/_bulk', ndjson({ index: { _id: '2' } }, { n: 2, t: 'b' }, { create: { _id: '3' } }, { n: 3, t: 'c' }));
    await searches('nrt-off');
    await stats('nrt-off');
    await same('GET', '/nrt-off/_doc/1');
    await same('GET', '/nrt-off/_doc/1?realtime=false');
    await same('POST', '/nrt-off/_mget?realtime=false', { ids: ['1', '2', '4'] });
    await same('POST', '/nrt-off/_mget', { ids: ['1', '2', '4'] });
    await same('POST', '/nrt-off/_search?scroll=1m', { size: 1, sort: ['n'] });
    await same('GET', '/nrt-off/_search?q=t:a');
    await same('POST', '/nrt-off/_refresh');
    await searches('nrt-off');
    await stats('nrt-off');
    await same('GET', '/nrt-off/_doc/2?realtime=false');
    await same('POST', '/nrt-off/_mget?realtime=false', { ids: ['1', '2', '4'] });
    await same('GET', '/nrt-off/_search?q=t:a');
  }, SLOW);

  it('shows the refreshed version of a document updated or deleted since', async () => {
    await same('PUT', '/nrt-off/_doc/1', { n: 10, t: 'a2' });
    await same('POST', '/nrt-off/_update/2', { doc: { t: 'b2' } });
    await same('DELETE', '/nrt-off/_doc/3');
    await searches('nrt-off');
    await stats('nrt-off');
    await same('GET', '/nrt-off/_search?q=t:a2');
    await same('GET', '/nrt-off/_doc/1');
    await same('GET', '/nrt-off/_doc/1?realtime=false');
    await same('GET', '/nrt-off/_doc/3?realtime=false');
    await same('GET', '/nrt-off/_doc/3');
    // A get with refresh=true refreshes first.
    await same('GET', '/nrt-off/_doc/3?realtime=false&refresh=true');
    await searches('nrt-off');
    await stats('nrt-off');
  }, SLOW);

  it('refresh=true refreshes after the write and says so; refresh=false and empty as ES reads them', async () => {
    await same('PUT', '/nrt-off/_doc/5?refresh=true', { n: 5, t: 'e' });
    await searches('nrt-off');
    await same('PUT', '/nrt-off/_doc/6?refresh=false', { n: 6, t: 'f' });
    await searches('nrt-off');
    await same('PUT', '/nrt-off/_doc/7?refresh=', { n: 7, t: 'g' });
    await searches('nrt-off');
    await same('POST', '/_bulk?refresh=true', ndjson({ index: { _index: 'nrt-off', _id: '8' } }, { n: 8 }, { delete: { _index: 'nrt-off', _id: '5' } }));
    await searches('nrt-off');
    await same('DELETE', '/nrt-off/_doc/8?refresh=true');
    await same('POST', '/nrt-off/_update/7?refresh=true', { doc: { t: 'g2' } });
    await searches('nrt-off');
    await stats('nrt-off');
    // A bad value is ES's 400 and writes nothing (no index is created either).
    await same('PUT', '/nrt-new/_doc/1?refresh=yes', { n: 1 });
    await same('POST', '/_bulk?refresh=maybe', ndjson({ index: { _index: 'nrt-new', _id: '1' } }, { n: 1 }));
    await same('HEAD', '/nrt-new');
  }, SLOW);

  it('refresh=wait_for answers only once a refresh shows the write (here, an explicit one)', async () => {
    let pDone = false;
    let rDone = false;
    const p = porticoCall('PUT', '/nrt-off/_doc/20?refresh=wait_for', { n: 20, t: 'w' }).finally(() => (pDone = true));
    const r = nodeCall('PUT', '/nrt-off/_doc/20?refresh=wait_for', { n: 20, t: 'w' }).finally(() => (rDone = true));
    // Both writes are applied (a realtime get finds them) and still wait: nothing refreshes an index with -1.
    // The bulk is sent once the first write is applied on both sides: sent together, the two took
    // their sequence numbers in arrival order, which once differed between the servers.
    await until('the waiting write applied', (a) => a.body?.found === true, 'GET', '/nrt-off/_doc/20');
    const b = porticoCall('POST', '/_bulk?refresh=wait_for', ndjson({ index: { _index: 'nrt-off', _id: '21' } }, { n: 21 }));
    const rb = nodeCall('POST', '/_bulk?refresh=wait_for', ndjson({ index: { _index: 'nrt-off', _id: '21' } }, { n: 21 }));
    await until('the waiting bulk applied', (a) => a.body?.found === true, 'GET', '/nrt-off/_doc/21');
    await sleep(2000);
    expect([pDone, rDone]).toEqual([false, false]);
    await searches('nrt-off');
    await same('POST', '/nrt-off/_refresh');
    const [pa, ra] = await Promise.all([p, r]);
    expectSame('the write that waited', pa, ra);
    expect(pa.body.forced_refresh).toBeUndefined();
    const [pb, rbb] = await Promise.all([b, rb]);
    expectSame('the bulk that waited', pb, rbb);
    await searches('nrt-off');
  }, SLOW);
});

describe('refresh_interval set: scheduled refreshes, never search-idle', () => {
  it('shows writes at the next scheduled refresh without any search; wait_for answers then', async () => {
    await same('PUT', '/nrt-1s', { settings: { ...SETTINGS, refresh_interval: '1s', 'index.search.idle.after': '1s' }, mappings: MAPPINGS });
    // Idle for the search-idle setting, but an explicit interval keeps refreshing.
    await sleep(2500);
    await same('PUT', '/nrt-1s/_doc/1', { n: 1 });
    await until('the scheduled refresh', docsCount('nrt-1s')(1), 'GET', '/nrt-1s/_stats/docs');
    await searches('nrt-1s');
    const [p, r] = await both('PUT', '/nrt-1s/_doc/2?refresh=wait_for', { n: 2 });
    expectSame('wait_for', p, r);
    await searches('nrt-1s');
    await stats('nrt-1s');
  }, SLOW);

  it('changes with PUT _settings: -1 stops scheduled refreshes, a time restarts them, null resets', async () => {
    await same('PUT', '/nrt-1s/_settings', { index: { refresh_interval: '-1' } });
    await same('GET', '/nrt-1s/_settings?filter_path=**.refresh_interval');
    await same('PUT', '/nrt-1s/_doc/3', { n: 3 });
    await sleep(2500);
    await stats('nrt-1s');
    await searches('nrt-1s');
    await same('PUT', '/nrt-1s/_settings', { refresh_interval: '500ms' });
    await until('the refresh the new interval schedules', docsCount('nrt-1s')(3), 'GET', '/nrt-1s/_stats/docs');
    await searches('nrt-1s');
    await same('PUT', '/nrt-1s/_settings', { index: { refresh_interval: null } });
    await same('GET', '/nrt-1s/_settings?filter_path=**.refresh_interval');
    await same('GET', '/nrt-1s/_settings?include_defaults=true&filter_path=**.refresh_interval');
    await same('GET', '/nrt-1s/_settings?flat_settings=true&include_defaults=true&filter_path=**.refresh_interval');
    // Refused as ES refuses them, nothing changed.
    await same('PUT', '/nrt-1s/_settings', { index: { refresh_interval: 'soon' } });
    await same('PUT', '/nrt-1s/_settings', { index: { refresh_interval: '-2' } });
    await same('PUT', '/nrt-1s/_settings', { index: { number_of_shards: 2 } });
    await same('PUT', '/nrt-1s/_settings', { index: { refresh_interval: '5s', no_such_setting: 1 } });
    await same('GET', '/nrt-1s/_settings?filter_path=**.refresh_interval');
    await same('PUT', '/nrt-bad', { settings: { refresh_interval: 'often' } });
    await same('HEAD', '/nrt-bad');
  }, SLOW);
});

describe('refresh_interval unset: search-idle', () => {
  it('skips scheduled refreshes while nobody searches; the next search refreshes first', async () => {
    await same('PUT', '/nrt-idle', { settings: { ...SETTINGS, 'index.search.idle.after': '1s' }, mappings: MAPPINGS });
    // Idle from here: no search since its creation.
    await sleep(2500);
    await same('PUT', '/nrt-idle/_doc/1', { n: 1 });
    await same('POST', '/nrt-idle/_bulk', ndjson({ index: { _id: '2' } }, { n: 2 }));
    // Scheduled refreshes came and were skipped: `_stats` (no search) still shows nothing.
    await sleep(2500);
    await stats('nrt-idle');
    // A search on the idle index refreshes it first, and sees the writes.
    await searches('nrt-idle');
    await stats('nrt-idle');
    await same('GET', '/nrt-idle/_doc/2?realtime=false');
  }, SLOW);

  it('a wait_for write on an idle index is answered by the next scheduled refresh', async () => {
    await sleep(2500);
    const [p, r] = await both('PUT', '/nrt-idle/_doc/3?refresh=wait_for', { n: 3 });
    expectSame('wait_for on an idle index', p, r);
    await stats('nrt-idle');
    await searches('nrt-idle');
  }, SLOW);
});

describe('refresh=wait_for where Portico once differed (issue 21)', () => {
  /** Whether each server has answered after a pause that lets any due timer run (a guard, not a timing assertion). */
  async function answered(...calls: Promise<unknown>[]): Promise<boolean[]> {
    const done = calls.map(() => false);
    calls.forEach((c, i) => void c.then(() => (done[i] = true)));
    await sleep(2000);
    return done;
  }

  it('a delete that finds nothing waits for the next refresh, alone and in a _bulk; a _bulk of noops does not', async () => {
    await same('PUT', '/nrt-miss', { settings: { ...SETTINGS, refresh_interval: '-1' }, mappings: MAPPINGS });
    await same('PUT', '/nrt-miss/_doc/1?refresh=true', { n: 1 });
    const del = [porticoCall('DELETE', '/nrt-miss/_doc/missing?refresh=wait_for'), nodeCall('DELETE', '/nrt-miss/_doc/missing?refresh=wait_for')];
    const bulkBody = ndjson({ delete: { _index: 'nrt-miss', _id: 'missing2' } });
    const bulk = [porticoCall('POST', '/_bulk?refresh=wait_for', bulkBody), nodeCall('POST', '/_bulk?refresh=wait_for', bulkBody)];
    expect(await answered(...del, ...bulk)).toEqual([false, false, false, false]);
    // An update that changes nothing has nothing to wait for on either. (The node's noop item in a
    // bulk of noops alone carries the shard's `_shards`, 2 and 1, where Portico's says 0: not a
    // refresh matter, left out here.)
    const noop = await both('POST', '/_bulk?refresh=wait_for', ndjson({ update: { _index: 'nrt-miss', _id: '1' } }, { doc: { n: 1 } }));
    const noShards = (a: Answer): Answer => ({ ...a, body: { ...a.body, items: a.body.items.map((i: { update: Record<string, unknown> }) => ({ update: { ...i.update, _shards: 0 } })) } });
    expectSame('a bulk of noops', noShards(noop[0]), noShards(noop[1]));
    await same('POST', '/nrt-miss/_refresh');
    const [pd, rd, pb, rb] = await Promise.all([...del, ...bulk]);
    expectSame('the delete that waited', pd as Answer, rd as Answer);
    expectSame('the bulk delete that waited', pb as Answer, rb as Answer);
    await searches('nrt-miss');
  }, SLOW);

  it('a _bulk whose wait forces a refresh says forced_refresh on its items', async () => {
    await same('PUT', '/nrt-cap', { settings: { ...SETTINGS, refresh_interval: '-1' }, mappings: MAPPINGS });
    // The node's cap lowered (Portico has ES's 1,000 and no such setting): the same state, a full
    // set of waiting writes, is reached with two writes there.
    const cap = 2;
    const set = await nodeCall('PUT', '/nrt-cap/_settings', { index: { max_refresh_listeners: cap } });
    expect(set.status).toBe(200);
    const waiting = [
      ...Array.from({ length: 1000 }, (_, i) => porticoCall('PUT', `/nrt-cap/_doc/w${i}?refresh=wait_for`, { n: i })),
      ...Array.from({ length: cap }, (_, i) => nodeCall('PUT', `/nrt-cap/_doc/w${i}?refresh=wait_for`, { n: i })),
    ];
    await until('the waiting writes applied', (a) => a.body?.found === true, 'GET', `/nrt-cap/_doc/w${cap - 1}`);
    await sleep(500);
    const body = ndjson({ index: { _index: 'nrt-cap', _id: 'a' } }, { n: 1 }, { delete: { _index: 'nrt-cap', _id: 'b' } }, { update: { _index: 'nrt-cap', _id: 'w0' } }, { doc: { t: 'x' } });
    const [p, r] = await both('POST', '/_bulk?refresh=wait_for', body);
    // Sequence numbers differ by nature here (a thousand writes against two).
    const noSeqNo = (a: Answer): Answer => ({ ...a, body: { ...a.body, items: a.body.items.map((i: Record<string, Record<string, unknown>>) => Object.fromEntries(Object.entries(i).map(([op, v]) => [op, { ...v, _seq_no: 0 }]))) } });
    expectSame('the bulk that forced a refresh', noSeqNo(p), noSeqNo(r));
    expect(p.body.items[0].index.forced_refresh).toBe(true);
    for (const w of await Promise.all(waiting)) expect(w.body.forced_refresh).toBeUndefined();
    // The forced refresh showed every write on both.
    const [pc, rc] = await both('GET', '/nrt-cap/_count');
    expect([pc.body.count, rc.body.count]).toEqual([1001, cap + 1]);
  }, SLOW);
});

describe('a compaction under refresh_interval -1 (issue 21)', () => {
  it('heavy overwrites stay hidden until _refresh, though they trigger a compaction of the index', async () => {
    await same('PUT', '/nrt-compact', { settings: { ...SETTINGS, refresh_interval: '-1' }, mappings: MAPPINGS });
    // Enough overwrites for Portico's reclaimer (1,000 retired documents and a quarter of the live ones).
    const n = 1200;
    const load = (pass: number): string => ndjson(...Array.from({ length: n }, (_, i) => [{ index: { _id: String(i) } }, { n: i + pass * n, t: `p${pass}` }]).flat());
    await same('POST', '/nrt-compact/_bulk?filter_path=errors', load(0));
    await same('POST', '/nrt-compact/_refresh');
    await same('POST', '/nrt-compact/_bulk?filter_path=errors', load(1));
    // Time for the compaction's slices (a guard for a busy machine: each runs between requests).
    await sleep(3000);
    const compare = async (): Promise<void> => {
      await same('GET', '/nrt-compact/_count');
      await same('GET', '/nrt-compact/_count?q=t:p1');
      await same('POST', '/nrt-compact/_search', { size: 5, sort: [{ n: 'desc' }], version: true, seq_no_primary_term: true });
      await same('POST', '/nrt-compact/_search', { size: 0, aggs: { total: { sum: { field: 'n' } }, tags: { terms: { field: 't' } } } });
      await stats('nrt-compact');
    };
    await compare();
    await same('POST', '/nrt-compact/_refresh');
    // The compaction swapped its copy in at that refresh: the ordinals the first load left are gone
    // (Portico's `docs.deleted` counts the retired ordinals the refreshed index still holds).
    const deleted = await porticoCall('GET', '/nrt-compact/_stats/docs');
    expect(deleted.body.indices['nrt-compact'].primaries.docs.deleted).toBe(0);
    await compare();
  }, SLOW);
});
