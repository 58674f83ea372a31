/**
 * The Python client files' shared set-up: the venv scripts/build-peers.sh python-clients makes
 * (`elasticsearch` 8.x and `opensearch-py`, pinned in test/peers/python/requirements.txt) and a
 * Portico search listener over HTTP, started and stopped by the calling file's hooks.
 */
import { execFile, execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export type PythonClient = 'elasticsearch' | 'opensearch';

/**
 * Registers the file's beforeAll/afterAll; `drive` runs test/search/python/<script> with `client`
 * against a fresh state (the indices it makes, `index`, dropped first) and returns what it printed.
 */
export function pythonClientsSuite(script: string, index: string | readonly string[]): { drive(client: PythonClient): Promise<Record<string, unknown>> } {
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
  return {
    async drive(client) {
      for (const name of typeof index === 'string' ? [index] : index) await portico?.app.inject({ method: 'DELETE', url: `/${name}` });
      const { stdout } = await run(python, [join(ROOT, 'test/search/python', script), client, url], { timeout: 120_000 });
      return JSON.parse(stdout) as Record<string, unknown>;
    },
  };
}
