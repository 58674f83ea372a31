import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label, MetricFamily, MetricType } from '../../../src/pushgateway/model.js';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import { decodeOp } from '../../../src/pushgateway/store/op-log.js';
import { encodeGroups } from '../../../src/pushgateway/store/persistence.js';
import { RedisOpLog } from '../../../src/pushgateway/store/redis-op-log.js';
import { ReplicatedGroupStore } from '../../../src/pushgateway/store/replicated-store.js';
import type { RedisLocation } from '../../../src/pushgateway/store/store-location.js';
import { RedisServer } from '../redis-server.js';

/**
 * The replicated store on a real redis-server: whatever the interleaving of writes through
 * several replicas, every replica ends with the state of one in-memory store that receives the
 * writes in the order Redis logged them, and each replica's answer to a write (stored or refused)
 * is that store's answer.
 */
let redis: RedisServer;
let admin: Redis;
let run = 0;

beforeAll(async () => {
  redis = await RedisServer.start();
  admin = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true });
  await admin.connect();
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.close();
});

const execFileAsync = promisify(execFile);

/** Waits until every node of a new cluster answers `cluster_state:ok` to CLUSTER INFO. */
async function clusterStateOk(ports: readonly number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const clients = ports.map((port) => new Redis({ port, host: '127.0.0.1', lazyConnect: true }));
  try {
    for (;;) {
      const infos = await Promise.all(clients.map((c) => c.call('CLUSTER', 'INFO').then(String, (err: Error) => err.message)));
      if (infos.every((info) => info.includes('cluster_state:ok'))) return;
      if (Date.now() > deadline) throw new Error(`the cluster is not ok after ${timeoutMs} ms:\n${infos.join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    for (const c of clients) c.disconnect();
  }
}

function location(): RedisLocation {
  return { kind: 'redis', mode: 'standalone', nodes: [{ host: '127.0.0.1', port: redis.port }], db: 0, tls: false, username: undefined, masterName: undefined, display: redis.url };
}

interface Replica {
  readonly name: string;
  readonly store: ReplicatedGroupStore;
  /** Writes made through it so far (its nonces are `<name>:1`, `<name>:2`, ...). */
  writes: number;
}

async function replica(name: string, keyPrefix: string, snapshotEvery = 1000): Promise<Replica> {
  const log = new RedisOpLog({ location: location(), keyPrefix });
  await log.connect();
  const store = new ReplicatedGroupStore({ log, replica: name, now: Date.now, snapshotEvery });
  await store.sync();
  return { name, store, writes: 0 };
}

const grouping = fc.constantFrom<Label[]>([['job', 'j1']], [['job', 'j2']], [['job', 'j1'], ['instance', 'i1']]);
const family = fc.record({
  name: fc.constantFrom('m1', 'm2', 'm3'),
  type: fc.constantFrom<MetricType>('gauge', 'counter', 'untyped'),
  help: fc.constantFrom(undefined, 'help one', 'help two'),
  value: fc.constantFrom(0, 1.5, NaN, Infinity),
  empty: fc.boolean(),
});
const write = fc.record({
  replica: fc.nat({ max: 2 }),
  op: fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('push' as const), grouping, replace: fc.boolean(), families: fc.uniqueArray(family, { maxLength: 3, selector: (f) => f.name }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), grouping }) },
  ),
});

function toFamily(f: { name: string; type: MetricType; help: string | undefined; value: number; empty: boolean }): MetricFamily {
  return { name: f.name, help: f.help, type: f.type, metrics: f.empty ? [] : [{ labels: [['x', f.name]], value: f.value }] };
}

/** The whole log from Redis, replayed into one in-memory store: its state and its answer per nonce. */
async function reference(keyPrefix: string): Promise<{ state: string; refused: Map<string, boolean> }> {
  const raw = (await admin.xrange(`{${keyPrefix}}:log`, '-', '+')) as [string, string[]][];
  const ref = new InMemoryGroupStore();
  const refused = new Map<string, boolean>();
  let t = 0;
  for (const [, fields] of raw) {
    const f = new Map<string, string>();
    for (let i = 0; i < fields.length; i += 2) f.set(fields[i] as string, fields[i + 1] as string);
    t = Math.max(t, Number(f.get('t')));
    const op = decodeOp(f.get('op') as string);
    let failed = false;
    try {
      if (op.kind === 'push') ref.push({ grouping: op.grouping, families: op.families, replace: op.replace, nowMs: t });
      else if (op.kind === 'delete') ref.delete(op.grouping, t);
    } catch {
      failed = true;
    }
    refused.set(f.get('n') as string, failed);
  }
  return { state: encodeGroups(ref.groups(t)), refused };
}

describe('ReplicatedGroupStore on Redis', () => {
  it('leaves every replica in the state of one store receiving the writes in Redis order, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(write, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), async (waves) => {
        const prefix = `prop-${++run}`;
        const replicas = await Promise.all(['r0', 'r1', 'r2'].map((n) => replica(n, prefix)));
        try {
          const answers = new Map<string, boolean>();
          for (const wave of waves) {
            // The writes of a wave run concurrently: Redis decides their order.
            await Promise.all(
              wave.map(async ({ replica: i, op }) => {
                const r = replicas[i] as Replica;
                const nonce = `${r.name}:${++r.writes}`;
                try {
                  if (op.kind === 'push') await r.store.push({ grouping: op.grouping, families: op.families.map(toFamily), replace: op.replace, nowMs: 0 });
                  else await r.store.delete(op.grouping);
                  answers.set(nonce, false);
                } catch (err) {
                  expect((err as Error).name).toBe('ConsistencyError');
                  answers.set(nonce, true);
                }
              }),
            );
          }
          await Promise.all(replicas.map((r) => r.store.sync()));
          const ref = await reference(prefix);
          expect(answers).toEqual(ref.refused);
          for (const r of replicas) expect(encodeGroups(r.store.groups())).toBe(ref.state);
        } finally {
          await Promise.all(replicas.map((r) => r.store.close()));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('works through a Sentinel, which names the master', async () => {
    const sentinel = await RedisServer.sentinel(redis, 'pgmaster');
    const loc: RedisLocation = { ...location(), mode: 'sentinel', nodes: [{ host: '127.0.0.1', port: sentinel.port }], masterName: 'pgmaster', display: 'sentinel' };
    const log = new RedisOpLog({ location: loc, keyPrefix: `sentinel-${++run}` });
    await log.connect();
    const store = new ReplicatedGroupStore({ log, replica: 's', now: Date.now });
    const direct = await replica('d', `sentinel-${run}`);
    try {
      await store.push({ grouping: [['job', 'via_sentinel']], families: [toFamily({ name: 'm', type: 'gauge', help: undefined, value: 7, empty: false })], replace: true, nowMs: 0 });
      await direct.store.sync();
      expect(direct.store.get([['job', 'via_sentinel']])?.families.get('m')?.family.metrics[0]?.value).toBe(7);
    } finally {
      await store.close();
      await direct.store.close();
      await sentinel.close();
    }
  });

  it('works on a Redis Cluster (every key of the store in one slot)', async () => {
    const nodes = await Promise.all([0, 1, 2].map(() => RedisServer.clusterNode()));
    try {
      const created = await execFileAsync('/usr/bin/redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 })
        .catch((err: { stdout?: string; stderr?: string; message: string }) => ({ stdout: err.stdout ?? '', stderr: `${err.stderr ?? ''}${err.message}`, failed: true }));
      expect('failed' in created, created.stdout + created.stderr).toBe(false);
      // Each node says the cluster is usable once it has heard of every slot's owner: only then
      // does a client's first slots refresh see the whole cluster.
      await clusterStateOk(nodes.map((n) => n.port), 60_000);
      const loc: RedisLocation = { ...location(), mode: 'cluster', nodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })), display: 'cluster' };
      const stores = await Promise.all(
        ['c1', 'c2'].map(async (name) => {
          const log = new RedisOpLog({ location: loc, keyPrefix: 'cluster' });
          await log.connect();
          const store = new ReplicatedGroupStore({ log, replica: name, now: Date.now });
          await store.sync();
          return store;
        }),
      );
      try {
        const [c1, c2] = stores as [ReplicatedGroupStore, ReplicatedGroupStore];
        await c1.push({ grouping: [['job', 'on_cluster']], families: [toFamily({ name: 'm', type: 'gauge', help: undefined, value: 3, empty: false })], replace: true, nowMs: 0 });
        await expect(c2.push({ grouping: [['job', 'other']], families: [toFamily({ name: 'm', type: 'counter', help: undefined, value: 1, empty: false })], replace: true, nowMs: 0 })).rejects.toThrow(/inconsistent/);
        // Both read the shared log to its end: c2's refused push left a failure record that c1 has
        // seen or not yet, depending on when its own last read ran (a fresh clone's CI once caught
        // c1 before it).
        await Promise.all([c1.sync(), c2.sync()]);
        expect(encodeGroups(c2.groups())).toBe(encodeGroups(c1.groups()));
        expect(c1.get([['job', 'other']])?.pushFailureTimeSeconds).toBeGreaterThan(0);
        expect(c2.get([['job', 'on_cluster']])?.families.get('m')?.family.metrics[0]?.value).toBe(3);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  }, 180_000); // a guard: three redis-server nodes and a cluster handshake take seconds, more on a busy 2-core machine

  it('lets a replica that joins late start from the snapshot after older entries were trimmed', async () => {
    const prefix = `snap-${++run}`;
    const a = await replica('a', prefix, 3);
    const b = await replica('b', prefix, 3);
    try {
      for (let i = 0; i < 10; i++) {
        const via = i % 2 === 0 ? a : b;
        await via.store.push({ grouping: [['job', `j${i % 4}`]], families: [toFamily({ name: 'm', type: 'gauge', help: undefined, value: i, empty: false })], replace: i % 3 === 0, nowMs: 0 });
      }
      await a.store.sync();
      await b.store.sync();
      // Entries before the last snapshot's margin are gone from Redis.
      const first = (await admin.xrange(`{${prefix}}:log`, '-', '+', 'COUNT', 1)) as [string, string[]][];
      expect(Number(first[0]?.[0].split('-')[0])).toBeGreaterThan(1);
      const late = await replica('late', prefix, 3);
      try {
        expect(late.store.appliedSeq).toBe(a.store.appliedSeq);
        expect(encodeGroups(late.store.groups())).toBe(encodeGroups(a.store.groups()));
        expect(encodeGroups(b.store.groups())).toBe(encodeGroups(a.store.groups()));
        expect(late.store.groupCount).toBe(4);
      } finally {
        await late.store.close();
      }
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });
});
