import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPortico, type RunningPortico } from '../support/portico-process.js';

// kill -9 under push load: every push the gateway acknowledged (2xx) must be there after the
// restart, value and push_time_seconds, thanks to the write-ahead log (store/write-ahead-log.ts).
// A fixed seed chooses the kill moments; PORTICO_SOAK=1 runs 50 kills instead of 5.

const KILLS = process.env.PORTICO_SOAK === '1' ? 50 : 5;
const CLIENTS = 6;
const GROUPS_PER_CLIENT = 8;

/** mulberry32: the same kill moments on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Sent {
  readonly value: number;
  readonly sentAtMs: number;
  readonly answeredAtMs?: number;
}

/**
 * Per group (`c<client>/<group>`): the last push known to be in the store (acknowledged, or found
 * by a scrape after a restart), and the pushes sent since whose fate is unknown (in flight at a
 * kill: made durable or not). A group can miss its in-flight push at two kills in a row, so there
 * can be several unknown ones, and the store may hold any of them.
 */
interface Expected {
  known?: Sent;
  unknown: Sent[];
}

const dataDir = mkdtempSync(join(tmpdir(), 'portico-pg-kill-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (): Promise<RunningPortico> =>
  startPortico([
    '--data.dir', dataDir,
    '--pushgateway.listen-address', '127.0.0.1:0',
    '--management.listen-address', 'off',
    '--search.listen-address', 'off',
    '--internal.listen-address', 'off',
    // Checkpoints (and WAL rotation) happen during the load, not only at start.
    '--persistence.interval', '300ms',
  ]);

/** value and push_time_seconds of every group, from a scrape. */
async function scrape(port: number): Promise<Map<string, { value: number; pushTimeSeconds: number }>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, { value: number; pushTimeSeconds: number }>();
  const at = (key: string) => out.get(key) ?? (out.set(key, { value: NaN, pushTimeSeconds: NaN }).get(key) as { value: number; pushTimeSeconds: number });
  for (const m of text.matchAll(/^(wal_kill_value|push_time_seconds)\{group="(\d+)",instance="",job="(c\d+)"\} (\S+)$/gm)) {
    const [, name, group, job, v] = m as unknown as [string, string, string, string, string];
    if (name === 'wal_kill_value') at(`${job}/${group}`).value = Number(v);
    else at(`${job}/${group}`).pushTimeSeconds = Number(v);
  }
  return out;
}

async function client(port: number, c: number, expected: Map<string, Expected>, counter: { value: number; acked: number; stop: boolean }): Promise<void> {
  for (let i = 0; !counter.stop; i++) {
    const group = String(i % GROUPS_PER_CLIENT);
    const key = `c${c}/${group}`;
    const e = expected.get(key) ?? (expected.set(key, { unknown: [] }).get(key) as Expected);
    const sent: Sent = { value: ++counter.value, sentAtMs: Date.now() };
    e.unknown.push(sent);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics/job/c${c}/group/${group}`, {
        method: i % 3 === 0 ? 'POST' : 'PUT',
        body: `# TYPE wal_kill_value gauge\nwal_kill_value ${sent.value}\n`,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`push answered ${res.status}`);
      e.known = { ...sent, answeredAtMs: Date.now() };
      e.unknown = [];
      counter.acked++;
    } catch {
      // The server was killed: this push may or may not have been made durable.
      return;
    }
  }
}

/**
 * Every acknowledged push is there: each group holds its last known push or one sent after it whose
 * fate was unknown (then that one becomes the known state: the restart has decided it).
 */
function check(found: Map<string, { value: number; pushTimeSeconds: number }>, expected: Map<string, Expected>): string[] {
  const lost: string[] = [];
  for (const [key, e] of expected) {
    const got = found.get(key);
    const ok = (s: Sent | undefined): boolean =>
      s !== undefined &&
      got !== undefined &&
      got.value === s.value &&
      // Within a millisecond's rounding of the wall-clock window the push was handled in.
      got.pushTimeSeconds * 1000 >= s.sentAtMs - 1 &&
      got.pushTimeSeconds * 1000 <= (s.answeredAtMs ?? Date.now()) + 1;
    const decided = ok(e.known) ? e.known : e.unknown.find(ok);
    if (decided !== undefined) {
      e.known = decided;
      e.unknown = [];
    } else if (e.known === undefined && got === undefined) {
      e.unknown = [];
    } else {
      lost.push(`${key}: expected ${JSON.stringify(e)}, found ${JSON.stringify(got)}`);
    }
  }
  return lost;
}

describe('push gateway: kill -9 under push load', () => {
  it(`keeps every acknowledged push across ${KILLS} kills`, async () => {
    const random = prng(23);
    const expected = new Map<string, Expected>();
    const counter = { value: 0, acked: 0, stop: false };
    let checked = 0;
    const lost: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      const server = await start();
      const port = server.ports.pushgateway as number;
      const before = await scrape(port);
      lost.push(...check(before, expected));
      checked += expected.size;
      counter.stop = false;
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(port, c, expected, counter));
      await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 900)));
      await server.stop('SIGKILL');
      counter.stop = true;
      await Promise.all(clients);
    }
    const last = await start();
    try {
      lost.push(...check(await scrape(last.ports.pushgateway as number), expected));
      checked += expected.size;
    } finally {
      await last.stop();
    }
    console.log(`push gateway kill -9: ${counter.acked} pushes acknowledged, ${checked} group states checked after ${KILLS} kills, ${lost.length} lost`);
    expect(counter.acked).toBeGreaterThan(KILLS * CLIENTS);
    expect(lost, `lost: ${lost.join('; ')}`).toEqual([]);
  }, Math.max(120_000, KILLS * 6_000));
});

describe('push gateway: the write-ahead log with --push.enable-utf8-names', () => {
  it('takes UTF-8 names in a push and replays them after kill -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-pg-utf8-wal-'));
    const flags = ['--data.dir', dir, '--push.enable-utf8-names', '--management.listen-address', 'off', '--search.listen-address', 'off', '--internal.listen-address', 'off', '--pushgateway.listen-address', '127.0.0.1:0'];
    try {
      const first = await startPortico(flags);
      try {
        const url = `http://127.0.0.1:${first.ports.pushgateway as number}/metrics/job/u/U__l_2e_x/v`;
        const res = await fetch(url, { method: 'PUT', body: '{"metric.with.dots","l.y"="b"} 7\n' });
        expect(res.status, await res.text()).toBe(200);
      } finally {
        await first.stop('SIGKILL');
      }
      const second = await startPortico(flags);
      try {
        const text = await (await fetch(`http://127.0.0.1:${second.ports.pushgateway as number}/metrics`, { headers: { accept: 'text/plain;version=1.0.0;escaping=allow-utf-8' } })).text();
        expect(text).toMatch(/^\{"metric\.with\.dots",instance="",job="u","l\.x"="v","l\.y"="b"\} 7$/m);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
