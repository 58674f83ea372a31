import { defineConfig } from 'vitest/config';

// Two projects (CONTRIBUTING.md): fast pure unit tests, and integration/e2e tests that talk to
// real peers (Prometheus, client libraries, a browser) on port 0 with longer timeouts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/**/*.int.test.ts', 'node_modules/**'],
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/e2e/**/*.test.ts', 'test/**/*.int.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Real peers are heavy on a 2-core machine: keep files sequential.
          fileParallelism: false,
        },
      },
    ],
  },
});
