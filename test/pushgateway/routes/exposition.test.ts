import { describe, expect, it } from 'vitest';
import { gatewaysClosedAfterEach } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

describe('exposition negotiation', () => {
  it('never serves OpenMetrics by default, as Pushgateway', async () => {
    const { app } = await gw();
    await app.inject({ method: 'PUT', url: '/metrics/job/o', payload: '# TYPE c2 counter\nc2 3\n' });
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' } });
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    expect(res.body).toContain('c2{instance="",job="o"} 3');
    expect(res.body).not.toContain('# EOF');
  });

  it('serves OpenMetrics when asked with --web.enable-openmetrics, and gzip when accepted', async () => {
    const { app } = await gw(['--web.enable-openmetrics']);
    await app.inject({ method: 'PUT', url: '/metrics/job/o', payload: '# TYPE c counter\nc_total 1\n# TYPE c2 counter\nc2 3\n' });
    const om = await app.inject({ method: 'GET', url: '/metrics', headers: { accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' } });
    expect(om.headers['content-type']).toContain('application/openmetrics-text');
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    expect(om.body).toContain('c2_total{instance="",job="o"} 3');
    const gz = await app.inject({ method: 'GET', url: '/metrics', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });
});
