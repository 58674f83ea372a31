import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { serveFlags } from '../../src/flag-groups.js';
import { createApp } from '../../src/http/create-app.js';
import { HeapReclaimer } from '../../src/http/heap-reclaim.js';
import { buildManagementApps, createManagementApi } from '../../src/management/app.js';
import { registerInternalRoutes } from '../../src/management/internal/routes.js';
import { silentLogger, storeWith } from './helpers.js';

// What a large change is: --management.heap-reclaim (src/http/heap-reclaim.ts) collects after it.

const TOKEN = 'heap-token';
const auth = { authorization: `Bearer ${TOKEN}` };

/** `n` routers with long rules: 2,500 of them make an /api/rawdata body of over 1 MiB. */
function routers(n: number): Record<string, unknown> {
  const hosts = Array.from({ length: 12 }, (_, i) => `\`host-${i}.example.test\``).join(', ');
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${i}`, { rule: `Host(${hosts}) && PathPrefix(\`/r${i}\`)`, service: 'backend' }]));
}

/** Log lines written at debug level, as objects. */
function captureLog(): { logger: Logger; lines: () => { msg: string; ms?: number }[] } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  return {
    logger: pino({ level: 'debug' }, stream),
    lines: () => chunks.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg: string; ms?: number }),
  };
}

async function managementWith(argv: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'portico-heap-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const log = captureLog();
  const config = loadConfig(serveFlags, { argv: ['--data.dir', dir, '--internal.token-file', join(dir, 'token'), '--providers.file.filename', '', ...argv], env: {}, readFile: () => '' });
  const apps = await buildManagementApps(config, { logger: log.logger, now: Date.now, requestShutdown: () => undefined });
  const collected = () => log.lines().filter((l) => l.msg === 'heap collected after a large change');
  return { apps, collected };
}

const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The management API alone: what --management.heap-reclaim=auto collects for. */
const ALONE = ['--pushgateway.listen-address', 'off', '--search.listen-address', 'off'];

describe('management: collecting after large changes', () => {
  it('collects once after a large snapshot and once after a large /api/rawdata body is built', async () => {
    const { apps, collected } = await managementWith(ALONE);
    try {
      const put = await apps.internal?.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: { configuration: { http: { routers: routers(2_500) } } } });
      expect(put?.statusCode).toBe(200);
      await quiet(400);
      expect(collected()).toHaveLength(1);
      expect(collected()[0]?.ms).toBeGreaterThanOrEqual(0);
      const first = await apps.api.inject('/api/rawdata');
      expect(first.rawPayload.length).toBeGreaterThan(1024 * 1024);
      // The body is built once per view: asking again makes no garbage.
      await apps.api.inject('/api/rawdata');
      await quiet(400);
      expect(collected()).toHaveLength(2);
      // A small snapshot is no large change.
      await apps.internal?.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetescrd', headers: auth, payload: { configuration: { http: { routers: routers(3) } } } });
      await quiet(400);
      expect(collected()).toHaveLength(2);
    } finally {
      await apps.api.close();
      await apps.internal?.close();
    }
  });

  for (const [name, argv, expected] of [
    ['nothing with --management.heap-reclaim=off', [...ALONE, '--management.heap-reclaim=off'], 0],
    ['nothing by default beside the push gateway and search', [], 0],
    // The rawdata body is built within the snapshot's quiet time: one collection for both.
    ['once beside them with --management.heap-reclaim=on', ['--management.heap-reclaim=on'], 1],
  ] as const) {
    it(`collects ${name}`, async () => {
      const { apps, collected } = await managementWith([...argv]);
      try {
        await apps.internal?.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: { configuration: { http: { routers: routers(2_500) } } } });
        await apps.api.inject('/api/rawdata');
        await quiet(400);
        expect(collected()).toHaveLength(expected);
      } finally {
        await apps.api.close();
        await apps.internal?.close();
      }
    });
  }

  it('holds a pending collection back while a snapshot arrives, and not for reads', async () => {
    const heap = new HeapReclaimer({ collect: () => undefined });
    const busy = vi.spyOn(heap, 'busy');
    const store = storeWith({});
    const internal = createApp('internal', silentLogger, { bodyLimit: 1024 * 1024 });
    registerInternalRoutes(internal, { store, token: TOKEN, heap });
    await internal.inject({ method: 'GET', url: '/internal/v1/providers/kubernetes', headers: auth });
    expect(busy).not.toHaveBeenCalled();
    await internal.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', headers: auth, payload: { configuration: {} } });
    await internal.inject({ method: 'DELETE', url: '/internal/v1/providers/kubernetes', headers: auth });
    expect(busy).toHaveBeenCalledTimes(2);
    // Not before the token is checked: a stranger's request changes nothing.
    await internal.inject({ method: 'PUT', url: '/internal/v1/providers/kubernetes', payload: { configuration: {} } });
    expect(busy).toHaveBeenCalledTimes(2);
    // And the API's rawdata of a small view is no burst.
    const afterBurst = vi.spyOn(heap, 'afterBurst');
    const api = createManagementApi({ store, logger: silentLogger, startDate: 0, heap });
    expect((await api.inject('/api/rawdata')).statusCode).toBe(200);
    expect(afterBurst).not.toHaveBeenCalled();
    heap.close();
  });
});
