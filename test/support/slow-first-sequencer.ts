/**
 * The order in which vitest hands out test files: the files measured slowest first, then vitest's
 * own order (the last run's durations, longest first, kept in node_modules/.vite; without them, as
 * on a fresh clone, larger files first).
 *
 * Why: two files run at a time, so a long file that starts last is a tail with one core idle. The
 * slowest files are small (a side-by-side suite is a few lines that drive a peer for 20-40 s), so a
 * fresh clone, ordering by size, started them last: its test step took 459 s where a clone with the
 * last run's durations took 417 s (2026-11-29, the same commit). A file missing from this list
 * only runs in vitest's order; keep the list to the files that take over ten seconds alone.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first: seconds alone on 2 cores (2026-11-29) in the comments. */
export const SLOW_FIRST: readonly string[] = [
  'test/management/differential/management-differential.int.test.ts', // 42
  'test/search/differential/refresh.int.test.ts', // 22
  'test/search/differential/search-differential.int.test.ts', // 20
  'test/e2e/search-durability.test.ts', // 19
  'test/search/differential/mapping-parameters.int.test.ts', // 19
  'test/search/differential/multi-term.int.test.ts', // 19
  'test/e2e/faults-search-kill.test.ts', // 17
  'test/e2e/pushgateway-redis.test.ts', // 16
  'test/e2e/pushgateway-redis-prometheus.test.ts', // 12
  'test/e2e/start-up-errors.test.ts', // 12
  'test/search/differential/aggs-differential.int.test.ts', // 12
  'test/e2e/management-dashboard.test.ts', // 12
  'test/e2e/faults-pushgateway-kill.test.ts', // 12
  'test/e2e/cli.test.ts', // 12
  'test/management/record-store.test.ts', // 11 (unit)
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const i = SLOW_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the unlisted files keep vitest's order.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}
