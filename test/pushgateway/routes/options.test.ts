import { describe, expect, it } from 'vitest';
import { gatewaysClosedAfterEach } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

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
});
