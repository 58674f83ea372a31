import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { esCalls, searchForAll } from '../harness.js';
import { sloppyPhraseFreq, tokenPositions } from '../../../src/search/query/sloppy-phrase.js';

/**
 * match_phrase with `slop` (query/sloppy-phrase.ts): Lucene's SloppyPhraseMatcher, checked with
 * the hits and scores a real OpenSearch 2.19.6 node (Lucene 9.12, Elasticsearch 8's BM25) gave for
 * the same four documents and queries.
 */

const split = () => (t: string, emit: (token: string) => void) => t.split(' ').filter((w) => w !== '').forEach(emit);
const positionsOf = (...values: string[]) => tokenPositions(values, split(), 100);

describe('sloppyPhraseFreq', () => {
  it('weighs each match by 1 / (1 + distance)', () => {
    // "a b"~2 over "x a b a y": "a b" at distance 0 and "b a" at distance 2 (Lucene's own example).
    expect(sloppyPhraseFreq(positionsOf('x a b a y'), ['a', 'b'], 2)).toBe(Math.fround(1 + Math.fround(1 / 3)));
    expect(sloppyPhraseFreq(positionsOf('b a'), ['a', 'b'], 1)).toBe(0);
    expect(sloppyPhraseFreq(positionsOf('b a'), ['a', 'b'], 2)).toBe(Math.fround(1 / 3));
  });

  it('keeps the values of a field 100 positions apart', () => {
    expect(sloppyPhraseFreq(positionsOf('x a y', 'b z'), ['a', 'b'], 100)).toBe(0);
    // a at 1, b at 3 + 100: b's phrase position is 102, one past a's plus the phrase's 101 moves.
    expect(sloppyPhraseFreq(positionsOf('x a y', 'b z'), ['a', 'b'], 101)).toBe(Math.fround(1 / 102));
  });

  it('never lets a repeated query term stand on the position of another', () => {
    // One "a" in the document cannot be both a's of "a a".
    expect(sloppyPhraseFreq(positionsOf('a b c'), ['a', 'a'], 10)).toBe(0);
  });

  it('finds an exact phrase with every slop, and nothing when a term is missing', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 2, maxLength: 12 }), fc.integer({ min: 1, max: 5 }), (words, slop) => {
        const doc = positionsOf(words.join(' '));
        const phrase = words.slice(0, 2);
        expect(sloppyPhraseFreq(doc, phrase, slop)).toBeGreaterThanOrEqual(1);
        expect(sloppyPhraseFreq(doc, ['a', 'z'], slop)).toBe(0);
      }),
    );
  });
});

describe('match_phrase slop over HTTP, as OpenSearch answers it', () => {
  const h = searchForAll();
  const { ok } = esCalls(h);
  beforeAll(async () => {
    await ok('PUT', '/t', { mappings: { properties: { body: { type: 'text' } } } });
    const docs = [['1', 'a b c b a'], ['2', ['x a y', 'b z']], ['3', 'b a'], ['4', 'a x x b a b a']] as const;
    for (const [id, body] of docs) await ok('PUT', `/t/_doc/${id}?refresh=true`, { body });
  });

  // [query, slop, [id, score]...] as OpenSearch 2.19.6 answered.
  const cases: [string, number, [string, number][]][] = [
    ['a b', 2, [['1', 0.108870134], ['4', 0.09493064], ['3', 0.06938821]]],
    ['a b', 1, [['1', 0.093763456], ['4', 0.08023447]]],
    ['b a', 2, [['3', 0.12550783], ['4', 0.116217695], ['1', 0.108870134]]],
    ['a b a', 2, [['4', 0.14239596], ['1', 0.06665425]]],
    ['a b c', 4, [['1', 0.74812835]]],
    ['c b a', 4, [['1', 0.69365627]]],
    ['a a', 3, [['4', 0.066506624], ['1', 0.035181895]]],
    ['b a b', 5, [['4', 0.14239596], ['1', 0.11009255]]],
    ['a z', 200, [['2', 0.010112405]]],
    ['a b', 100, [['1', 0.108870134], ['4', 0.09493064], ['3', 0.06938821]]],
    ['x b', 1, [['4', 0.30404103]]],
  ];
  for (const [query, slop, expected] of cases) {
    it(`"${query}"~${slop}`, async () => {
      const res = await ok('POST', '/t/_search', { query: { match_phrase: { body: { query, slop } } } });
      const hits = (res.hits.hits as { _id: string; _score: number }[]).map((x) => [x._id, x._score]);
      expect(hits.map((x) => x[0])).toEqual(expected.map((x) => x[0]));
      hits.forEach(([, score], i) => expect(score).toBeCloseTo(expected[i]?.[1] as number, 7));
    });
  }

  it('multi_match of type phrase takes the slop too', async () => {
    const res = await ok('POST', '/t/_search', { query: { multi_match: { query: 'b a', type: 'phrase', fields: ['body'], slop: 2 } } });
    expect((res.hits.hits as { _id: string }[]).map((x) => x._id)).toEqual(['3', '4', '1']);
  });
});
