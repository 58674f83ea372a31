/**
 * The two servers of a side-by-side file: an OpenSearch node (leased from the integration
 * project's pool, test/support/opensearch-pool.ts) and an in-process Portico search server.
 */
import { afterAll, beforeAll } from 'vitest';
import { startSearch, type SearchHarness } from '../harness.js';
import { startOpenSearch, type OpenSearchNode } from '../opensearch-node.js';
import { injectCall, type Answer } from './compare.js';

/** One request, answered as a status and a parsed body. */
export type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

export interface SideBySide {
  /** A request to Portico (injected: no socket). */
  readonly porticoCall: Call;
  /** The same request to the node. */
  readonly nodeCall: Call;
  /** Portico's harness (to restart it, or reach its search service). */
  harness(): SearchHarness;
}

/**
 * Starts both servers before the file's tests and stops them after; call it at the top of a file.
 * Hooks the file registers after this call run after the start (beforeAll) and before the stop
 * (afterAll: vitest runs them in reverse order). A lease waits while every pooled node is busy or
 * starting: minutes on a loaded machine, hence the long timeout.
 */
export function sideBySide(): SideBySide {
  let node: OpenSearchNode | undefined;
  let portico: SearchHarness | undefined;
  beforeAll(async () => {
    const [n, p] = await Promise.allSettled([startOpenSearch({ startTimeoutMs: 900_000 }), startSearch()]);
    if (n.status === 'fulfilled') node = n.value;
    if (p.status === 'fulfilled') portico = p.value;
    if (n.status === 'rejected') throw n.reason;
    if (p.status === 'rejected') throw p.reason;
  }, 900_000);
  afterAll(async () => {
    await node?.stop();
    await portico?.close();
  });
  return {
    porticoCall: (method, path, body) => injectCall(portico, method, path, body),
    nodeCall: (method, path, body) => {
      if (node === undefined) throw new Error('OpenSearch is not started');
      return node.call(method, path, body);
    },
    harness: () => {
      if (portico === undefined) throw new Error('Portico is not started');
      return portico;
    },
  };
}
