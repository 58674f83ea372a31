import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushgatewayReplica, type RunningPortico } from '../support/portico-process.js';
import { eventually, freePort, goPeer, startPeer, type Peer } from '../pushgateway/peer-processes.js';
import { RedisServer } from '../pushgateway/redis-server.js';

/**
 * How Prometheus scrapes several replicas without duplicate series (docs/helm.md#several-replicas):
 * the replicas serve the same groups, so Prometheus scrapes one target, the Service, which lands on
 * either replica. The real Prometheus 3.16 gets two endpoints relabeled exactly as the chart's
 * ServiceMonitor does it (address replaced by the Service's, pod labels dropped) and must make one
 * target of them; a second job scraping each replica as its own target shows the duplicates that
 * this avoids. The "Service" is a round-robin HTTP proxy in front of the two replicas.
 */
let redis: RedisServer;
const replicas: RunningPortico[] = [];
let service: Server | undefined;
const servedBy: number[] = [];
let prom: Peer | undefined;
let promUrl = '';
let dir = '';

/** A round-robin proxy in front of the replicas (what a ClusterIP Service does), recording who answered. */
async function startService(ports: readonly number[]): Promise<string> {
  let next = 0;
  service = createServer((req, res) => {
    const i = next++ % ports.length;
    const upstream = request({ host: '127.0.0.1', port: ports[i], method: req.method, path: req.url, headers: req.headers }, (up) => {
      servedBy.push(i);
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => service?.listen(0, '127.0.0.1', done));
  const address = service.address();
  return `127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

beforeAll(async () => {
  const bin = goPeer('prometheus');
  redis = await RedisServer.start();
  dir = await mkdtemp(join(tmpdir(), 'portico-redis-prom-'));
  for (const name of ['a', 'b']) {
    replicas.push(
      await startPushgatewayReplica(join(dir, name), redis.url),
    );
  }
  const ports = replicas.map((r) => r.ports.pushgateway as number);
  const svc = await startService(ports);
  const endpoints = ports.map((p, i) => `      - targets: ['127.0.0.1:${p}']\n        labels: {pod: portico-${i}, container: server}\n`).join('');
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    'global:\n  scrape_interval: 1s\nscrape_configs:\n' +
      // As the chart's ServiceMonitor with several replicas: every endpoint becomes the Service.
      `  - job_name: through-service\n    honor_labels: true\n    static_configs:\n${endpoints}    relabel_configs:\n      - target_label: __address__\n        replacement: '${svc}'\n      - action: labeldrop\n        regex: pod|container\n      - target_label: scraped_as\n        replacement: service\n` +
      // Each replica as its own target: what a per-pod scrape would do.
      `  - job_name: per-replica\n    honor_labels: true\n    static_configs:\n${endpoints}    metric_relabel_configs:\n      - target_label: scraped_as\n        replacement: per-replica\n`,
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = await startPeer(bin, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], `${promUrl}/-/ready`, 45_000);
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
  await new Promise((done) => (service ? service.close(done) : done(undefined)));
  await redis?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(q: string): Promise<Series[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { data: { result: Series[] } };
  return body.data.result;
}

describe('Prometheus 3 scraping two replicas that share Redis', () => {
  it('scrapes them as one target through the Service: each pushed series once, whichever replica answers', async () => {
    const [a, b] = replicas as [RunningPortico, RunningPortico];
    for (const [r, job] of [
      [a, 'via_a'],
      [b, 'via_b'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${r.ports.pushgateway}/metrics/job/${job}`, { method: 'PUT', body: '# TYPE batch_last_success gauge\nbatch_last_success 1700000000\n' });
      expect(res.status).toBe(200);
    }
    // Once discovery has run: two endpoints relabeled alike make one target.
    const active = await eventually(
      async () => {
        const body = (await (await fetch(`${promUrl}/api/v1/targets?state=active`)).json()) as { data: { activeTargets: { scrapePool: string }[] } };
        const pools = body.data.activeTargets.map((t) => t.scrapePool);
        return pools.includes('through-service') && pools.includes('per-replica') ? pools : undefined;
      },
      30_000,
      'both scrape pools discovered',
    );
    expect(active.filter((p) => p === 'through-service')).toHaveLength(1);
    expect(active.filter((p) => p === 'per-replica')).toHaveLength(2);

    // Several scrapes through the Service, so that both replicas have answered some of them.
    const start = servedBy.length;
    await eventually(async () => (new Set(servedBy.slice(start)).size === 2 && servedBy.length - start >= 4 ? true : undefined), 30_000, 'scrapes answered by both replicas');
    const once = await eventually(
      async () => {
        const r = await query('batch_last_success{scraped_as="service"}');
        return r.length === 2 ? r : undefined;
      },
      30_000,
      'both pushed series through the Service',
    );
    expect(once.map((s) => s.metric.job).sort()).toEqual(['via_a', 'via_b']);
    // The pushed instance="" wins over the target's (honor_labels) and Prometheus drops empty labels.
    for (const s of once) expect(s.metric).toEqual({ __name__: 'batch_last_success', job: s.metric.job, scraped_as: 'service' });
    // Never a conflicting value while the scrapes alternated between the replicas.
    expect(await query('count_over_time(batch_last_success{scraped_as="service"}[30s]) > 0 and max_over_time(batch_last_success{scraped_as="service"}[30s]) != min_over_time(batch_last_success{scraped_as="service"}[30s])')).toEqual([]);
    expect(await query('changes(push_time_seconds{scraped_as="service", job="via_a"}[30s]) > 0')).toEqual([]);

    // The per-replica scrape sees each push twice: that is what scraping through the Service avoids.
    const twice = await query('count by (job) (batch_last_success{scraped_as="per-replica"})');
    expect(twice.map((s) => [s.metric.job, s.value[1]]).sort()).toEqual([
      ['via_a', '2'],
      ['via_b', '2'],
    ]);
  });
});
