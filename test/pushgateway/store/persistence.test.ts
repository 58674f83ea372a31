import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryGroupStore } from '../../../src/pushgateway/store/group-store.js';
import { PersistenceError } from '../../../src/pushgateway/errors.js';
import { DamagedFileError, Persister, decodeGroups, encodeGroups, loadGroups, saveGroups } from '../../../src/pushgateway/store/persistence.js';
import { buildGateway, pushedOnly } from '../gateway-harness.js';
import type { HistogramValue } from '../../../src/pushgateway/model.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-pg-persist-'));
});
afterEach(async () => {
  await chmod(dir, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

/** Native histograms with every field the model keeps, integer and float. */
const NATIVE_INT: HistogramValue = {
  sampleCount: 7,
  sampleSum: -2.5,
  buckets: [{ upperBound: 1, cumulativeCount: 3 }],
  native: {
    schema: -53,
    zeroThreshold: 2 ** -128,
    zeroCount: 1,
    negativeSpans: [{ offset: -3, length: 2 }],
    negativeDeltas: [1, -1],
    negativeCounts: [],
    positiveSpans: [{ offset: 0, length: 0 }, { offset: 2, length: 1 }],
    positiveDeltas: [4],
    positiveCounts: [],
  },
  createdTimestamp: { seconds: 1_700_000_000, nanos: 999 },
};
const NATIVE_FLOAT: HistogramValue = {
  sampleCount: 0,
  sampleCountFloat: 4.5,
  sampleSum: Infinity,
  buckets: [{ upperBound: 2, cumulativeCount: 0, cumulativeCountFloat: 1.5 }],
  native: { schema: 8, zeroCountFloat: 0.5, negativeSpans: [], negativeDeltas: [], negativeCounts: [], positiveSpans: [{ offset: 5, length: 2 }], positiveDeltas: [], positiveCounts: [1.5, NaN] },
};

function sampleStore(): InMemoryGroupStore {
  const store = new InMemoryGroupStore();
  store.push({
    grouping: [['job', 'j'], ['path', '/var/tmp']],
    replace: true,
    nowMs: 1_700_000_000_123,
    ttlMs: 3_600_000,
    families: [
      { name: 'g', help: 'with "quotes" and \\ and\nnewline', type: 'gauge', metrics: [{ labels: [['a', 'NaN']], value: NaN }, { labels: [['a', 'inf']], value: -Infinity }] },
      { name: 's', help: undefined, type: 'summary', metrics: [{ labels: [], summary: { sampleCount: 3, sampleSum: 1.5, quantiles: [{ quantile: 0.5, value: Infinity }] } }] },
      { name: 'h', help: 'h', type: 'histogram', metrics: [{ labels: [], histogram: { sampleCount: 2, sampleSum: 2, buckets: [{ upperBound: 1, cumulativeCount: 1 }, { upperBound: Infinity, cumulativeCount: 2 }] } }] },
      { name: 'nh', help: 'native', type: 'histogram', metrics: [{ labels: [['kind', 'int']], histogram: NATIVE_INT }, { labels: [['kind', 'float']], histogram: NATIVE_FLOAT }] },
    ],
  });
  store.recordFailure([['job', 'failed-only']], 1_700_000_001_000);
  return store;
}

describe('persistence format', () => {
  it('round-trips groups, special floats, help and TTL, with a format version', () => {
    const store = sampleStore();
    const groups = store.groups(0);
    const text = encodeGroups(groups);
    expect(JSON.parse(text)).toMatchObject({ format: 'portico-pushgateway', version: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    const back = decodeGroups(text);
    expect(encodeGroups(back)).toBe(text);
    expect(back.map((g) => [g.id, g.labels, g.pushTimeSeconds, g.pushFailureTimeSeconds, g.expiresAtMs])).toEqual(
      groups.map((g) => [g.id, g.labels, g.pushTimeSeconds, g.pushFailureTimeSeconds, g.expiresAtMs]),
    );
    expect(Number.isNaN(back[1]?.families.get("g")?.family.metrics[0]?.value)).toBe(true);
    const reloaded = new InMemoryGroupStore();
    reloaded.load(back);
    const render = (s: InMemoryGroupStore) => s.rendered(0).map((f) => f.text).join('');
    expect(render(reloaded)).toBe(render(store));
  });

  it('keeps every field of a native histogram (integer and float counts apart, spans, deltas, counts, created timestamp)', () => {
    const back = decodeGroups(encodeGroups(sampleStore().groups(0)));
    const metrics = back[1]?.families.get('nh')?.family.metrics;
    expect(metrics?.[0]?.histogram).toEqual(NATIVE_INT);
    const float = metrics?.[1]?.histogram;
    expect(float).toEqual({ ...NATIVE_FLOAT, sampleSum: Infinity, native: { ...NATIVE_FLOAT.native, positiveCounts: [1.5, NaN] } });
    expect(Number.isNaN(float?.native?.positiveCounts[1])).toBe(true);
  });

  it('reads a version 1 file: a histogram count that is not an integer becomes the float count', () => {
    const family = { name: 'h', type: 'histogram', metrics: [{ labels: [], histogram: { sampleCount: 4.5, sampleSum: 1, buckets: [{ upperBound: 1, cumulativeCount: 2.5 }, { upperBound: 2, cumulativeCount: 3 }] } }] };
    const v1 = JSON.stringify({ format: 'portico-pushgateway', version: 1, groups: [{ labels: [['job', 'j']], pushTimeSeconds: 1, pushFailureTimeSeconds: 0, families: [{ pushedAtMs: 1, family }] }] });
    expect(decodeGroups(v1)[0]?.families.get('h')?.family.metrics[0]?.histogram).toEqual({
      sampleCount: 0,
      sampleCountFloat: 4.5,
      sampleSum: 1,
      buckets: [{ upperBound: 1, cumulativeCount: 0, cumulativeCountFloat: 2.5 }, { upperBound: 2, cumulativeCount: 3 }],
    });
  });

  it('refuses a damaged native part', () => {
    // A version 2 file with a good checksum, so that the native part is what is damaged.
    const doc = (histogram: unknown) => {
      const groups = JSON.stringify([{ labels: [['job', 'j']], pushTimeSeconds: 1, pushFailureTimeSeconds: 0, families: [{ pushedAtMs: 1, family: { name: 'h', type: 'histogram', metrics: [{ labels: [], histogram }] } }] }]);
      return `{"format":"portico-pushgateway","version":2,"sha256":"${createHash('sha256').update(groups, 'utf8').digest('hex')}","groups":${groups}}`;
    };
    expect(() => decodeGroups(doc({ ...NATIVE_INT, native: { ...NATIVE_INT.native, positiveDeltas: ['4'] } }))).toThrow(/no histogram value/);
    expect(() => decodeGroups(doc({ ...NATIVE_INT, native: { ...NATIVE_INT.native, negativeSpans: [{ offset: 1 }] } }))).toThrow(/no histogram value/);
    expect(() => decodeGroups(doc({ ...NATIVE_INT, sampleCountFloat: 'x' }))).toThrow(/no histogram value/);
    expect(decodeGroups(doc(NATIVE_INT))).toHaveLength(1);
  });

  it('refuses other versions and malformed content with a message saying what is wrong', () => {
    expect(() => decodeGroups('{"format":"portico-pushgateway","version":99,"groups":[]}')).toThrow(/unsupported format version 99/);
    expect(() => decodeGroups('{"format":"portico-pushgateway","version":1,"groups":[{"labels":"x"}]}')).toThrow(/group 0/);
    expect(() => decodeGroups('[]')).toThrow(/not a portico-pushgateway persistence file/);
  });

  it('refuses values the encoders cannot format (a damaged number fails start-up, not every scrape)', () => {
    const doc = (family: unknown) =>
      JSON.stringify({ format: 'portico-pushgateway', version: 1, groups: [{ labels: [['job', 'j']], pushTimeSeconds: 1, pushFailureTimeSeconds: 0, families: [{ pushedAtMs: 1, family }] }] });
    expect(() => decodeGroups(doc({ name: 'g', type: 'gauge', metrics: [{ labels: [], value: '1' }] }))).toThrow(/metric 0: no gauge value/);
    expect(() => decodeGroups(doc({ name: 's', type: 'summary', metrics: [{ labels: [], summary: { sampleCount: 1, sampleSum: 1 } }] }))).toThrow(/no summary value/);
    expect(() =>
      decodeGroups(doc({ name: 'h', type: 'histogram', metrics: [{ labels: [], histogram: { sampleCount: 1, sampleSum: 1, buckets: [{ upperBound: 1 }] } }] })),
    ).toThrow(/no histogram value/);
    expect(decodeGroups(doc({ name: 'g', type: 'gauge', metrics: [{ labels: [], value: { $num: 'NaN' } }] }))).toHaveLength(1);
  });

  it('detects damage with the checksum: a changed digit, a cut file, a damaged head', () => {
    const text = encodeGroups(sampleStore().groups(0));
    expect(decodeGroups(text).length).toBeGreaterThan(0);
    const digit = text.search(/[0-9](?=[^"]*$)/);
    const changed = text.slice(0, digit) + String((Number(text[digit]) + 1) % 10) + text.slice(digit + 1);
    expect(() => decodeGroups(changed)).toThrow(DamagedFileError);
    expect(() => decodeGroups(changed)).toThrow('its content does not match its SHA-256 checksum');
    expect(() => decodeGroups(text.slice(0, -1))).toThrow(DamagedFileError);
    expect(() => decodeGroups(text.replace('"sha256":"', '"sha256" :"'))).toThrow(/its head is damaged/);
    // A version 1 file, written before the checksum, is still read.
    expect(decodeGroups(JSON.stringify({ ...(JSON.parse(text) as object), version: 1, sha256: undefined }))).toHaveLength(decodeGroups(text).length);
  });

  it('refuses a repeated grouping key or family name instead of keeping only the last', () => {
    // Version 1 (no checksum), so that the edited documents reach the checks of their content.
    const doc = { ...(JSON.parse(encodeGroups(sampleStore().groups(0))) as { groups: { labels: unknown; families: unknown[] }[] }), version: 1, sha256: undefined };
    const [first, second] = doc.groups as [{ labels: unknown; families: unknown[] }, { labels: unknown; families: unknown[] }];
    expect(() => decodeGroups(JSON.stringify({ ...doc, groups: [first, { ...second, labels: first.labels }] }))).toThrow(
      /group 1 has the same grouping key as group 0/,
    );
    const withTwin = { ...second, families: [...second.families, second.families[0]] };
    expect(() => decodeGroups(JSON.stringify({ ...doc, groups: [first, withTwin] }))).toThrow(/group 1, family 4: family "g" appears twice/);
  });
});

describe('persistence file', () => {
  it('a missing file is an empty store; a corrupt one is reported with its name', async () => {
    expect(await loadGroups(join(dir, 'absent.json'))).toEqual([]);
    const file = join(dir, 'corrupt.json');
    await writeFile(file, '{"format":"portico-pushgateway","version":1,"groups":[');
    await expect(loadGroups(file)).rejects.toThrow(PersistenceError);
    await expect(loadGroups(file)).rejects.toThrow(file);
  });

  it('stops the app from starting on a corrupt file, and leaves the file alone', async () => {
    const file = join(dir, 'pg.json');
    await writeFile(file, 'garbage');
    await expect(buildGateway([`--persistence.file=${file}`])).rejects.toThrow(/pg\.json: the persistence file is corrupt/);
    expect(await readFile(file, 'utf8')).toBe('garbage');
  });

  it('writes atomically: a write that fails part-way leaves the previous file intact', async () => {
    const file = join(dir, 'pg.json');
    await saveGroups(file, sampleStore().groups(0));
    const before = await readFile(file, 'utf8');
    // A file-size limit stops the new write part-way for every user, root included (a read-only
    // directory would not stop root): the kernel refuses the write past 1 KiB with EFBIG.
    const big = JSON.stringify('x'.repeat(64 * 1024));
    const script = [
      `import { saveGroups } from ${JSON.stringify(new URL('../../../src/pushgateway/store/persistence.ts', import.meta.url).pathname)};`,
      `const groups = [{ id: 'job\\xffbig', labels: [['job', 'big']], families: new Map([['g', { pushedAtMs: 0, family: { name: 'g', help: ${big}, type: 'gauge', metrics: [{ labels: [], value: 1 }] } }]]), pushTimeSeconds: 1, pushFailureTimeSeconds: 0, expiresAtMs: undefined }];`,
      `process.on('SIGXFSZ', () => undefined);`,
      `await saveGroups(${JSON.stringify(file)}, groups).then(() => process.exit(0), (e) => { console.error(e.code); process.exit(3); });`,
    ].join('\n');
    const child = spawnSync('bash', ['-c', `ulimit -f 1; exec "${process.execPath}" --import tsx --input-type=module -e "$0"`, script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(3);
    expect(child.stderr).toContain('EFBIG');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await readdir(dir)).filter((f) => f !== 'pg.json')).toEqual([]);
  });

  it('Persister writes at most once per interval after changes, and on close', async () => {
    const file = join(dir, 'pg.json');
    let groups = sampleStore().groups(0);
    let now = 0;
    const errors: unknown[] = [];
    const p = new Persister({ file, intervalMs: 60_000, snapshot: () => groups, now: () => now, onError: (e) => errors.push(e) });
    p.markDirty();
    // The first write is due at once; on a loaded machine it may take a moment.
    for (let i = 0; i < 200 && (await readFile(file, 'utf8').catch(() => '')) === ''; i++) await new Promise((r) => setTimeout(r, 25));
    expect(decodeGroups(await readFile(file, 'utf8'))).toHaveLength(2);
    groups = [];
    now = 1000;
    p.markDirty();
    await new Promise((r) => setTimeout(r, 20));
    expect(decodeGroups(await readFile(file, 'utf8'))).toHaveLength(2);
    await p.close();
    expect(decodeGroups(await readFile(file, 'utf8'))).toHaveLength(0);
    expect(errors).toEqual([]);
  });

  it('Persister retries a failed write an interval later, without waiting for another change, and says when it works again', async () => {
    const file = join(dir, 'pg.json');
    // A directory where the file should be: the rename fails (EISDIR), even as root.
    await mkdir(file);
    const errors: unknown[] = [];
    let recovered = 0;
    const p = new Persister({ file, intervalMs: 20, snapshot: () => sampleStore().groups(0), now: Date.now, onError: (e) => errors.push(e), onRecovered: () => recovered++ });
    p.markDirty();
    for (let i = 0; i < 200 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(errors.length).toBeGreaterThan(0);
    expect(recovered).toBe(0);
    await rm(file, { recursive: true });
    for (let i = 0; i < 200 && recovered === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(decodeGroups(await readFile(file, 'utf8'))).toHaveLength(2);
    expect(recovered).toBe(1);
    // Later good writes are no recovery.
    p.markDirty();
    await p.flush();
    expect(recovered).toBe(1);
    await p.close();
  });

  it('survives a restart of the app: written on close, loaded on start; expired groups are dropped', async () => {
    const file = join(dir, 'sub', 'pg.json');
    const first = await buildGateway([`--persistence.file=${file}`, '--persistence.interval=1h']);
    await first.app.inject({ method: 'PUT', url: '/metrics/job/keep/a/1', payload: '# HELP k Kept.\n# TYPE k counter\nk 5\n' });
    await first.app.inject({ method: 'PUT', url: '/metrics/job/brief', payload: 'b 1\n', headers: { 'x-portico-group-ttl': '10s' } });
    const exposed = pushedOnly((await first.app.inject({ method: 'GET', url: '/metrics' })).body);
    await first.app.close();
    const second = await buildGateway([`--persistence.file=${file}`], first.clock);
    expect(pushedOnly((await second.app.inject({ method: 'GET', url: '/metrics' })).body)).toBe(exposed);
    first.clock.advance(11_000);
    expect(pushedOnly((await second.app.inject({ method: 'GET', url: '/metrics' })).body)).not.toContain('brief');
    await second.app.close();
    const groups = decodeGroups(await readFile(file, 'utf8'));
    expect(groups.map((g) => g.labels)).toEqual([[['a', '1'], ['job', 'keep']]]);
  });

  it('defaults to <data.dir>/pushgateway.json', async () => {
    const h = await buildGateway([`--data.dir=${dir}`, '--persistence.file=']);
    await h.app.inject({ method: 'PUT', url: '/metrics/job/d', payload: 'x 1\n' });
    await h.app.close();
    expect(decodeGroups(await readFile(join(dir, 'pushgateway.json'), 'utf8'))).toHaveLength(1);
  });
});
