import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeProtobufDelimited } from '../../src/pushgateway/exposition/protobuf.js';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { rawSend, startPushgateway, type PushgatewayPeer } from '../pushgateway/peer-processes.js';

/**
 * Sends the same pushes to Pushgateway 1.11.1 (the newest, built by scripts/build-peers.sh) and to Portico and compares what
 * GET /metrics exposes for the pushed families (push time values aside), and the answers to bad
 * requests.
 */
let pg: PushgatewayPeer | undefined;
let pgUrl = '';
let portico: (Harness & { url: string }) | undefined;

beforeAll(async () => {
  pg = await startPushgateway();
  pgUrl = pg.url;
  portico = await listenGateway([], TestClock.real());
});

afterAll(async () => {
  await pg?.stop();
  await portico?.app.close();
});

interface Step {
  readonly method: 'PUT' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

const PROTO = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

const TEXT_ALL_TYPES = `# HELP sbs_requests_total Requests with a "quoted" help, a backslash \\\\ and a newline \\n here.
# TYPE sbs_requests_total counter
sbs_requests_total{code="200",path="/a\\"b\\\\c\\nd"} 1027
sbs_requests_total{code="500"} 3
# HELP sbs_temperature A gauge.
# TYPE sbs_temperature gauge
sbs_temperature{room="b"} -Inf
sbs_temperature{room="a"} 21.5
sbs_temperature{room="c",floor="1"} NaN
sbs_temperature{room="d"} 1234567
sbs_temperature{room="e"} 0.00001
sbs_untyped_thing 1e20
# TYPE sbs_latency summary
sbs_latency{quantile="0.5"} 0.05
sbs_latency{quantile="0.99"} +Inf
sbs_latency_sum 17.5
sbs_latency_count 345
# TYPE sbs_size histogram
sbs_size_bucket{le="100"} 2
sbs_size_bucket{le="1000"} 5
sbs_size_bucket{le="+Inf"} 6
sbs_size_sum 4321
sbs_size_count 6
`;

const STEPS: Step[] = [
  { method: 'PUT', path: '/metrics/job/sbs/instance/i1', body: TEXT_ALL_TYPES },
  { method: 'PUT', path: '/metrics/job/sbs/instance/i2', body: TEXT_ALL_TYPES.replace(/1027/g, '1').replace(/-Inf/g, '5') },
  { method: 'POST', path: '/metrics/job/other/b/2/a/1', body: 'sbs_temperature{job="ignored",instance="fromBody",room="z"} 3\nsbs_keep 1\nsbs_replace 1\n' },
  { method: 'POST', path: '/metrics/job/other/a/1/b/2', body: 'sbs_replace{x="new"} 2\n' },
  { method: 'PUT', path: '/metrics/job@base64/YS9i/path@base64/L3Zhci90bXA/empty@base64/=', body: 'sbs_base64 1\n' },
  { method: 'PUT', path: '/metrics/job/gone', body: 'sbs_gone 1\n' },
  { method: 'DELETE', path: '/metrics/job/gone' },
  {
    method: 'PUT',
    path: '/metrics/job/proto/instance/p1',
    headers: { 'content-type': PROTO },
    body: encodeProtobufDelimited([
      { name: 'sbs_proto_gauge', help: 'From the Go client.', type: 'gauge', metrics: [{ labels: [['k', 'v']], value: 0.25 }] },
      {
        name: 'sbs_proto_hist',
        help: 'Proto histogram.',
        type: 'histogram',
        metrics: [{ labels: [], histogram: { sampleCount: 3, sampleSum: 1.5, buckets: [{ upperBound: 0.1, cumulativeCount: 1 }, { upperBound: 1, cumulativeCount: 2 }] } }],
      },
    ]),
  },
  // Metrics out of label order: the exposition sorts them, the API keeps them as pushed.
  { method: 'PUT', path: '/metrics/job/order', body: 'sbs_order{a="2"} 1\nsbs_order{a="1"} 2\nsbs_order{a="3",b="x"} 3\nsbs_order{a="0"} 4\n' },
  { method: 'POST', path: '/metrics/job/order', body: 'sbs_order{a="3",b="x"} 5\nsbs_order{a="0"} 6\nsbs_order{a="2"} 7\nsbs_order{a="1"} 8\n' },
  { method: 'PUT', path: '/metrics/job/gz', headers: { 'content-encoding': 'gzip' }, body: gzipSync('sbs_gzipped 42\n') },
  { method: 'PUT', path: '/metrics/job/emptied', body: 'sbs_soon_gone 1\n' },
  { method: 'PUT', path: '/metrics/job/emptied', body: '' },
  { method: 'POST', path: '/metrics/job/conflict', body: '# TYPE sbs_temperature counter\nsbs_temperature 1\n' },
  { method: 'POST', path: '/metrics/job/ts', body: 'sbs_with_ts 1 1000\n' },
];

async function send(base: string, step: Step): Promise<{ status: number; body: string }> {
  const res = await fetch(base + step.path, { method: step.method, body: step.body, headers: step.headers });
  return { status: res.status, body: await res.text() };
}

/** The pushed families of an exposition, with push time values replaced. */
function normalize(text: string): string {
  const keep: string[] = [];
  let pushed = false;
  for (const line of text.split('\n')) {
    const header = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (header) pushed = /^(sbs_|push_time_seconds|push_failure_time_seconds)/.test(header[1] as string);
    if (!pushed || line === '') continue;
    keep.push(line.replace(/^(push_(?:failure_)?time_seconds\{[^}]*\}) (?!0$).*$/, '$1 <time>'));
  }
  return keep.join('\n');
}

