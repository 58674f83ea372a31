import { describe, expect, it } from 'vitest';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * `indices_boost` (src/search/requests/indices-boost.ts): each index's hits scored times its boost,
 * the first entry naming an index winning. Side by side with the node:
 * test/search/differential/shards.int.test.ts.
 */

const h = searchForEach();
const { call, ok } = esCalls(h);

async function load(index: string): Promise<void> {
  await ok('PUT', `/${index}`, { mappings: { properties: { t: { type: 'text' } } } });
  for (const [id, t] of [['1', 'red fox'], ['2', 'red dog'], ['3', 'blue fox']]) await ok('PUT', `/${index}/_doc/${id}`, { t });
  await ok('POST', `/${index}/_refresh`);
}

const scores = (b: EsBody): Record<string, number> => Object.fromEntries((b.hits.hits as { _index: string; _id: string; _score: number }[]).map((x) => [`${x._index}/${x._id}`, x._score]));

describe('indices_boost', () => {
  it('multiplies each index\'s scores by its boost, the first entry naming it winning', async () => {
    await load('a');
    await load('b');
    const query = { match: { t: 'red fox' } };
    const plain = scores(await ok('POST', '/a,b/_search', { query }));
    const boosted = await ok('POST', '/a,b/_search', { query, indices_boost: [{ b: 3 }, { '*': 0.5 }] });
    for (const [key, score] of Object.entries(plain)) {
      const boost = key.startsWith('b/') ? 3 : 0.5;
      expect(Math.fround(scores(boosted)[key] as number), key).toBe(Math.fround(score * boost));
    }
    expect(boosted.hits.max_score).toBe(Math.max(...Object.values(scores(boosted))));
    // A constant score is the boost itself.
    expect(Object.values(scores(await ok('POST', '/a/_search', { indices_boost: [{ a: 2.5 }] })))).toEqual([2.5, 2.5, 2.5]);
  });

  it('fails the shards of a negative boost, refuses a missing index unless ignored, and malformed entries', async () => {
    await load('a');
    await load('b');
    const partial = await ok('POST', '/a,b/_search', { indices_boost: [{ a: -2 }] });
    expect([partial._shards.failed, partial._shards.failures[0].reason.reason, partial.hits.total.value]).toEqual([1, 'boost must be a positive float, got -2.0', 3]);
    const all = await call('POST', '/a/_search', { indices_boost: [{ a: -0.5 }] });
    expect([all.status, all.body.error.type, all.body.error.root_cause[0].reason]).toEqual([400, 'search_phase_execution_exception', 'boost must be a positive float, got -0.5']);
    expect((await call('POST', '/a/_search', { indices_boost: [{ nope: 2 }] })).status).toBe(404);
    // An empty name is no index, not every index.
    const empty = await call('POST', '/a/_search', { indices_boost: [{ '': 2 }] });
    expect([empty.status, empty.body.error.reason]).toEqual([404, 'no such index []']);
    expect((await ok('POST', '/a/_search?ignore_unavailable=true', { indices_boost: [{ nope: 2 }] })).hits.total.value).toBe(3);
    for (const [indicesBoost, reason] of [
      [{ a: 2 }, 'Unknown key for a START_OBJECT in [indices_boost].'],
      [[{ a: '2' }], 'Expected [VALUE_NUMBER] in [indices_boost] but found [VALUE_STRING]'],
      [[{ a: 2, b: 1 }], 'Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]'],
      [[{}], 'Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]'],
      [[7], 'Expected [START_OBJECT] in [null] but found [VALUE_NUMBER]'],
    ] as const) {
      const r = await call('POST', '/a/_search', { indices_boost: indicesBoost });
      expect([r.status, r.body.error.type, r.body.error.reason]).toEqual([400, 'parsing_exception', reason]);
    }
  });
});
