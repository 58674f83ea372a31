/**
 * The official Python clients from PyPI against Portico over HTTP: `elasticsearch` 8.x and
 * `opensearch-py`, pinned with their hashes in test/peers/python/requirements.txt and installed by
 * scripts/build-peers.sh python-clients into a cached venv. test/search/python/clients.py drives
 * each with its own typed calls (index, helpers.bulk, from/size, search_after, helpers.scan,
 * point in time, count, mget, get, delete, a refused mapping) and prints what it saw; this file
 * checks it.
 */
import { describe, expect, it } from 'vitest';
import { pythonClientsSuite } from './python-suite.js';

const { drive } = pythonClientsSuite('clients.py', 'books');

const range = (from: number, to: number, step = 1): number[] => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('the official Python clients', () => {
  it.each(['elasticsearch', 'opensearch'] as const)('%s: writes, pages every way, counts, gets and deletes', async (client) => {
    const seen = await drive(client);
    expect(seen).toMatchObject({
      info: '8.17.0',
      bulk: [200, 0],
      count: 201,
      count_python: 101,
      // from 10, size 5 of the odd numbers in ascending order
      page: [21, 23, 25, 27, 29],
      page_total: { value: 101, relation: 'eq' },
      search_after: range(1, 201).reverse(),
      scan: range(1, 201, 2),
      mget: [true, true, false],
      delete: 'deleted',
      get_deleted: 404,
      refused: 'mapper_parsing_exception',
    });
    if (client === 'elasticsearch') {
      // The point in time was opened before "late" was written: it sees the 201 documents only.
      expect(seen).toMatchObject({ pit: [201, 1, 201], pit_closed: true, count_after_delete: 201 });
    } else {
      expect(seen.count_after_delete).toBe(200);
    }
  }, 180_000);
});
