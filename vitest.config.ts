import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

// Two projects (CONTRIBUTING.md): fast pure unit tests, and integration/e2e tests that talk to
// real peers (Prometheus, client libraries, a browser) on port 0 with longer timeouts.
export default defineConfig({
  test: {
    // Two files at a time in the unit and integration projects (one group: vitest runs projects of
    // one group together only when their maxWorkers agree). The kube project is one file at a time
    // and `make test` runs it beside the others, in a second vitest (scripts/run-tests.sh).
    maxWorkers: 2,
    // The slowest files first, on a fresh clone too (test/support/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/kube/**', 'test/**/*.int.test.ts', 'node_modules/**'],
          // A guard against hangs, not a speed limit: property tests are bounded by their run counts,
          // and on a 2-core machine with another build running a 100-run property takes 10-20 s
          // (60 s was reached by two of them on a machine loaded four times over).
          testTimeout: 120_000,
          // Hooks start and stop in-process servers: a second at most when idle, 10 s+ when loaded.
          hookTimeout: 60_000,
          // The unit files share each worker's module cache instead of importing src/ anew per file:
          // the project took 172 s (294 s of CPU, 87 s of it imports) and takes 90 s (150 s of CPU).
          // No unit file mocks modules or globals or sets process.env (keep it so: such a file
          // would leak into the next one in its worker).
          isolate: false,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/e2e/**/*.test.ts', 'test/**/*.int.test.ts'],
          // OpenSearch nodes shared by the files that compare with one, one file at a time per node
          // (started only when a file asks for one): test/support/opensearch-pool.ts.
          globalSetup: ['test/support/opensearch-pool.ts'],
          // As the unit files: the project's imports took about 140 s of CPU, 27 s shared (56 files,
          // 466 tests; 286 s wall, 481 s CPU alone at nice -5). No file here mocks modules or
          // globals or sets process.env either; keep it so.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Suites against a real kube-apiserver and etcd (test/kube/control-plane.ts), built by
          // scripts/build-peers.sh before the run (`make test-kube`, and `make test` includes them).
          name: 'kube',
          include: ['test/kube/**/*.kube.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
