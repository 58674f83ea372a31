import { describe, expect, it } from 'vitest';
import { esCalls, searchForAll } from '../harness.js';

/**
 * The settings that decide shards and document placement, at creation and update (the node's
 * answers to the same requests: test/search/differential/shards.int.test.ts), and resizing.
 */

const h = searchForAll();
const { call } = esCalls(h);

async function refused(method: 'PUT' | 'POST', url: string, body: unknown): Promise<{ type: string; reason: string; caused_by?: { type: string; reason: string } }> {
  const res = await call(method, url, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.error;
}

describe('index creation', () => {
  it('takes several shards, refuses a routing partition, and checks ES’s own bound', async () => {
    expect((await call('PUT', '/many', { settings: { number_of_shards: 2 } })).status).toBe(200);
    const got = await call('GET', '/many/_settings?flat_settings=true');
    expect(got.body.many.settings['index.number_of_shards']).toBe('2');
    expect((await refused('PUT', '/a', { settings: { routing_partition_size: 2 } })).reason).toBe('[index.routing_partition_size] of [2] (a routing value is placed on one shard) is not supported by this server');
    // ES's own bound comes first.
    expect((await refused('PUT', '/a', { settings: { number_of_shards: 1025 } })).reason).toBe('Failed to parse value [1025] for setting [index.number_of_shards] must be <= 1024');
    // Routing shards must be a multiple of the shards.
    expect((await refused('PUT', '/a', { settings: { number_of_shards: 2, number_of_routing_shards: 3 } })).reason).toBe('the number of source shards [2] must be a factor of [3]');
    expect((await h.app.inject({ method: 'HEAD', url: '/a' })).statusCode).toBe(404);
  });

  it('checks number_of_routing_shards as ES does and takes any multiple of one shard', async () => {
    expect((await refused('PUT', '/a', { settings: { number_of_routing_shards: 0 } })).reason).toBe('Failed to parse value [0] for setting [index.number_of_routing_shards] must be >= 1');
    const e = await refused('PUT', '/a', { settings: { number_of_routing_shards: 'x' } });
    expect(e).toMatchObject({ reason: 'Failed to parse value [x] for setting [index.number_of_routing_shards]', caused_by: { type: 'number_format_exception', reason: 'For input string: "x"' } });
    expect((await call('PUT', '/b', { settings: { number_of_routing_shards: 3, routing_partition_size: 1 } })).status).toBe(200);
    const got = await call('GET', '/b/_settings?flat_settings=true');
    expect(got.body.b.settings).toMatchObject({ 'index.number_of_routing_shards': '3', 'index.routing_partition_size': '1' });
  });
});

describe('after creation', () => {
  it('keeps the shard and routing settings fixed', async () => {
    await call('PUT', '/c', {});
    for (const key of ['number_of_shards', 'number_of_routing_shards', 'routing_partition_size']) {
      expect((await refused('PUT', '/c/_settings', { index: { [key]: 2 } })).reason).toMatch(new RegExp(`^Can't update non dynamic settings \\[\\[index\\.${key}\\]\\]`));
    }
  });

  it('refuses shrink, split and clone of an existing index, and a missing one is 404', async () => {
    await call('PUT', '/d', {});
    for (const op of ['_shrink', '_split', '_clone']) {
      for (const method of ['PUT', 'POST'] as const) {
        expect((await refused(method, `/d/${op}/e`, {})).reason).toBe(`[${op}] (resizing or cloning an index) is not supported by this server`);
      }
      const missing = await call('POST', `/nope/${op}/e`, {});
      expect([missing.status, missing.body.error.type]).toEqual([404, 'index_not_found_exception']);
    }
    expect((await h.app.inject({ method: 'HEAD', url: '/e' })).statusCode).toBe(404);
  });
});
