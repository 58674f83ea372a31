import { describe, expect, it } from 'vitest';
import { gatewaysClosedAfterEach } from './gateway-harness.js';

const gw = gatewaysClosedAfterEach();

describe('API, admin and lifecycle', () => {
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
