import { describe, expect, it } from 'vitest';
import type { OpenSearchAnswer, OpenSearchNode } from '../search/opensearch-node.js';
import { createNodePool } from './opensearch-pool.js';

/** A stand-in for a node: it keeps a set of index names and answers the calls the wipe makes. */
function fakeNode(n: number): OpenSearchNode & { indices: Set<string>; templates: Set<string>; calls: string[]; stopped: boolean } {
  const node = {
    url: `http://node-${n}`,
    indices: new Set<string>(),
    templates: new Set<string>(['portico-es8-scoring']),
    calls: [] as string[],
    stopped: false,
    async call(method: string, path: string): Promise<OpenSearchAnswer> {
      node.calls.push(`${method} ${path}`);
      if (method === 'DELETE' && path.startsWith('/*')) node.indices.clear();
      if (method === 'DELETE' && path.startsWith('/_index_template/')) node.templates.delete(decodeURIComponent(path.slice('/_index_template/'.length)));
      if (method === 'GET' && path === '/_index_template') return { status: 200, body: { index_templates: [...node.templates].map((name) => ({ name })) } };
      if (method === 'GET' && path.startsWith('/_cluster/settings')) return { status: 200, body: { persistent: {}, transient: {} } };
      if (method === 'GET' && path.startsWith('/_cat/indices')) return { status: 200, body: [...node.indices].map((index) => ({ index })) };
      return { status: 200, body: { acknowledged: true } };
    },
    async stop() {
      node.stopped = true;
    },
  };
  return node;
}

describe('the OpenSearch node pool', () => {
  it('starts a node only when every node is leased, and hands a released node on, wiped', async () => {
    const started: ReturnType<typeof fakeNode>[] = [];
    const pool = createNodePool(async () => {
      const node = fakeNode(started.length + 1);
      started.push(node);
      return node;
    });
    const a = await pool.lease();
    const b = await pool.lease();
    expect(a.url).not.toBe(b.url);
    expect(started).toHaveLength(2);
    const first = started[0]!;
    first.indices.add('debian');
    first.templates.add('mine');
    pool.release(a.id);
    const c = await pool.lease();
    expect(c.url).toBe(a.url);
    expect(started).toHaveLength(2);
    expect([...first.indices]).toEqual([]);
    expect([...first.templates]).toEqual(['portico-es8-scoring']);
    await pool.close();
    expect(started.every((n) => n.stopped)).toBe(true);
  });

  it('makes a lease wait for a release when the most nodes are started', async () => {
    const pool = createNodePool(async () => fakeNode(1), 1);
    const a = await pool.lease();
    let second: { id: number } | undefined;
    const waiting = pool.lease().then((l) => (second = l));
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBeUndefined();
    pool.release(a.id);
    await waiting;
    expect(second).toBeDefined();
    expect(second?.id).not.toBe(a.id);
    // The first lease's holder releasing again (a stop() called twice) does not free the node
    // under the second lease.
    pool.release(a.id);
    let third: { id: number } | undefined;
    void pool.lease().then((l) => (third = l));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBeUndefined();
    pool.release((second as { id: number }).id);
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBeDefined();
  });

  it('refuses the lease and frees the node when the wipe leaves an index', async () => {
    const node = fakeNode(1);
    node.call = async (method: string, path: string) => {
      if (method === 'GET' && path.startsWith('/_cat/indices')) return { status: 200, body: [{ index: 'stuck' }] };
      if (method === 'GET' && path === '/_index_template') return { status: 200, body: { index_templates: [] } };
      return { status: 200, body: {} };
    };
    const pool = createNodePool(async () => node, 1);
    await expect(pool.lease()).rejects.toThrow(/still holds indices after its wipe: stuck/);
    // Freed: the next lease gets the node again (and is refused again) instead of waiting forever.
    await expect(pool.lease()).rejects.toThrow(/stuck/);
  });
});
