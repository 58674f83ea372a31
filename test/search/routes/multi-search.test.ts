import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';

/**
 * _msearch over HTTP (routes/multi-routes.ts): searches, parameters, points in time and repeated
 * keys in lines.
 */

/** `_msearch` as ES 8 answers it, after ES's msearch/10_basic.yml and MultiSearchRequest. */

const ndjson = (...lines: unknown[]) => `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;

describe('_msearch over HTTP', () => {
  const h = searchForAll();
  const req = async (method: 'GET' | 'POST', url: string, payload?: string, contentType = 'application/x-ndjson', accept?: string) => {
    const headers = { 'content-type': contentType, ...(accept === undefined ? {} : { accept }) };
    const res = await h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
    return { status: res.statusCode, body: res.body, json: JSON.parse(res.body) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const docs: [string, string, Record<string, unknown>][] = [
      ['index_1', '1', { foo: 'bar' }],
      ['index_1', '2', { foo: 'baz' }],
      ['index_1', '3', { foo: 'foo' }],
      ['index_2', '1', { foo: 'foo' }],
    ];
    const body = docs.flatMap(([index, id, doc]) => [{ index: { _index: index, _id: id } }, doc]);
    await h.app.inject({ method: 'POST', url: '/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: ndjson(...body) });
  });

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

// `_msearch` parameters and lines: a `pit` in a search body searches the point in time
// (RestMultiSearchAction runs RestSearchAction.preparePointInTime on each such search as it reads
// it), the request-wide numbers are checked as RestMultiSearchAction checks them, a repeated key in
// a line fails the request (Jackson's strict duplicate detection), and scroll has no place in it.
// typed_keys, routing and preference change nothing on one shard without aggregations.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_msearch', () => {
  const h = searchForAll();
  const msearch = async (url: string, lines: string[]): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload: `${lines.join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  const json = { 'content-type': 'application/json' };
  beforeAll(async () => {
    for (let i = 1; i <= 3; i++) await h.app.inject({ method: 'PUT', url: `/p/_doc/${i}`, payload: JSON.stringify({ t: 'fox', n: i }), headers: json });
    await h.app.inject({ method: 'POST', url: '/p/_refresh' });
  });

  it('searches a point in time named in a body, which sees the indices as they were when it opened', async () => {
    const opened = await h.app.inject({ method: 'POST', url: '/p/_pit?keep_alive=1m' });
    const id = (opened.json() as Body).id as string;
    await h.app.inject({ method: 'PUT', url: '/p/_doc/4?refresh=true', payload: '{"t":"fox","n":4}', headers: json });
    const res = await msearch('/_msearch', ['{}', JSON.stringify({ pit: { id }, size: 10, sort: [{ n: 'asc' }] }), '{"index":"p"}', '{"size":0}']);
    expect(res.status).toBe(200);
    expect(res.body.responses[0].status).toBe(200);
    expect(res.body.responses[0].pit_id).toBe(id);
    expect(res.body.responses[0].hits.hits.map((x: Body) => x._id)).toEqual(['1', '2', '3']);
    expect(res.body.responses[1].hits.total.value).toBe(4);
    // A point in time that is not there fails its own item only.
    const missing = await msearch('/_msearch', ['{}', JSON.stringify({ pit: { id: `${id.slice(0, -4)}AAAA` } }), '{"index":"p"}', '{}']);
    expect(missing.status).toBe(200);
    expect(missing.body.responses[0].status).toBeGreaterThanOrEqual(400);
    expect(missing.body.responses[1].status).toBe(200);
  });

  it('refuses, for the whole request, a pit search with an index, indices options, routing or preference', async () => {
    const pit = JSON.stringify({ pit: { id: 'x' } });
    const withIndex = await msearch('/p/_msearch', ['{}', pit]);
    expect(withIndex.status).toBe(400);
    expect(withIndex.body.error).toMatchObject({
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;',
    });
    const all = await msearch('/_msearch?routing=r', ['{"index":"p","ignore_unavailable":true,"preference":"_local"}', pit]);
    expect(all.body.error.reason).toBe(
      'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;' +
        '2: [indicesOptions] cannot be used with point in time;3: [routing] cannot be used with point in time;' +
        '4: [preference] cannot be used with point in time;',
    );
    expect((await msearch('/_msearch?ccs_minimize_roundtrips=true', ['{}', pit])).body.error.reason).toBe(
      'Validation Failed: 1: [ccs_minimize_roundtrips] cannot be used with point in time;',
    );
  });

  it('checks max_concurrent_searches, pre_filter_shard_size and max_concurrent_shard_requests as ES does', async () => {
    const ok = ['{"index":"p"}', '{}'];
    const cases: [string, string][] = [
      ['max_concurrent_searches=0', 'maxConcurrentSearchRequests must be positive'],
      ['max_concurrent_searches=x', 'Failed to parse int parameter [max_concurrent_searches] with value [x]'],
      ['pre_filter_shard_size=0', 'preFilterShardSize must be >= 1'],
      ['pre_filter_shard_size=1.5', 'Failed to parse int parameter [pre_filter_shard_size] with value [1.5]'],
      ['max_concurrent_shard_requests=0', 'maxConcurrentShardRequests must be >= 1'],
      ['max_concurrent_shard_requests=no', 'Failed to parse int parameter [max_concurrent_shard_requests] with value [no]'],
      ['pre_filter_shard_size=0&max_concurrent_shard_requests=0', 'preFilterShardSize must be >= 1'],
      ['ccs_minimize_roundtrips=yes', 'Failed to parse value [yes] as only [true] or [false] are allowed.'],
    ];
    for (const [query, reason] of cases) {
      const res = await msearch(`/_msearch?${query}`, ok);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ type: 'illegal_argument_exception', reason });
    }
    const fine = await msearch('/_msearch?max_concurrent_searches=1&pre_filter_shard_size=1&max_concurrent_shard_requests=1&typed_keys=true', ok);
    expect(fine.status).toBe(200);
  });

  it('answers the same with typed_keys, routing and preference (one shard, no aggregations)', async () => {
    const plain = await msearch('/_msearch', ['{"index":"p"}', '{"query":{"match":{"t":"fox"}}}']);
    const other = await msearch('/_msearch?typed_keys=true&routing=a', ['{"index":"p","routing":"b","preference":"_local"}', '{"query":{"match":{"t":"fox"}}}']);
    const strip = (b: Body) => JSON.stringify(b.responses).replace(/"took":\d+/g, '');
    expect(strip(other.body)).toBe(strip(plain.body));
  });

  it('refuses a repeated key in a header or body line, located within the line', async () => {
    const head = await msearch('/_msearch', ['{"index":"p","index":"q"}', '{}']);
    expect(head.status).toBe(400);
    expect(head.body.error).toMatchObject({ type: 'x_content_parse_exception', reason: "[1:21] Duplicate field 'index'" });
    const body = await msearch('/_msearch', ['{}', '{"query":{"match_all":{}},"size":1,"size":2}']);
    expect(body.body.error.reason).toBe("[1:42] Duplicate field 'size'");
  });

  it('has no scroll: a header key, a body key or a URL parameter named scroll is refused', async () => {
    expect((await msearch('/_msearch', ['{"scroll":"1m"}', '{}'])).body.error.reason).toBe('key [scroll] is not supported in the metadata section');
    expect((await msearch('/_msearch', ['{}', '{"scroll":"1m"}'])).body.error.type).toBe('parsing_exception');
    expect((await msearch('/_msearch?scroll=1m', ['{}', '{}'])).body.error.reason).toMatch(/^request \[\/_msearch\] contains unrecognized parameter: \[scroll\]/);
  });
});
