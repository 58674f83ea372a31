import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeProtobufDelimited } from '../../../src/pushgateway/exposition/protobuf.js';
import { gatewaysClosedAfterEach, pushedOnly } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

const BODY = '# TYPE some_metric counter\nsome_metric{label="val1"} 42\n# HELP g A gauge\n# TYPE g gauge\ng 3.5\n';

describe('push routes', () => {
  it('PUT then GET /metrics shows the group with push times', async () => {
    const { app } = await gw();
    const put = await app.inject({ method: 'PUT', url: '/metrics/job/some_job/instance/some_instance', payload: BODY });
    expect(put.statusCode).toBe(200);
    expect(put.body).toBe('');
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
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
