/**
 * `terminate_after` side by side with the OpenSearch node (src/search/engine/terminate-after.ts):
 * an index of one shard and one of three, each loaded in one bulk and one refresh (so the node
 * holds each shard in one segment, in write order), and searches that stop each shard after a few
 * documents: the same hits, totals, `max_score`, `terminated_early` and aggregations, with
 * post_filter, min_score, sorts, track_total_hits, a scroll, `_msearch` and `_count`.
 *
 * Where the node and ES 8 differ: with `size: 0` (and `_count`), a query Lucene counts without
 * reading documents (match_all, one term, …) is not stopped in ES 8 (its count comes from
 * Weight#count, and nothing is collected, so `terminated_early` is false and aggregations see
 * every match); OpenSearch 2.19 counts the same total but answers `terminated_early: true` and
 * stops its aggregations. Portico follows ES 8 there: those requests compare totals only.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { difference, scorePositions, type Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';
import { seeded } from './corpus.js';

/** Per test: a guard for a busy shared machine, never a timing assertion. */
const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

let compared = 0;

afterAll(() => {
  console.log(`terminate_after: ${compared} requests compared, each alike`);
});

/** Sends the request to both: the same status, hits, totals, scores, `terminated_early`, aggregations and `_shards`. */
async function same(path: string, body: Record<string, unknown> | string): Promise<[Answer, Answer]> {
  compared++;
  const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
  const where = `POST ${path} ${typeof body === 'string' ? body : JSON.stringify(body)}`;
  const diff = difference(p, n, typeof body === 'string' ? [] : scorePositions(body.sort));
  if (diff !== undefined) expect.fail(`${where}: ${diff}`);
  if (p.status < 300) {
    expect([p.body.terminated_early, p.body._shards, p.body.aggregations], where).toEqual([n.body.terminated_early, n.body._shards, n.body.aggregations]);
  }
  return [p, n];
}

const WORDS = ['apt', 'python', 'library', 'rust', 'kernel', 'data', 'web', 'server', 'tool', 'font'];

/** 240 documents: a few words drawn unevenly, a keyword, a unique number (no ties in a field sort). */
function corpus(): string {
  const next = seeded(11);
  const lines: string[] = [];
  for (let i = 0; i < 240; i++) {
    const text = Array.from({ length: 1 + Math.floor(next() * 6) }, () => WORDS[Math.floor(next() ** 2 * WORDS.length)] as string).join(' ');
    lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ text, tag: `t${i % 4}`, n: (i * 53) % 1000 }));
  }
  return lines.join('\n') + '\n';
}

