import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';

// A field written as one dotted key (`{"a.b": …}`) is indexed exactly as the nested form
// (`{"a": {"b": …}}`), so match finds both; the phrase check read the source through the nested
// form only, and match_phrase missed the dotted one.

describe('match_phrase on a field written as a dotted key', () => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
    await h.app.inject({ method: 'PUT', url: '/d/_doc/dotted?refresh=true', payload: { 'a.b': 'the quick brown fox' } });
    await h.app.inject({ method: 'PUT', url: '/d/_doc/nested?refresh=true', payload: { a: { b: 'the quick brown fox' } } });
    await h.app.inject({ method: 'PUT', url: '/d/_doc/mixed?refresh=true', payload: { a: [{ b: 'a slow fox' }, { b: ['no', 'quick brown'] }] } });
  });
  afterAll(async () => h.close());

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
