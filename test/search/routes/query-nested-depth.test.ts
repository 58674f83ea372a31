import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

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
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/q/_doc/1?refresh=true', payload: { t: 'hello' } });
  });
  afterAll(async () => h.close());

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
