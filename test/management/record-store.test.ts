import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/flag-types.js';
import { loadConfig } from '../../src/config/load-config.js';
import { serveFlags } from '../../src/config/flags.js';
import { buildManagementApps, entryPointsFor } from '../../src/management/app.js';
import { parseEntryPointList } from '../../src/management/runtime/entry-points.js';
import { paginate } from '../../src/management/api/query.js';
import { overviewProviders, snapshotVersion } from '../../src/management/record-store.js';
import { silentLogger, storeWith } from './helpers.js';

const config = (argv: string[]) => loadConfig(serveFlags, { argv, env: {}, readFile: () => '' });
const deps = { logger: silentLogger, now: () => 0, requestShutdown: () => undefined };

describe('record store', () => {
  it('keeps providers side by side and swaps the view on every change', () => {
    const store = storeWith({ kubernetes: { http: { routers: { a: { rule: 'Path(`/a`)', service: 'api@internal' } } } } });
    const first = store.view;
    store.set('kubernetescrd', { configuration: { http: { routers: { b: { rule: 'Path(`/b`)', service: 'api@internal' } } } } });
    expect(store.view).not.toBe(first);
    expect(store.view.http.routers.entries.map((e) => e.name)).toEqual(['a@kubernetes', 'api@internal', 'b@kubernetescrd', 'dashboard@internal']);
    expect(first.http.routers.get('b@kubernetescrd')).toBeUndefined();
    expect(store.providers()).toEqual(['kubernetes', 'kubernetescrd']);
    expect(store.delete('kubernetes')).toBe(true);
    expect(store.delete('kubernetes')).toBe(false);
  });

  it('notifies listeners with the new view', () => {
    const store = storeWith({});
    const seen: number[] = [];
    const off = store.onChange((v) => seen.push(v.http.routers.entries.length));
    store.set('kubernetes', { configuration: { http: { routers: { a: { service: 'x' } } } } });
    off();
    store.set('kubernetes', { configuration: {} });
    expect(seen).toEqual([3]);
  });

  it('versions a snapshot by content when none is given', () => {
    const a = snapshotVersion({ configuration: { http: { routers: { a: {} } } } });
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(snapshotVersion({ configuration: { http: { routers: { a: {} } } } })).toBe(a);
    expect(snapshotVersion({ configuration: { http: { routers: { b: {} } } } })).not.toBe(a);
  });

  it('lists overview providers by Traefik\'s Go field names in struct order', () => {
    expect(overviewProviders(['kubernetescrd', 'internal', 'file', 'kubernetes', 'zzz'])).toEqual(['File', 'KubernetesIngress', 'KubernetesCRD', 'plugin-zzz']);
  });
});

describe('paging invariants (property)', () => {
  it('a page is inside the list, and X-Next-Page is 1 exactly on the last page', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), (total, page, perPage) => {
      const r = paginate(new URLSearchParams({ page: String(page), per_page: String(perPage) }), total);
      const start = (page - 1) * perPage;
      if (start !== 0 && start >= total) {
        expect(r).toEqual({ error: `invalid request: page: ${page}, per_page: ${perPage}` });
        return;
      }
      if ('error' in r) throw new Error(r.error);
      expect(r.start).toBe(start);
      expect(r.end).toBe(Math.min(total, start + perPage));
      expect(r.nextPage === '1').toBe(page * perPage >= total);
    }));
  });
});

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
      .rejects.toThrow(/--management.users-file: cannot read/);
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
