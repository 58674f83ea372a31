import { beforeAll, describe, expect, it } from 'vitest';
import { searchText, searchForAll } from '../harness.js';
import { renderEmptyPage } from '../../../src/search/routes/search-routes.js';
import { parseSearchRequest } from '../../../src/search/requests/search-request.js';
import { SearchService } from '../../../src/search/engine/search-service.js';
import { MapStore } from '../map-store.js';
import fc from 'fast-check';

/**
 * _search and _count over HTTP (routes/search-routes.ts): rendering of hits and empty pages,
 * indices options, query nesting depth, dotted keys, pagination, the match fast path and its memos,
 * and fields mapped after documents.
 */

// Hits are written straight to JSON text in the common case (no sort values, whole or no
// _source); the bytes must be those of the general object rendering: key order, the optional
// members, scores as Float.toString writes them, and `_source` verbatim.
describe('_search hit rendering', () => {
  const h = searchForAll();
  beforeAll(async () => {
    const body = [
      '{"index":{"_id":"a"}}', '{"t":"red fox","n":1}',
      '{"index":{"_id":"b"}}', '{ "t" : "red red fox", "é": "ü" }',
      '{"index":{"_id":"c\\"q"}}', '{"t":"blue"}',
    ].join('\n');
    const res = await h.app.inject({ method: 'POST', url: '/r/_bulk?refresh=true', payload: `${body}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });

  const search = (url: string, body: unknown): Promise<string> => searchText(h, url, body);

  it('writes _index, _id, _score and the stored _source verbatim', async () => {
    const text = await search('/r/_search', { query: { match: { t: 'red' } } });
    expect(text).toBe(
      '{"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"max_score":0.25753623,"hits":[' +
        '{"_index":"r","_id":"b","_score":0.25753623,"_source":{ "t" : "red red fox", "é": "ü" }},' +
        '{"_index":"r","_id":"a","_score":0.21363801,"_source":{"t":"red fox","n":1}}]}}',
    );
  });

  it('adds _version, _seq_no and _primary_term in ES order, and escapes ids', async () => {
    const text = await search('/r/_search?version=true&seq_no_primary_term=true&_source=false', { query: { match: { t: 'blue' } } });
    expect(text).toContain('"hits":[{"_index":"r","_id":"c\\"q","_version":1,"_seq_no":2,"_primary_term":1,"_score":0.5604739}]');
  });

  it('writes a null _score when sorted by a field, and sort values through the object path', async () => {
    const text = await search('/r/_search', { query: { match: { t: 'red' } }, sort: [{ n: 'asc' }], _source: ['n'] });
    expect(text).toContain('"hits":[{"_index":"r","_id":"a","_score":null,"_source":{"n":1},"sort":[1]},');
  });

  it('pretty-prints the same hits', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/r/_search?pretty&filter_path=', payload: JSON.stringify({ query: { match: { t: 'blue' } } }), headers: { 'content-type': 'application/json' } });
    expect(res.body).toContain('"hits" : [\n      {\n        "_index" : "r",\n        "_id" : "c\\"q",\n        "_score" : 0.5604739,\n        "_source" : {\n          "t" : "blue"\n        }\n      }\n    ]');
  });
});

// The `_search` route writes responses without hits from a template: its bytes must be
// JSON.stringify's for every envelope runSearch builds without hits.
describe('empty page rendering', () => {
  const service = new SearchService(new MapStore(), () => 1_000);
  service.load();
  service.indexDoc('a', '1', { t: 'red fox' }, '{"t":"red fox"}', 'index');
  service.indexDoc('a', '2', { t: 'red red fox' }, '{"t":"red red fox"}', 'index');
  service.indexDoc('b', '1', { t: 'blue fox' }, '{"t":"blue fox"}', 'index');

  const cases: [string, unknown, Record<string, string>][] = [
    ['a', { query: { match: { t: 'red' } } }, { from: '9990', size: '10' }],
    ['a', { query: { match: { t: 'red' } } }, { size: '0' }],
    ['a', { query: { match: { t: 'green' } } }, {}],
    ['a', { query: { match: { t: 'red' } } }, { from: '5', track_total_hits: 'false' }],
    ['a', { query: { match: { t: 'red' } } }, { from: '5', rest_total_hits_as_int: 'true' }],
    ['a', { query: { match: { t: 'red' } }, track_total_hits: 1 }, { from: '5' }],
    ['a', { query: { match: { t: 'fox' } }, sort: [{ _doc: 'asc' }] }, { from: '5' }],
    ['a,b', { query: { match: { t: 'fox' } } }, { from: '50' }],
    ['a', { query: { match_all: {} } }, { from: '3' }],
    ['a', { query: { match: { t: 'red' } }, track_scores: true, sort: ['_doc'] }, { from: '3' }],
  ];
  for (const [index, body, params] of cases) {
    it(`writes JSON.stringify's bytes for ${index} ${JSON.stringify(body)} ${JSON.stringify(params)}`, () => {
      const out = service.search(service.resolve(index), parseSearchRequest(body, params), 990);
      expect((out.hits as { hits: unknown[] }).hits).toEqual([]);
      expect(renderEmptyPage(out)).toBe(JSON.stringify(out));
    });
  }

  it('leaves other envelopes to the general renderer', () => {
    const base = { took: 1, timed_out: false, hits: { max_score: null, hits: [] } };
    expect(renderEmptyPage({ ...base, _shards: { total: 2, successful: 1, skipped: 0, failed: 1, failures: [] } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, took: 1.5, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { total: { value: 1, relation: 'x' }, max_score: null, hits: [] } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 }, hits: { max_score: 'x', hits: [] } })).toBeUndefined();
  });

  it('leaves an envelope with a member the template does not write to the general renderer (it would drop it)', () => {
    const shards = { total: 1, successful: 1, skipped: 0, failed: 0 };
    const base = { took: 1, timed_out: false, _shards: shards, hits: { max_score: null, hits: [] } };
    expect(renderEmptyPage(base)).toBe(JSON.stringify(base));
    expect(renderEmptyPage({ ...base, aggregations: {} })).toBeUndefined();
    expect(renderEmptyPage({ ...base, _shards: { ...shards, extra: 1 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, hits: { max_score: null, hits: [], extra: 1 } })).toBeUndefined();
    expect(renderEmptyPage({ ...base, hits: { total: 3, max_score: null, hits: [], extra: 1 } })).toBeUndefined();
  });
});

// The indices options `_search` and `_count` take (ES 8 IndicesOptions): both accepted the
// parameters and ignored some of them.
describe('allow_no_indices and ignore_unavailable', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/logs-1' });
    await h.app.inject({ method: 'PUT', url: '/logs-1/_doc/1?refresh=true', payload: { t: 'red' } });
  });

  const get = async (url: string) => {
    const res = await h.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() as { error: { type: string; reason: string }; count: number } };
  };

  it('answers a wildcard that matches nothing with index_not_found_exception under allow_no_indices=false', async () => {
    for (const api of ['_search', '_count']) {
      const r = await get(`/nomatch-*/${api}?allow_no_indices=false`);
      expect(r.status, api).toBe(404);
      expect(r.body.error.type).toBe('index_not_found_exception');
      expect(r.body.error.reason).toBe('no such index [nomatch-*]');
      // Also when another expression of the list matches (ES checks each wildcard).
      expect((await get(`/logs-*,nomatch-*/${api}?allow_no_indices=false`)).status, api).toBe(404);
      // The default (true) still resolves such a wildcard to nothing.
      expect((await get(`/nomatch-*/${api}`)).status, api).toBe(200);
      expect((await get(`/logs-*/${api}?allow_no_indices=false`)).status, api).toBe(200);
    }
  });

  it('lets _count skip a missing index under ignore_unavailable=true, as _search does', async () => {
    const r = await get('/missing/_count?ignore_unavailable=true');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ count: 0, _shards: { total: 0, successful: 0, skipped: 0, failed: 0 } });
    const both = await get('/missing,logs-1/_count?ignore_unavailable=true');
    expect(both.body.count).toBe(1);
    expect((await get('/missing/_count')).status).toBe(404);
  });
});

