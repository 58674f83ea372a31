/**
 * When refreshes happen (engine/refresh-schedule.ts), for what the side-by-side file
 * (test/search/differential/refresh.int.test.ts) cannot reach in seconds: the cap on writes waiting
 * for a refresh (ES's index.max_refresh_listeners), search-idle on a fresh index, and a deleted
 * index answering its waiting writes. No timing assertions: each check is about what has or has not
 * happened, and waits are for a scheduled refresh that cannot come otherwise.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { MAX_REFRESH_LISTENERS } from '../../../src/search/engine/refresh-schedule.js';
import { parseQuery } from '../../../src/search/requests/query-dsl.js';
import { MapStore } from '../map-store.js';

let open: SearchService[] = [];
afterEach(() => {
  for (const s of open) s.close();
  open = [];
});

function service(now: () => number = Date.now): SearchService {
  const s = new SearchService(new MapStore(), now);
  open.push(s);
  return s;
}

const put = (s: SearchService, index: string, id: string): void => void s.indexDoc(index, id, { n: Number(id) }, JSON.stringify({ n: Number(id) }), 'index');
const visible = (s: SearchService, index: string): number => s.refreshedView(s.get(index)).index.liveCount;

describe('refresh schedule', () => {
  it(`answers the first ${MAX_REFRESH_LISTENERS} waiting writes at the refresh, and forces one for the next (forced_refresh)`, async () => {
    const s = service();
    s.createIndex('w', { settings: { refresh_interval: '-1' } });
    const answered: boolean[] = [];
    for (let i = 0; i < MAX_REFRESH_LISTENERS; i++) {
      put(s, 'w', String(i));
      void s.waitForRefresh(['w']).then((forced) => answered.push(forced.has('w')));
    }
    await sleep(10);
    expect(answered).toEqual([]);
    expect(visible(s, 'w')).toBe(0);
    put(s, 'w', String(MAX_REFRESH_LISTENERS));
    const written = s.refreshGeneration('w');
    expect(await s.waitForRefresh(['w'])).toEqual(new Set(['w']));
    expect(visible(s, 'w')).toBe(MAX_REFRESH_LISTENERS + 1);
    await sleep(0);
    expect(answered).toHaveLength(MAX_REFRESH_LISTENERS);
    expect(answered.every((f) => !f)).toBe(true);
    // A write a refresh has shown since is answered at once.
    expect(await s.waitForRefresh(new Map([['w', written]]))).toEqual(new Set());
  });

  it('makes a write that changed nothing (a delete that found nothing) wait for the next refresh, as ES does', async () => {
    const s = service();
    s.createIndex('n', { settings: { refresh_interval: '-1' } });
    expect(s.deleteDoc('n', 'missing').result).toBe('not_found');
    let answered = false;
    const waiting = s.waitForRefresh(['n']).then((forced) => ((answered = true), forced));
    await sleep(50);
    expect(answered).toBe(false);
    s.refresh([s.get('n')]);
    expect(await waiting).toEqual(new Set());
    // With an interval, the next scheduled refresh answers it (no write armed one).
    s.createIndex('t', { settings: { refresh_interval: '100ms' } });
    s.deleteDoc('t', 'missing');
    expect(await s.waitForRefresh(['t'])).toEqual(new Set());
  });

  it('answers writes waiting on an index that is deleted', async () => {
    const s = service();
    s.createIndex('gone', { settings: { refresh_interval: '-1' } });
    put(s, 'gone', '1');
    const waiting = s.waitForRefresh(['gone']);
    s.deleteIndex('gone');
    expect(await waiting).toEqual(new Set());
  });

  it('skips scheduled refreshes of a search-idle index until a search, which refreshes it first', async () => {
    // A clock one minute past the index's creation: idle from the start (idle.after 30s).
    let t = 0;
    const s = service(() => t);
    s.createIndex('idle', { settings: { 'index.search.idle.after': '30s' } });
    t = 60_000;
    put(s, 'idle', '1');
    // The scheduled refresh (1s) comes and is skipped: nothing searched the index.
    await sleep(1500);
    expect(visible(s, 'idle')).toBe(0);
    expect(s.count([s.get('idle')], parseQuery({ match_all: {} }))).toBe(1);
    // Searched now, so no longer idle: the next scheduled refresh shows the next write without a search.
    put(s, 'idle', '2');
    const deadline = Date.now() + 30_000;
    while (visible(s, 'idle') < 2 && Date.now() < deadline) await sleep(100);
    expect(visible(s, 'idle')).toBe(2);
  });

  it('refreshes an index with an explicit interval whether or not it is searched', async () => {
    let t = 0;
    const s = service(() => t);
    s.createIndex('busy', { settings: { refresh_interval: '200ms', 'index.search.idle.after': '1ms' } });
    t = 60_000;
    put(s, 'busy', '1');
    const deadline = Date.now() + 30_000;
    while (visible(s, 'busy') < 1 && Date.now() < deadline) await sleep(50);
    expect(visible(s, 'busy')).toBe(1);
  });
});
