import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Counter, Gauge, Pushgateway, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, pushedOnly, type Harness } from '../pushgateway/gateway-harness.js';
import { requireBinary } from '../pushgateway/peer-processes.js';

const run = promisify(execFile);
const PY_SCRIPT = new URL('../fixtures/pushgateway/gateway/python-client.py', import.meta.url).pathname;

let gw: (Harness & { url: string }) | undefined;
beforeAll(async () => {
  gw = await listenGateway([], TestClock.real());
});
afterAll(async () => {
  await gw?.app.close();
});

interface ApiGroup {
  labels: Record<string, string>;
  [family: string]: unknown;
}

async function apiGroups(): Promise<ApiGroup[]> {
  return ((await (await fetch(`${gw?.url}/api/v1/metrics`)).json()) as { data: ApiGroup[] }).data;
}

async function exposition(): Promise<string> {
  return pushedOnly(await (await fetch(`${gw?.url}/metrics`)).text());
}

describe("prom-client's Pushgateway class", () => {
  it('push (PUT), pushAdd (POST) and delete with grouping labels', async () => {
    const registry = new Registry();
    const g = new Gauge({ name: 'node_batch_last_run', help: 'Last run.', registers: [registry] });
    const c = new Counter({ name: 'node_batch_items_total', help: 'Items.', labelNames: ['kind'], registers: [registry] });
    g.set(99);
    c.inc({ kind: 'a' }, 2);
    const client = new Pushgateway(gw?.url as string, {}, registry);
    await client.push({ jobName: 'node_job', groupings: { instance: 'box 1', shard: '7' } });
    let text = await exposition();
    expect(text).toContain('node_batch_last_run{instance="box 1",job="node_job",shard="7"} 99\n');
    expect(text).toContain('node_batch_items_total{instance="box 1",job="node_job",kind="a",shard="7"} 2\n');

    const more = new Registry();
    new Gauge({ name: 'node_batch_extra', help: 'Extra.', registers: [more] }).set(1);
    await new Pushgateway(gw?.url as string, {}, more).pushAdd({ jobName: 'node_job', groupings: { instance: 'box 1', shard: '7' } });
    text = await exposition();
    expect(text).toContain('node_batch_extra{instance="box 1",job="node_job",shard="7"} 1\n');
    expect(text).toContain('node_batch_last_run{');

    await client.delete({ jobName: 'node_job', groupings: { instance: 'box 1', shard: '7' } });
    expect(await exposition()).not.toContain('node_job');
  });

  it('rejects a refused push with the gateway\'s message', async () => {
    const a = new Registry();
    new Gauge({ name: 'node_conflict', help: 'x', registers: [a] }).set(1);
    await new Pushgateway(gw?.url as string, {}, a).push({ jobName: 'one' });
    const b = new Registry();
    new Counter({ name: 'node_conflict', help: 'x', registers: [b] }).inc();
    await expect(new Pushgateway(gw?.url as string, {}, b).push({ jobName: 'two' })).rejects.toThrow(/push failed with status 400.*is not a GAUGE/s);
    await new Pushgateway(gw?.url as string, {}, a).delete({ jobName: 'one' });
  });
});

describe("Python's prometheus_client (Debian)", () => {
  const python = () => requireBinary('/usr/bin/python3', 'python3-prometheus-client');
  const py = (action: string) => run(python(), [PY_SCRIPT, gw?.url as string, action]);

  it('push_to_gateway with a job and grouping values containing / and empty values', async () => {
    await py('push');
    const group = (await apiGroups()).find((g) => g.labels.job === 'py/job');
    expect(group?.labels).toEqual({ empty: '', job: 'py/job', path: '/var/tmp/x', plain: 'a+b' });
    const text = await exposition();
    const key = 'empty="",instance="",job="py/job",path="/var/tmp/x",plain="a+b"';
    expect(text).toContain(`py_last_success_unixtime{${key}} 1.234567e+06\n`);
    expect(text).toContain('py_records_total{empty="",instance="",job="py/job",kind="ok",path="/var/tmp/x",plain="a+b"} 3\n');
    expect(text).toContain(`py_duration_seconds_bucket{${key},le="0.5"} 0\n`);
    expect(text).toContain(`py_duration_seconds_bucket{${key},le="+Inf"} 1\n`);
    expect(text).toContain(`py_size_bytes_sum{${key}} 42\n`);
    expect(text).toContain('# TYPE py_records_created gauge\n');
  });

  it('pushadd_to_gateway adds a family, push_to_gateway replaces the group, delete_from_gateway removes it', async () => {
    await py('pushadd');
    let text = await exposition();
    expect(text).toContain('py_extra{');
    expect(text).toContain('py_last_success_unixtime{');
    await py('push');
    text = await exposition();
    expect(text).not.toContain('py_extra{');
    await py('delete');
    expect((await apiGroups()).find((g) => g.labels.job === 'py/job')).toBeUndefined();
  });
});
