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
        // As the upstream runner does: every test starts without indices.
        await h.app.inject({ method: 'DELETE', url: '/*' });
      }
    });
  }
});
