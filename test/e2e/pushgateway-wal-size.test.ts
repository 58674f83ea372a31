import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPortico, type RunningPortico } from '../support/portico-process.js';

// --persistence.wal-max-size: a write-ahead log that outgrows the limit is checkpointed into the
// persistence file at once, without waiting for --persistence.interval (an hour here), so the log
// on disk stays bounded; kill -9 right after the last acknowledged push loses none of them. The
// control (the trigger off: the same kind of load grows the log without bound) is the unit test's
// (test/pushgateway/store/write-ahead-log.test.ts), which needs no second server.

const LIMIT = 64 * 1024;
/** The log may pass the limit by what arrives while a checkpoint is written (pushes go on meanwhile). */
const BOUND = 8 * LIMIT;
const GROUPS = 100;
const PUSHES = 600;
const CONCURRENCY = 16;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const start = (dir: string, maxSize: string): Promise<RunningPortico> =>
  startPortico([
    '--data.dir', dir,
    '--pushgateway.listen-address', '127.0.0.1:0',
    '--management.listen-address', 'off',
    '--search.listen-address', 'off',
    '--internal.listen-address', 'off',
    '--persistence.interval', '1h',
    '--persistence.wal-max-size', maxSize,
  ]);

/** Bytes of the write-ahead log segments beside the persistence file. */
function walBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) {
    if (!f.startsWith('pushgateway.json.wal-')) continue;
    try {
      n += statSync(join(dir, f)).size;
    } catch {
      // Deleted by a checkpoint between the listing and the stat.
    }
  }
  return n;
}

/** A push of about 4 KB: forty series with long label values. */
const body = (value: number): string =>
  Array.from({ length: 40 }, (_, s) => `wal_size_value{series="${s}",padding="${'p'.repeat(60)}"} ${value + s}`).join('\n') + '\n';

/**
 * PUSHES pushes over CONCURRENCY connections, round-robin over GROUPS groups, sampling the log's
 * size every 5 ms; the last acknowledged value of each group and the largest size seen.
 */
async function load(port: number, dir: string): Promise<{ last: Map<number, number>; maxWal: number }> {
  const last = new Map<number, number>();
  let maxWal = 0;
  const sampler = setInterval(() => (maxWal = Math.max(maxWal, walBytes(dir))), 5);
  let next = 0;
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < PUSHES) {
        const i = next++;
        const group = i % GROUPS;
        const res = await fetch(`http://127.0.0.1:${port}/metrics/job/walsize/group/${group}`, { method: 'PUT', body: body(i) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`push ${i} answered ${res.status}`);
        // Pushes to one group are sent in order by different connections: keep the newest acknowledged.
        if ((last.get(group) ?? -1) < i) last.set(group, i);
      }
    }));
  } finally {
    clearInterval(sampler);
  }
  return { last, maxWal: Math.max(maxWal, walBytes(dir)) };
}

async function scrape(port: number): Promise<Map<number, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<number, number>();
  for (const m of text.matchAll(/^wal_size_value\{group="(\d+)",instance="",job="walsize",padding="p+",series="0"\} (\S+)$/gm)) {
    out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}

describe('push gateway: --persistence.wal-max-size', () => {
  it('checkpoints a log that outgrows the limit before the interval, keeps it bounded, and loses nothing to kill -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-pg-walsize-'));
    dirs.push(dir);
    const server = await start(dir, '64KiB');
    let run: Awaited<ReturnType<typeof load>>;
    try {
      run = await load(server.ports.pushgateway as number, dir);
    } finally {
      // At once after the last acknowledgement: a checkpoint may be under way.
      await server.stop('SIGKILL');
    }
    // Checkpoints were written during the load although the interval is an hour (the interval's
    // own write comes at the first change only): the last one holds most of the pushes.
    const checkpoint = JSON.parse(readFileSync(join(dir, 'pushgateway.json'), 'utf8')) as { walSeq?: number };
    expect(checkpoint.walSeq).toBeGreaterThan(PUSHES / 2);
    const restarted = await start(dir, '64KiB');
    let found: Map<number, number>;
    try {
      found = await scrape(restarted.ports.pushgateway as number);
    } finally {
      await restarted.stop();
    }
    const lost = [...run.last].filter(([g, v]) => found.get(g) !== v).map(([g, v]) => `group ${g}: pushed ${v}, found ${found.get(g)}`);
    console.log(`wal-max-size 64KiB: ${PUSHES} pushes acknowledged, log at most ${run.maxWal} bytes (bound ${BOUND}), checkpoint at record ${checkpoint.walSeq}, ${lost.length} of ${run.last.size} groups lost after kill -9`);
    expect(run.last.size).toBe(GROUPS);
    expect(lost, lost.join('; ')).toEqual([]);
    expect(run.maxWal).toBeLessThanOrEqual(BOUND);
  }, 120_000);
});