describe('terminate_after, side by side', () => {
  it('loads the same documents on both', async () => {
    const mappings = { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } } };
    for (const [name, shards] of [['one', 1], ['three', 3]] as const) {
      for (const call of [porticoCall, nodeCall]) {
        expect((await call('PUT', `/${name}`, { settings: { number_of_shards: shards, number_of_replicas: 0 }, mappings })).status).toBe(200);
        const r = await call('POST', `/${name}/_bulk?refresh=true`, corpus());
        expect(r.body.errors).toBe(false);
      }
    }
  }, SLOW);

  it('stops each shard after that many documents: hits, totals, terminated_early and aggregations alike', async () => {
    // Collected queries: several terms, a bool, a prefix (the node collects them whatever the size).
    const collected: Record<string, unknown>[] = [
      { match: { text: 'rust kernel' } },
      { bool: { must: [{ match: { text: 'python' } }], filter: [{ range: { n: { gte: 100 } } }] } },
      { prefix: { text: 'li' } },
    ];
    // Counted without collecting with size 0 in ES 8; collected (and so alike) with a size.
    const countable: Record<string, unknown>[] = [{ match_all: {} }, { match: { text: 'data' } }, { term: { tag: 't2' } }, { range: { n: { lt: 500 } } }];
    for (const index of ['one', 'three']) {
      for (const query of [...collected, ...countable]) {
        for (const limit of [1, 7, 40, 1000]) {
          await same(`/${index}/_search`, { terminate_after: limit, query, size: 10 });
          await same(`/${index}/_search`, { terminate_after: limit, query, from: 3, size: 5, sort: [{ n: 'desc' }] });
        }
        await same(`/${index}/_search`, { terminate_after: 9, query, size: 4, track_total_hits: false });
        await same(`/${index}/_search`, { terminate_after: 9, query, size: 4, track_total_hits: 3 });
        await same(`/${index}/_search`, { terminate_after: 6, query, size: 20, post_filter: { term: { tag: 't1' } }, aggs: { tags: { terms: { field: 'tag' } }, sum: { sum: { field: 'n' } } } });
        await same(`/${index}/_search`, { terminate_after: 5, query, size: 20, min_score: 0.5, aggs: { sum: { sum: { field: 'n' } } } });
      }
      // With size 0 a collected query stops as with a size; aggregations see what was collected.
      for (const query of collected) {
        for (const limit of [1, 12]) await same(`/${index}/_search`, { terminate_after: limit, query, size: 0, aggs: { tags: { terms: { field: 'tag' } } } });
        await same(`/${index}/_search`, { terminate_after: 3, query, size: 0, post_filter: { term: { tag: 't3' } } });
      }
      // The URL's limit over the body's.
      await same(`/${index}/_search?terminate_after=4`, { terminate_after: 50, query: { match: { text: 'web tool' } } });
      await same(`/${index}/_search?terminate_after=0`, { query: { match: { text: 'web tool' } } });
      // _msearch items carry their own limit.
      const lines = [{ index }, { terminate_after: 2, query: { match: { text: 'apt font' } } }, { index }, { query: { match: { text: 'apt font' } } }].map((l) => JSON.stringify(l)).join('\n') + '\n';
      const [p, n] = await Promise.all([porticoCall('POST', '/_msearch', lines), nodeCall('POST', '/_msearch', lines)]);
      compared++;
      for (let i = 0; i < 2; i++) {
        const [a, b] = [p.body.responses[i], n.body.responses[i]];
        expect(difference({ status: 200, body: a }, { status: 200, body: b }), `msearch item ${i}`).toBeUndefined();
        expect(a.terminated_early, `msearch item ${i}`).toEqual(b.terminated_early);
      }
    }
  }, SLOW);

  it('starts a scroll with the collected documents alone', async () => {
    for (const index of ['one', 'three']) {
      const body = { terminate_after: 6, size: 4, query: { match: { text: 'python data' } }, sort: ['_doc'] };
      const [p, n] = await same(`/${index}/_search?scroll=1m`, body);
      const rest = async (call: typeof porticoCall, first: Answer): Promise<string[]> => {
        const ids = (first.body.hits.hits as { _id: string }[]).map((h) => h._id);
        let id = first.body._scroll_id as string;
        for (;;) {
          const r = await call('POST', '/_search/scroll', { scroll: '1m', scroll_id: id });
          if (r.body.hits.hits.length === 0) break;
          ids.push(...(r.body.hits.hits as { _id: string }[]).map((h) => h._id));
          id = r.body._scroll_id;
        }
        return ids.sort();
      };
      expect(await rest(porticoCall, p)).toEqual(await rest(nodeCall, n));
    }
  }, SLOW);

  it('counts as a search of size 0 does; a counted query is not stopped (ES 8), where the node says it was', async () => {
    for (const index of ['one', 'three']) {
      for (const limit of [1, 9]) {
        for (const path of [`/${index}/_count?terminate_after=${limit}`, `/${index}/_count?terminate_after=${limit}&min_score=0.3`]) {
          compared++;
          const body = { query: { match: { text: 'kernel server' } } };
          const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
          expect(p.body, path).toEqual(n.body);
        }
      }
      // Counted without collecting: the same count; ES 8 reports no early stop, OpenSearch 2.19 does.
      for (const query of [{ match_all: {} }, { match: { text: 'data' } }, { term: { tag: 't0' } }]) {
        compared++;
        const [p, n] = [await porticoCall('POST', `/${index}/_count?terminate_after=2`, { query }), await nodeCall('POST', `/${index}/_count?terminate_after=2`, { query })];
        expect([p.body.count, p.body.terminated_early], JSON.stringify(query)).toEqual([n.body.count, false]);
        expect(n.body.terminated_early).toBe(true);
        const search = { terminate_after: 2, size: 0, query, aggs: { sum: { sum: { field: 'n' } } } };
        const [ps, ns] = [await porticoCall('POST', `/${index}/_search`, search), await nodeCall('POST', `/${index}/_search`, search)];
        expect(ps.body.hits.total).toEqual(ns.body.hits.total);
        expect(ps.body.terminated_early).toBe(false);
        // Every match aggregated, as without the limit.
        const whole = await porticoCall('POST', `/${index}/_search`, { size: 0, query, aggs: { sum: { sum: { field: 'n' } } } });
        expect(ps.body.aggregations).toEqual(whole.body.aggregations);
      }
    }
  }, SLOW);

  it('refuses a negative or malformed limit as the node does', async () => {
    // ES 8's SearchSourceBuilder refuses a negative limit in the body; the node takes it.
    const negative = await porticoCall('POST', '/one/_search', { terminate_after: -1 });
    expect([negative.status, negative.body.error.type, negative.body.error.reason]).toEqual([400, 'illegal_argument_exception', 'terminateAfter must be > 0']);
    for (const [path, body] of [
      ['/one/_search?terminate_after=-2', {}],
      ['/one/_search', { terminate_after: 'x' }],
      ['/one/_search?terminate_after=x', {}],
      ['/one/_count?terminate_after=-1', {}],
    ] as const) {
      compared++;
      const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
      expect([p.status, p.body.error?.type], `${path} ${JSON.stringify(body)}`).toEqual([n.status, n.body.error?.type]);
      expect(isDeepStrictEqual(p.status, 400)).toBe(true);
    }
  }, SLOW);
});
