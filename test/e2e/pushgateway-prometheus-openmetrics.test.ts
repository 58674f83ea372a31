import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { eventually, freePort, goPeer, startPeer, startPushgateway, type Peer, type PushgatewayPeer } from '../pushgateway/peer-processes.js';

/**
 * Prometheus 3.16.0 with its default scrape_protocols (OpenMetrics first) scrapes Pushgateway
 * 1.11.1, Portico as configured by default, and Portico with --web.enable-openmetrics, all with
 * the same pushes. A drop-in replacement must make Prometheus store the same series names as
 * Pushgateway does: Pushgateway never answers OpenMetrics, so a counter pushed as `x` (no `_total`)
 * stays `x`. Only with the flag does Portico answer OpenMetrics, and Prometheus stores `x_total`.
 */
let prom: Peer | undefined;
let promUrl = '';
let dir = '';
let pg: PushgatewayPeer | undefined;
const porticos: (Harness & { url: string })[] = [];

const BODY = '# TYPE x counter\nx 5\n# TYPE y_total counter\ny_total 2\n# HELP g A gauge.\n# TYPE g gauge\ng 1\n';
const SIDES = ['pushgateway', 'portico', 'portico-openmetrics'] as const;

beforeAll(async () => {
  pg = await startPushgateway();
  porticos.push(await listenGateway([], TestClock.real()), await listenGateway(['--web.enable-openmetrics'], TestClock.real()));
  const urls = [pg.url, ...porticos.map((p) => p.url)];
  dir = await mkdtemp(join(tmpdir(), 'portico-prom-om-'));
  const config = join(dir, 'prometheus.yml');
  // No scrape_protocols: Prometheus 3's default Accept header, OpenMetrics preferred.
  const jobs = SIDES.map(
    (side, i) => `  - job_name: ${side}\n    honor_labels: true\n    static_configs:\n      - targets: ['${new URL(urls[i] as string).host}']\n        labels: {side: ${side}}\n`,
  ).join('');
  await writeFile(config, `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n${jobs}`);
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = await startPeer(
    goPeer('prometheus'),
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    `${promUrl}/-/ready`,
    45_000,
  );
});

afterAll(async () => {
  await prom?.stop();
  await pg?.stop();
  for (const p of porticos) await p.app.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

async function query(q: string): Promise<{ metric: Record<string, string> }[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { data: { result: { metric: Record<string, string> }[] } };
  return body.data.result;
}

describe('Prometheus 3 with its default scrape protocols', () => {
  it('stores the same series names from Portico as from Pushgateway; OpenMetrics only with the flag', async () => {
    for (const url of [(pg as PushgatewayPeer).url, ...porticos.map((p) => p.url)]) {
      const res = await fetch(`${url}/metrics/job/om_check/instance/i1`, { method: 'PUT', body: BODY });
      expect(res.status, url).toBe(200);
    }
    // Every side's pushed families (x or x_total, y_total, g) and its two push-time gauges.
    const names = await eventually(
      async () => {
        const rows = await query('group by (side, __name__) ({job="om_check"})');
        const bySide = new Map<string, string[]>();
        for (const r of rows) bySide.set(r.metric.side as string, [...(bySide.get(r.metric.side as string) ?? []), r.metric.__name__ as string].sort());
        return SIDES.every((s) => (bySide.get(s)?.length ?? 0) >= 5) ? bySide : undefined;
      },
      45_000,
      'the pushed series of all three sides in Prometheus',
    );
    expect(names.get('pushgateway')).toEqual(['g', 'push_failure_time_seconds', 'push_time_seconds', 'x', 'y_total']);
    expect(names.get('portico')).toEqual(names.get('pushgateway'));
    // The documented difference of the opt-in flag: OpenMetrics names a counter's sample _total.
    expect(names.get('portico-openmetrics')).toContain('x_total');
    expect(names.get('portico-openmetrics')).not.toContain('x');
  });
});
