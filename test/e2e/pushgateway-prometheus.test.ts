import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { eventually, freePort, goPeer, startPeer, type Peer } from '../pushgateway/peer-processes.js';
import { PROTOBUF_CONTENT_TYPE, encodeProtobufDelimited } from '../../src/pushgateway/exposition/protobuf.js';

/**
 * Prometheus 3.16.0 (built by scripts/build-peers.sh) scrapes Portico with honor_labels: true and
 * scrape_protocols preferring protobuf and scrape_native_histograms: its query API must return the
 * pushed series, native histograms as native histograms.
 */
let prom: Peer | undefined;
let promUrl = '';
let dir = '';
let portico: (Harness & { url: string }) | undefined;
/** Between Prometheus and Portico: records each scrape's Accept header and answer Content-Type. */
let recorder: Server | undefined;
const scrapes: { accept: string; contentType: string }[] = [];

/** A pass-through HTTP proxy to `target` on a free port, recording each exchange. */
async function startRecorder(target: URL): Promise<string> {
  recorder = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      scrapes.push({ accept: String(req.headers.accept ?? ''), contentType: String(up.headers['content-type'] ?? '') });
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => recorder?.listen(0, '127.0.0.1', done));
  const address = recorder.address();
  return `127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

beforeAll(async () => {
  const bin = goPeer('prometheus');
  portico = await listenGateway([], TestClock.real());
  dir = await mkdtemp(join(tmpdir(), 'portico-prom-'));
  const target = await startRecorder(new URL(portico.url));
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: portico-pushgateway\n    honor_labels: true\n    scrape_native_histograms: true\n    scrape_protocols: [PrometheusProto, OpenMetricsText1.0.0, PrometheusText0.0.4]\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = await startPeer(
    bin,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    `${promUrl}/-/ready`,
    45_000,
  );
});

afterAll(async () => {
  await prom?.stop();
  await portico?.app.close();
  await new Promise((done) => (recorder ? recorder.close(done) : done(undefined)));
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

interface Series {
  metric: Record<string, string>;
  value: [number, string];
  /** A native histogram sample: count, sum and buckets as `[boundaries, lower, upper, count]`. */
  histogram?: [number, { count: string; sum: string; buckets?: [number, string, string, string][] }];
}

async function query(q: string): Promise<Series[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { status: string; data: { result: Series[] } };
  return body.data.result;
}

describe('Prometheus 3 scraping Portico with honor_labels: true, protobuf first', () => {
  it('returns the pushed series with their job and grouping labels', async () => {
    const put = await fetch(`${portico?.url}/metrics/job/nightly_backup/instance/db-1/zone@base64/ZXUvd2VzdA`, {
      method: 'PUT',
      body: '# HELP backup_bytes Bytes written.\n# TYPE backup_bytes gauge\nbackup_bytes{disk="a"} 1234567\n# TYPE backup_runs counter\nbackup_runs_total 3\n# TYPE backup_seconds histogram\nbackup_seconds_bucket{le="10"} 1\nbackup_seconds_bucket{le="+Inf"} 2\nbackup_seconds_sum 30\nbackup_seconds_count 2\n',
    });
    expect(put.status).toBe(200);
    const series = await eventually(
      async () => {
        const r = await query('backup_bytes');
        return r.length > 0 ? r : undefined;
      },
      30_000,
      'backup_bytes in Prometheus',
    );
    expect(series).toHaveLength(1);
    expect(series[0]?.metric).toEqual({ __name__: 'backup_bytes', disk: 'a', instance: 'db-1', job: 'nightly_backup', zone: 'eu/west' });
    expect(series[0]?.value[1]).toBe('1234567');
    const pushTime = await query('push_time_seconds{job="nightly_backup"}');
    expect(pushTime[0]?.metric).toMatchObject({ instance: 'db-1', job: 'nightly_backup', zone: 'eu/west' });
    expect(Number(pushTime[0]?.value[1])).toBeGreaterThan(1.7e9);
    expect((await query('backup_runs_total'))[0]?.value[1]).toBe('3');
    expect((await query('backup_seconds_count'))[0]?.value[1]).toBe('2');
    const up = await query('up{job="portico-pushgateway"}');
    expect(up[0]?.value[1]).toBe('1');
  });

  it('stores a pushed native histogram as a native histogram (integer and float)', async () => {
    const none = { negativeSpans: [], negativeDeltas: [], negativeCounts: [], positiveSpans: [], positiveDeltas: [], positiveCounts: [] };
    const body = encodeProtobufDelimited([
      {
        name: 'batch_latency_seconds',
        help: 'Latency.',
        type: 'histogram',
        metrics: [
          {
            labels: [['kind', 'int']],
            histogram: { sampleCount: 5, sampleSum: 7.5, buckets: [], native: { ...none, schema: 0, zeroThreshold: 0.001, zeroCount: 1, positiveSpans: [{ offset: 1, length: 2 }], positiveDeltas: [1, 2] } },
          },
          {
            labels: [['kind', 'float']],
            histogram: { sampleCount: 0, sampleCountFloat: 2.5, sampleSum: 3, buckets: [], native: { ...none, schema: 0, zeroThreshold: 0.001, zeroCountFloat: 0.5, positiveSpans: [{ offset: 0, length: 1 }], positiveCounts: [2] } },
          },
        ],
      },
    ]);
    const put = await fetch(`${portico?.url}/metrics/job/native`, { method: 'PUT', body, headers: { 'Content-Type': PROTOBUF_CONTENT_TYPE } });
    expect(put.status).toBe(200);
    const series = await eventually(
      async () => {
        const r = await query('batch_latency_seconds');
        return r.length === 2 ? r : undefined;
      },
      30_000,
      'batch_latency_seconds in Prometheus',
    );
    const byKind = new Map(series.map((s) => [s.metric.kind, s]));
    expect(byKind.get('int')?.value).toBeUndefined();
    expect(byKind.get('int')?.histogram?.[1]).toEqual({
      count: '5',
      sum: '7.5',
      buckets: [
        [3, '-0.001', '0.001', '1'],
        [0, '1', '2', '1'],
        [0, '2', '4', '3'],
      ],
    });
    expect(byKind.get('float')?.histogram?.[1]).toEqual({ count: '2.5', sum: '3', buckets: [[3, '-0.001', '0.001', '0.5'], [0, '0.5', '1', '2']] });
    expect((await query('histogram_count(batch_latency_seconds{kind="int"})'))[0]?.value[1]).toBe('5');
  });

  it('asks for protobuf first and gets it', () => {
    expect(scrapes.length).toBeGreaterThan(0);
    expect(scrapes[0]?.accept).toMatch(/^application\/vnd\.google\.protobuf;proto=io\.prometheus\.client\.MetricFamily;encoding=delimited/);
    for (const s of scrapes) expect(s.contentType).toMatch(/^application\/vnd\.google\.protobuf; proto=io\.prometheus\.client\.MetricFamily; encoding=delimited/);
  });
});
