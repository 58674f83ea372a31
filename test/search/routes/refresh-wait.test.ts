/**
 * `?refresh=wait_for` where Portico once differed from the OpenSearch node (issue 21; the
 * side-by-side file test/search/differential/refresh.int.test.ts shows the node doing the same):
 * a delete that finds nothing waits for the next refresh (ES's translog holds the no-op), in a
 * `_bulk` too, while a `_bulk` of noops answers at once; and a `_bulk` whose wait forces a refresh
 * (past index.max_refresh_listeners) says `forced_refresh: true` on its items. No timing
 * assertions: what is checked is whether an answer has come before an explicit `_refresh`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MAX_REFRESH_LISTENERS } from '../../../src/search/engine/refresh-schedule.js';
import { searchForEach } from '../harness.js';

describe('refresh=wait_for', () => {
  const h = searchForEach();
  const ndjson = (...lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const call = (method: 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown) =>
    h.app.inject({ method, url, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' } }) });
  /** Whether the request has been answered after the event loop has had time to run every timer due. */
  const pending = async (p: Promise<unknown>): Promise<boolean> => {
    let done = false;
    void p.then(() => (done = true));
    await sleep(300);
    return !done;
  };

  it('makes a delete that found nothing wait for the next refresh, alone and in a _bulk; a _bulk of noops answers at once', async () => {
    await call('PUT', '/w', { settings: { refresh_interval: '-1' } });
    await call('PUT', '/w/_doc/1?refresh=true', { f: 1 });
    const del = call('DELETE', '/w/_doc/missing?refresh=wait_for');
    const bulk = call('POST', '/_bulk?refresh=wait_for', ndjson({ delete: { _index: 'w', _id: 'missing2' } }));
    expect(await pending(del)).toBe(true);
    expect(await pending(bulk)).toBe(true);
    // An update that changes nothing writes nothing: no refresh to wait for.
    const noop = await call('POST', '/_bulk?refresh=wait_for', ndjson({ update: { _index: 'w', _id: '1' } }, { doc: { f: 1 } }));
    expect(noop.json().items[0].update.result).toBe('noop');
    await call('POST', '/w/_refresh');
    const d = await del;
    expect(d.statusCode).toBe(404);
    expect(d.json()).toMatchObject({ result: 'not_found' });
    expect(d.json().forced_refresh).toBeUndefined();
    expect((await bulk).json().items[0].delete).toMatchObject({ result: 'not_found', status: 404 });
  });

  it(`says forced_refresh on the items of a _bulk whose wait forced a refresh (past ${MAX_REFRESH_LISTENERS} waiting)`, async () => {
    await call('PUT', '/cap', { settings: { refresh_interval: '-1' } });
    await call('PUT', '/other', { settings: { refresh_interval: '-1' } });
    const waiting = Array.from({ length: MAX_REFRESH_LISTENERS }, (_, i) => call('PUT', `/cap/_doc/${i}?refresh=wait_for`, { n: i }));
    await sleep(50);
    const r = await call('POST', '/_bulk?refresh=wait_for', ndjson({ index: { _index: 'cap', _id: 'a' } }, { n: 1 }, { delete: { _index: 'cap', _id: 'b' } }, { update: { _index: 'cap', _id: 'a' } }, { doc: { n: 1 } }));
    const items = r.json().items as Record<string, Record<string, unknown>>[];
    expect(items.map((i) => Object.values(i)[0]?.forced_refresh)).toEqual([true, true, true]);
    // Where ES writes it: right after `result`.
    expect(Object.keys(items[0]?.index as object)).toEqual(['_index', '_id', '_version', 'result', 'forced_refresh', '_shards', '_seq_no', '_primary_term', 'status']);
    for (const w of await Promise.all(waiting)) expect(w.json().forced_refresh).toBeUndefined();
    // An index whose wait forced nothing: its items say nothing (a refresh of its own answers it).
    const other = call('POST', '/_bulk?refresh=wait_for', ndjson({ index: { _index: 'other', _id: '1' } }, { n: 1 }));
    expect(await pending(other)).toBe(true);
    await call('POST', '/other/_refresh');
    expect((await other).json().items[0].index.forced_refresh).toBeUndefined();
  });
});
