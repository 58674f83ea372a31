import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientForAll } from '../search/harness.js';
import { FRUIT_DOCS, OFFICIAL_CLIENTS } from '../search/es-clients.js';

/**
 * The official clients' helpers and APIs that use `_msearch`, `_mget` and `filter_path`,
 * unmodified, against a listening search app.
 */

describe.each(OFFICIAL_CLIENTS)('%s', (_name, make) => {
  const s = clientForAll(make);
  beforeAll(async () => {
    await s.client.indices.create({ index: 'fruit', mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } } });
    const bulk = await s.client.bulk({ refresh: true, operations: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'fruit', _id: id } }, doc]) });
    expect(bulk.errors).toBe(false);
  });

  it('helpers.msearch batches searches into _msearch and hands each its answer', async () => {
    const m = s.client.helpers.msearch({ operations: 3, flushInterval: 50 });
    const [apple, sky, top] = await Promise.all([
      m.search<{ title: string }>({ index: 'fruit' }, { query: { match: { title: 'apple' } }, size: 100 }),
      m.search<{ title: string }>({ index: 'fruit' }, { query: { match: { title: 'sky' } }, size: 100 }),
      m.search<{ n: number }>({ index: 'fruit' }, { sort: [{ n: 'desc' }], size: 2 }),
    ]);
    expect((apple.body as { status?: number }).status).toBe(200);
    expect(apple.documents).toHaveLength(20);
    expect(sky.documents.every((d) => d.title === 'blue sky')).toBe(true);
    expect(top.documents.map((d) => d.n)).toEqual([29, 28]);
    // A missing index fails only its own search, as a ResponseError.
    const missing = await m.search({ index: 'nope' }, { query: { match_all: {} } }).catch((e: unknown) => e);
    expect((missing as Error).name).toBe('ResponseError');
    expect((missing as { statusCode: number }).statusCode).toBe(404);
    m.stop();
    await m;
  });

  it('msearch answers took and one response per search', async () => {
    const r = await s.client.msearch({
      searches: [{ index: 'fruit' }, { query: { match: { title: 'pie' } } }, { index: 'nope' }, { query: { match_all: {} } }],
    });
    expect(typeof r.took).toBe('number');
    expect(r.responses).toHaveLength(2);
    const [ok, failed] = r.responses;
    expect(ok && 'hits' in ok ? ok.hits.total : undefined).toEqual({ value: 10, relation: 'eq' });
    expect(failed && 'error' in failed ? failed.error.type : undefined).toBe('index_not_found_exception');
  });

  it('mget gets found and missing documents', async () => {
    const r = await s.client.mget<{ n: number }>({ index: 'fruit', ids: ['3', '99'], _source_includes: ['n'] });
    expect(r.docs).toHaveLength(2);
    const [found, missing] = r.docs;
    expect(found && 'found' in found ? [found.found, found._source?.n] : undefined).toEqual([true, 3]);
    expect(missing && 'found' in missing ? missing.found : undefined).toBe(false);
    const byDocs = await s.client.mget({ docs: [{ _index: 'fruit', _id: '1' }, { _index: 'nope', _id: '1' }] });
    const failed = byDocs.docs[1];
    expect(failed && 'error' in failed ? failed.error.type : undefined).toBe('index_not_found_exception');
  });

  it('helpers.search returns the sources through filter_path, and filter_path works on any call', async () => {
    const docs = await s.client.helpers.search<{ n: number }>({ index: 'fruit', query: { match: { title: 'sky' } }, size: 100 });
    expect(docs.map((d) => d.n).sort((a, b) => a - b)).toEqual(FRUIT_DOCS.filter((d) => d.title === 'blue sky').map((d) => d.n));
    const none = await s.client.helpers.search({ index: 'fruit', query: { match: { title: 'nothing' } } });
    expect(none).toEqual([]);
    const count = await s.client.count({ index: 'fruit', filter_path: 'count' });
    expect(count).toEqual({ count: 30 });
  });
});

describe('@opensearch-project/opensearch', () => {
  const s = clientForAll((node) => new OpenSearchClient({ node }), ['--search.flavor', 'opensearch']);
  beforeAll(async () => {
    await s.client.bulk({ refresh: 'true', body: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'os', _id: id } }, doc]) });
  });

  it('msearch and mget', async () => {
    const r = await s.client.msearch({ body: [{ index: 'os' }, { query: { match: { title: 'apple' } }, size: 0 }] });
    const first = r.body.responses[0];
    expect(first && 'hits' in first ? first.hits.total : undefined).toEqual({ value: 20, relation: 'eq' });
    const g = await s.client.mget({ index: 'os', body: { ids: ['0'] }, filter_path: 'docs._source.title' });
    expect(g.body).toEqual({ docs: [{ _source: { title: 'red apple pie' } }] });
  });
});
