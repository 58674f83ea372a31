/**
 * The `rescore` search body key side by side with the OpenSearch node: the same index of one shard
 * and of three, searched with query rescorers (each score mode, weights, windows smaller and larger
 * than the page, phrase and match rescore queries, several rescorers in turn, pages, dfs), each
 * answer's hits in the same order with scores within 1e-5; and the refusals (parsing, sort,
 * collapse, scroll, window limits) with the same status, type and reason.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { difference, type Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';
import { seeded } from './corpus.js';

/** Per test: a guard for a busy shared machine, never a timing assertion. */
const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

let searchesCompared = 0;
let refusalsCompared = 0;

afterAll(() => {
  console.log(`rescore: ${searchesCompared} searches and ${refusalsCompared} refusals sent to both, each answered alike`);
});

const VOCABULARY = ['python', 'data', 'library', 'web', 'server', 'tool', 'client', 'module', 'rust', 'kernel', 'font', 'game'];

/** 300 documents: words drawn unevenly (phrases such as "python data" occur in some), a keyword and a number. */
function corpus(seed: number): { id: string; source: Record<string, unknown> }[] {
  const next = seeded(seed);
  return Array.from({ length: 300 }, (_, i) => {
    const words = Array.from({ length: 2 + Math.floor(next() * 10) }, () => VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)] as string);
    return { id: `d${i}`, source: { text: words.join(' '), tag: `t${Math.floor(next() * 4)}`, n: (i * 37) % 1000 } };
  });
}

/** A search sent to both: the same total, hits in the same order, scores (and max_score) within 1e-5, the same `_shards`. */
async function sameSearch(path: string, body: Record<string, unknown>): Promise<void> {
  searchesCompared++;
  const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
  const diff = difference(p, n);
  const show = (a: Answer) => JSON.stringify(a.body?.hits?.hits?.map((h: { _id: string; _score?: unknown }) => [h._id, h._score]) ?? a.body?.error);
  if (diff !== undefined) expect.fail(`POST ${path} ${JSON.stringify(body)}: ${diff}\nPortico ${show(p)}\nnode    ${show(n)}`);
  expect(n.status, JSON.stringify(n.body)).toBe(200);
  expect(p.body._shards, `${path} ${JSON.stringify(body)}`).toEqual(n.body._shards);
}

/** An error's status, type, reason and root causes (a failed shard's node id left out). */
function refusal(a: Answer): unknown {
  const e = a.body?.error;
  if (e === undefined) return { status: a.status, body: a.body };
  const shards = (e.failed_shards as { shard: number; index: string; reason: unknown }[] | undefined)?.map((s) => ({ shard: s.shard, index: s.index, reason: s.reason }));
  return { status: a.status, type: e.type, reason: e.reason, rootCause: e.root_cause, cause: e.caused_by === undefined ? undefined : { type: e.caused_by.type, reason: e.caused_by.reason }, shards };
}

/**
 * Sends a refused search to both and expects the same refusal. `unplaced`: an unknown query inside
 * the rescore query, which Portico places at the enclosing query's value (as it places every
 * unknown query: docs/search.md), so the `[line:col]` figures are left out of that comparison.
 */
async function sameRefusal(path: string, body: Record<string, unknown> | string, unplaced = false): Promise<void> {
  refusalsCompared++;
  const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
  expect(n.status, JSON.stringify(n.body)).toBeGreaterThanOrEqual(400);
  const strip = (v: unknown): unknown => (unplaced ? JSON.parse(JSON.stringify(v).replace(/\[\d+:\d+\] /g, '').replace(/"col":\d+/g, '"col":0')) : v);
  expect(strip(refusal(p)), `POST ${path} ${typeof body === 'string' ? body : JSON.stringify(body)}`).toEqual(strip(refusal(n)));
}

const MAIN = [
  { match: { text: 'python data' } },
  { match: { text: 'web server client' } },
  { bool: { must: [{ match: { text: 'tool' } }], should: [{ term: { tag: 't1' } }] } },
  { match_all: {} },
];

const RESCORE_QUERIES = [
  { match_phrase: { text: 'python data' } },
  { match_phrase: { text: { query: 'web client', slop: 2 } } },
  { match: { text: 'rust kernel' } },
  { term: { tag: 't2' } },
];

const MODES = ['total', 'multiply', 'avg', 'max', 'min'] as const;