describe('side by side with Pushgateway 1.11.1', () => {
  it('answers the same pushes with the same status codes', async () => {
    for (const step of STEPS) {
      const a = await send(pgUrl, step);
      const b = await send(portico?.url as string, step);
      expect({ step: `${step.method} ${step.path}`, status: b.status }).toEqual({ step: `${step.method} ${step.path}`, status: a.status });
      if (a.status === 400 && !a.body.startsWith('pushed metrics are invalid')) expect(b.body).toBe(a.body);
    }
  });

  it('exposes the same pushed families on GET /metrics (timestamps aside)', async () => {
    const a = normalize(await (await fetch(`${pgUrl}/metrics`)).text());
    const b = normalize(await (await fetch(`${portico?.url}/metrics`)).text());
    expect(a).toContain('sbs_requests_total');
    expect(b).toBe(a);
  });

  it('lists the same metrics, in the same order, in /api/v1/metrics', async () => {
    interface ApiGroup {
      labels: Record<string, string>;
      [family: string]: unknown;
    }
    const pushed = async (base: string) => {
      const { data } = (await (await fetch(`${base}/api/v1/metrics`)).json()) as { data: ApiGroup[] };
      return data
        .map((g) => [
          JSON.stringify(g.labels),
          Object.entries(g)
            .filter(([name]) => name.startsWith('sbs_'))
            .map(([name, f]) => [name, (f as { metrics: unknown[] }).metrics]),
        ])
        .sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1));
    };
    const a = await pushed(pgUrl);
    expect(JSON.stringify(a)).toContain('sbs_order');
    expect(await pushed(portico?.url as string)).toEqual(a);
  });

  it('gives the same answers to bad grouping keys and bodies', async () => {
    const bad: Step[] = [
      { method: 'PUT', path: '/metrics/job/x/a/b/c', body: 'x 1\n' },
      { method: 'PUT', path: '/metrics/job/x/a-b/c', body: 'x 1\n' },
      { method: 'PUT', path: '/metrics/job/x/__a/c', body: 'x 1\n' },
      { method: 'PUT', path: '/metrics/job@base64/=', body: 'x 1\n' },
      { method: 'PUT', path: '/metrics/job/x/a@base64/foo.bar', body: 'x 1\n' },
      { method: 'PUT', path: '/metrics/job/x', body: 'x 1' },
      { method: 'PUT', path: '/metrics/job/x', body: 'x{a="1",a="2"} 1\n' },
      { method: 'PUT', path: '/metrics/job/x', body: '# TYPE x summary\nx{quantile="a"} 1\n' },
      { method: 'PUT', path: '/metrics/job/x', body: 'x 1\r\n' },
      { method: 'PUT', path: '/metrics/job/x', headers: { 'content-encoding': 'gzip' }, body: 'not gzip' },
      { method: 'PUT', path: '/metrics/job/x', headers: { 'content-encoding': 'gzip' }, body: 'not gzip at all, longer than a header' },
    ];
    for (const step of bad) {
      const a = await send(pgUrl, step);
      const b = await send(portico?.url as string, step);
      expect({ step: step.path, sent: step.body, ...b }).toEqual({ step: step.path, sent: step.body, ...a });
    }
  });

  it('answers paths with a trailing slash and other path edge cases alike: the same redirects (307 for a push to /metrics/job/, 301 for GET), 404s and 405s', async () => {
    const cases: [string, string][] = [
      ['PUT', '/metrics/job/'],
      ['POST', '/metrics/job/'],
      ['DELETE', '/metrics/job/'],
      ['PUT', '/metrics/job'],
      ['PUT', '/metrics/job@base64/'],
      ['PUT', '/metrics/'],
      ['GET', '/metrics/'],
      ['GET', '/metrics/?a=b&c=%3C'],
      ['GET', '/-/healthy/'],
      ['GET', '/-/ready/'],
      ['GET', '/metrics/job/'],
      ['GET', '/api/v1/'],
      ['DELETE', '/metrics/job/a/'],
      ['PUT', '/metrics/job/a/'],
      ['PUT', '/metrics/job/a/b/'],
      ['PUT', '/metrics/jobs/a'],
      ['PUT', '/metrics/job/a/b/c/'],
      ['PUT', '/metrics'],
      ['POST', '/metrics'],
      ['DELETE', '/metrics'],
      ['PUT', '/metrics/job/%2F'],
      ['PUT', '/metrics/job/a%2Fb/'],
      ['PUT', '/api/v1/metrics'],
      ['POST', '/api/v1/status'],
      ['PATCH', '/metrics'],
      ['PUT', '/-/healthy'],
      ['GET', '/metrics/job/a'],
      ['DELETE', '/metrics/job@base64/'],
    ];
    const raw = async (peer: PushgatewayPeer | { send: PushgatewayPeer['send'] }, method: string, path: string) => {
      const r = await peer.send(method, path, method === 'GET' || method === 'DELETE' ? undefined : 'x 1\n');
      return { request: `${method} ${path}`, status: r.status, body: r.text };
    };
    const ours = { send: (method: string, path: string, body?: Uint8Array | string) => rawSend(portico?.url as string, method, path, body) };
    const answers = [];
    for (const [method, path] of cases) answers.push({ ours: await raw(ours, method, path), theirs: await raw(pg as PushgatewayPeer, method, path) });
    expect(answers.map((a) => a.ours)).toEqual(answers.map((a) => a.theirs));
    // Known differences (docs/pushgateway.md): Pushgateway's router redirects a path it has to
    // clean (an empty segment, `.` or `..`) to the cleaned path; Portico reads it as it is.
    for (const path of ['/metrics/job//', '/metrics/job/a//', '/metrics/job@base64//', '/metrics//job/a', '/metrics/job/./a', '/metrics/job/../a']) {
      const theirs = await raw(pg as PushgatewayPeer, 'PUT', path);
      const mine = await raw(ours, 'PUT', path);
      expect({ path, theirs: theirs.status, oursIsRedirect: mine.status === 307 }).toEqual({ path, theirs: 307, oursIsRedirect: false });
    }
    // The Location header too, for one of each.
    for (const [method, path] of [['PUT', '/metrics/job/'], ['GET', '/metrics/?a=b']] as const) {
      const a = await fetch(pgUrl + path, { method, body: method === 'PUT' ? 'x 1\n' : undefined, redirect: 'manual' });
      const b = await fetch((portico?.url as string) + path, { method, body: method === 'PUT' ? 'x 1\n' : undefined, redirect: 'manual' });
      expect(b.headers.get('location')).toBe(a.headers.get('location'));
    }
  });

  it('answers HEAD alike: 405 with the same Allow on served paths, 404 elsewhere', async () => {
    const paths = ['/', '/status', '/metrics', '/-/healthy', '/-/ready', '/-/quit', '/api/v1/status', '/api/v1/metrics', '/metrics/job/x/a/b', '/metrics/job@base64/eA', '/metrics/job', '/metrics/nope/x', '/api/v1/nope', '/nothing'];
    const head = async (base: string, path: string) => {
      const r = await fetch(base + path, { method: 'HEAD' });
      return { path, status: r.status, allow: r.headers.get('allow'), type: r.headers.get('content-type'), length: r.headers.get('content-length') };
    };
    for (const path of paths) expect(await head(portico?.url as string, path)).toEqual(await head(pgUrl, path));
  });
});