// ES 8.6+ refuses a query whose chain of query objects is longer than
// indices.query.bool.max_nested_depth (30), every query type counted, `query` and `post_filter`
// each on its own. Each bool around the query past the limit wraps the illegal_argument_exception
// in an x_content_parse_exception located at that query's body. A chain thousands deep is the same
// 400, never an internal error.
const REASON = 'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]';

/** `levels` query objects, compact: `levels - 1` bools each holding the next in `clause`, around `leaf`. */
const boolChain = (levels: number, leaf = '{"bool":{}}', clause = 'must'): string =>
  `{"bool":{"${clause}":[`.repeat(levels - 1) + leaf + ']}}'.repeat(levels - 1);

interface Cause {
  type: string;
  reason: string;
  caused_by?: Cause;
}

function chainOf(error: Cause): Cause[] {
  const out: Cause[] = [];
  for (let c: Cause | undefined = error; c !== undefined; c = c.caused_by) out.push(c);
  return out;
}

describe('query nesting depth', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/q/_doc/1?refresh=true', payload: { t: 'hello' } });
  });

  const post = (url: string, payload: string, type = 'application/json') =>
    h.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });

  it('accepts a chain of 30 queries, in query and in post_filter', async () => {
    const res = await post('/q/_search', `{"query":${boolChain(29, '{"match_all":{}}')},"post_filter":${boolChain(29, '{"match_all":{}}')}}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().hits.total.value).toBe(1);
  });

  it('refuses 31 with one x_content_parse_exception per enclosing bool, all at the body of the 31st query', async () => {
    const res = await post('/q/_search', `{"query":${boolChain(31)}}`);
    expect(res.statusCode).toBe(400);
    const body = res.json() as { error: Cause & { root_cause: Cause[] }; status: number };
    expect(body.status).toBe(400);
    // `{"query":{"bool":{` puts the first body at column 18; each level adds `"must":[{"bool":{` (17).
    const wrapper = { type: 'x_content_parse_exception', reason: '[1:528] [bool] failed to parse field [must]' };
    expect(body.error.root_cause).toEqual([wrapper]);
    const chain = chainOf(body.error);
    expect(chain).toHaveLength(31);
    for (const c of chain.slice(0, 30)) expect({ type: c.type, reason: c.reason }).toEqual(wrapper);
    expect(chain[30]).toEqual({ type: 'illegal_argument_exception', reason: REASON });
  });

  it('answers a chain 3,000 deep the same way, in _search, _count, post_filter and _msearch', async () => {
    const deep = boolChain(3000);
    for (const res of [
      await post('/q/_search', `{"query":${deep}}`),
      await h.app.inject({ method: 'GET', url: '/q/_search', payload: `{"query":${deep}}`, headers: { 'content-type': 'application/json' } }),
      await post('/q/_count', `{"query":${deep}}`),
      await post('/q/_msearch', `{}\n{"query":${deep}}\n`, 'application/x-ndjson'),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: '[1:528] [bool] failed to parse field [must]' }]);
    }
    const pf = await post('/q/_search', `{"post_filter":${deep}}`);
    expect(pf.statusCode).toBe(400);
    // `{"post_filter":{"bool":{` is six characters longer than `{"query":{"bool":{`.
    expect(pf.json().error.reason).toBe('[1:534] [bool] failed to parse field [must]');
  });

  it('counts every query type; only bools wrap, each naming its clause', async () => {
    const disMax = `{"dis_max":{"queries":[`.repeat(30) + '{"match_all":{}}' + ']}}'.repeat(30);
    const res = await post('/q/_search', `{"query":${disMax}}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { root_cause: [{ type: 'illegal_argument_exception', reason: REASON }], type: 'illegal_argument_exception', reason: REASON },
      status: 400,
    });

    // bool(filter, one object) > constant_score > bool(should) > dis_max > 26 bools(must_not) > term: 31 queries.
    const inner = boolChain(27, '{"term":{"t":"hello"}}', 'must_not');
    const mixed = `{"bool":{"filter":{"constant_score":{"filter":{"bool":{"should":[{"dis_max":{"queries":[${inner}]}}]}}}}}}`;
    const m = await post('/q/_search', `{"query":${mixed}}`);
    expect(m.statusCode).toBe(400);
    const chain = chainOf(m.json().error as Cause);
    const at = `{"query":${mixed}}`.indexOf('{"term"') + '{"term":'.length + 1;
    const w = (clause: string) => ({ type: 'x_content_parse_exception', reason: `[1:${at}] [bool] failed to parse field [${clause}]` });
    expect(chain.map((c) => ({ type: c.type, reason: c.reason }))).toEqual([
      w('filter'),
      w('should'),
      ...Array.from({ length: 26 }, () => w('must_not')),
      { type: 'illegal_argument_exception', reason: REASON },
    ]);
  });
});

// A field written as one dotted key (`{"a.b": …}`) is indexed exactly as the nested form
// (`{"a": {"b": …}}`), so match finds both; the phrase check read the source through the nested
// form only, and match_phrase missed the dotted one.

describe('match_phrase on a field written as a dotted key', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: '/d/_doc/dotted?refresh=true', payload: { 'a.b': 'the quick brown fox' } });
    await h.app.inject({ method: 'PUT', url: '/d/_doc/nested?refresh=true', payload: { a: { b: 'the quick brown fox' } } });
    await h.app.inject({ method: 'PUT', url: '/d/_doc/mixed?refresh=true', payload: { a: [{ b: 'a slow fox' }, { b: ['no', 'quick brown'] }] } });
  });

  const ids = async (query: unknown): Promise<string[]> => {
    const r = await h.app.inject({ method: 'POST', url: '/d/_search', payload: { query } });
    return (r.json() as { hits: { hits: { _id: string }[] } }).hits.hits.map((x) => x._id).sort();
  };

  it('finds the document in either form, as match does', async () => {
    expect(await ids({ match: { 'a.b': 'quick brown' } })).toEqual(['dotted', 'mixed', 'nested']);
    expect(await ids({ match_phrase: { 'a.b': 'quick brown' } })).toEqual(['dotted', 'mixed', 'nested']);
    expect(await ids({ match_phrase: { 'a.b': 'brown quick' } })).toEqual([]);
  });
});

// Walking every page of a query with any page size gives exactly the full ordered result list:
// no document repeats and none is skipped (the order is total: score, then write order).
describe('pagination', () => {
  const h = searchForAll();
  const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
  beforeAll(async () => {
    let body = '';
    for (let i = 0; i < 240; i++) {
      // Few distinct texts: many equal scores, so the tie-break decides most of the order.
      const text = Array.from({ length: 1 + (i % 4) }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ text, n: i % 9, tag: `t${i % 5}` })}\n`;
    }
    const res = await h.app.inject({ method: 'POST', url: '/p/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });

  const search = async (body: Record<string, unknown>) => {
    const res = await h.app.inject({ method: 'POST', url: '/p/_search', payload: body });
    expect(res.statusCode).toBe(200);
    return (res.json() as { hits: { hits: { _id: string }[] } }).hits.hits.map((x) => x._id);
  };

  it('any page size partitions the full list', async () => {
    const queries = [
      { match: { text: 'alpha gamma' } },
      { match_all: {} },
      { bool: { should: [{ match: { text: 'beta' } }, { term: { 'tag.keyword': 't1' } }] } },
    ];
    const sorts = [undefined, [{ n: 'desc' }], [{ 'tag.keyword': 'asc' }, { n: 'asc' }]];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 60 }), async (qi, si, pageSize) => {
        const base: Record<string, unknown> = { query: queries[qi] };
        if (sorts[si] !== undefined) base.sort = sorts[si];
        const full = await search({ ...base, size: 1000 });
        const walked: string[] = [];
        for (let from = 0; from < full.length; from += pageSize) walked.push(...(await search({ ...base, from, size: pageSize })));
        expect(walked).toEqual(full);
        expect(new Set(walked).size).toBe(walked.length);
      }),
      { numRuns: 25 },
    );
  });
});

// A relevance-ordered `match` on one index is answered by matchTopK (heap up to from + size 128,
// term at a time with MaxScore early stop beyond); `min_score` sends the same query through the
// general path (score everything, then select). Both must give the same bytes.
describe('_search match fast path against the general path', () => {
  const h = searchForAll();
  beforeAll(async () => {
    // Even documents: "c" alone (short). Odd documents: "r" in a long text, except one short
    // document that repeats "r", which makes the extreme score of "r" the largest in magnitude.
    const long = Array.from({ length: 99 }, () => 'x').join(' ');
    let body = '';
    for (let i = 0; i < 3000; i++) {
      const t = i === 1 ? 'r r r r r r r r r r' : i % 2 === 1 ? `r ${long}` : 'c';
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ t })}\n`;
    }
    const res = await h.app.inject({ method: 'POST', url: '/n/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });

  const search = (url: string, body: unknown): Promise<string> => searchText(h, url, body);

  // Lucene forbids negative scores and ES >= 7 refuses negative boosts, but Portico accepts them:
  // term score bounds are then lower bounds, and pruning by them drops the best documents.
  for (const boost of [1, 0.5, 0, -1]) {
    for (const [from, size, tth] of [[0, 10, 10_000], [0, 10, 5], [130, 10, 10_000], [200, 10, 10_000], [500, 10, 100], [1200, 10, 10_000]] as const) {
      it(`boost ${boost}, from ${from}, size ${size}, track_total_hits ${tth}`, async () => {
        const query = { match: { t: { query: 'c r', boost } } };
        const url = `/n/_search?from=${from}&size=${size}&track_total_hits=${tth}&_source=false`;
        const fast = await search(url, { query });
        const general = await search(url, { query, min_score: -1e9 });
        expect(fast).toBe(general);
      });
    }
  }
});

// The fast match path keeps per-index memos across requests (scratch-arena.ts: norm tables, score
// tables, each term's best posting). Through the service, after every kind of write (index,
// update, delete, the index deleted and created again under its name), a deep page and a page past
// the end must answer exactly as the general path (forced here with min_score 0, which drops no
// hit of a match with a positive boost).
describe('match deep pages through the service across writes', () => {
  const h = searchForAll();

  let seed = 9;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const WORDS = ['a', 'b', 'c', 'd', 'straße', 'été'];
  const text = (): string => Array.from({ length: Math.floor(rnd() * 7) }, () => WORDS[Math.floor(rnd() * WORDS.length)] as string).join(' ');

  async function bulk(lines: unknown[]): Promise<void> {
    const payload = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    // Refreshed: a scheduled refresh between the two searches of a check would make them differ.
    const res = await h.app.inject({ method: 'POST', url: '/_bulk?refresh=true', payload, headers: { 'content-type': 'application/x-ndjson' } });
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

// A field mapped after documents were written (dynamic: false, then PUT _mapping) is not indexed
// for those documents, as in Elasticsearch; removing one of them must not take anything out of
// the field's statistics either.
describe('field mapped after documents were written', () => {
  const h = searchForAll();

  it('a document written before the mapping leaves the new field alone when deleted', async () => {
    const req = (method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) => h.app.inject({ method, url, payload: payload as Record<string, unknown> });
    expect((await req('PUT', '/m', { mappings: { dynamic: false, properties: { t: { type: 'text' } } } })).statusCode).toBe(200);
    expect((await req('PUT', '/m/_doc/old', { t: 'x', u: 'hello world' })).statusCode).toBe(201);
    expect((await req('PUT', '/m/_mapping', { properties: { u: { type: 'text' } } })).statusCode).toBe(200);
    expect((await req('PUT', '/m/_doc/new?refresh=true', { t: 'y', u: 'hello' })).statusCode).toBe(201);
    const hits = async () => (await req('POST', '/m/_search', { query: { match: { u: 'hello' } } })).json() as { hits: { total: { value: number }; hits: { _id: string; _score: number }[] } };
    const before = await hits();
    expect(before.hits.hits.map((x) => x._id)).toEqual(['new']);
    expect((await req('DELETE', '/m/_doc/old?refresh=true')).statusCode).toBe(200);
    expect(await hits()).toEqual({ ...before, took: expect.any(Number) as number });
  });
});
