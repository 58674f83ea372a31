import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DurableGroupStore } from '../../../src/pushgateway/store/durable-store.js';
import type { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import type { Group } from '../../../src/pushgateway/store/group.js';
import { encodeRecord, scanSegment, segmentPath, WalDamageError, type WalRecord } from '../../../src/pushgateway/store/write-ahead-log.js';
import type { Label, MetricFamily } from '../../../src/pushgateway/model.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'portico-wal-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const recs: WalRecord[] = [1, 2, 3].map((seq) => ({ seq, timeMs: 1_700_000_000_000 + seq, op: JSON.stringify({ kind: 'delete', grouping: [['job', `j${seq}`]] }) }));
const whole = Buffer.concat(recs.map(encodeRecord));
const lastStart = whole.length - encodeRecord(recs[2] as WalRecord).length;

describe('WAL segments', () => {
  it('reads back what was written', () => {
    expect(scanSegment(whole, 'seg', true)).toEqual({ records: recs, goodSize: whole.length });
  });

  it('cuts a torn last record at every byte offset, keeping the records before it', () => {
    for (let cut = lastStart; cut < whole.length; cut++) {
      const scanned = scanSegment(whole.subarray(0, cut), 'seg', true);
      expect(scanned.records).toEqual(recs.slice(0, 2));
      expect(scanned.goodSize).toBe(lastStart);
    }
  });

  it('cuts a last record whose bytes were damaged, or zeros a crash left after it', () => {
    const damaged = Buffer.from(whole);
    damaged.writeUInt8(damaged.readUInt8(whole.length - 2) ^ 0xff, whole.length - 2);
    expect(scanSegment(damaged, 'seg', true).records).toEqual(recs.slice(0, 2));
    const zeros = Buffer.concat([whole, Buffer.alloc(4096)]);
    expect(scanSegment(zeros, 'seg', true)).toEqual({ records: recs, goodSize: whole.length });
  });

  it('refuses damage followed by good records, naming the file and the offset', () => {
    const damaged = Buffer.from(whole);
    const second = encodeRecord(recs[0] as WalRecord).length;
    damaged.writeUInt8(damaged.readUInt8(second + 12) ^ 0x01, second + 12);
    expect(() => scanSegment(damaged, '/data/pg.json.wal-0000000000000001', true)).toThrow(
      new WalDamageError('/data/pg.json.wal-0000000000000001', second, 'a record whose CRC-32 does not match, followed by more records'),
    );
  });

  it('refuses a torn tail in a segment that is not the newest', () => {
    expect(() => scanSegment(whole.subarray(0, whole.length - 1), 'old', false)).toThrow(WalDamageError);
  });
});

const family = (name: string, type: 'counter' | 'gauge', value: number): MetricFamily => ({ name, help: `${name} help`, type, metrics: [{ labels: [], value }] });

type Op = { kind: 'push'; job: number; name: number; type: 'counter' | 'gauge'; value: number; replace: boolean; ttl: number } | { kind: 'delete'; job: number } | { kind: 'wipe' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('push' as const), job: fc.integer({ min: 0, max: 4 }), name: fc.integer({ min: 0, max: 3 }), type: fc.constantFrom('counter' as const, 'gauge' as const), value: fc.double({ noNaN: true, min: -1e6, max: 1e6 }), replace: fc.boolean(), ttl: fc.constantFrom(0, 0, 5_000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), job: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wipe' as const }) },
);

/** What an acknowledged write leaves: groups with a successful push, without failure times (not logged). */
const acknowledged = (groups: readonly Group[]) =>
  groups
    .filter((g) => g.pushTimeSeconds > 0)
    .map((g) => ({ labels: g.labels, push: g.pushTimeSeconds, expires: g.expiresAtMs, families: [...g.families.values()].map((s) => ({ at: s.pushedAtMs, f: s.family })) }));

async function runOps(store: DurableGroupStore | InMemoryGroupStore, ops: readonly Op[], clock: { t: number }): Promise<number> {
  let acked = 0;
  for (const op of ops) {
    clock.t += 1_000;
    const grouping: Label[] = [['job', `j${op.kind === 'wipe' ? 0 : op.job}`]];
    try {
      if (op.kind === 'push') await store.push({ grouping, families: [family(`m${op.name}`, op.type, op.value)], replace: op.replace, nowMs: clock.t, ttlMs: op.ttl });
      else if (op.kind === 'delete') await store.delete(grouping, clock.t);
      else await store.wipe();
      acked++;
    } catch {
      // refused (a type clash): nothing logged
    }
  }
  return acked;
}

describe('replay', () => {
  it('gives back the live store, push times and expiries included, across checkpoints and restarts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), fc.integer({ min: 0, max: 40 }), async (ops, checkpointAt) => {
        const dir = tempDir();
        const file = join(dir, 'pg.json');
        const clock = { t: 1_700_000_000_000 };
        const opts = { file, syncIntervalMs: 0, now: () => clock.t, onWriteError: () => undefined };
        const { store } = await DurableGroupStore.open(opts);
        await runOps(store, ops.slice(0, checkpointAt), clock);
        await store.checkpoint();
        await runOps(store, ops.slice(checkpointAt), clock);
        const live = acknowledged(store.groups(clock.t));
        // No close: as after kill -9, only what the WAL made durable is there.
        const { store: again, recovery } = await DurableGroupStore.open(opts);
        expect(acknowledged(again.groups(clock.t))).toEqual(live);
        expect(recovery.tornBytes).toBe(0);
        await store.close();
        await again.close();
      }),
      { numRuns: 40, seed: 23 },
    );
  });

  it('deletes the segments a checkpoint covers, and replays only what follows it', async () => {
    const dir = tempDir();
    const file = join(dir, 'pg.json');
    const clock = { t: 1_700_000_000_000 };
    const opts = { file, syncIntervalMs: 1, now: () => clock.t, onWriteError: () => undefined };
    const { store } = await DurableGroupStore.open(opts);
    await Promise.all([1, 2, 3].map((i) => store.push({ grouping: [['job', `j${i}`]], families: [family('a', 'gauge', i)], replace: true, nowMs: clock.t })));
    await store.checkpoint();
    await store.push({ grouping: [['job', 'after']], families: [family('a', 'gauge', 9)], replace: true, nowMs: clock.t });
    expect(readdirSync(dir).filter((n) => n.includes('.wal-'))).toEqual([segmentPath(file, 4).slice(dir.length + 1)]);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{"format":"portico-pushgateway","version":3,"walSeq":3,/);
    const { store: again, recovery } = await DurableGroupStore.open(opts);
    expect(recovery).toEqual({ checkpointGroups: 3, replayed: 1, tornBytes: 0 });
    expect(again.groupCount).toBe(4);
    await store.close();
    await again.close();
  });

  it('asks for a checkpoint once the log outgrows maxLogBytes (once until it starts), which keeps the log bounded; 0 never asks', async () => {
    // A checkpoint in flight may remove a segment between the listing and the read: it counts 0.
    const segmentBytes = (file: string): number => {
      try {
        return readFileSync(file).length;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw e;
      }
    };
    const walBytes = (dir: string): number => readdirSync(dir).filter((n) => n.includes('.wal-')).reduce((n, f) => n + segmentBytes(join(dir, f)), 0);
    const run = async (maxLogBytes: number): Promise<{ asked: number; maxWal: number; live: ReturnType<typeof acknowledged>; opts: Parameters<typeof DurableGroupStore.open>[0] }> => {
      const dir = tempDir();
      const clock = { t: 1_700_000_000_000 };
      let asked = 0;
      let checkpoint: Promise<void> = Promise.resolve();
      const opts = {
        file: join(dir, 'pg.json'),
        syncIntervalMs: 0,
        now: () => clock.t,
        onWriteError: () => undefined,
        maxLogBytes,
        onLogFull: () => {
          asked++;
          checkpoint = checkpoint.then(() => opened.store.checkpoint());
        },
      };
      const opened = await DurableGroupStore.open(opts);
      let maxWal = 0;
      for (let i = 0; i < 200; i++) {
        await opened.store.push({ grouping: [['job', `j${i % 20}`]], families: [family('a', 'gauge', i)], replace: true, nowMs: clock.t });
        maxWal = Math.max(maxWal, walBytes(dir));
        // The next push waits for a checkpoint asked for: on a busy machine one in flight (a file
        // written and fsynced) can take as long as many pushes, and the log grows meanwhile, as it
        // must (pushes never wait for checkpoints); what is checked here is that each checkpoint
        // drops what it covers, so the log is bounded by what came after it.
        await checkpoint;
      }
      const live = acknowledged(opened.store.groups(clock.t));
      await opened.store.close();
      return { asked, maxWal, live, opts };
    };
    const bounded = await run(2048);
    const off = await run(0);
    expect(off.asked).toBe(0);
    expect(off.maxWal).toBeGreaterThan(8 * 2048);
    // Each checkpoint drops what it covers: the log never holds more than maxLogBytes and one push.
    expect(bounded.asked).toBeGreaterThanOrEqual(5);
    expect(bounded.maxWal).toBeLessThanOrEqual(2 * 2048);
    // No close-time checkpoint: the size-triggered ones and the log after them hold every group.
    const { store: again } = await DurableGroupStore.open({ ...bounded.opts, maxLogBytes: 0 });
    expect(bounded.live).toHaveLength(20);
    expect(acknowledged(again.groups(1_700_000_000_000))).toEqual(bounded.live);
    await again.close();
  });

  it('cuts a torn tail on start and keeps appending after it', async () => {
    const dir = tempDir();
    const file = join(dir, 'pg.json');
    const clock = { t: 1_700_000_000_000 };
    const opts = { file, syncIntervalMs: 0, now: () => clock.t, onWriteError: () => undefined };
    const { store } = await DurableGroupStore.open(opts);
    await store.push({ grouping: [['job', 'a']], families: [family('a', 'gauge', 1)], replace: true, nowMs: clock.t });
    const seg = segmentPath(file, 1);
    writeFileSync(seg, Buffer.concat([readFileSync(seg), encodeRecord({ seq: 2, timeMs: clock.t, op: '{"kind":"wipe"}' }).subarray(0, 7)]));
    const { store: again, recovery } = await DurableGroupStore.open(opts);
    expect(recovery.tornBytes).toBe(7);
    expect(again.groupCount).toBe(1);
    await again.push({ grouping: [['job', 'b']], families: [family('a', 'gauge', 2)], replace: true, nowMs: clock.t });
    const { store: third } = await DurableGroupStore.open(opts);
    expect(third.groups(clock.t).map((g) => g.labels)).toEqual([[['job', 'a']], [['job', 'b']]]);
    for (const s of [store, again, third]) await s.close();
  });

  it('answers a write the disk refuses with an error, and goes back to what the disk holds', async () => {
    const dir = tempDir();
    const file = join(dir, 'pg.json');
    const clock = { t: 1_700_000_000_000 };
    const errors: unknown[] = [];
    const opts = { file, syncIntervalMs: 0, now: () => clock.t, onWriteError: (e: unknown) => errors.push(e) };
    const { store } = await DurableGroupStore.open(opts);
    await store.push({ grouping: [['job', 'kept']], families: [family('a', 'gauge', 1)], replace: true, nowMs: clock.t });
    // The next segment is /dev/full: every write to it fails as on a full disk.
    await store.checkpoint();
    symlinkSync('/dev/full', segmentPath(file, 2));
    await expect(store.push({ grouping: [['job', 'lost']], families: [family('a', 'gauge', 2)], replace: true, nowMs: clock.t })).rejects.toThrow(
      /^error writing the push to the write-ahead log: ENOSPC; the push was not stored, retry later$/,
    );
    expect(errors.length).toBe(1);
    // The store is restored from disk in the background (pushes are refused meanwhile): a fixed
    // 50 ms was too short on a busy machine, so wait for it, within a deadline.
    const kept = [[['job', 'kept']]];
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      if (isDeepStrictEqual(store.groups(clock.t).map((g) => g.labels), kept)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(store.groups(clock.t).map((g) => g.labels)).toEqual(kept);
    await store.close().catch(() => undefined);
  });
});
