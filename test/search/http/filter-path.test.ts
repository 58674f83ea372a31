import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

/**
 * `?filter_path=` on every kind of JSON answer of the search listener (issue 3), over inject():
 * filtered as ES filters it on success, never on errors (ES builds those without the filter).
 */

const json = { 'content-type': 'application/json' };

describe('filter_path over HTTP', () => {
  let h: SearchHarness;
  const req = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = json) => {
    const res = await h.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }) });
    return { status: res.statusCode, body: res.body, type: res.headers['content-type'] };
  };

  beforeAll(async () => {
    h = await startSearch();
    await req('PUT', '/books', { mappings: { properties: { title: { type: 'text' }, year: { type: 'integer' } } } });
    const lines = [
      { index: { _index: 'books', _id: '1' } },
      { title: 'ruby in depth', year: 2001, meta: { isbn: 'x1', pages: 300 } },
      { index: { _index: 'books', _id: '2' } },
      { title: 'ruby gems', year: 2005, meta: { isbn: 'x2', pages: 120 } },
    ];
    await req('POST', '/_bulk?refresh=true', `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, { 'content-type': 'application/x-ndjson' });
  });
  afterAll(async () => h.close());

  it('filters a search response, reaching into the stored _source', async () => {
    const r = await req('POST', '/books/_search?filter_path=hits.hits._source.title,hits.total.value', { query: { match: { title: 'ruby' } }, sort: [{ year: 'asc' }] });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"hits":{"total":{"value":2},"hits":[{"_source":{"title":"ruby in depth"}},{"_source":{"title":"ruby gems"}}]}}');
  });

  it('is what helpers.search asks for: hits.hits._source whole', async () => {
    const r = await req('POST', '/books/_search?filter_path=hits.hits._source', { query: { match: { title: 'gems' } } });
    expect(JSON.parse(r.body)).toEqual({ hits: { hits: [{ _source: { title: 'ruby gems', year: 2005, meta: { isbn: 'x2', pages: 120 } } }] } });
  });

  it('answers {} for a search past the last hit when only hits are asked for', async () => {
    const r = await req('POST', '/books/_search?filter_path=hits.hits._id&from=100', { query: { match: { title: 'ruby' } } });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{}');
    const took = await req('POST', '/books/_search?filter_path=-took,-hits.max_score&from=100', { query: { match: { title: 'ruby' } } });
    expect(took.body).toBe('{"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":2,"relation":"eq"},"hits":[]}}');
  });

  it('excludes inside each hit', async () => {
    const r = await req('POST', '/books/_search?filter_path=-hits.hits._source.meta,-took,-_shards,-hits.hits._score,-hits.max_score,-hits.hits._index', {
      query: { match: { title: 'gems' } },
    });
    expect(r.body).toBe('{"timed_out":false,"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_id":"2","_source":{"title":"ruby gems","year":2005}}]}}');
  });

  it('pretty-prints the filtered response', async () => {
    const r = await req('GET', '/books/_count?filter_path=count&pretty');
    expect(r.body).toBe('{\n  "count" : 2\n}\n');
    const none = await req('GET', '/books/_count?filter_path=nothing&pretty');
    expect(none.body).toBe('{ }\n');
  });

  it('filters count, get, get-source, index, delete, bulk, refresh, cluster info and health', async () => {
    expect((await req('GET', '/books/_count?filter_path=-_shards')).body).toBe('{"count":2}');
    expect((await req('GET', '/books/_doc/1?filter_path=_source.meta.isbn,found')).body).toBe('{"found":true,"_source":{"meta":{"isbn":"x1"}}}');
    const missing = await req('GET', '/books/_doc/9?filter_path=found');
    expect(missing.status).toBe(404);
    expect(missing.body).toBe('{"found":false}');
    expect((await req('GET', '/books/_source/1?filter_path=meta.pages')).body).toBe('{"meta":{"pages":300}}');
    expect((await req('PUT', '/books/_doc/3?filter_path=result,_version', { title: 'perl' })).body).toBe('{"_version":1,"result":"created"}');
    expect((await req('DELETE', '/books/_doc/3?filter_path=result')).body).toBe('{"result":"deleted"}');
    const bulk = await req('POST', '/_bulk?filter_path=errors,items.*.status', '{"index":{"_index":"books","_id":"4"}}\n{"title":"go"}\n{"delete":{"_index":"books","_id":"4"}}\n', {
      'content-type': 'application/x-ndjson',
    });
    expect(bulk.body).toBe('{"errors":false,"items":[{"index":{"status":201}},{"delete":{"status":200}}]}');
    expect((await req('POST', '/books/_refresh?filter_path=_shards.successful')).body).toBe('{"_shards":{"successful":1}}');
    expect((await req('GET', '/?filter_path=version.number,tagline')).body).toBe('{"version":{"number":"8.17.0"},"tagline":"You Know, for Search"}');
    expect((await req('GET', '/_cluster/health?filter_path=status')).body).toBe('{"status":"green"}');
    expect((await req('PUT', '/other?filter_path=index', {})).body).toBe('{"index":"other"}');
    expect((await req('GET', '/books/_mapping?filter_path=*.mappings.properties.year')).body).toBe('{"books":{"mappings":{"properties":{"year":{"type":"integer"}}}}}');
  });

  it('filters _cat/indices in JSON format row by row', async () => {
    const r = await req('GET', '/_cat/indices?format=json&s=index&filter_path=index');
    expect(r.body).toBe('[{"index":"books"},{"index":"other"}]');
    const dotted = await req('GET', '/_cat/indices/books?format=json&filter_path=docs\\.count');
    expect(dotted.body).toBe('[{"docs.count":"2"}]');
    // The text format has no JSON to filter.
    const text = await req('GET', '/_cat/indices/books?h=index&filter_path=nothing');
    expect(text.body).toBe('books\n');
  });

  it('never filters an error', async () => {
    const r = await req('POST', '/nope/_search?filter_path=took', {});
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
    const bad = await req('POST', '/books/_search?filter_path=-error', '{"query":');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: { type: 'x_content_parse_exception' }, status: 400 });
  });

  it('with an empty value, or only commas, sends the response unfiltered', async () => {
    const plain = await req('GET', '/books/_count');
    expect((await req('GET', '/books/_count?filter_path=')).body).toBe(plain.body);
    expect((await req('GET', '/books/_count?filter_path=,')).body).toBe(plain.body);
  });

  it('keeps the vendor content type', async () => {
    const vnd = 'application/vnd.elasticsearch+json; compatible-with=8';
    const r = await req('POST', '/books/_search?filter_path=hits.total', {}, { 'content-type': vnd, accept: vnd });
    expect(r.type).toContain('application/vnd.elasticsearch+json');
    expect(r.body).toBe('{"hits":{"total":{"value":2,"relation":"eq"}}}');
  });
});
