import { describe, expect, it } from 'vitest';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * The `rescore` body key (src/search/engine/rescore.ts): each shard's top hits rescored by each
 * rescorer in turn, as ES 8's QueryRescorer combines the scores (float32), the hits past the window
 * multiplied by `query_weight` and sorted again with the rest, pages merged by the new scores; and
 * ES's refusals. Side by side with the node: test/search/differential/rescore.int.test.ts.
 */

const h = searchForEach();
const { call, ok } = esCalls(h);
const f = Math.fround;

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];

/** 40 documents: uneven texts (phrases repeat), a tag of three values. */
function docs(): { id: string; source: Record<string, unknown> }[] {
  return Array.from({ length: 40 }, (_, i) => ({
    id: `d${i}`,
    source: { text: Array.from({ length: 2 + (i % 5) }, (_, k) => WORDS[(i * 5 + k * k + k) % WORDS.length]).join(' '), tag: ['a', 'b', 'c'][i % 3], n: i },
  }));
}

async function load(index: string, shards: number): Promise<void> {
  await ok('PUT', `/${index}`, { settings: { number_of_shards: shards, number_of_replicas: 0 }, mappings: { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } } } });
  const lines = docs().flatMap((d) => [JSON.stringify({ index: { _id: d.id } }), JSON.stringify(d.source)]);
  const res = await h.app.inject({ method: 'POST', url: `/${index}/_bulk?refresh=true`, headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
  expect(JSON.parse(res.body).errors).toBe(false);
}

type Hit = { _id: string; _score: number };
const hitsOf = (b: EsBody): Hit[] => b.hits.hits as Hit[];
/** Each hit's id and score, the score as the float32 its JSON text stands for (ES writes float32 scores shortest). */
const pairs = (b: EsBody): [string, number][] => hitsOf(b).map((x) => [x._id, f(x._score)]);
const maxScore = (b: EsBody): number | null => (b.hits.max_score === null ? null : f(b.hits.max_score as number));

interface RescorerSpec {
  window_size?: number;
  query: { rescore_query: unknown; query_weight?: number; rescore_query_weight?: number; score_mode?: string };
}

function combine(mode: string, p: number, s: number): number {
  if (mode === 'multiply') return f(p * s);
  if (mode === 'avg') return f(f(p + s) / 2);
  if (mode === 'max') return Math.max(p, s);
  if (mode === 'min') return Math.min(p, s);
  return f(p + s);
}

/**
 * The page (and max_score) a rescored search should answer, from plain searches only: each
 * shard's first-pass hits and the rescore queries' scores (`preference=_shards:k`), the rescorers
 * applied in JavaScript as ES's QueryRescorer words them, the shards' lists merged by score.
 */
async function expectedPage(index: string, shards: number, body: { query: unknown; from?: number; size?: number; rescore: RescorerSpec[] }): Promise<{ page: [string, number][]; max: number | null }> {
  const from = body.from ?? 0;
  const size = body.size ?? 10;
  const lists: { id: string; score: number; ord: number; shard: number }[][] = [];
  for (let shard = 0; shard < shards; shard++) {
    const pref = shards > 1 ? `?preference=_shards:${shard}` : '';
    const ords = new Map(hitsOf(await ok('POST', `/${index}/_search${pref}`, { size: 100, _source: false })).map((x, i) => [x._id, i]));
    let top = hitsOf(await ok('POST', `/${index}/_search${pref}`, { size: 100, _source: false, query: body.query })).map((x) => ({ id: x._id, score: f(x._score), ord: ords.get(x._id) as number, shard }));
    const n = Math.min(top.length, body.rescore.reduce((m, r) => Math.max(m, r.window_size ?? 10), from + size));
    top = top.slice(0, n);
    for (const r of body.rescore) {
      const second = new Map(pairs(await ok('POST', `/${index}/_search${pref}`, { size: 100, _source: false, query: r.query.rescore_query })));
      const w = r.window_size ?? 10;
      const qw = f(r.query.query_weight ?? 1);
      const rw = f(r.query.rescore_query_weight ?? 1);
      top = top.map((x, i) => {
        const s = second.get(x.id);
        const first = f(x.score * qw);
        return { ...x, score: i < w && s !== undefined ? combine(r.query.score_mode ?? 'total', first, f(s * rw)) : first };
      });
      top.sort((a, b) => b.score - a.score || a.ord - b.ord);
    }
    lists.push(top);
  }
  const merged = lists.flat().sort((a, b) => b.score - a.score || a.shard - b.shard || a.ord - b.ord);
  const best = lists.map((l) => l[0]?.score).filter((s): s is number => s !== undefined);
  return { page: merged.slice(from, from + size).map((x) => [x.id, x.score]), max: best.length === 0 ? null : Math.max(...best) };
}

describe('rescore', () => {
  it('combines the scores of the window by each score mode, hits past the window times query_weight and sorted with the rest', async () => {
    await load('r', 1);
    // Every first-pass score is 1 (match_all), ordinals d0..d39; the rescore query scores 3 on tag a (d0, d3, d6, …).
    const rescore_query = { constant_score: { filter: { term: { tag: 'a' } }, boost: 3 } };
    const want: Record<string, number> = { total: 3.5, multiply: 3, avg: 1.75, max: 2, min: 1.5 };
    for (const [mode, matched] of Object.entries(want)) {
      const b = await ok('POST', '/r/_search', { size: 8, _source: false, rescore: { window_size: 4, query: { rescore_query, score_mode: mode, query_weight: 2, rescore_query_weight: 0.5 } } });
      // The shard collects the page's 8 hits (d0..d7); the window is d0..d3, where d0 and d3 match
      // the rescore query; every other hit is 1 × 2 (d6 too: past the window).
      const rest = ['d1', 'd2', 'd4', 'd5', 'd6', 'd7'].map((id): [string, number] => [id, 2]);
      const rescored: [string, number][] = [['d0', matched], ['d3', matched]];
      const all = [...rescored, ...rest].sort((x, y) => y[1] - x[1] || Number(x[0].slice(1)) - Number(y[0].slice(1)));
      expect(pairs(b), mode).toEqual(all);
      expect(b.hits.max_score, mode).toBe(Math.max(matched, 2));
      expect(b.hits.total, mode).toEqual({ value: 40, relation: 'eq' });
    }
  });

  it('answers each mode, weight and window as the plain searches it is made of, on one shard and on three', async () => {
    await load('one', 1);
    await load('three', 3);
    const queries = [{ match: { text: 'alpha gamma' } }, { match: { text: 'delta' } }];
    const rescoreQueries = [{ match_phrase: { text: 'beta gamma' } }, { match: { text: 'zeta epsilon' } }];
    let compared = 0;
    for (const [index, shards] of [['one', 1], ['three', 3]] as const) {
      for (const mode of ['total', 'multiply', 'avg', 'max', 'min']) {
        for (const [from, size, window] of [[0, 10, 10], [0, 10, 3], [4, 8, 20], [10, 10, 5], [0, 30, 0]] as const) {
          const query = queries[compared % 2];
          const rescore: RescorerSpec[] = [{ window_size: window, query: { rescore_query: rescoreQueries[compared % 2], score_mode: mode, query_weight: 0.7, rescore_query_weight: 1.6 } }];
          const body = { query, from, size, rescore };
          const want = await expectedPage(index, shards, body);
          const got = await ok('POST', `/${index}/_search`, { ...body, _source: false, rescore: rescore[0] });
          expect(pairs(got), `${index} ${JSON.stringify(body)}`).toEqual(want.page);
          expect(maxScore(got), `${index} ${JSON.stringify(body)}`).toBe(want.max);
          compared++;
        }
      }
    }
    expect(compared).toBe(50);
  });

  it('applies several rescorers in turn, each on its own window', async () => {
    await load('three', 3);
    const rescore: RescorerSpec[] = [
      { window_size: 12, query: { rescore_query: { match: { text: 'epsilon' } }, score_mode: 'total', rescore_query_weight: 2 } },
      { window_size: 4, query: { rescore_query: { term: { tag: 'b' } }, score_mode: 'multiply', query_weight: 1.5 } },
      { query: { rescore_query: { match_phrase: { text: 'alpha beta' } }, score_mode: 'max' } },
    ];
    const body = { query: { match: { text: 'alpha beta delta' } }, from: 2, size: 9, rescore };
    const want = await expectedPage('three', 3, body);
    const got = await ok('POST', '/three/_search', { ...body, _source: false });
    expect(pairs(got)).toEqual(want.page);
    expect(maxScore(got)).toBe(want.max);
    // The rescorers change the order: not the first pass's.
    const plain = await ok('POST', '/three/_search', { query: body.query, from: 2, size: 9, _source: false });
    expect(pairs(plain).map((x) => x[0])).not.toEqual(want.page.map((x) => x[0]));
  });

  it('scores the rescore query with every shard’s statistics under dfs_query_then_fetch', async () => {
    await load('three', 3);
    const body = { query: { match_all: {} }, size: 40, _source: false, rescore: { window_size: 40, query: { rescore_query: { match: { text: 'zeta' } }, score_mode: 'total' } } };
    const dfs = new Map(pairs(await ok('POST', '/three/_search?search_type=dfs_query_then_fetch', body)));
    // One shard of the same documents has the statistics the dfs phase gathers: 1 + its score of `zeta`.
    await load('one', 1);
    const whole = pairs(await ok('POST', '/one/_search', { query: { match: { text: 'zeta' } }, size: 40, _source: false }));
    expect(whole.length).toBeGreaterThan(3);
    for (const [id, s] of whole) expect(dfs.get(id), id).toBe(f(1 + s));
    const plain = new Map(pairs(await ok('POST', '/three/_search', body)));
    expect(whole.some(([id]) => plain.get(id) !== dfs.get(id))).toBe(true);
  });

  it('refuses a sort, collapse, a window past index.max_rescore_window and a negative window as ES does, on each shard', async () => {
    await load('three', 3);
    const q = { rescore_query: { match_all: {} } };
    const refused = async (url: string, body: unknown, status: number, type: string, reason: string): Promise<EsBody> => {
      const res = await call('POST', url, body);
      expect([res.status, res.body.error.root_cause[0].type, res.body.error.root_cause[0].reason], JSON.stringify(body)).toEqual([status, type, reason]);
      return res.body;
    };
    const sorted = await refused('/three/_search', { sort: ['n'], rescore: { query: q } }, 400, 'illegal_argument_exception', 'Cannot use [sort] option in conjunction with [rescore].');
    expect(sorted.error.failed_shards).toHaveLength(1);
    expect(sorted.error.type).toBe('search_phase_execution_exception');
    await refused('/three/_search', { sort: [{ _score: 'asc' }], rescore: { query: q } }, 400, 'illegal_argument_exception', 'Cannot use [sort] option in conjunction with [rescore].');
    await refused('/three/_search', { collapse: { field: 'tag' }, rescore: { query: q } }, 500, 'search_exception', 'cannot use `collapse` in conjunction with `rescore`');
    const tooLarge = (w: number, max: number) => `Rescore window [${w}] is too large. It must be less than [${max}]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.`;
    await refused('/three/_search', { size: 0, rescore: { window_size: 10_001, query: q } }, 400, 'illegal_argument_exception', tooLarge(10_001, 10_000));
    // The limit follows index.max_result_window unless set, and is a dynamic setting.
    await ok('PUT', '/three/_settings', { index: { max_result_window: 30 } });
    await refused('/three/_search', { size: 1, rescore: { window_size: 31, query: q } }, 400, 'illegal_argument_exception', tooLarge(31, 30));
    await ok('PUT', '/three/_settings', { index: { max_rescore_window: 100 } });
    expect(hitsOf(await ok('POST', '/three/_search', { size: 1, rescore: { window_size: 100, query: q } }))).toHaveLength(1);
    await refused('/three/_search', { size: 1, rescore: { window_size: 101, query: q } }, 400, 'illegal_argument_exception', tooLarge(101, 100));
    // A negative window fails a shard with hits (ES allocates the window), not one without.
    await refused('/three/_search', { rescore: { window_size: -1, query: q } }, 500, 'negative_array_size_exception', '-1');
    expect((await ok('POST', '/three/_search', { query: { match: { text: 'absent' } }, rescore: { window_size: -1, query: q } })).hits.total.value).toBe(0);
    // A scroll refuses rescore in its request validation.
    await refused('/three/_search?scroll=1m', { rescore: { query: q } }, 400, 'action_request_validation_exception', 'Validation Failed: 1: using [rescore] is not allowed in a scroll context;');
    // An empty array is no rescorer: the scroll is taken.
    expect((await ok('POST', '/three/_search?scroll=1m', { size: 2, rescore: [] }))._scroll_id).toEqual(expect.any(String));
    // `_score` alone is no sort: taken.
    expect(hitsOf(await ok('POST', '/three/_search', { sort: ['_score'], rescore: { query: q } }))[0]?._score).toBe(2);
  });

  it('refuses a malformed rescore with ES’s parse errors, placed in the text', async () => {
    await load('r', 1);
    const cases: [string, string, string, number?][] = [
      ['{"rescore":5}', 'parsing_exception', 'Unknown key for a VALUE_NUMBER in [rescore].', 12],
      ['{"rescore":{}}', 'parsing_exception', 'missing rescore type', 13],
      ['{"rescore":{"window_size":5}}', 'parsing_exception', 'missing rescore type', 28],
      ['{"rescore":{"foo":1}}', 'parsing_exception', "rescore doesn't support [foo]", 19],
      ['{"rescore":{"query":[]}}', 'parsing_exception', 'unexpected token [START_ARRAY] after [query]', 21],
      ['{"rescore":[5]}', 'parsing_exception', 'unexpected token [END_ARRAY] after [null]', 14],
      ['{"rescore":{"foo":{}}}', 'named_object_not_found_exception', '[1:19] unknown field [foo]'],
      ['{"rescore":{"query":{"rescore_query":{"match_all":{}}, "foo":1}}}', 'x_content_parse_exception', '[1:56] [query] unknown field [foo]'],
      ['{"rescore":{"query":{"query_weight":2}}}', 'illegal_argument_exception', 'rescore_query cannot be null'],
      ['{"rescore":{"query":{"rescore_query":{"match_all":{}},"score_mode":"bad"}}}', 'x_content_parse_exception', '[1:68] [query] failed to parse field [score_mode]'],
      ['{"rescore":{"query":{"rescore_query":{"match_all":{}}},"window_size":"x"}}', 'number_format_exception', 'For input string: "x"'],
    ];
    for (const [text, type, reason, col] of cases) {
      const res = await h.app.inject({ method: 'POST', url: '/r/_search', headers: { 'content-type': 'application/json' }, payload: text });
      const e = JSON.parse(res.body).error;
      expect([res.statusCode, e.type, e.reason, e.col], text).toEqual([400, type, reason, col]);
    }
    // An unknown rescore query: the rescorer's wrapper around the query's own error.
    const unknown = await call('POST', '/r/_search', { rescore: { query: { rescore_query: { nope: {} } } } });
    expect([unknown.status, unknown.body.error.type, unknown.body.error.caused_by.type, unknown.body.error.root_cause[0].reason]).toEqual([400, 'x_content_parse_exception', 'parsing_exception', 'unknown query [nope]']);
    expect(unknown.body.error.reason).toMatch(/^\[1:\d+\] \[query\] failed to parse field \[rescore_query\]$/);
    // A bad score_mode's cause, and an empty array: no rescorer at all.
    const bad = await call('POST', '/r/_search', { rescore: { query: { rescore_query: { match_all: {} }, score_mode: 'bad' } } });
    expect(bad.body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'illegal score_mode [bad]' });
    const none = await ok('POST', '/r/_search', { query: { match: { text: 'alpha' } }, rescore: [] });
    expect(pairs(none)).toEqual(pairs(await ok('POST', '/r/_search', { query: { match: { text: 'alpha' } } })));
  });
});
