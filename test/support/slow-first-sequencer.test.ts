import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOW_FIRST } from './slow-first-sequencer.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the slow-first list', () => {
  it('names test files that exist, once each (a renamed file would silently lose its place)', () => {
    expect(SLOW_FIRST.filter((f) => !existsSync(resolve(ROOT, f)) || !/\.test\.ts$/.test(f))).toEqual([]);
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
  });
});
