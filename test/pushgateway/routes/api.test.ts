import { describe, expect, it } from 'vitest';
import { gatewaysClosedAfterEach, pushedOnly } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

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
    // Sizes as one would write them, and the persistence file actually used.
    expect((data.flags as Record<string, string>)['push.max-body-size']).toBe('16MiB');
    expect((data.flags as Record<string, string>)['persistence.file']).toBe('off');
  });

  it('shows odd sizes in bytes and a default persistence file as the path under --data.dir', async () => {
    const { app } = await gw(['--push.max-body-size=1500', '--persistence.file=', '--data.dir=/nonexistent-portico-test']);
    const data = ((await app.inject({ method: 'GET', url: '/api/v1/status' })).json() as { data: { flags: Record<string, string> } }).data;
    expect(data.flags['push.max-body-size']).toBe('1500B');
    expect(data.flags['persistence.file']).toBe('/nonexistent-portico-test/pushgateway.json');
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
});
