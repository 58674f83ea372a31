import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeSkipDuplicates, parseDirectoryFiles, readDirectoryFiles } from '../../../src/providers/file/file-directory.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-file-dir-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('file provider directory', () => {
  it('reads .yaml and .yml files in byte order, sub-directories where their name sorts, and skips other files', async () => {
    const dir = dirWith({ 'b.yml': 'b', 'a.yaml': 'a', 'B.yaml': 'B', 'sub/z.yaml': 'z', 'c.json': '{}', 'd.txt': 'x' });
    const files = await readDirectoryFiles(dir);
    expect(files.map((f) => f.name)).toEqual(['B.yaml', 'a.yaml', 'b.yml', 'sub/z.yaml']);
  });

  it('refuses TOML files by name', async () => {
    const dir = dirWith({ 'a.yaml': '{}', 'x.toml': '[http]' });
    await expect(readDirectoryFiles(dir)).rejects.toThrow('x.toml: TOML files are not supported (use YAML)');
  });

  it('keeps the first definition of a name, per kind, and merges the rest', () => {
    const merged = mergeSkipDuplicates([
      { http: { routers: { r: { rule: 'Path(`/a`)', service: 's' } } }, tls: { options: { o: { minVersion: 'VersionTLS12' } } } },
      { http: { routers: { r: { rule: 'Path(`/b`)', service: 's' }, r2: { rule: 'Path(`/c`)', service: 's' } }, services: { r: { loadBalancer: { servers: [] } } } }, tls: { options: { o: { minVersion: 'VersionTLS13' } } } },
    ]);
    expect(merged.http?.routers).toEqual({ r: { rule: 'Path(`/a`)', service: 's' }, r2: { rule: 'Path(`/c`)', service: 's' } });
    expect(Object.keys(merged.http?.services ?? {})).toEqual(['r']);
    expect(merged.tls?.options).toEqual({ o: { minVersion: 'VersionTLS12' } });
  });

  it('names the bad file when one does not parse', async () => {
    const dir = dirWith({ 'a.yaml': 'http: {}', 'sub/b.yaml': 'http: [' });
    const files = await readDirectoryFiles(dir);
    expect(() => parseDirectoryFiles(files)).toThrow(/^sub\/b\.yaml is not valid YAML/);
  });
});
