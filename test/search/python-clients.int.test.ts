/**
 * The official Python clients from PyPI against Portico over HTTP: `elasticsearch` 8.x and
 * `opensearch-py`, pinned with their hashes in test/peers/python/requirements.txt and installed by
 * scripts/build-peers.sh python-clients into a cached venv. test/search/python/clients.py drives
 * each with its own typed calls (index, helpers.bulk, from/size, search_after, helpers.scan,
 * point in time, count, mget, get, delete, a refused mapping) and prints what it saw; this file
 * checks it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

let python = '';
let portico: SearchHarness | undefined;
let url = '';

beforeAll(async () => {
  let venv: string;
  try {
    venv = execFileSync('bash', [join(ROOT, 'scripts/build-peers.sh'), 'python-clients'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  } catch (err) {
    throw new Error('scripts/build-peers.sh python-clients failed: the Python clients need python3 with venv (Debian: python3-venv) and PyPI on the first run', { cause: err });
  }
  python = join(venv, 'bin/python');
  portico = await startSearch();
  url = await portico.app.listen({ port: 0, host: '127.0.0.1' });
}, 300_000);

afterAll(async () => {
  await portico?.close();
});

/** Runs clients.py with `client` against a fresh Portico state (the index it makes is dropped first). */
async function drive(client: 'elasticsearch' | 'opensearch'): Promise<Record<string, unknown>> {
  await portico?.app.inject({ method: 'DELETE', url: '/books' });
  const { stdout } = await run(python, [join(ROOT, 'test/search/python/clients.py'), client, url], { timeout: 120_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

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
