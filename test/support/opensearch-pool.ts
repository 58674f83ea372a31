/**
 * One pool of OpenSearch nodes for a whole vitest run (the integration project's globalSetup),
 * so that test files comparing Portico with OpenSearch do not each start a JVM (20-40 s of CPU on a
 * 2-core machine). A file's `startOpenSearch()` (test/search/opensearch-node.ts) leases a node from
 * the pool and its `stop()` gives it back:
 * - a lease is exclusive: a node serves one file at a time, so files never see each other's indices;
 * - a node is wiped when it is leased (indices, index templates but the reference one, scrolls and
 *   point-in-time contexts, persistent and transient cluster settings), so every file starts from an
 *   empty node, as with a node of its own;
 * - a lease asked for while every node is leased starts one more node (at most MAX_NODES; beyond
 *   that it waits): with two files at a time, a run starts at most two nodes, and none when no file
 *   needs one.
 * The pool is an HTTP server on a loopback port in vitest's main process, named to the workers by
 * the PORTICO_OPENSEARCH_POOL environment variable. Outside vitest (benchmarks, probes) the variable
 * is unset and startOpenSearch() starts a node of its own.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchOpenSearch, type OpenSearchNode } from '../search/opensearch-node.js';

export const POOL_ENV = 'PORTICO_OPENSEARCH_POOL';
const MAX_NODES = 4;

interface Pooled {
  readonly node: OpenSearchNode;
  /** The lease that holds the node (a number never used before), or undefined while it is free. */
  lease: number | undefined;
}

/** Deletes what a file may have left on a node: it then answers as a node just started does. */
async function wipe(node: OpenSearchNode): Promise<void> {
  const steps: [string, string, unknown?][] = [
    ['DELETE', '/_search/scroll/_all'],
    ['DELETE', '/_search/point_in_time/_all'],
    ['DELETE', '/*?expand_wildcards=open,closed'],
  ];
  for (const [method, path] of steps) await node.call(method, path);
  const templates = await node.call('GET', '/_index_template');
  for (const t of (templates.body?.index_templates ?? []) as { name: string }[]) {
    if (t.name !== 'portico-es8-scoring') await node.call('DELETE', `/_index_template/${encodeURIComponent(t.name)}`);
  }
  const settings = await node.call('GET', '/_cluster/settings?flat_settings=true');
  const reset: Record<string, Record<string, null>> = {};
  for (const scope of ['persistent', 'transient']) {
    const keys = Object.keys((settings.body?.[scope] ?? {}) as Record<string, unknown>);
    if (keys.length > 0) reset[scope] = Object.fromEntries(keys.map((k) => [k, null]));
  }
  if (Object.keys(reset).length > 0) await node.call('PUT', '/_cluster/settings', reset);
  const left = await node.call('GET', '/_cat/indices?format=json&expand_wildcards=open,closed');
  const names = ((left.body ?? []) as { index: string }[]).map((i) => i.index).filter((n) => !n.startsWith('.'));
  if (names.length > 0) throw new Error(`the pooled OpenSearch node still holds indices after its wipe: ${names.join(', ')}`);
}

/** What the pool's server hands out: exclusive use of a node until the lease is released. */
export interface NodePool {
  lease(): Promise<{ id: number; url: string }>;
  /** Frees the node of lease `id`; a lease released already (or unknown) changes nothing. */
  release(id: number): void;
  /** Stops every node, those still starting too. */
  close(): Promise<void>;
}

/** The pool's logic, given how to start a node (the real launcher, or a fake in its unit test). */
export function createNodePool(launch: () => Promise<OpenSearchNode>, maxNodes = MAX_NODES): NodePool {
  const nodes: Pooled[] = [];
  const starting: Promise<Pooled>[] = [];
  const waiters: ((p: Pooled) => void)[] = [];
  let leases = 0;

  const take = async (): Promise<Pooled> => {
    const idle = nodes.find((p) => p.lease === undefined);
    if (idle) {
      idle.lease = ++leases;
      return idle;
    }
    if (nodes.length + starting.length < maxNodes) {
      const started = launch().then((node): Pooled => ({ node, lease: ++leases }));
      starting.push(started);
      try {
        const pooled = await started;
        nodes.push(pooled);
        return pooled;
      } finally {
        starting.splice(starting.indexOf(started), 1);
      }
    }
    return new Promise<Pooled>((resolve) => waiters.push(resolve));
  };
  const release = (id: number): void => {
    const pooled = nodes.find((p) => p.lease === id);
    if (pooled === undefined) return;
    const waiter = waiters.shift();
    pooled.lease = waiter === undefined ? undefined : ++leases;
    if (waiter) waiter(pooled);
  };
  return {
    lease: async () => {
      const pooled = await take();
      const id = pooled.lease as number;
      try {
        await wipe(pooled.node);
      } catch (err) {
        release(id);
        throw err;
      }
      return { id, url: pooled.node.url };
    },
    release,
    close: async () => {
      const all = [...nodes, ...(await Promise.all(starting.map((s) => s.catch(() => undefined)))).filter((p) => p !== undefined)];
      await Promise.all(all.map((p) => p.node.stop()));
    },
  };
}

/** vitest globalSetup: starts the pool's server; the returned function stops it and every node. */
export default async function setup(): Promise<() => Promise<void>> {
  // A guard: a node starts in 20-40 s on an idle 2-core machine, minutes on a loaded one.
  const pool = createNodePool(() => launchOpenSearch({ heap: '1g', startTimeoutMs: 900_000, jit: 'quick' }));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pool');
    const answer = (status: number, body: unknown) => {
      // No keep-alive: a client reusing an idle connection just as the server closed it (its
      // 5 s keep-alive timeout against the client's 4 s, both late on a loaded machine) failed a
      // lease with "other side closed" once; a new connection per request cannot race.
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && url.pathname === '/lease') {
      pool.lease().then((leased) => answer(200, leased), (err: unknown) => answer(500, { error: err instanceof Error ? err.message : String(err) }));
    } else if (req.method === 'POST' && url.pathname === '/release') {
      pool.release(Number(url.searchParams.get('id')));
      answer(200, {});
    } else {
      answer(404, { error: `no ${req.method} ${url.pathname}` });
    }
  });
  // A lease waits for a node to start (a minute on a busy machine): no server-side timeout.
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  process.env[POOL_ENV] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return async () => {
    delete process.env[POOL_ENV];
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await pool.close();
  };
}
