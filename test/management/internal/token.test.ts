import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearerMatches, readOrCreateToken } from '../../../src/management/internal/token.js';

describe('internal token', () => {
  it('creates a random token file with mode 0600 and reads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-token-'));
    const path = join(dir, 'sub', 'internal-token');
    const token = await readOrCreateToken(path);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(token);
    expect(await readOrCreateToken(path)).toBe(token);
  });

  it('uses an existing token and refuses an empty file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-token-'));
    writeFileSync(join(dir, 't'), '  given\n');
    expect(await readOrCreateToken(join(dir, 't'))).toBe('given');
    writeFileSync(join(dir, 'e'), '\n');
    await expect(readOrCreateToken(join(dir, 'e'))).rejects.toThrow(/is empty/);
  });

  it('compares bearer tokens', () => {
    expect(bearerMatches('Bearer abc', 'abc')).toBe(true);
    expect(bearerMatches('bearer abc', 'abc')).toBe(true);
    expect(bearerMatches('Bearer abcd', 'abc')).toBe(false);
    expect(bearerMatches(undefined, 'abc')).toBe(false);
    expect(bearerMatches('Bearer ', '')).toBe(false);
  });
});
