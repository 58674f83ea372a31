import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as Client9, errors as errors9 } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientForAll, listenSearch, startSearch, type SearchHarness } from '../search/harness.js';
import { FRUIT_DOCS, OFFICIAL_CLIENTS } from '../search/es-clients.js';

// The official clients, unmodified and without special options, against a listening search app.
describe.each(OFFICIAL_CLIENTS)('%s', (_name, make) => {
  const s = clientForAll(make);

  it('pings, creates an index, bulk-loads and searches with from/size', async () => {
    expect(await s.client.ping()).toBe(true);
    const info = await s.client.info();
    expect(info.tagline).toBe('You Know, for Search');
    await s.client.indices.create({ index: 'fruit', mappings: { properties: { title: { type: 'text' }, n: { type: 'integer' } } } });
    expect(await s.client.indices.exists({ index: 'fruit' })).toBe(true);
    expect(await s.client.indices.exists({ index: 'nope' })).toBe(false);
    const bulk = await s.client.bulk({ refresh: true, operations: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'fruit', _id: id } }, doc]) });
    expect(bulk.errors).toBe(false);
    const page1 = await s.client.search({ index: 'fruit', query: { match: { title: 'apple' } }, from: 0, size: 5 });
    expect(page1.hits.total).toEqual({ value: 20, relation: 'eq' });
    expect(page1.hits.hits).toHaveLength(5);
    const all = await s.client.search({ index: 'fruit', query: { match: { title: 'apple' } }, size: 100 });
    const page3 = await s.client.search({ index: 'fruit', query: { match: { title: 'apple' } }, from: 10, size: 5 });
    expect(page3.hits.hits.map((x) => x._id)).toEqual(all.hits.hits.slice(10, 15).map((x) => x._id));
    const sorted = await s.client.search({ index: 'fruit', sort: [{ n: 'desc' }], size: 2 });
    expect(sorted.hits.hits.map((x) => x._id)).toEqual(['29', '28']);
    expect((await s.client.count({ index: 'fruit' })).count).toBe(30);
    const doc = await s.client.get<{ n: number }>({ index: 'fruit', id: '7' });
    expect(doc._source?.n).toBe(7);
    await s.client.index({ index: 'fruit', id: '100', document: { title: 'apple' }, refresh: true });
    await s.client.delete({ index: 'fruit', id: '100', refresh: true });
  });

  it('surfaces ES errors as ResponseError with type and status', async () => {
    const err = await s.client.search({ index: 'fruit', from: 9995, size: 10 }).catch((e: unknown) => e);
    expect((err as Error).name).toBe(errors9.ResponseError.name);
    const re = err as { statusCode: number; body: { error: { type: string; root_cause: { reason: string }[] } } };
    expect(re.statusCode).toBe(400);
    expect(re.body.error.type).toBe('search_phase_execution_exception');
    expect(re.body.error.root_cause[0]?.reason).toMatch(/^Result window is too large/);
    const missing = (await s.client.search({ index: 'missing' }).catch((e: unknown) => e)) as { statusCode: number; body: { error: { type: string } } };
    expect(missing.statusCode).toBe(404);
    expect(missing.body.error.type).toBe('index_not_found_exception');
    const conflict = (await s.client.create({ index: 'fruit', id: '1', document: {} }).catch((e: unknown) => e)) as { statusCode: number };
    expect(conflict.statusCode).toBe(409);
  });

  it('gets a filtered document and its bare source, lists indices, and refuses wildcard deletes', async () => {
    const doc = await s.client.get<{ n: number }>({ index: 'fruit', id: '7', _source_includes: ['n'] });
    expect(doc._source).toEqual({ n: 7 });
    expect(await s.client.getSource({ index: 'fruit', id: '7' })).toEqual({ title: 'green apple', n: 7 });
    const rows = await s.client.cat.indices({ index: 'fruit', format: 'json' });
    expect(rows[0]?.['docs.count']).toBe('30');
    const refused = (await s.client.indices.delete({ index: 'fr*' }).catch((e: unknown) => e)) as { statusCode: number };
    expect(refused.statusCode).toBe(400);
    expect(await s.client.indices.exists({ index: 'fruit' })).toBe(true);
  });
});

describe('@opensearch-project/opensearch', () => {
  const s = clientForAll((node) => new OpenSearchClient({ node }), ['--search.flavor', 'opensearch']);

  it('indexes and pages with from/size in the query string', async () => {
    const info = await s.client.info();
    expect(info.body.version.distribution).toBe('opensearch');
    await s.client.indices.create({ index: 'os', body: { mappings: { properties: { title: { type: 'text' } } } } });
    const bulk = await s.client.bulk({ refresh: 'true', body: FRUIT_DOCS.flatMap(({ id, ...doc }) => [{ index: { _index: 'os', _id: id } }, doc]) });
    expect(bulk.body.errors).toBe(false);
    const all = await s.client.search({ index: 'os', body: { query: { match: { title: 'apple' } } }, size: 100 });
    const page = await s.client.search({ index: 'os', body: { query: { match: { title: 'apple' } } }, from: 5, size: 5 });
    expect(page.body.hits.hits.map((x) => x._id)).toEqual(all.body.hits.hits.slice(5, 10).map((x) => x._id));
    const bad = (await s.client.search({ index: 'os', from: -1 }).catch((e: unknown) => e)) as { meta: { statusCode: number; body: { error: { reason: string } } } };
    expect(bad.meta.statusCode).toBe(400);
    expect(bad.meta.body.error.reason).toBe('[from] parameter cannot be negative but was [-1]');
  });
});

describe('basic auth', () => {
  let h: SearchHarness;
  let node: string;
  beforeAll(async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'portico-users-'));
    const file = join(dir, 'users');
    writeFileSync(file, `elastic:${bcrypt.hashSync('changeme', 10)}\n`);
    h = await startSearch(['--search.users-file', file]);
    node = await listenSearch(h);
  });
  afterAll(async () => h.close());

  it('answers 401 with ES security_exception and accepts the right password', async () => {
    const res = await fetch(`${node}/_search`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="security" charset="UTF-8"');
    expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
    const body = (await res.json()) as { error: { type: string; reason: string } };
    expect(body.error.type).toBe('security_exception');
    expect(body.error.reason).toBe('missing authentication credentials for REST request [/_search]');
    const wrong = await fetch(`${node}/`, { headers: { authorization: `Basic ${Buffer.from('elastic:nope').toString('base64')}` } });
    expect(wrong.status).toBe(401);
    const client = new Client9({ node, auth: { username: 'elastic', password: 'changeme' } });
    expect(await client.ping()).toBe(true);
    await client.close();
  });
});
