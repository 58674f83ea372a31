import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/flag-types.js';
import { loadConfig } from '../../src/config/load-config.js';
import { serveFlags } from '../../src/flag-groups.js';
import { buildManagementApps, entryPointsFor } from '../../src/management/app.js';
import { parseEntryPointList } from '../../src/management/runtime/entry-points.js';
import { silentLogger } from './helpers.js';

const config = (argv: string[]) => loadConfig(serveFlags, { argv, env: {}, readFile: () => '' });
const deps = { logger: silentLogger, now: () => 0, requestShutdown: () => undefined };

describe('management configuration', () => {
  it('declares Portico\'s listeners and the proxy\'s entry points', () => {
    const eps = entryPointsFor(config(['--management.entry-points', 'web=:8000/tcp,dns=:53/udp', '--search.listen-address', 'off']));
    expect(eps.map((e) => [e.name, e.address, e.protocol, e.isDefault])).toEqual([
      ['dns', ':53/udp', 'udp', true], ['pushgateway', ':9091', 'tcp', false], ['traefik', ':8080', 'tcp', false], ['web', ':8000/tcp', 'tcp', true],
    ]);
    expect(() => parseEntryPointList(['web'])).toThrow(ConfigError);
    expect(() => parseEntryPointList(['web=80'])).toThrow(/is not \[host\]:port/);
  });

  it('refuses a bad users file or allow-list naming the flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-mgmt-cfg-'));
    writeFileSync(join(dir, 'users'), 'admin:plaintext\n');
    await expect(buildManagementApps(config(['--management.users-file', join(dir, 'users'), '--providers.file.filename', '', '--internal.listen-address', 'off']), deps))
      .rejects.toThrow(/--management.users-file: .*not a bcrypt hash/);
    await expect(buildManagementApps(config(['--management.users-file', join(dir, 'missing'), '--providers.file.filename', '', '--internal.listen-address', 'off']), deps))
      .rejects.toThrow(/--management.users-file \S+missing: no such file; create it/);
    await expect(buildManagementApps(config(['--management.ip-allow-list', '10.0.0.0/8,nonsense', '--providers.file.filename', '', '--internal.listen-address', 'off']), deps))
      .rejects.toThrow('--management.ip-allow-list: "nonsense" is not an IP address or CIDR range');
  });

  it('builds both listeners with the token under the data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-mgmt-cfg-'));
    const apps = await buildManagementApps(config(['--data.dir', dir, '--providers.file.filename', '']), deps);
    expect(apps.internal).not.toBeNull();
    expect((await apps.internal?.inject({ url: '/internal/v1/providers/kubernetes' }))?.statusCode).toBe(401);
    await apps.api.close();
    await apps.internal?.close();
  });
});
