import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { smallYoungGeneration } from '../../src/config/common-flags.js';

const CHILD = new URL('../fixtures/young-generation-child.ts', import.meta.url).pathname;
const dirs: string[] = [];

/** The young generation's size after the child's allocations, bytes. */
function youngAfterAllocating(mode: 'small' | 'default'): number {
  const dir = mkdtempSync(join(tmpdir(), 'portico-young-'));
  dirs.push(dir);
  const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, mode, dir], { encoding: 'utf8', timeout: 60_000 });
  return (JSON.parse(out.trim().split('\n').pop() as string) as { young: number }).young;
}

describe('keepYoungGenerationSmall', () => {
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("keeps V8's young generation at a few MiB after a worker thread (the store's writer) starts, where it grows to 32 MiB without", () => {
    const MiB = 1024 * 1024;
    // Without: V8 doubles the semi-spaces up to 16 MiB each under this allocation.
    expect(youngAfterAllocating('default')).toBeGreaterThanOrEqual(16 * MiB);
    // With: the writer's start reset V8's growth factor, and the writer set it again before the
    // store's constructor went on (at most one growth happened before the flag, at start-up).
    expect(youngAfterAllocating('small')).toBeLessThanOrEqual(4 * MiB);
  });
});

describe('smallYoungGeneration', () => {
  it('is on for auto only when search listens and the push gateway does not; on and off say so', () => {
    const pushgateway = { host: '', port: 9091 };
    const search = { host: '', port: 9200 };
    const mode = (m: 'auto' | 'on' | 'off', pg: unknown, se: unknown) => smallYoungGeneration({ 'runtime.small-young-generation': m, 'pushgateway.listen-address': pg, 'search.listen-address': se });
    expect(mode('auto', null, search)).toBe(true);
    expect(mode('auto', pushgateway, search)).toBe(false);
    // The management API alone: its page p99 was higher with it (bench/README.md).
    expect(mode('auto', null, null)).toBe(false);
    expect(mode('on', pushgateway, search)).toBe(true);
    expect(mode('on', null, null)).toBe(true);
    expect(mode('off', null, search)).toBe(false);
  });
});
