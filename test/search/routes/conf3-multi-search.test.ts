import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// Issue 3, the last `_msearch` differences: a `pit` in a search body searches the point in time
// (RestMultiSearchAction runs RestSearchAction.preparePointInTime on each such search as it reads
// it), the request-wide numbers are checked as RestMultiSearchAction checks them, a repeated key in
// a line fails the request (Jackson's strict duplicate detection), and scroll has no place in it.
// typed_keys, routing and preference change nothing on one shard without aggregations.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ES answers are read loosely here
type Body = Record<string, any>;

describe('_msearch (issue 3)', () => {
  let h: SearchHarness;
  const msearch = async (url: string, lines: string[]): Promise<{ status: number; body: Body }> => {
    const res = await h.app.inject({ method: 'POST', url, payload: `${lines.join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    return { status: res.statusCode, body: res.json() as Body };
  };
  const json = { 'content-type': 'application/json' };
  beforeAll(async () => {
    h = await startSearch();
    for (let i = 1; i <= 3; i++) await h.app.inject({ method: 'PUT', url: `/p/_doc/${i}`, payload: JSON.stringify({ t: 'fox', n: i }), headers: json });
    await h.app.inject({ method: 'POST', url: '/p/_refresh' });
  });
  afterAll(async () => h.close());

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
