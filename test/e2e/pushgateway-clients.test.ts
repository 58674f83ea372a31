import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Counter, Gauge, Pushgateway, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, pushedOnly, type Harness } from '../pushgateway/gateway-harness.js';
import { goPeer, pushgatewayForFile } from '../pushgateway/peer-processes.js';
import { PROTOBUF_CONTENT_TYPE, parseProtobufDelimited } from '../../src/pushgateway/exposition/protobuf.js';
import type { MetricFamily } from '../../src/pushgateway/model.js';

const run = promisify(execFile);

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

describe("Go's client_golang push package (test/peers/push-client, against Portico and Pushgateway 1.11.1)", () => {
  const pg = pushgatewayForFile();
  const goPush = async (url: string, args: string[]): Promise<{ ok: boolean; out: string }> => {
    try {
      const r = await run(goPeer('push-client'), ['-url', url, ...args]);
      return { ok: r.stdout === 'ok\n', out: r.stdout + r.stderr };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  };
  /** Both gateways' /metrics lines of one job, push times left out (they differ by nature). */
  const jobLines = async (url: string, job: string): Promise<string[]> =>
    (await (await fetch(`${url}/metrics`)).text()).split('\n').filter((l) => l.includes(`job="${job}"`) && !/^push_(?:failure_)?time_seconds/.test(l));
  const bothSay = async (job: string): Promise<string[]> => {
    const ours = await jobLines(gw?.url as string, job);
    expect(ours).toEqual(await jobLines(pg().url, job));
    return ours;
  };

  it.each(['protobuf', 'text'])('Push (PUT), Add (POST) and Delete with grouping labels, in %s', async (format) => {
    const group = ['-job', `go_${format}`, '-group', 'instance=box 1', '-group', 'path=/var/x', '-format', format];
    for (const url of [gw?.url as string, pg().url]) {
      expect(await goPush(url, [...group, '-counter', 'go_items_total=3', '-gauge', 'go_last=12.5', '-histogram', 'go_dur=0.5,3'])).toEqual({ ok: true, out: 'ok\n' });
    }
    // client_golang escapes a grouping value with url.QueryEscape ("box 1" → box+1) and
    // Pushgateway unescapes the path, where + stays +: both gateways store "box+1".
    const key = `instance="box+1",job="go_${format}",path="/var/x"`;
    let lines = await bothSay(`go_${format}`);
    expect(lines).toContain(`go_items_total{${key}} 3`);
    expect(lines).toContain(`go_last{${key}} 12.5`);
    expect(lines).toContain(`go_dur_bucket{${key},le="2"} 1`);
    expect(lines).toContain(`go_dur_sum{${key}} 3.5`);

    for (const url of [gw?.url as string, pg().url]) {
      expect((await goPush(url, [...group, '-method', 'post', '-gauge', 'go_extra=1'])).ok).toBe(true);
    }
    lines = await bothSay(`go_${format}`);
    expect(lines).toContain(`go_extra{${key}} 1`);
    expect(lines).toContain(`go_last{${key}} 12.5`);

    for (const url of [gw?.url as string, pg().url]) expect((await goPush(url, [...group, '-method', 'delete'])).ok).toBe(true);
    expect(await bothSay(`go_${format}`)).toEqual([]);
  });

  it('gets the same refusal text for a type conflict across groups', async () => {
    const outs: string[] = [];
    for (const url of [gw?.url as string, pg().url]) {
      expect((await goPush(url, ['-job', 'go_one', '-gauge', 'go_conflict=1'])).ok).toBe(true);
      const refused = await goPush(url, ['-job', 'go_two', '-counter', 'go_conflict=1']);
      expect(refused.ok).toBe(false);
      outs.push(refused.out.replace(url, '<gateway>'));
      await goPush(url, ['-job', 'go_one', '-method', 'delete']);
    }
    expect(outs[0]).toMatch(/^unexpected status code 400 while pushing to <gateway>\/metrics\/job\/go_two: pushed metrics are invalid or inconsistent with existing metrics: .*go_conflict/s);
    // Pushgateway prints the Go struct of the refused metric (`label:{...} counter:{value:1}`);
    // Portico says the same in its own rendering, so only the head of the text is compared.
    expect(outs[0]?.split(' collected metric')[0]).toBe(outs[1]?.split(' collected metric')[0]);
  });

  it('a native histogram (integer counts) is accepted and exposed in the text format as Pushgateway does', async () => {
    for (const url of [gw?.url as string, pg().url]) {
      expect(await goPush(url, ['-job', 'go_native', '-native-histogram', 'go_native_seconds=0.5,1,1.5,100'])).toEqual({ ok: true, out: 'ok\n' });
    }
    // Only the classic view: the +Inf bucket, sum and count.
    expect(await bothSay('go_native')).toEqual([
      'go_native_seconds_bucket{instance="",job="go_native",le="+Inf"} 4',
      'go_native_seconds_sum{instance="",job="go_native"} 103',
      'go_native_seconds_count{instance="",job="go_native"} 4',
    ]);
  });

  /** One family of a protobuf scrape, decoded, its created timestamp left out (each push has its own). */
  const protoFamily = async (url: string, name: string): Promise<MetricFamily | undefined> => {
    const res = await fetch(`${url}/metrics`, { headers: { Accept: PROTOBUF_CONTENT_TYPE } });
    const family = parseProtobufDelimited(new Uint8Array(await res.arrayBuffer())).find((f) => f.name === name);
    if (family === undefined) return undefined;
    return { ...family, metrics: family.metrics.map((m) => ({ ...m, histogram: m.histogram && { ...m.histogram, createdTimestamp: undefined } })) };
  };
  const apiFamily = async (url: string, job: string, name: string): Promise<{ metrics: { buckets: [number, string, string, string][]; count: string }[] }> => {
    const data = ((await (await fetch(`${url}/api/v1/metrics`)).json()) as { data: ApiGroup[] }).data;
    const family = data.find((g) => g.labels.job === job)?.[name] as Record<string, unknown>;
    delete family.time_stamp;
    return family as { metrics: { buckets: [number, string, string, string][]; count: string }[] };
  };

  it("keeps a native histogram's schema, zero bucket and sparse buckets, exposed in protobuf and /api/v1/metrics as Pushgateway 1.11.1 does", async () => {
    for (const url of [gw?.url as string, pg().url]) {
      expect(await goPush(url, ['-job', 'go_native2', '-native-histogram', 'go_native2_seconds=-3,0,0.5,1,1.5,100'])).toEqual({ ok: true, out: 'ok\n' });
    }
    const ours = await protoFamily(gw?.url as string, 'go_native2_seconds');
    expect(ours).toEqual(await protoFamily(pg().url, 'go_native2_seconds'));
    expect(ours?.metrics[0]?.histogram?.native).toMatchObject({ schema: 3, zeroThreshold: 2 ** -128, zeroCount: 1, negativeSpans: [{ offset: 13, length: 1 }] });
    const theirs = await apiFamily(pg().url, 'go_native2', 'go_native2_seconds');
    const mine = await apiFamily(gw?.url as string, 'go_native2', 'go_native2_seconds');
    // Schema 3's bounds: Pushgateway prints Prometheus's table, a few ulps below the exact bounds
    // Portico prints (docs/pushgateway.md, "Differences"); everything else is the same text.
    const close = (a: string, b: string): boolean => a === b || Math.abs(Number(a) - Number(b)) <= 4 * 2 ** (Math.floor(Math.log2(Math.abs(Number(b)))) - 52);
    const buckets = mine.metrics[0]?.buckets ?? [];
    expect(buckets).toHaveLength(theirs.metrics[0]?.buckets.length ?? -1);
    buckets.forEach((b, i) => {
      const t = theirs.metrics[0]?.buckets[i] as [number, string, string, string];
      expect([b[0], b[3], close(b[1], t[1]), close(b[2], t[2])]).toEqual([t[0], t[3], true, true]);
    });
    expect({ ...mine, metrics: [{ ...mine.metrics[0], buckets: [] }] }).toEqual({ ...theirs, metrics: [{ ...theirs.metrics[0], buckets: [] }] });
    expect(buckets[1]).toEqual([3, '-2.938735877055719e-39', '2.938735877055719e-39', '1']);
  });

  it('a float native histogram: both show the integer count (0) in the text format and the float count 4.5 in /api/v1/metrics and protobuf', async () => {
    for (const url of [gw?.url as string, pg().url]) {
      expect(await goPush(url, ['-job', 'go_float', '-float-histogram', 'go_float_hist'])).toEqual({ ok: true, out: 'ok\n' });
    }
    expect(await bothSay('go_float')).toEqual([
      'go_float_hist_bucket{instance="",job="go_float",le="+Inf"} 0',
      'go_float_hist_sum{instance="",job="go_float"} 10.25',
      'go_float_hist_count{instance="",job="go_float"} 0',
    ]);
    const mine = await apiFamily(gw?.url as string, 'go_float', 'go_float_hist');
    expect(mine).toEqual(await apiFamily(pg().url, 'go_float', 'go_float_hist'));
    expect(mine.metrics[0]?.count).toBe('4.5');
    expect(await protoFamily(gw?.url as string, 'go_float_hist')).toEqual(await protoFamily(pg().url, 'go_float_hist'));
  });
});
