import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOBUF_CONTENT_TYPE, encodeProtobufDelimited, parseProtobufDelimited } from '../../src/pushgateway/exposition/protobuf.js';
import type { MetricFamily } from '../../src/pushgateway/model.js';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { eventually, freePort, goPeer, rawSend, startPeer, startPushgateway, type Peer, type PeerResponse, type PushgatewayPeer } from '../pushgateway/peer-processes.js';

/**
 * UTF-8 metric and label names side by side with Pushgateway 1.11.1, with and without
 * --push.enable-utf8-names: the same pushes get the same answers, every negotiated scrape format
 * and escaping scheme gives the same pushed families byte for byte, and Prometheus 3.16 scrapes the
 * UTF-8 names from Portico as it scrapes them from Pushgateway.
 */
interface Side {
  readonly name: string;
  send(method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>): Promise<PeerResponse>;
  readonly url: string;
}

const sides: { plain?: [Side, Side]; utf8?: [Side, Side] } = {};
const stops: (() => Promise<void>)[] = [];
let prom: Peer | undefined;
let promUrl = '';
let dir = '';

async function pair(flags: string[]): Promise<[Side, Side]> {
  const pg: PushgatewayPeer = await startPushgateway(flags);
  stops.push(() => pg.stop());
  const portico: Harness & { url: string } = await listenGateway(flags, TestClock.real());
  stops.push(() => portico.app.close());
  return [
    { name: 'pushgateway', url: pg.url, send: pg.send },
    { name: 'portico', url: portico.url, send: (m, p, b, h) => rawSend(portico.url, m, p, b, h) },
  ];
}

