import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPushgatewayApp } from '../../src/pushgateway/app.js';
import { gatewayConfig } from './gateway-harness.js';

// The persistence file when the disk fails: a write error at shutdown (injected: the file's
// directory replaced by a file, EEXIST from mkdir, as a full disk fails with ENOSPC) logs one line naming
// the file, the reason and the groups lost; a damaged file stops start-up with one line naming it.

const dir = mkdtempSync(join(tmpdir(), 'portico-pg-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { lines, deps: { logger, now: Date.now, requestShutdown: () => undefined } };
}

/**
 * Replaces directory `sub` by a regular file. A write the gateway started earlier may be creating
 * the directory again on a libuv thread between the removal and the file's creation (seen on a
 * loaded machine: EISDIR), so this repeats until the file is in place.
 */
function replaceWithFile(sub: string): void {
  for (let attempt = 0; ; attempt++) {
    rmSync(sub, { recursive: true, force: true });
    try {
      writeFileSync(sub, 'not a directory');
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR' || attempt === 50) throw err;
    }
  }
}

describe('push gateway persistence faults', () => {
  it('names the file and the lost groups when the shutdown write fails (write-ahead log off)', async () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const file = join(sub, 'pg.json');
    const { lines, deps } = capture();
    const app = await buildPushgatewayApp(gatewayConfig([`--persistence.file=${file}`, '--persistence.interval=1h', '--persistence.wal-sync-interval=off']), deps);
    for (const job of ['a', 'b']) {
      const res = await app.inject({ method: 'PUT', url: `/metrics/job/${job}/instance/i1`, payload: 'x 1\n' });
      expect(res.statusCode).toBe(200);
    }
    replaceWithFile(sub);
    await expect(app.close()).rejects.toThrow();
    // (The periodic write may fail first, with its own line: this is the shutdown's.)
    const failed = lines.filter((l) => l.level === 50 && String(l.msg).startsWith('could not save'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ file, code: 'EEXIST', groups: 2, unsaved: ['instance="i1",job="a"', 'instance="i1",job="b"'] });
    expect(failed[0]?.msg).toContain(`could not save the push groups to ${file} (EEXIST)`);
  });

  it('refuses a damaged file at start with one line naming it, and leaves it alone', async () => {
    const file = join(dir, 'damaged.json');
    const first = await buildPushgatewayApp(gatewayConfig([`--persistence.file=${file}`]), capture().deps);
    await first.inject({ method: 'PUT', url: '/metrics/job/a', payload: 'x 12345\n' });
    await first.close();
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('12345');
    writeFileSync(file, text.replace('12345', '12346'));
    await expect(buildPushgatewayApp(gatewayConfig([`--persistence.file=${file}`]), capture().deps)).rejects.toThrow(
      `--persistence.file ${file}: the persistence file is damaged (its content does not match its SHA-256 checksum) and was not loaded`,
    );
    expect(readFileSync(file, 'utf8')).toContain('12346');
  });
});