/** The searches of one index: every score mode and weights, windows around the page, several rescorers, pages. */
function searches(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  // Each mode with each rescore query, default and other weights, a window inside the page and one past it.
  for (const [m, mode] of MODES.entries()) {
    for (const [r, rescore_query] of RESCORE_QUERIES.entries()) {
      const query = MAIN[(m + r) % MAIN.length];
      out.push({ query, rescore: { query: { rescore_query, score_mode: mode } } });
      out.push({ query, size: 15, rescore: { window_size: 7, query: { rescore_query, score_mode: mode, query_weight: 0.7, rescore_query_weight: 1.3 } } });
    }
  }
  // Windows smaller and larger than from + size, and pages past the window.
  for (const window_size of [0, 1, 3, 10, 25, 120]) {
    for (const [from, size] of [[0, 10], [5, 10], [20, 15], [0, 60]] as const) {
      out.push({ from, size, query: MAIN[0], rescore: { window_size, query: { rescore_query: RESCORE_QUERIES[0], query_weight: 0.5, rescore_query_weight: 2 } } });
    }
  }
  // Several rescorers in turn (an array), each with its own window.
  out.push({ size: 20, query: MAIN[1], rescore: [{ window_size: 30, query: { rescore_query: RESCORE_QUERIES[1] } }, { window_size: 5, query: { rescore_query: RESCORE_QUERIES[3], score_mode: 'multiply', rescore_query_weight: 3 } }] });
  out.push({ from: 3, size: 12, query: MAIN[0], rescore: [{ window_size: 8, query: { rescore_query: RESCORE_QUERIES[2], score_mode: 'max' } }, { window_size: 20, query: { rescore_query: RESCORE_QUERIES[0], score_mode: 'avg', query_weight: 2 } }, { query: { rescore_query: MAIN[2], score_mode: 'min' } }] });
  out.push({ size: 30, query: MAIN[3], rescore: [{ window_size: 50, query: { rescore_query: MAIN[0] } }, { window_size: 10, query: { rescore_query: RESCORE_QUERIES[1], query_weight: 0 } }] });
  // A rescore query that matches nothing, a single-element array, a sort on _score alone, track_scores, min_score and post_filter.
  out.push({ query: MAIN[0], rescore: [{ query: { rescore_query: { match: { text: 'absent' } }, query_weight: 1.5 } }] });
  out.push({ query: MAIN[1], sort: ['_score'], rescore: { window_size: 4, query: { rescore_query: RESCORE_QUERIES[0], score_mode: 'total' } } });
  out.push({ query: MAIN[0], min_score: 1, post_filter: { term: { tag: 't0' } }, rescore: { window_size: 6, query: { rescore_query: RESCORE_QUERIES[2] } } });
  out.push({ query: MAIN[2], track_total_hits: 5, rescore: { window_size: 12, query: { rescore_query: RESCORE_QUERIES[0], score_mode: 'max', rescore_query_weight: 10 } } });
  out.push({ size: 0, query: MAIN[0], rescore: { query: { rescore_query: RESCORE_QUERIES[0] } } });
  out.push({ size: 5, query: { match: { text: 'absent' } }, rescore: { window_size: -1, query: { rescore_query: RESCORE_QUERIES[0] } } });
  return out;
}

