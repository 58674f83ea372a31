import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchText, startSearch, type SearchHarness } from '../harness.js';

// The fast match path keeps per-index memos across requests (scratch-arena.ts: norm tables, score
// tables, each term's best posting). Through the service, after every kind of write (index,
// update, delete, the index deleted and created again under its name), a deep page and a page past
// the end must answer exactly as the general path (forced here with min_score 0, which drops no
// hit of a match with a positive boost).
describe('match deep pages through the service across writes', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => {
    await h.close();
  });

  let seed = 9;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const WORDS = ['a', 'b', 'c', 'd', 'straße', 'été'];
  const text = (): string => Array.from({ length: Math.floor(rnd() * 7) }, () => WORDS[Math.floor(rnd() * WORDS.length)] as string).join(' ');

  async function bulk(lines: unknown[]): Promise<void> {
    const payload = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const res = await h.app.inject({ method: 'POST', url: '/_bulk', payload, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.statusCode).toBe(200);
  }

  async function check(): Promise<void> {
    for (const query of ['a', 'b c', 'a a', 'straße été d', 'zz a', 'zz']) {
      for (const from of [0, 130, 200, 290, 400]) {
        for (const track of [true, 50, false] as const) {
          const body = { query: { match: { t: query } }, from, size: 10, track_total_hits: track };
          const fast = await searchText(h, '/i/_search', body);
          const general = await searchText(h, '/i/_search', { ...body, min_score: 0 });
          expect(fast, JSON.stringify(body)).toBe(general);
        }
      }
    }
  }

  it('answers like the general path after adds, updates, deletes and a re-created index', async () => {
    const put = await h.app.inject({ method: 'PUT', url: '/i', payload: { mappings: { properties: { t: { type: 'text' } } } } });
    expect(put.statusCode).toBe(200);
    await bulk(Array.from({ length: 300 }, (_, i) => [{ index: { _index: 'i', _id: `d${i}` } }, { t: text() }]).flat());
    await check();
    // Updates: same ids, new text (a new ordinal each, the old one a tombstone).
    await bulk(Array.from({ length: 40 }, (_, i) => [{ index: { _index: 'i', _id: `d${i * 7}` } }, { t: text() }]).flat());
    await check();
    // Deletes, and a doc of the same length as a deleted one (average length unchanged).
    await bulk(Array.from({ length: 30 }, (_, i) => ({ delete: { _index: 'i', _id: `d${i * 5 + 1}` } })));
    await check();
    await bulk([{ delete: { _index: 'i', _id: 'd2' } }, { index: { _index: 'i', _id: 'x2' } }, { t: 'b b b b b b' }]);
    await check();
    // The best posting of 'a' goes and a weaker one of 'a' as long comes: docFreq and the average
    // length stay, only the term's posting count moves.
    await bulk([{ index: { _index: 'i', _id: 'x1' } }, { t: 'a a a a a a' }]);
    await check();
    await bulk([{ delete: { _index: 'i', _id: 'x1' } }, { index: { _index: 'i', _id: 'x3' } }, { t: 'a b b b b b' }]);
    await check();
    // The index goes and comes back under its name with other documents.
    expect((await h.app.inject({ method: 'DELETE', url: '/i' })).statusCode).toBe(200);
    await bulk(Array.from({ length: 250 }, (_, i) => [{ index: { _index: 'i', _id: `e${i}` } }, { t: text() }]).flat());
    await check();
  }, 120_000);
});
