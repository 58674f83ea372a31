import { describe, expect, it } from 'vitest';
import { gatewaysClosedAfterEach } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

describe('API, admin and lifecycle', () => {
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
});