describe('rescore, side by side', () => {
  const docs = corpus(11);
  const indices = [
    { name: 'one', shards: 1 },
    { name: 'three', shards: 3 },
  ];

  it('loads the same documents on both', async () => {
    const lines = docs.flatMap((d) => [JSON.stringify({ index: { _id: d.id } }), JSON.stringify(d.source)]);
    for (const { name, shards } of indices) {
      for (const call of [porticoCall, nodeCall]) {
        const created = await call('PUT', `/${name}`, { settings: { number_of_shards: shards, number_of_replicas: 0 }, mappings: { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } } } });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        // One bulk and one refresh: each shard one segment in write order, ties in Portico's order.
        const r = await call('POST', `/${name}/_bulk?refresh=true`, lines.join('\n') + '\n');
        expect(r.body.errors).toBe(false);
      }
    }
  }, SLOW);

  it('answers rescored searches alike on one shard and on three', async () => {
    const list = searches();
    expect(list.length).toBeGreaterThanOrEqual(60);
    for (const { name } of indices) for (const body of list) await sameSearch(`/${name}/_search`, body);
  }, SLOW);

  it('under dfs_query_then_fetch scores the rescore query with every shard’s statistics too', async () => {
    const bodies = [
      { query: MAIN[0], rescore: { window_size: 15, query: { rescore_query: { match: { text: 'rust kernel font' } } } } },
      { size: 20, query: MAIN[1], rescore: [{ query: { rescore_query: RESCORE_QUERIES[0], score_mode: 'avg' } }, { window_size: 40, query: { rescore_query: { match: { text: 'game' } }, score_mode: 'multiply' } }] },
    ];
    for (const body of bodies) await sameSearch('/three/_search?search_type=dfs_query_then_fetch', body);
    // The rescore query's own terms (`game`, absent from the main query) do score otherwise with the gathered statistics.
    const plain = await porticoCall('POST', '/three/_search', bodies[1] as Record<string, unknown>);
    const dfs = await porticoCall('POST', '/three/_search?search_type=dfs_query_then_fetch', bodies[1] as Record<string, unknown>);
    expect(JSON.stringify(plain.body.hits.hits)).not.toBe(JSON.stringify(dfs.body.hits.hits));
  }, SLOW);

  it('refuses what the node refuses, with its status, type and reason', async () => {
    const q = { rescore_query: { match_all: {} } };
    const bodies: (Record<string, unknown> | string)[] = [
      { sort: ['n'], rescore: { query: q } },
      { sort: [{ _score: 'asc' }], rescore: { query: q } },
      { sort: ['_score', 'n'], rescore: { query: q } },
      { collapse: { field: 'tag' }, rescore: { query: q } },
      { rescore: { window_size: 10001, query: q } },
      { size: 0, rescore: [{ query: q }, { window_size: 20000, query: q }] },
      { size: 3, rescore: { window_size: -1, query: q } },
      '{"rescore":{"query":{"rescore_query":{"match_all":{}}, "foo":1}}}',
      '{"rescore":{"query":{"query_weight":2}}}',
      '{"rescore":{"foo":{}}}',
      '{"rescore":{"foo":1}}',
      '{"rescore":{}}',
      '{"rescore":{"window_size":5}}',
      '{"rescore":{"query":[]}}',
      '{"rescore":5}',
      '{"rescore":"x"}',
      '{"rescore":[5]}',
      '{"rescore":{"query":{"rescore_query":{"match_all":{}},"score_mode":"bad"}}}',
      '{"rescore":{"query":{"rescore_query":{"match_all":{}},"query_weight":"x"}}}',
      '{"rescore":{"query":{"rescore_query":{"match_all":{}}},"window_size":"x"}}',
      '{"rescore":[{"query":{"rescore_query":{"match_all":{}}}},{"window_size":3}]}',
    ];
    for (const body of bodies) await sameRefusal('/one/_search', body);
    for (const body of ['{"rescore":{"query":{"rescore_query":{"nope":{}}}}}', '{"rescore":{"query":{"rescore_query":{"bool":{"must":{"nope":{}}}}}}}']) await sameRefusal('/one/_search', body, true);
    await sameRefusal('/three/_search', { sort: ['n'], rescore: { query: q } });
    await sameRefusal('/one/_search?scroll=1m', { rescore: { query: q } });
    // An empty array is no rescorer: a scroll takes it.
    await sameSearch('/one/_search?scroll=1m', { size: 2, rescore: [] });
    // index.max_rescore_window, changed on both.
    for (const call of [porticoCall, nodeCall]) expect((await call('PUT', '/one/_settings', { index: { max_rescore_window: 50 } })).status).toBe(200);
    await sameRefusal('/one/_search', { rescore: { window_size: 51, query: q } });
    await sameSearch('/one/_search', { query: MAIN[0], rescore: { window_size: 50, query: { rescore_query: RESCORE_QUERIES[0] } } });
  }, SLOW);

  it('highlights the first query’s terms, fails only the shards past their window limit, and answers _msearch items alike', async () => {
    // Highlighting reads the first query alone on both.
    const highlighted = { size: 5, query: MAIN[0], highlight: { fields: { text: {} } }, rescore: { query: { rescore_query: { match: { text: 'rust kernel' } } } } };
    const [p, n] = [await porticoCall('POST', '/three/_search', highlighted), await nodeCall('POST', '/three/_search', highlighted)];
    expect(difference(p, n)).toBeUndefined();
    const marks = (a: Answer) => a.body.hits.hits.map((x: { highlight?: unknown }) => x.highlight);
    expect(marks(p)).toEqual(marks(n));
    expect(JSON.stringify(marks(n))).toContain('<em>');
    searchesCompared++;
    // `one` now limits windows to 50 (above): its shard fails, `three`'s answer.
    const both = { size: 12, query: MAIN[1], rescore: { window_size: 60, query: { rescore_query: RESCORE_QUERIES[1] } } };
    const [pb, nb] = [await porticoCall('POST', '/one,three/_search', both), await nodeCall('POST', '/one,three/_search', both)];
    expect(difference(pb, nb)).toBeUndefined();
    const shards = (a: Answer) => ({ ...a.body._shards, failures: a.body._shards.failures?.map((x: { shard: number; index: string; reason: unknown }) => [x.shard, x.index, x.reason]) });
    expect(shards(pb)).toEqual(shards(nb));
    expect(nb.body._shards.failed).toBe(1);
    searchesCompared++;
    const lines = [{ index: 'three' }, { size: 4, query: MAIN[0], rescore: { window_size: 6, query: { rescore_query: RESCORE_QUERIES[0], score_mode: 'avg' } } }, { index: 'one' }, { rescore: { window_size: 51, query: { rescore_query: MAIN[0] } } }];
    const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const [pm, nm] = [await porticoCall('POST', '/_msearch', text), await nodeCall('POST', '/_msearch', text)];
    expect(pm.body.responses.map((r: { status: number }) => r.status)).toEqual([200, 400]);
    expect(nm.body.responses.map((r: { status: number }) => r.status)).toEqual([200, 400]);
    expect(difference({ status: 200, body: pm.body.responses[0] }, { status: 200, body: nm.body.responses[0] })).toBeUndefined();
    expect(pm.body.responses[1].error.root_cause).toEqual(nm.body.responses[1].error.root_cause);
    searchesCompared++;
  }, SLOW);
});
