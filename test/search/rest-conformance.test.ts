import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startSearch, type SearchHarness } from './harness.js';
import { loadRestTests, RestRunner } from './rest-runner.js';

// Our own test cases, written in Elasticsearch's YAML REST test format, run against the app.
const dir = join(import.meta.dirname, '..', 'fixtures', 'search', 'rest');
const files = readdirSync(dir).filter((f) => f.endsWith('.yml')).sort();

describe.each(files)('%s', (file) => {
  let h: SearchHarness;
  beforeAll(async () => {
    h = await startSearch();
  });
  afterAll(async () => h.close());

  for (const test of loadRestTests(file, readFileSync(join(dir, file), 'utf8'))) {
    it(test.name, async () => {
      const runner = new RestRunner(() => h.app);
      try {
        await runner.run(test.setup);
        await runner.run(test.steps);
        await runner.run(test.teardown);
      } finally {
        // As the upstream runner does: every test starts without indices. By name, since ES 8
        // (and this server) refuse wildcard deletes.
        const rows = (await h.app.inject({ method: 'GET', url: '/_cat/indices?format=json&h=index' })).json() as { index: string }[];
        if (rows.length > 0) await h.app.inject({ method: 'DELETE', url: `/${rows.map((r) => r.index).join(',')}` });
      }
    });
  }
});
