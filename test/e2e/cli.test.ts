import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startPortico } from '../support/portico-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'portico-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

/** Starts `portico serve` on dataDir with `--<area>.listen-address` set as given, in this order. */
function serveWith(addresses: Record<string, string>) {
  return startPortico(['--data.dir', dataDir, ...Object.entries(addresses).flatMap(([area, address]) => [`--${area}.listen-address`, address])]);
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

  it('says in one line that the operator has no Kubernetes configuration, and exits', () => {
    // An empty home, no KUBECONFIG, not in a pod: nothing to connect to (the default would be
    // http://localhost:8080, retried forever).
    const home = mkdtempSync(join(tmpdir(), 'portico-home-'));
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'KUBECONFIG' && !k.startsWith('KUBERNETES_')));
      const res = spawnSync(process.execPath, [CLI, 'operator', '--data.dir', dataDir], { encoding: 'utf8', env: { ...env, HOME: home }, timeout: 30_000 });
      expect(res.status).toBe(2);
      const lines = res.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('no Kubernetes configuration found: --kubeconfig is not set, $KUBECONFIG is not set');
      expect(lines[0]).toContain(`${home}/.kube/config does not exist`);
      expect(lines[0]).toContain('pass --kubeconfig FILE or set KUBECONFIG');
      expect(res.stdout).not.toContain('localhost:8080');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('says an unreachable API server once per backoff step, not once per watched resource', async () => {
    // A port nothing listens on: every reflector's list is refused at once, and again at each retry.
    const closed = await new Promise<number>((done) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => done(port));
      });
    });
    const kubeconfig = join(dataDir, 'unreachable.kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:${closed}', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`);
    const child = spawn(process.execPath, [CLI, 'operator', '--kubeconfig', kubeconfig, '--data.dir', dataDir, '--operator.health-address', '127.0.0.1:0', '--log.format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => setTimeout(r, 6000));
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const apiLines = out.split('\n').filter((l) => l.includes('Kubernetes API server') || l.includes('list/watch failed'));
    // At least the first line; at most one per backoff step in 6 s (0.25, 0.5, 1, 2, 4 s, with jitter),
    // where a line per watched resource per retry would be well over a hundred.
    expect(apiLines.length, out).toBeGreaterThanOrEqual(1);
    expect(apiLines.length, apiLines.join('\n')).toBeLessThanOrEqual(8);
    expect(apiLines[0]).toContain(`cannot reach the Kubernetes API server https://127.0.0.1:${closed}`);
    expect(apiLines[0]).toContain('ECONNREFUSED');
    expect(apiLines.some((l) => l.includes('list/watch failed'))).toBe(false);
  });

  it('starts every listener and shuts down cleanly on SIGTERM', async () => {
    const p = await serveWith({ pushgateway: '127.0.0.1:0', management: '127.0.0.1:0', internal: '127.0.0.1:0', search: '127.0.0.1:0' });
    expect(Object.keys(p.ports)).toEqual(expect.arrayContaining(['pushgateway', 'management', 'search']));
    const healthy = await fetch(`http://127.0.0.1:${p.ports.pushgateway}/-/healthy`);
    expect(healthy.status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(p.lines.some((l) => l.includes('"msg":"shutdown complete"'))).toBe(true);
  });

  it('leaves a listener off when asked', async () => {
    const p = await serveWith({ pushgateway: '127.0.0.1:0', management: 'off', search: 'off' });
    expect(Object.keys(p.ports)).toEqual(['pushgateway']);
    expect(await p.stop('SIGINT')).toBe(0);
  });
});
