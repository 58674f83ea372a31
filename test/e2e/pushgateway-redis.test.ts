import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startPushgatewayReplica, type RunningPortico } from '../support/portico-process.js';
import { eventually } from '../pushgateway/peer-processes.js';
import { RedisServer } from '../pushgateway/redis-server.js';

/**
 * Replicas of `portico serve` sharing their push groups through a real redis-server (Debian's
 * package, started here on a free port). How long Redis stays away in the outage test is
 * PORTICO_REDIS_OUTAGE_SECONDS (3 by default so that `make test` stays fast; 30 for the issue's
 * soak: `PORTICO_REDIS_OUTAGE_SECONDS=30 npx vitest run test/e2e/pushgateway-redis.test.ts`).
 */
const OUTAGE_MS = Number(process.env.PORTICO_REDIS_OUTAGE_SECONDS ?? '3') * 1000;

let redis: RedisServer;
const dirs: string[] = [];
const replicas: RunningPortico[] = [];

async function startReplica(extra: readonly string[] = [], url = redis.url): Promise<RunningPortico> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-redis-replica-'));
  dirs.push(dir);
  const p = await startPushgatewayReplica(dir, url, extra);
  replicas.push(p);
  return p;
}

const base = (r: RunningPortico): string => `http://127.0.0.1:${r.ports.pushgateway}`;