beforeAll(async () => {
  sides.plain = await pair([]);
  sides.utf8 = await pair(['--push.enable-utf8-names']);
  dir = await mkdtemp(join(tmpdir(), 'portico-utf8-'));
  const config = join(dir, 'prometheus.yml');
  const [pg, portico] = sides.utf8;
  // Text (1.0.0, which carries escaping=allow-utf-8; Pushgateway answers it with text 0.0.4) and
  // protobuf scrapes. Pushgateway offers no OpenMetrics, which Prometheus asks for first by default.
  const job = (side: Side, protocol: string) =>
    `  - job_name: ${side.name}-${protocol}\n    honor_labels: true\n    scrape_protocols: [${protocol}]\n    static_configs:\n      - targets: ['${new URL(side.url).host}']\n        labels: {side: ${side.name}, protocol: ${protocol}}\n`;
  const jobs = ['PrometheusText1.0.0', 'PrometheusProto'].map((p) => job(pg, p) + job(portico, p)).join('');
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
  for (const stop of stops) await stop();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

const SUMMARY_AND_HISTOGRAM = `# TYPE "lat.seconds" summary
# HELP "lat.seconds" A summary with a dotted name.
{"lat.seconds",quantile="0.5"} 1
{"lat.seconds",quantile="0.9"} 2
{"lat.seconds_sum"} 3
{"lat.seconds_count"} 4
# TYPE "size.bytes" histogram
{"size.bytes_bucket",kind="a",le="1"} 1
{"size.bytes_bucket",kind="a",le="+Inf"} 2
{"size.bytes_sum",kind="a"} 3
{"size.bytes_count",kind="a"} 2
`;

/** Pushes both modes take, and pushes that only --push.enable-utf8-names takes. */
const PUSHES: [string, string, string, Record<string, string>?][] = [
  ['PUT', '/metrics/job/u1', '"my.metric" 1\n{"other.metric",a="b"} 2\n# TYPE "dotted.counter" counter\n# HELP "dotted.counter" Help of a dotted counter.\n{"dotted.counter",code="200"} 3\nplain_metric{a="x"} 4\n{a="y","after.labels"} 5\n'],
  ['PUT', '/metrics/job/u2', SUMMARY_AND_HISTOGRAM],
  ['PUT', '/metrics/job/u3', '{"quote\\"d \\\\ name 🌡",a="b"} 1\n"temp°C" -3.5\n"x_y" 7\n'],
  ['PUT', '/metrics/job/u4', 'a_b 1\n'],
  ['PUT', '/metrics/job/u5', '"a.b" 2\n'],
  ['PUT', '/metrics/job/u6/U__l_2e_x/v', 'in_u6 1\n'],
  ['PUT', '/metrics/job/u7', 'x{"l.x"="b",c="d"} 1\n'],
  ['PUT', '/metrics/job/u8/l.x/v', 'in_u8 1\n'],
  ['PUT', '/metrics/job/u9/U__/v', 'in_u9 1\n'],
  ['PUT', '/metrics/job/u10/U__l_zz_/v/U__m_1F600_@base64/YS9i', 'in_u10 1\n'],
  ['PUT', '/metrics/job/u11/__x/v', 'in_u11 1\n'],
  ['PUT', '/metrics/job/u12/U___5f_x/v', 'in_u12 1\n'],
  [
    'PUT',
    '/metrics/job/u13',
    Buffer.from(encodeProtobufDelimited([{ name: 'proto.name', help: 'From protobuf.', type: 'gauge', metrics: [{ labels: [['ünï.code', 'v']], value: 1 }] }])).toString('latin1'),
    { 'Content-Type': PROTOBUF_CONTENT_TYPE },
  ],
  ['PUT', '/metrics/job/u14', '{"a" 1\n'],
  ['PUT', '/metrics/job/u14', '{"a","b"} 1\n'],
  ['PUT', '/metrics/job/u14', '"a\nb" 1\n'],
  ['PUT', '/metrics/job/u14', '{"a"=} 1\n'],
  ['PUT', '/metrics/job/u14', '"a\\qb" 1\n'],
  ['PUT', '/metrics/job/u14', 'x{"a\nb"="c"} 1\n'],
  ['PUT', '/metrics/job/u14', '{a="b"} 1\n'],
  ['PUT', '/metrics/job/u14', 'a 1\n{} 2\n'],
];

async function pushAll(pairOf: [Side, Side]): Promise<{ push: string; pushgateway: string; portico: string }[]> {
  const out = [];
  for (const [method, path, body, headers] of PUSHES) {
    const bytes = headers === undefined ? Buffer.from(body, 'utf8') : Buffer.from(body, 'latin1');
    const answers: string[] = [];
    for (const side of pairOf) {
      const r = await side.send(method, path, bytes, headers);
      // Consistency errors name the metric in each one's own words; the verdict and the prefix must agree.
      const text = r.text.startsWith('pushed metrics are invalid or inconsistent with existing metrics: ') ? `${r.text.split(': ')[0]}: …` : r.text;
      answers.push(`${r.status} ${text}`);
    }
    out.push({ push: `${method} ${path} ${JSON.stringify(body.slice(0, 40))}`, pushgateway: answers[0] as string, portico: answers[1] as string });
  }
  return out;
}

const OWN = /^(go_|process_|nodejs_|pushgateway_|promhttp_)/;

/** The pushed families of a text exposition, push time values replaced. */
function pushedText(text: string): string {
  const keep: string[] = [];
  let pushed = false;
  for (const line of text.split('\n')) {
    const header = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (header) pushed = !OWN.test(header[1] as string);
    if (!pushed || line === '') continue;
    keep.push(line.replace(/^(push_(?:failure_)?time_seconds\{[^}]*\}) (?!0$).*$/, '$1 <time>'));
  }
  return keep.join('\n');
}

function pushedProto(body: Buffer): MetricFamily[] {
  return parseProtobufDelimited(body)
    .filter((f) => !OWN.test(f.name))
    .map((f) => (f.name.startsWith('push_') ? { ...f, metrics: f.metrics.map((m) => ({ ...m, value: m.value === 0 ? 0 : 1 })) } : f));
}

const TEXT_ACCEPTS = [
  undefined,
  'text/plain;version=0.0.4',
  'text/plain;version=0.0.4;escaping=allow-utf-8',
  'text/plain;version=0.0.4;escaping=underscores',
  'text/plain;version=0.0.4;escaping=dots',
  'text/plain;version=0.0.4;escaping=values',
  'text/plain;version=0.0.4;escaping=bogus',
  'application/json;escaping=values,text/plain;q=0.5',
];
const PROTO_ACCEPTS = ['allow-utf-8', 'underscores', 'values'].map((e) => `${PROTOBUF_CONTENT_TYPE};escaping=${e}`);

async function compareScrapes(pairOf: [Side, Side]): Promise<void> {
  for (const accept of TEXT_ACCEPTS) {
    const headers = accept === undefined ? undefined : { Accept: accept };
    const [a, b] = await Promise.all(pairOf.map((s) => fetch(`${s.url}/metrics`, { headers })));
    const [ta, tb] = [pushedText(await (a as Response).text()), pushedText(await (b as Response).text())];
    expect(ta).toContain('plain_metric');
    expect({ accept, type: b?.headers.get('content-type'), text: tb }).toEqual({ accept, type: a?.headers.get('content-type'), text: ta });
  }
  for (const accept of PROTO_ACCEPTS) {
    const [a, b] = await Promise.all(pairOf.map((s) => fetch(`${s.url}/metrics`, { headers: { Accept: accept } })));
    const [pa, pb] = [pushedProto(Buffer.from(await (a as Response).arrayBuffer())), pushedProto(Buffer.from(await (b as Response).arrayBuffer()))];
    expect(pa.map((f) => f.name)).toContain('my.metric');
    expect({ accept, type: b?.headers.get('content-type'), families: pb }).toEqual({ accept, type: a?.headers.get('content-type'), families: pa });
  }
}

/** /api/v1/metrics: the pushed groups and families (push times aside). */
async function apiGroups(side: Side): Promise<unknown> {
  const { data } = (await (await fetch(`${side.url}/api/v1/metrics`)).json()) as { data: Record<string, unknown>[] };
  // Pushgateway lists groups in map order (random); Portico sorts them.
  data.sort((x, y) => (JSON.stringify(x.labels) < JSON.stringify(y.labels) ? -1 : 1));
  return data.map((g) => Object.fromEntries(Object.entries(g).filter(([k]) => !k.startsWith('push_') && k !== 'last_push_successful').map(([k, v]) => [k, typeof v === 'object' && v !== null && 'time_stamp' in v ? { ...v, time_stamp: '' } : v])));
}

describe('UTF-8 names side by side with Pushgateway 1.11.1', () => {
  it('without --push.enable-utf8-names: same answers to every push (UTF-8 metric names taken, UTF-8 label names refused)', async () => {
    const answers = await pushAll(sides.plain as [Side, Side]);
    for (const a of answers) expect({ push: a.push, answer: a.portico }).toEqual({ push: a.push, answer: a.pushgateway });
    expect(answers.filter((a) => a.pushgateway.startsWith('200')).length).toBeGreaterThan(5);
    expect(answers.find((a) => a.push.includes('/u8/'))?.pushgateway).toBe('400 improper label name "l.x"\n');
  });

  it('without the flag: every scrape format and escaping scheme gives the same pushed families, byte for byte', async () => {
    await compareScrapes(sides.plain as [Side, Side]);
  });

  it('with --push.enable-utf8-names: same answers to every push (U__ path names, quoted label names)', async () => {
    const answers = await pushAll(sides.utf8 as [Side, Side]);
    for (const a of answers) expect({ push: a.push, answer: a.portico }).toEqual({ push: a.push, answer: a.pushgateway });
    expect(answers.find((a) => a.push.includes('/u8/'))?.pushgateway).toBe('200 ');
  });

  it('with the flag: every scrape format and escaping scheme gives the same pushed families, byte for byte', async () => {
    await compareScrapes(sides.utf8 as [Side, Side]);
    const text = await (await fetch(`${(sides.utf8 as [Side, Side])[1].url}/metrics`, { headers: { Accept: 'text/plain;escaping=allow-utf-8' } })).text();
    expect(text).toContain('{"my.metric",instance="",job="u1"} 1\n');
    expect(text).toContain('x{c="d",instance="",job="u7","l.x"="b"} 1\n');
    expect(text).toContain('in_u6{instance="",job="u6","l.x"="v"} 1\n');
  });

  it('lists the same groups and names in /api/v1/metrics', async () => {
    for (const pairOf of [sides.plain, sides.utf8] as [Side, Side][]) {
      const [a, b] = await Promise.all(pairOf.map(apiGroups));
      expect(JSON.stringify(a)).toContain('my.metric');
      expect(b).toEqual(a);
    }
  });

  it('Prometheus 3.16 scrapes the UTF-8 names from Portico as from Pushgateway', async () => {
    await pushAll(sides.utf8 as [Side, Side]); // the same PUTs again, so that this test stands alone
    const query = async (q: string) => {
      const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
      return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
    };
    const targets = async () => JSON.stringify(((await (await fetch(`${promUrl}/api/v1/targets`)).json()) as { data: { activeTargets: { labels: unknown; health: string; lastError: string }[] } }).data.activeTargets.map((t) => [t.labels, t.health, t.lastError]));
    const bySide = async (q: string) => {
      const r = await eventually(async () => {
        const got = await query(q);
        return new Set(got.map((s) => `${s.metric.side} ${s.metric.protocol}`)).size === 4 ? got : undefined;
      }, 30_000, `${q} from both sides in text and protobuf`).catch(async (err: Error) => {
        throw new Error(`${err.message}; Prometheus has ${JSON.stringify(await query(q))}; its targets: ${await targets()}`);
      });
      const of = (side: string) =>
        r.filter((s) => s.metric.side === side).map((s) => JSON.stringify([{ ...s.metric, side: '' }, s.value[1]])).sort();
      return { pushgateway: of('pushgateway'), portico: of('portico') };
    };
    for (const q of ['{"my.metric"}', '{"dotted.counter"}', '{"lat.seconds"}', '{"size.bytes_bucket"}', 'x', 'in_u6']) {
      const got = await bySide(q);
      expect(got.pushgateway.length).toBeGreaterThan(0);
      expect({ q, series: got.portico }).toEqual({ q, series: got.pushgateway });
    }
    expect((await query('{"my.metric", side="portico", protocol="PrometheusText1.0.0"}'))[0]?.metric).toEqual({ __name__: 'my.metric', job: 'u1', side: 'portico', protocol: 'PrometheusText1.0.0' });
  });
});
