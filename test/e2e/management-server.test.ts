import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { serveFlags } from '../../src/flag-groups.js';
import { buildServer, type PorticoServer } from '../../src/server.js';
import { silentLogger } from '../management/helpers.js';

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('management listeners over real sockets', () => {
  let server: PorticoServer;
  let api: string;
  let internal: string;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-mgmt-'));
    file = join(dir, 'dynamic.yaml');
    writeFileSync(file, 'http:\n  routers:\n    one:\n      rule: Path(`/one`)\n      service: api@internal\n');
    const config = loadConfig(serveFlags, {
      argv: [
        '--data.dir', dir, '--providers.file.filename', file,
        '--management.listen-address', '127.0.0.1:0', '--internal.listen-address', '127.0.0.1:0',
        '--pushgateway.listen-address', 'off', '--search.listen-address', 'off',
      ],
      env: {},
      readFile: () => '',
    });
    server = await buildServer(config, { logger: silentLogger, now: Date.now, requestShutdown: () => undefined });
    const ports = await server.start();
    api = `http://127.0.0.1:${ports.get('management')}`;
    internal = `http://127.0.0.1:${ports.get('internal')}`;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('serves the file provider\'s records', async () => {
    const res = await fetch(`${api}/api/http/routers/one@file`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('enabled');
  });

  it('reloads the file when an editor replaces it, and keeps the last good one on a bad edit', async () => {
    const tmp = join(dir, '.dynamic.yaml.swp');
    writeFileSync(tmp, 'http:\n  routers:\n    two:\n      rule: Path(`/two`)\n      service: api@internal\n');
    renameSync(tmp, file);
    await until(async () => ((await fetch(`${api}/api/http/routers/two@file`)).status === 200 ? true : undefined));
    expect((await fetch(`${api}/api/http/routers/one@file`)).status).toBe(404);

    writeFileSync(file, 'http: [broken');
    const token = readFileSync(join(dir, 'internal-token'), 'utf8').trim();
    const status = await until(async () => {
      const body = (await (await fetch(`${internal}/internal/v1/providers/file`, { headers: { authorization: `Bearer ${token}` } })).json()) as { lastError?: string };
      return body.lastError;
    });
    expect(status).toMatch(/dynamic\.yaml is not valid YAML/);
    expect((await fetch(`${api}/api/http/routers/two@file`)).status).toBe(200);
  });

  it('accepts a snapshot on the internal listener with the generated token', async () => {
    const token = readFileSync(join(dir, 'internal-token'), 'utf8').trim();
    const put = await fetch(`${internal}/internal/v1/providers/kubernetes`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configuration: { http: { routers: { ing: { rule: 'Host(`k.test`)', service: 'svc' } }, services: { svc: { loadBalancer: { servers: [{ url: 'http://10.1.1.1:80' }] } } } } } }),
    });
    expect(put.status).toBe(200);
    const r = (await (await fetch(`${api}/api/http/routers/ing@kubernetes`)).json()) as { entryPoints: string[]; status: string; priority: number };
    expect(r).toMatchObject({ entryPoints: ['web', 'websecure'], status: 'enabled', priority: 14 });
    expect((await fetch(`${internal}/internal/v1/providers/kubernetes`, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });
});
