import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchText, startSearch, type SearchHarness } from '../harness.js';

// Hits are written straight to JSON text in the common case (no sort values, whole or no
// _source); the bytes must be those of the general object rendering: key order, the optional
// members, scores as Float.toString writes them, and `_source` verbatim.
describe('_search hit rendering', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    const body = [
      '{"index":{"_id":"a"}}', '{"t":"red fox","n":1}',
      '{"index":{"_id":"b"}}', '{ "t" : "red red fox", "é": "ü" }',
      '{"index":{"_id":"c\\"q"}}', '{"t":"blue"}',
    ].join('\n');
    const res = await h.app.inject({ method: 'POST', url: '/r/_bulk?refresh=true', payload: `${body}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });
  afterAll(async () => h.close());

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
