import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeProtobufDelimited } from '../../src/pushgateway/exposition/protobuf.js';
import { buildGateway, pushedOnly, type Harness } from './gateway-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.app.close();
  h = undefined;
});

async function gw(argv: string[] = []): Promise<Harness> {
  h = await buildGateway(argv);
  return h;
}

const BODY = '# TYPE some_metric counter\nsome_metric{label="val1"} 42\n# HELP g A gauge\n# TYPE g gauge\ng 3.5\n';

describe('push routes', () => {
  it('PUT then GET /metrics shows the group with push times', async () => {
    const { app } = await gw();
    const put = await app.inject({ method: 'PUT', url: '/metrics/job/some_job/instance/some_instance', payload: BODY });
    expect(put.statusCode).toBe(200);
    expect(put.body).toBe('');
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(pushedOnly(res.body)).toBe(
      '# HELP g A gauge\n# TYPE g gauge\ng{instance="some_instance",job="some_job"} 3.5\n' +
        '# HELP push_failure_time_seconds Last Unix time when changing this group in the Pushgateway failed.\n' +
        '# TYPE push_failure_time_seconds gauge\npush_failure_time_seconds{instance="some_instance",job="some_job"} 0\n' +
        '# HELP push_time_seconds Last Unix time when changing this group in the Pushgateway succeeded.\n' +
        '# TYPE push_time_seconds gauge\npush_time_seconds{instance="some_instance",job="some_job"} 1.767323045678e+09\n' +
        '# TYPE some_metric counter\nsome_metric{instance="some_instance",job="some_job",label="val1"} 42\n',
    );
    expect(res.body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(res.body).toContain('pushgateway_build_info{');
  });

  it('accepts a body without Content-Type (prom-client sends none) and with any Content-Type', async () => {
    const { app } = await gw();
    const noType = await app.inject({ method: 'POST', url: '/metrics/job/a', payload: Buffer.from('x 1\n'), headers: { 'content-type': undefined } });
    expect(noType.statusCode).toBe(200);
    const odd = await app.inject({ method: 'POST', url: '/metrics/job/b', payload: 'y 1\n', headers: { 'content-type': 'application/json' } });
    expect(odd.statusCode).toBe(200);
    const malformed = await app.inject({ method: 'POST', url: '/metrics/job/c', payload: 'z 1\n', headers: { 'content-type': 'not a media type;;' } });
    expect(malformed.statusCode).toBe(200);
  });

  it('reads delimited protobuf when the Content-Type says so; a repeated family: the last wins', async () => {
    const { app } = await gw();
    const body = encodeProtobufDelimited([
      { name: 'pb', help: 'first', type: 'gauge', metrics: [{ labels: [], value: 1 }] },
      { name: 'pb', help: 'second', type: 'gauge', metrics: [{ labels: [['k', 'v']], value: 2 }] },
    ]);
    const res = await app.inject({
      method: 'PUT',
      url: '/metrics/job/pbjob',
      payload: Buffer.from(body),
      headers: { 'content-type': 'application/vnd.google.protobuf; encoding=delimited; proto=io.prometheus.client.MetricFamily' },
    });
    expect(res.statusCode).toBe(200);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('# HELP pb second\n# TYPE pb gauge\npb{instance="",job="pbjob",k="v"} 2\n');
  });

  it('gunzips request bodies (Content-Encoding in any case) and refuses bad gzip', async () => {
    const { app } = await gw();
    const ok = await app.inject({ method: 'PUT', url: '/metrics/job/z', payload: gzipSync('zz 1\n'), headers: { 'content-encoding': 'GZip' } });
    expect(ok.statusCode).toBe(200);
    const short = await app.inject({ method: 'PUT', url: '/metrics/job/z', payload: 'zz 1\n', headers: { 'content-encoding': 'gzip' } });
    expect(short.body).toBe('unexpected EOF\n');
    const bad = await app.inject({ method: 'PUT', url: '/metrics/job/z', payload: 'zz 1\nnot gzip at all\n', headers: { 'content-encoding': 'gzip' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toBe('gzip: invalid header\n');
    expect(bad.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(bad.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 413 for bodies over --push.max-body-size, also after gzip decoding (gzip bomb)', async () => {
    const { app } = await gw(['--push.max-body-size=1KiB']);
    const big = await app.inject({ method: 'PUT', url: '/metrics/job/z', payload: `x 1\n${'#'.repeat(2000)}\n` });
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('exceeds the limit of 1024 bytes');
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x23));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await app.inject({ method: 'PUT', url: '/metrics/job/z', payload: bomb, headers: { 'content-encoding': 'gzip' } });
    expect(res.statusCode).toBe(413);
    expect((await app.inject({ method: 'GET', url: '/api/v1/metrics' })).json()).toMatchObject({ data: [] });
  });

  it('answers Pushgateway\'s 400 texts for bad grouping keys and bodies', async () => {
    const { app } = await gw();
    const cases: [string, string, string][] = [
      ['/metrics/job/j/a/b/c', 'x 1\n', 'odd number of components in label string "/a/b/c"\n'],
      ['/metrics/job/j/a-b/c', 'x 1\n', 'improper label name "a-b"\n'],
      ['/metrics/job@base64/=', 'x 1\n', 'job name is required\n'],
      ['/metrics/job/j/a@base64/foo.bar', 'x 1\n', 'invalid base64 encoding for label a="foo.bar": illegal base64 data at input byte 3\n'],
      ['/metrics/job/j', '# TYPE process_open_fds counter\nprocess_open_fds 1\n', 'pushed metrics are invalid or inconsistent with existing metrics: gathered metric family process_open_fds has type COUNTER but should have GAUGE\n'],
      ['/metrics/job/j', 'x{a="1",a="2"} 1\n', 'text format parsing error in line 1: duplicate label names for metric "x"\n'],
      ['/metrics/job/j', 'x 1', 'text format parsing error in line 1: unexpected end of input stream\n'],
      ['/metrics/job/j', 'x 1 1000\n', 'pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have timestamps\n'],
    ];
    for (const [url, payload, body] of cases) {
      const res = await app.inject({ method: 'PUT', url, payload });
      expect({ url, status: res.statusCode, body: res.body }).toEqual({ url, status: 400, body });
    }
  });

  it('refuses an inconsistent push with 400 and leaves the group as it was, but sets push_failure_time_seconds', async () => {
    const { app, clock } = await gw();
    await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: '# TYPE m gauge\nm 1\n' });
    await app.inject({ method: 'PUT', url: '/metrics/job/b', payload: 'keep 1\n' });
    clock.advance(1000);
    const res = await app.inject({ method: 'POST', url: '/metrics/job/b', payload: '# TYPE m counter\nm 2\nkeep 2\n' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/^pushed metrics are invalid or inconsistent with existing metrics: collected metric "m" .*is not a GAUGE/);
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('keep{instance="",job="b"} 1\n');
    expect(text).toContain('push_failure_time_seconds{instance="",job="b"} 1.767323046678e+09\n');
  });

  it('answers 202 without checking when the check is disabled, and scrapes fail while inconsistent', async () => {
    const { app } = await gw(['--push.disable-consistency-check']);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: '# TYPE m gauge\nm 1\n' })).statusCode).toBe(202);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/b', payload: '# TYPE m counter\nm 1\n' })).statusCode).toBe(202);
    const scrape = await app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(500);
    expect(scrape.body).toMatch(/^An error has occurred while serving metrics:\n\npushed metrics are invalid/);
    expect((await app.inject({ method: 'GET', url: '/api/v1/metrics' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/metrics/job/b' })).statusCode).toBe(202);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
  });

  it('DELETE answers 202, also for a missing group; GET on a push path is 405 with Allow', async () => {
    const { app } = await gw();
    await app.inject({ method: 'PUT', url: '/metrics/job/d', payload: 'x 1\n' });
    expect((await app.inject({ method: 'DELETE', url: '/metrics/job/d' })).statusCode).toBe(202);
    expect((await app.inject({ method: 'DELETE', url: '/metrics/job/nothing' })).statusCode).toBe(202);
    expect(pushedOnly((await app.inject({ method: 'GET', url: '/metrics' })).body)).toBe('');
    const get = await app.inject({ method: 'GET', url: '/metrics/job/d' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('DELETE, OPTIONS, POST, PUT');
    const options = await app.inject({ method: 'OPTIONS', url: '/metrics/job/d' });
    expect(options.statusCode).toBe(200);
    expect(options.headers.allow).toBe('DELETE, OPTIONS, POST, PUT');
    const head = await app.inject({ method: 'HEAD', url: '/metrics' });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('GET, OPTIONS');
    const unknown = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toBe('404 page not found\n');
  });

  it('reads an empty value from // (what prom-client sends), where Pushgateway redirects', async () => {
    const { app } = await gw();
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/j/a//b/c', payload: 'x 1\n' })).statusCode).toBe(200);
    const data = (await app.inject({ method: 'GET', url: '/api/v1/metrics' })).json() as { data: { labels: Record<string, string> }[] };
    expect(data.data[0]?.labels).toEqual({ a: '', b: 'c', job: 'j' });
  });

  it('decodes @base64 job and label values, = for empty', async () => {
    const { app } = await gw();
    const job = Buffer.from('a/b').toString('base64url');
    const res = await app.inject({ method: 'PUT', url: `/metrics/job@base64/${job}/path@base64/L3Zhci90bXA=/empty@base64/=`, payload: 'x 1\n' });
    expect(res.statusCode).toBe(200);
    const data = (await app.inject({ method: 'GET', url: '/api/v1/metrics' })).json() as { data: { labels: Record<string, string> }[] };
    expect(data.data[0]?.labels).toEqual({ empty: '', job: 'a/b', path: '/var/tmp' });
  });

  it('validates X-Portico-Group-TTL and expires groups (injected clock)', async () => {
    const { app, clock } = await gw(['--push.group-ttl=1h']);
    const bad = await app.inject({ method: 'PUT', url: '/metrics/job/t', payload: 'x 1\n', headers: { 'x-portico-group-ttl': 'soon' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('invalid X-Portico-Group-TTL header "soon"');
    await app.inject({ method: 'PUT', url: '/metrics/job/short', payload: 'x 1\n', headers: { 'x-portico-group-ttl': '30s' } });
    await app.inject({ method: 'PUT', url: '/metrics/job/default', payload: 'y 1\n' });
    clock.advance(31_000);
    let text = pushedOnly((await app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(text).not.toContain('job="short"');
    expect(text).toContain('job="default"');
    clock.advance(3_600_000);
    text = pushedOnly((await app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(text).toBe('');
  });
});

describe('exposition negotiation', () => {
  it('serves OpenMetrics when asked, and gzip when accepted', async () => {
    const { app } = await gw();
    await app.inject({ method: 'PUT', url: '/metrics/job/o', payload: '# TYPE c counter\nc_total 1\n# TYPE c2 counter\nc2 3\n' });
    const om = await app.inject({ method: 'GET', url: '/metrics', headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' } });
    expect(om.headers['content-type']).toContain('application/openmetrics-text');
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    expect(om.body).toContain('c2_total{instance="",job="o"} 3');
    const gz = await app.inject({ method: 'GET', url: '/metrics', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });
});

describe('API, admin and lifecycle', () => {
  it('GET /api/v1/metrics has Pushgateway\'s shape, numbers as Go strings, with CORS', async () => {
    const { app } = await gw();
    await app.inject({
      method: 'PUT',
      url: '/metrics/job/api',
      payload: '# HELP big A big one\n# TYPE big gauge\nbig 1234567\n# TYPE s summary\ns{quantile="0.5"} 0.1\ns_sum 2\ns_count 3\n# TYPE h histogram\nh_bucket{le="0.5"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1e-05\nh_count 2\n',
    });
    const res = await app.inject({ method: 'GET', url: '/api/v1/metrics' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['content-type']).toBe('application/json');
    const body = res.json() as { status: string; data: Record<string, unknown>[] };
    expect(body.status).toBe('success');
    const g = body.data[0] as Record<string, { time_stamp: string; type: string; help?: string; metrics: unknown[] }>;
    expect(Object.keys(g)).toEqual(['big', 'h', 'labels', 'last_push_successful', 'push_failure_time_seconds', 'push_time_seconds', 's']);
    expect(g.labels).toEqual({ job: 'api' });
    expect(g.last_push_successful).toBe(true);
    expect(g.big).toEqual({
      time_stamp: '2026-01-02T03:04:05.678Z',
      type: 'GAUGE',
      help: 'A big one',
      metrics: [{ labels: { instance: '', job: 'api' }, value: '1.234567e+06' }],
    });
    expect(g.s?.metrics[0]).toEqual({ labels: { instance: '', job: 'api' }, quantiles: { '0.5': '0.1' }, count: '3', sum: '2' });
    expect(g.h?.metrics[0]).toEqual({ labels: { instance: '', job: 'api' }, buckets: { '0.5': '1', '+Inf': '2' }, count: '2', sum: '1e-05' });
    expect(g.push_time_seconds?.metrics[0]).toEqual({ labels: { instance: '', job: 'api' }, value: '1.767323045678e+09' });
    const options = await app.inject({ method: 'OPTIONS', url: '/api/v1/metrics' });
    expect(options.statusCode).toBe(200);
    expect(options.headers['access-control-allow-methods']).toBe('GET, POST, DELETE, OPTIONS');
  });

  it('GET /api/v1/status shows build information, flags as strings and the start time', async () => {
    const { app } = await gw(['--persistence.interval=5m']);
    const data = ((await app.inject({ method: 'GET', url: '/api/v1/status' })).json() as { data: Record<string, unknown> }).data;
    expect(Object.keys(data.build_information as object).sort()).toEqual(['branch', 'buildDate', 'buildUser', 'goVersion', 'revision', 'version']);
    expect((data.flags as Record<string, string>)['persistence.interval']).toBe('5m0s');
    expect((data.flags as Record<string, string>)['web.enable-admin-api']).toBe('false');
    expect(data.start_time).toBe('2026-01-02T03:04:05.678Z');
  });

  it('wipe is 404 unless --web.enable-admin-api, then 202 and everything is gone', async () => {
    let { app } = await gw();
    expect((await app.inject({ method: 'PUT', url: '/api/v1/admin/wipe' })).statusCode).toBe(404);
    await app.close();
    ({ app } = await gw(['--web.enable-admin-api']));
    await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: 'x 1\n' });
    await app.inject({ method: 'PUT', url: '/metrics/job/b', payload: 'x 1\n' });
    expect((await app.inject({ method: 'PUT', url: '/api/v1/admin/wipe' })).statusCode).toBe(202);
    expect(pushedOnly((await app.inject({ method: 'GET', url: '/metrics' })).body)).toBe('');
  });

  it('/-/healthy and /-/ready say OK; /-/quit is 403 unless enabled, then asks for shutdown', async () => {
    let harness = await gw();
    expect((await harness.app.inject({ method: 'GET', url: '/-/healthy' })).body).toBe('OK');
    expect((await harness.app.inject({ method: 'GET', url: '/-/ready' })).body).toBe('OK');
    const forbidden = await harness.app.inject({ method: 'PUT', url: '/-/quit' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.body).toBe('Lifecycle API is not enabled.\n');
    expect((await harness.app.inject({ method: 'GET', url: '/-/quit' })).statusCode).toBe(405);
    await harness.app.close();
    harness = await gw(['--web.enable-lifecycle']);
    const quit = await harness.app.inject({ method: 'POST', url: '/-/quit' });
    expect(quit.statusCode).toBe(200);
    expect(quit.body).toBe('Requesting termination... Goodbye!');
    expect(harness.shutdowns).toEqual(['/-/quit']);
  });

  it('counts requests in pushgateway_http_requests_total{code,handler,method}', async () => {
    const { app } = await gw();
    await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: 'x 1\n' });
    await app.inject({ method: 'PUT', url: '/metrics/job/a/b', payload: 'x 1\n' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('pushgateway_http_requests_total{code="200",handler="push",method="put"} 1\n');
    expect(text).toContain('pushgateway_http_requests_total{code="400",handler="push",method="put"} 1\n');
    expect(text).toContain('pushgateway_http_push_size_bytes_count{method="put"} 2\n');
  });
});

describe('route prefix and basic auth', () => {
  it('answers OPTIONS on the paths it serves with the allowed methods, as httprouter does', async () => {
    const { app } = await gw(['--web.enable-admin-api']);
    for (const url of ['/metrics', '/-/healthy', '/-/ready', '/', '/status']) {
      const r = await app.inject({ method: 'OPTIONS', url });
      expect([url, r.statusCode, r.headers.allow]).toEqual([url, 200, 'GET, OPTIONS']);
    }
    expect((await app.inject({ method: 'OPTIONS', url: '/-/quit' })).headers.allow).toBe('GET, OPTIONS, POST, PUT');
    // The API keeps its own CORS answer, wipe included.
    const wipe = await app.inject({ method: 'OPTIONS', url: '/api/v1/admin/wipe' });
    expect([wipe.statusCode, wipe.headers['access-control-allow-origin']]).toEqual([200, '*']);
    expect((await app.inject({ method: 'OPTIONS', url: '/nothing' })).statusCode).toBe(404);
  });

  it('answers HEAD with 405 and the allowed methods on every path it serves, as Pushgateway does', async () => {
    const { app } = await gw(['--web.enable-admin-api']);
    const expected: [string, string][] = [
      ['/', 'GET, OPTIONS'],
      ['/status', 'GET, OPTIONS'],
      ['/metrics', 'GET, OPTIONS'],
      ['/-/healthy', 'GET, OPTIONS'],
      ['/-/ready', 'GET, OPTIONS'],
      ['/-/quit', 'GET, OPTIONS, POST, PUT'],
      ['/api/v1/status', 'GET, OPTIONS'],
      ['/api/v1/metrics', 'GET, OPTIONS'],
      ['/api/v1/admin/wipe', 'OPTIONS, PUT'],
      ['/metrics/job/x/a/b', 'DELETE, OPTIONS, POST, PUT'],
    ];
    for (const [url, allow] of expected) {
      const r = await app.inject({ method: 'HEAD', url });
      expect([url, r.statusCode, r.headers.allow, r.headers['content-type'], r.headers['content-length'], r.body]).toEqual([
        url,
        405,
        allow,
        'text/plain; charset=utf-8',
        '19',
        '',
      ]);
    }
    for (const url of ['/nothing', '/metrics/job', '/metrics/nope/x', '/api/v1/nope']) {
      expect([url, (await app.inject({ method: 'HEAD', url })).statusCode]).toEqual([url, 404]);
    }
  });

  it('moves every route under --web.route-prefix', async () => {
    const { app } = await gw(['--web.route-prefix=/pg/']);
    expect((await app.inject({ method: 'PUT', url: '/pg/metrics/job/p', payload: 'x 1\n' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/p', payload: 'x 1\n' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/pg/metrics' })).body).toContain('x{instance="",job="p"} 1');
    expect((await app.inject({ method: 'GET', url: '/pg/-/healthy' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/pg/api/v1/status' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/pg/' })).headers['content-type']).toContain('text/html');
  });

  it('asks for basic auth everywhere except the health probes', async () => {
    const { app } = await gw([`--web.config.file=${new URL('../fixtures/pushgateway/gateway/web-config.yml', import.meta.url).pathname}`]);
    const anon = await app.inject({ method: 'GET', url: '/metrics' });
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['www-authenticate']).toBe('Basic');
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: 'x 1\n' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/-/healthy' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/-/ready' })).statusCode).toBe(200);
    const good = `Basic ${Buffer.from('alice:wonderland').toString('base64')}`;
    const bad = `Basic ${Buffer.from('alice:nope').toString('base64')}`;
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: bad } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: 'x 1\n', headers: { authorization: good } })).statusCode).toBe(200);
  });
});