async function send(r: RunningPortico, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base(r)}${path}`, { method, body, headers });
  return { status: res.status, text: await res.text() };
}

async function get(r: RunningPortico, path: string): Promise<string> {
  const res = await send(r, 'GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.text;
}

/** /api/v1/metrics of a replica: the groups as the JSON API gives them. */
const groupsOf = (r: RunningPortico): Promise<string> => get(r, '/api/v1/metrics');

/** Waits until every replica's /api/v1/metrics is the same and `check` holds for it; returns it. */
async function agreed(among: readonly RunningPortico[], check: (json: string) => boolean, what: string): Promise<string> {
  return eventually(
    async () => {
      const all = await Promise.all(among.map(groupsOf));
      return all.every((j) => j === all[0]) && check(all[0] as string) ? all[0] : undefined;
    },
    15_000,
    what,
  );
}

/** A sample line of the exposition, e.g. `ownMetric(text, 'portico_pushgateway_store_up')`. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

beforeAll(async () => {
  redis = await RedisServer.start();
  for (let i = 0; i < 3; i++) await startReplica();
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
  await redis?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('push gateway replicas sharing Redis', () => {
  it('shows a push acknowledged by one replica in every replica’s /metrics, /api/v1/metrics and console', async () => {
    const [a, b, c] = replicas as [RunningPortico, RunningPortico, RunningPortico];
    expect((await send(a, 'PUT', '/metrics/job/seen/instance/i1', '# TYPE seen_total counter\nseen_total{k="v"} 42\n')).status).toBe(200);
    const acked = Date.now();
    const delays = await Promise.all(
      [b, c].map(async (r) => {
        while (!(await get(r, '/metrics')).includes('seen_total{instance="i1",job="seen",k="v"} 42')) {
          if (Date.now() - acked > 10_000) throw new Error('the push did not reach every replica in 10 s');
          await new Promise((t) => setTimeout(t, 10));
        }
        return Date.now() - acked;
      }),
    );
    for (const r of [b, c]) {
      expect(await get(r, '/api/v1/metrics')).toContain('"seen_total"');
      const page = await get(r, '/');
      expect(page).toContain('seen_total');
      expect(page).toMatch(/Answered by replica<\/td><td>[^<]+:\d+:[0-9a-f]{8}</);
    }
    // Printed, not asserted (no timing assertions in tests): the issue asks for under a second.
    console.log(`push acknowledged by one replica visible in the two others' /metrics after ${delays.join(' and ')} ms`);
  });

  it('holds the consistency check across replicas: a refused push changes nothing anywhere', async () => {
    const [a, b, c] = replicas as [RunningPortico, RunningPortico, RunningPortico];
    expect((await send(a, 'PUT', '/metrics/job/typed', '# TYPE shared_metric gauge\nshared_metric 1\n')).status).toBe(200);
    const before = await agreed(replicas, (j) => j.includes('shared_metric'), 'the gauge everywhere');
    const refused = await send(b, 'PUT', '/metrics/job/other', '# TYPE shared_metric counter\nshared_metric 2\n# TYPE other_metric gauge\nother_metric 3\n');
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/^pushed metrics are invalid or inconsistent with existing metrics: .*shared_metric/);
    const after = await agreed(replicas, (j) => j.includes('"other"'), 'the refused push’s failure time everywhere');
    expect(after).not.toContain('other_metric');
    const scrape = await get(c, '/metrics');
    expect(scrape).toContain('shared_metric{instance="",job="typed"} 1');
    expect(scrape).not.toContain('other_metric');
    expect(after.length).toBeGreaterThan(before.length);
  });

  it('applies concurrent POSTs and PUTs to one group through different replicas whole, the same everywhere', async () => {
    const posts = Array.from({ length: 30 }, (_, i) => send(replicas[i % 3] as RunningPortico, 'POST', '/metrics/job/busy', `posted_${i} ${i}\n`));
    expect((await Promise.all(posts)).map((r) => r.status)).toEqual(Array(30).fill(200));
    const all = await agreed(replicas, (j) => j.includes('posted_29'), 'the 30 POSTs');
    for (let i = 0; i < 30; i++) expect(all).toContain(`"posted_${i}"`);

    const puts = Array.from({ length: 20 }, (_, i) => send(replicas[i % 3] as RunningPortico, 'PUT', '/metrics/job/busy', `put_a ${i}\nput_b ${i}\nput_c ${i}\n`));
    expect((await Promise.all(puts)).map((r) => r.status)).toEqual(Array(20).fill(200));
    await agreed(replicas, (j) => !j.includes('posted_'), 'the PUTs replacing the POSTs');
    const text = await get(replicas[2] as RunningPortico, '/metrics');
    const values = ['put_a', 'put_b', 'put_c'].map((n) => sample(text.replace(/\{[^}]*\}/g, ''), n));
    // One PUT won whole: its three families, never a mix of two PUTs.
    expect(values[0]).toBeDefined();
    expect(new Set(values).size).toBe(1);
  });

  it('expires a group with a TTL in every replica', async () => {
    const [a] = replicas as [RunningPortico];
    expect((await send(a, 'PUT', '/metrics/job/short', 'short_lived 1\n', { 'x-portico-group-ttl': '2s' })).status).toBe(200);
    await agreed(replicas, (j) => j.includes('short_lived'), 'the group with a TTL everywhere');
    await agreed(replicas, (j) => !j.includes('short_lived'), 'the group expired everywhere');
  });

  it('keeps the groups when Redis restarts, and answers pushes again', async () => {
    const before = await agreed(replicas, () => true, 'agreement');
    await redis.stop();
    await redis.resume();
    await eventually(async () => ((await send(replicas[1] as RunningPortico, 'PUT', '/metrics/job/after_restart', 'after_restart 1\n')).status === 200 ? true : undefined), 15_000, 'a push after the restart');
    const after = await agreed(replicas, (j) => j.includes('after_restart'), 'the push after the restart everywhere');
    expect(after).toContain('"seen_total"');
    expect(after.length).toBeGreaterThan(before.length);
  });

  it(`answers pushes 503 while Redis is away (${OUTAGE_MS} ms), serves the last state with its staleness, and recovers by itself`, async () => {
    const [a, b, c] = replicas as [RunningPortico, RunningPortico, RunningPortico];
    const before = await agreed(replicas, () => true, 'agreement');
    await redis.stop();
    const refused = await send(a, 'PUT', '/metrics/job/during_outage', 'during_outage 1\n');
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/^push gateway store unavailable: .*nothing was changed, retry later/);
    expect((await send(b, 'DELETE', '/metrics/job/seen/instance/i1')).status).toBe(503);
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    for (const r of replicas) {
      expect(await groupsOf(r)).toBe(before);
      const own = await get(r, '/metrics');
      expect(sample(own, 'portico_pushgateway_store_up')).toBe(0);
      expect(sample(own, 'portico_pushgateway_store_staleness_seconds')).toBeGreaterThan(1);
    }
    await redis.resume();
    await eventually(async () => ((await send(c, 'PUT', '/metrics/job/after_outage', 'after_outage 1\n')).status === 200 ? true : undefined), 15_000, 'a push after the outage');
    const after = await agreed(replicas, (j) => j.includes('after_outage'), 'the push after the outage everywhere');
    expect(after).not.toContain('during_outage');
    // Own metrics are collected at most once a second, so the gauge follows within that.
    for (const r of replicas) await eventually(async () => (sample(await get(r, '/metrics'), 'portico_pushgateway_store_up') === 1 ? true : undefined), 5000, 'store_up 1');
  });

  it('refills a Redis that came back empty from the replicas’ state', async () => {
    const before = await agreed(replicas, () => true, 'agreement');
    await redis.stop();
    await redis.resume({ wipe: true });
    await eventually(async () => ((await send(replicas[0] as RunningPortico, 'POST', '/metrics/job/refilled', 'refilled 1\n')).status === 200 ? true : undefined), 15_000, 'a push after the wipe');
    const after = await agreed(replicas, (j) => j.includes('refilled'), 'the push after the wipe everywhere');
    expect(after).toContain('"after_outage"');
    expect(after.length).toBeGreaterThan(before.length);
  });

  it('keeps every push whole when a replica is killed with SIGKILL in the middle of pushes', async () => {
    const victim = await startReplica();
    const pushes = Array.from({ length: 200 }, (_, i) =>
      send(victim, 'PUT', `/metrics/job/killed/n/${i % 20}`, `whole_a ${i}\nwhole_b ${i}\nwhole_c ${i}\n`).then(
        (r) => r.status,
        () => 0,
      ),
    );
    await eventually(async () => ((await groupsOf(replicas[0] as RunningPortico)).includes('whole_c') ? true : undefined), 15_000, 'the first pushes');
    await victim.stop('SIGKILL');
    const statuses = await Promise.all(pushes);
    const survivors = replicas.filter((r) => r !== victim);
    const state = await agreed(survivors, () => true, 'the survivors agreeing');
    const groups = JSON.parse(state) as { data: { labels: Record<string, string>; [name: string]: unknown }[] };
    const killed = groups.data.filter((g) => g.labels.job === 'killed');
    expect(killed.length).toBeGreaterThan(0);
    for (const g of killed) {
      const values = ['whole_a', 'whole_b', 'whole_c'].map((n) => (g[n] as { metrics: { value: string }[] } | undefined)?.metrics[0]?.value);
      expect(new Set(values).size).toBe(1);
      expect(values[0]).toBeDefined();
    }
    console.log(`SIGKILL mid-push: ${statuses.filter((s) => s === 200).length} of 200 pushes acknowledged, ${killed.length} groups whole in the survivors`);
  });

  it('logs in as an ACL user with the password from --pushgateway.redis.password-file', async () => {
    const acl = await new Promise<string>((resolve, reject) => {
      const socket = connect(redis.port, '127.0.0.1', () => socket.write('ACL SETUSER pusher on >s3cret-pass ~* &* +@all\r\n'));
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString());
      });
      socket.once('error', reject);
    });
    expect(acl).toBe('+OK\r\n');
    const secret = join(dirs[0] as string, 'redis-password');
    writeFileSync(secret, 's3cret-pass\n', { mode: 0o600 });
    const pusher = await startReplica(['--pushgateway.redis.password-file', secret], `redis://pusher@127.0.0.1:${redis.port}/0`);
    await eventually(async () => ((await send(pusher, 'PUT', '/metrics/job/with_acl', 'with_acl 1\n')).status === 200 ? true : undefined), 15_000, 'a push as the ACL user');
    await agreed([replicas[0] as RunningPortico, pusher], (j) => j.includes('with_acl'), 'the ACL user’s push everywhere');
    expect(pusher.lines.join('\n')).not.toContain('s3cret-pass');
  });

  it('refuses a password in --pushgateway.store at start-up (exit 2), without echoing it', () => {
    const res = spawnSync(process.execPath, [CLI, 'serve', '--pushgateway.store', 'redis://u:hunter2@127.0.0.1:1/0'], { encoding: 'utf8' });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('holds a password');
    expect(res.stderr).toContain('--pushgateway.redis.password-file');
    expect(res.stderr + res.stdout).not.toContain('hunter2');
  });
});
