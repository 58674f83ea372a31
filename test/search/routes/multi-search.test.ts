import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchError } from '../../../src/search/errors.js';
import { parseMultiSearch } from '../../../src/search/engine/multi-search.js';
import { startSearch, type SearchHarness } from '../harness.js';

/** `_msearch` as ES 8 answers it (issue 3), after ES's msearch/10_basic.yml and MultiSearchRequest. */

const ndjson = (...lines: unknown[]) => `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

describe('parseMultiSearch', () => {
  it('pairs headers with bodies; an empty header line takes the defaults', () => {
    const items = parseMultiSearch(ndjson({ index: 'a' }, { size: 1 }, '', {}, { index: ['b', 'c'], ignore_unavailable: true }, {}), 'd', {});
    expect(items.map((i) => [i.index, i.ignoreUnavailable, i.request.size])).toEqual([
      ['a', false, 1],
      ['d', false, 10],
      ['b,c', true, 10],
    ]);
  });

  it('drops a header that has no body line after it', () => {
    expect(parseMultiSearch(ndjson({}, {}, { index: 'x' }), undefined, {})).toHaveLength(1);
  });

  it('throws only SearchErrors, whatever the text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v)))), fc.boolean(), (lines, terminated) => {
        try {
          parseMultiSearch(lines.join('\n') + (terminated ? '\n' : ''), undefined, {});
        } catch (e) {
          expect(e).toBeInstanceOf(SearchError);
        }
      }),
    );
  });
});

describe('_msearch over HTTP', () => {
  let h: SearchHarness;
  const req = async (method: 'GET' | 'POST', url: string, payload?: string, contentType = 'application/x-ndjson', accept?: string) => {
    const headers = { 'content-type': contentType, ...(accept === undefined ? {} : { accept }) };
    const res = await h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
    return { status: res.statusCode, body: res.body, json: JSON.parse(res.body) as Record<string, unknown> };
  };

  beforeAll(async () => {
    h = await startSearch();
    const docs: [string, string, Record<string, unknown>][] = [
      ['index_1', '1', { foo: 'bar' }],
      ['index_1', '2', { foo: 'baz' }],
      ['index_1', '3', { foo: 'foo' }],
      ['index_2', '1', { foo: 'foo' }],
    ];
    const body = docs.flatMap(([index, id, doc]) => [{ index: { _index: index, _id: id } }, doc]);
    await h.app.inject({ method: 'POST', url: '/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: ndjson(...body) });
  });
  afterAll(async () => h.close());

  const BASIC = ndjson(
    { index: 'index_*' },
    { query: { match: { foo: 'foo' } } },
    { index: 'index_2' },
    { query: { match_all: {} } },
    { index: 'index_1' },
    { query: { match: { foo: 'foo' } } },
    { index: 'index_3' },
    { query: { match_all: {} } },
    {},
    { query: { match_all: {} } },
  );

  it('runs each search; a missing index fails only its item (ES msearch/10_basic.yml)', async () => {
    const r = await req('POST', '/_msearch?rest_total_hits_as_int=true', BASIC);
    expect(r.status).toBe(200);
    const responses = r.json.responses as Record<string, unknown>[];
    expect(typeof r.json.took).toBe('number');
    expect(Object.keys(r.json)).toEqual(['took', 'responses']);
    expect(responses.map((x) => (x.hits as { total: unknown } | undefined)?.total)).toEqual([2, 1, 1, undefined, 4]);
    expect(responses.map((x) => x.status)).toEqual([200, 200, 200, 404, 200]);
    expect(responses[3]).toEqual({
      error: {
        root_cause: [{ type: 'index_not_found_exception', reason: 'no such index [index_3]', 'resource.type': 'index_or_alias', 'resource.id': 'index_3', index_uuid: '_na_', index: 'index_3' }],
        type: 'index_not_found_exception',
        reason: 'no such index [index_3]',
        'resource.type': 'index_or_alias',
        'resource.id': 'index_3',
        index_uuid: '_na_',
        index: 'index_3',
      },
      status: 404,
    });
    // Each item is the full search response, then its status.
    expect(Object.keys(responses[0] ?? {})).toEqual(['took', 'timed_out', '_shards', 'hits', 'status']);
  });

  it('is the same search as _search item by item', async () => {
    const single = await h.app.inject({ method: 'POST', url: '/index_1/_search', headers: { 'content-type': 'application/json' }, payload: '{"query":{"match":{"foo":"foo"}}}' });
    const multi = await req('POST', '/_msearch', ndjson({ index: 'index_1' }, { query: { match: { foo: 'foo' } } }));
    const { took: _a, ...one } = JSON.parse(single.body) as Record<string, unknown>;
    const { took: _b, status, ...item } = (multi.json.responses as Record<string, unknown>[])[0] ?? {};
    expect(status).toBe(200);
    expect(item).toEqual(one);
  });

  it('serves GET and POST with the URL index as default, and the new total format', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const r = await req(method, '/index_1/_msearch', ndjson({}, { query: { match_all: {} } }, { index: 'index_2' }, {}, {}, { query: { match_all: {} }, track_total_hits: 1 }));
      const totals = (r.json.responses as { hits: { total: unknown } }[]).map((x) => x.hits.total);
      expect(totals).toEqual([
        { value: 3, relation: 'eq' },
        { value: 1, relation: 'eq' },
        { value: 1, relation: 'gte' },
      ]);
    }
  });

  it('takes ignore_unavailable and allow_no_indices from the header, or the URL', async () => {
    const r = await req('POST', '/_msearch', ndjson({ index: 'index_3', ignore_unavailable: true }, {}, { index: 'nomatch*', allow_no_indices: false }, {}));
    const responses = r.json.responses as Record<string, unknown>[];
    expect((responses[0]?.hits as { total: unknown }).total).toEqual({ value: 0, relation: 'eq' });
    expect(responses[1]).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
    const url = await req('POST', '/_msearch?ignore_unavailable=true', ndjson({ index: 'index_3' }, {}));
    expect((url.json.responses as Record<string, unknown>[])[0]?.status).toBe(200);
  });

  it('fails a search past the result window in its own item', async () => {
    const r = await req('POST', '/_msearch', ndjson({ index: 'index_1' }, { from: 10000, size: 10 }, { index: 'index_1' }, { size: 1 }));
    const responses = r.json.responses as Record<string, unknown>[];
    expect(responses[0]).toMatchObject({ error: { type: 'search_phase_execution_exception', root_cause: [{ type: 'illegal_argument_exception' }] }, status: 400 });
    expect(responses[1]?.status).toBe(200);
  });

  it('fails the whole request for what the parser refuses, as ES does', async () => {
    const cases: [string, string, string, number][] = [
      [ndjson('{"index":', {}), 'x_content_parse_exception', '', 400],
      [ndjson({ bogus: 1 }, {}), 'illegal_argument_exception', 'key [bogus] is not supported in the metadata section', 400],
      [ndjson({ search_type: 'nope' }, {}), 'illegal_argument_exception', 'No search type for [nope]', 400],
      [ndjson({}, { query: { nope: {} } }), 'parsing_exception', 'unknown query [nope]', 400],
      ['{}\n{}', 'illegal_argument_exception', 'The msearch request must be terminated by a newline [\n]', 400],
      [ndjson({}), 'action_request_validation_exception', 'Validation Failed: 1: no requests added;', 400],
      ['', 'parse_exception', 'request body or source parameter is required', 400],
    ];
    for (const [body, type, reason, status] of cases) {
      const r = await req('POST', '/_msearch', body === '' ? undefined : body);
      expect(r.status, body).toBe(status);
      expect((r.json.error as { type: string }).type, body).toBe(type);
      if (reason !== '') expect((r.json.error as { reason: string }).reason, body).toBe(reason);
    }
    const total = await req('POST', '/_msearch?rest_total_hits_as_int=true', ndjson({ index: 'index_*' }, { track_total_hits: 10 }));
    expect((total.json.error as { reason: string }).reason).toBe('[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 10');
    const param = await req('POST', '/_msearch?size=3', ndjson({}, {}));
    expect((param.json.error as { reason: string }).reason).toMatch(/^request \[\/_msearch\] contains unrecognized parameter: \[size\]/);
  });

  it('accepts the parameters ES reads (msearch/10_basic.yml "Least impact smoke test")', async () => {
    const r = await req(
      'POST',
      '/index_*/_msearch?rest_total_hits_as_int=true&max_concurrent_shard_requests=1&max_concurrent_searches=1&ignore_unavailable=false&ignore_throttled=false&allow_no_indices=false&expand_wildcards=open&include_named_queries_score=false',
      BASIC,
    );
    expect((r.json.responses as { status: number }[]).map((x) => x.status)).toEqual([200, 200, 200, 404, 200]);
  });

  it('reads the vendor NDJSON type the clients send, and filters and pretty-prints the answer', async () => {
    const vnd = 'application/vnd.elasticsearch+x-ndjson; compatible-with=8';
    const r = await req('POST', '/_msearch?filter_path=responses.hits.total.value,responses.status', ndjson({ index: 'index_1' }, {}), vnd, 'application/vnd.elasticsearch+json; compatible-with=8');
    expect(r.body).toBe('{"responses":[{"hits":{"total":{"value":3}},"status":200}]}');
    const pretty = await req('POST', '/_msearch?pretty&filter_path=responses.status', ndjson({ index: 'index_1' }, {}));
    expect(pretty.body).toBe('{\n  "responses" : [\n    {\n      "status" : 200\n    }\n  ]\n}\n');
  });
});
