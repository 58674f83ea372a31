import { describe, expect, it } from 'vitest';
import { startOpenSearch } from '../search/opensearch-node.js';

/**
 * The pool (test/support/opensearch-pool.ts) as the integration project runs it: a file's node is
 * leased from vitest's main process, and what one lease left is gone for the next.
 */
describe('OpenSearch nodes from the pool', () => {
  it('gives each lease an empty node, whatever the lease before it left', async () => {
    expect(process.env.PORTICO_OPENSEARCH_POOL, 'the integration project has the pool as its globalSetup').toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await startOpenSearch();
    try {
      expect((await first.call('PUT', '/pool-check-left-behind', { settings: { number_of_replicas: 0 } })).status).toBe(200);
      expect((await first.call('PUT', '/_index_template/pool-check', { index_patterns: ['pool-check-*'], priority: 5, template: {} })).status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await startOpenSearch();
    try {
      expect((await second.call('HEAD', '/pool-check-left-behind')).status).toBe(404);
      expect((await second.call('GET', '/_index_template/pool-check')).status).toBe(404);
      // The reference scoring template stays (test/search/opensearch-node.ts).
      expect((await second.call('GET', '/_index_template/portico-es8-scoring')).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
