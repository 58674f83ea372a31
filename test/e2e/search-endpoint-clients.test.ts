import { describe, expect, it } from 'vitest';
import { clientForAll } from '../search/harness.js';
import { FRUIT_DOCS, OFFICIAL_CLIENTS } from '../search/es-clients.js';

// The official clients' typed calls for highlighting, _analyze and the endpoints tools call, unmodified, against a listening search app.
describe.each(OFFICIAL_CLIENTS)('%s', (_name, make) => {
  const s = clientForAll(make);

  it('highlights with the typed search API', async () => {
    await s.client.indices.create({ index: 'fruit', mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } } });
    await s.client.bulk({ refresh: true, operations: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'fruit', _id: id } }, doc]) });
    const res = await s.client.search<{ title: string }>({
      index: 'fruit',
      query: { match: { title: 'apple' } },
      highlight: { pre_tags: ['<b>'], post_tags: ['</b>'], fields: { title: { number_of_fragments: 0 } } },
      size: 3,
      sort: [{ n: 'asc' }],
    });
    expect(res.hits.hits.map((h) => h.highlight?.title)).toEqual([['red <b>apple</b> pie'], ['green <b>apple</b>'], ['red <b>apple</b> pie']]);
    const refused = await s.client.search({ index: 'fruit', query: { match: { title: 'apple' } }, highlight: { type: 'fvh', fields: { title: {} } } }).catch((e: unknown) => e);
    expect((refused as { statusCode?: number }).statusCode).toBe(400);
  });

  it('analyzes with the typed indices.analyze API', async () => {
    const res = await s.client.indices.analyze({ analyzer: 'standard', text: 'Green Apple-pie' });
    expect(res.tokens?.map((t) => [t.token, t.start_offset, t.end_offset, t.type, t.position])).toEqual([
      ['green', 0, 5, '<ALPHANUM>', 0], ['apple', 6, 11, '<ALPHANUM>', 1], ['pie', 12, 15, '<ALPHANUM>', 2],
    ]);
    const field = await s.client.indices.analyze({ index: 'fruit', field: 'title', text: ['a b', 'c'] });
    expect(field.tokens?.map((t) => t.position)).toEqual([0, 1, 102]);
  });

  it('reads node, stats and cat answers, and deletes and reindexes by query', async () => {
    const nodes = await s.client.nodes.info();
    expect(Object.values(nodes.nodes)[0]?.roles).toContain('master');
    const stats = await s.client.nodes.stats();
    expect(Object.values(stats.nodes)[0]?.indices?.docs?.count).toBe(30);
    expect((await s.client.indices.stats({ index: 'fruit' })).indices?.fruit?.primaries?.docs?.count).toBe(30);
    expect((await s.client.cat.health({ format: 'json' }))[0]?.status).toBeDefined();
    expect((await s.client.cat.count({ index: 'fruit', format: 'json' }))[0]?.count).toBe('30');
    expect((await s.client.cat.nodes({ format: 'json' }))[0]?.name).toBe('portico');
    const copied = await s.client.reindex({ source: { index: 'fruit', query: { match: { title: 'sky' } } }, dest: { index: 'sky' }, refresh: true });
    expect(copied.created).toBe(10);
    const updated = await s.client.updateByQuery({ index: 'sky', query: { range: { n: { gte: 20 } } }, conflicts: 'proceed', refresh: true });
    expect(updated.updated).toBe(4);
    const deleted = await s.client.deleteByQuery({ index: 'sky', query: { match_all: {} }, max_docs: 4, refresh: true });
    expect(deleted.deleted).toBe(4);
    expect((await s.client.count({ index: 'sky' })).count).toBe(6);
  });
});
