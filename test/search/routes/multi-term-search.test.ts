import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';

/** Typo tolerance, prefixes and suggestions through `_search` (the side-by-side checks are in test/search/differential/multi-term.int.test.ts). */
describe('typo tolerance, prefixes and suggestions', () => {
  const h = searchForAll();
  const { call, ok } = esCalls(h);
  const ids = async (body: unknown) => {
    const res = await call('POST', '/p/_search', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.hits.hits as { _id: string }[]).map((x) => x._id);
  };
  beforeAll(async () => {
    await ok('PUT', '/p', { mappings: { properties: { summary: { type: 'text' }, name: { type: 'keyword' }, size: { type: 'long' } } } });
    const docs = [
      ['1', 'Python library for parsing', 'python3-parse'],
      ['2', 'python documentation', 'python-doc'],
      ['3', 'Perl library', 'libperl'],
      ['4', 'a typhon of pythons', 'typhon'],
    ];
    let nd = '';
    for (const [id, summary, name] of docs) nd += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify({ summary, name, size: 1 })}\n`;
    await ok('POST', '/p/_bulk?refresh=true', nd);
  });

  it('finds misspelled words with fuzziness, the exact word first', async () => {
    expect(await ids({ query: { match: { summary: { query: 'pyton', fuzziness: 'AUTO' } } } })).toEqual(['2', '1']);
    expect(await ids({ query: { match: { summary: { query: 'pyton' } } } })).toEqual([]);
    expect(await ids({ query: { fuzzy: { name: { value: 'libprel', fuzziness: 1 } } } })).toEqual(['3']);
    expect(await ids({ query: { fuzzy: { name: { value: 'libprel', fuzziness: 1, transpositions: false } } } })).toEqual([]);
  });

  it('runs prefix, wildcard, regexp and the phrase and bool prefix queries', async () => {
    expect(await ids({ query: { prefix: { name: 'python' } } })).toEqual(['1', '2']);
    expect(await ids({ query: { wildcard: { summary: 'p?th*n*' } } })).toEqual(['1', '2', '4']);
    expect(await ids({ query: { regexp: { summary: 'pyth.n&~(python)' } } })).toEqual([]);
    expect(await ids({ query: { regexp: { summary: 'pytho(n|ns)&~(python)' } } })).toEqual(['4']);
    expect(await ids({ query: { match_phrase_prefix: { summary: 'python lib' } } })).toEqual(['1']);
    expect(await ids({ query: { match_bool_prefix: { summary: { query: 'perl li', operator: 'and' } } } })).toEqual(['3']);
    expect(await ids({ query: { multi_match: { query: 'typh', fields: ['summary', 'name'], type: 'bool_prefix' } } })).toEqual(['4']);
  });

  it('match_phrase_prefix: the heads in order then a term with the prefix, within one value, live documents only, each occurrence scored', async () => {
    await ok('PUT', '/pp', { mappings: { properties: { t: { type: 'text' } } } });
    const docs: [string, unknown][] = [
      ['1', 'foo bar baz'],
      ['2', 'bar foo baz'],
      // A phrase never spans two values (positions 100 apart).
      ['3', ['foo bar', 'bzz']],
      ['4', 'foo bar bat x foo bar bzz'],
      ['11', 'foo bar bat x foo bar zzz'],
      // Punctuation between tokens, other white space, text that is not ASCII.
      ['12', 'x (foo-bar,bzz) y'],
      ['13', 'foo\tbar\n\nbzz'],
      ['14', 'Ünïcödé: foo bar bzz'],
      ['15', 'foobar bzz, foo, bar. baz'],
      // A word of underscores alone holds no token: the phrase runs over it.
      ['16', 'foo _ bar __ bzz'],
      ['5', 'foo bar bat'],
      ['6', 'Foo BAR Bzz'],
      ['7', 'foo bar'],
      ['8', 'foo bar foo bar bar'],
      ['9', ['x', 'more foo bar bzz']],
      ['10', 'foo baz bar'],
    ];
    let nd = '';
    for (const [id, t] of docs) nd += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify({ t })}\n`;
    nd += `${JSON.stringify({ delete: { _id: '5' } })}\n`;
    await ok('POST', '/pp/_bulk?refresh=true', nd);
    const hits = async (q: string) => {
      const res = await ok('POST', '/pp/_search', { size: 20, query: { match_phrase_prefix: { t: q } } });
      return new Map((res.hits.hits as { _id: string; _score: number }[]).map((x) => [x._id, x._score]));
    };
    const found = await hits('foo bar b');
    expect([...found.keys()].sort()).toEqual(['1', '11', '12', '13', '14', '15', '16', '4', '6', '8', '9']);
    // Two occurrences in 4, one in 11, of the same length.
    expect(found.get('4')).toBeGreaterThan(found.get('11') as number);
    expect([...(await hits('bar f')).keys()].sort()).toEqual(['2', '8']);
  });

  it("refuses what ES refuses, with ES's errors", async () => {
    const fuzzyOnLong = await call('POST', '/p/_search', { query: { fuzzy: { size: { value: '1' } } } });
    expect(fuzzyOnLong.status).toBe(400);
    expect(fuzzyOnLong.body.error.root_cause[0].reason).toBe('failed to create query: Can only use fuzzy queries on keyword and text fields - not on [size] which is of type [long]');
    const badRegexp = await call('POST', '/p/_search', { query: { regexp: { summary: '[a' } } });
    expect(badRegexp.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: "failed to create query: expected ']' at position 2" });
    const phraseOnKeyword = await call('POST', '/p/_search', { query: { match_phrase_prefix: { name: 'py' } } });
    expect(phraseOnKeyword.body.error.root_cause[0].reason).toMatch(/Can only use phrase prefix queries on text fields/);
  });

  it('answers the term suggester as ES does: each word with its offset and its options', async () => {
    const res = await call('POST', '/p/_search', { size: 0, suggest: { s: { text: 'Pyton librray for', term: { field: 'summary' } } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.hits.total.value).toBe(0);
    expect(res.body.suggest.s).toEqual([
      { text: 'pyton', offset: 0, length: 5, options: [{ text: 'python', score: 0.8, freq: 2 }, { text: 'pythons', score: 0.6, freq: 1 }] },
      { text: 'librray', offset: 6, length: 7, options: [{ text: 'library', score: 0.85714287, freq: 2 }] },
      { text: 'for', offset: 14, length: 3, options: [] },
    ]);
  });
});
