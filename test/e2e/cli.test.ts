import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startPortico } from '../support/portico-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'portico-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

describe('portico CLI', () => {
  it('prints its version and help', () => {
    expect(run('--version').stdout).toMatch(/^portico \d+\.\d+\.\d+\n$/);
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('portico <command>');
    const serveHelp = run('serve', '--help');
    expect(serveHelp.stdout).toContain('--pushgateway.listen-address <address>');
    expect(serveHelp.stdout).toContain('(default: :9091)');
  });

  it('exits 2 with a clear message on bad configuration', () => {
    const bad = run('serve', '--pushgateway.listen-address', 'nowhere');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('invalid --pushgateway.listen-address: "nowhere" is not host:port');
    const unknown = run('frobnicate');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it('starts every listener and shuts down cleanly on SIGTERM', async () => {
    const p = await startPortico([
      '--data.dir', dataDir,
      '--pushgateway.listen-address', '127.0.0.1:0',
      '--management.listen-address', '127.0.0.1:0',
      '--internal.listen-address', '127.0.0.1:0',
      '--search.listen-address', '127.0.0.1:0',
    ]);
    expect(Object.keys(p.ports)).toEqual(expect.arrayContaining(['pushgateway', 'management', 'search']));
    const healthy = await fetch(`http://127.0.0.1:${p.ports.pushgateway}/-/healthy`);
    expect(healthy.status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(p.lines.some((l) => l.includes('"msg":"shutdown complete"'))).toBe(true);
  });

  it('leaves a listener off when asked', async () => {
    const p = await startPortico([
      '--data.dir', dataDir,
      '--pushgateway.listen-address', '127.0.0.1:0',
      '--management.listen-address', 'off',
      '--search.listen-address', 'off',
    ]);
    expect(Object.keys(p.ports)).toEqual(['pushgateway']);
    expect(await p.stop('SIGINT')).toBe(0);
  });
});
