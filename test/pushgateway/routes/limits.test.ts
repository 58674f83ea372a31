import { describe, expect, it } from 'vitest';
import { limitRefusal, NO_LIMITS } from '../../../src/pushgateway/store/limits.js';
import { gatewaysClosedAfterEach } from '../gateway-harness.js';

const gw = gatewaysClosedAfterEach();

const series = (name: string, n: number): string => Array.from({ length: n }, (_, i) => `${name}{i="${i}"} ${i}\n`).join('');

async function state(app: Awaited<ReturnType<typeof gw>>['app']): Promise<{ groups: unknown; refusals: string[] }> {
  const groups = JSON.parse((await app.inject({ method: 'GET', url: '/api/v1/metrics' })).body).data as { labels: unknown }[];
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return { groups: groups.map((g) => g.labels), refusals: text.split('\n').filter((l) => l.startsWith('pushgateway_push_limit_refusals_total{')) };
}

describe('--push.max-groups, --push.max-series-per-group, --push.max-series', () => {
  it('refuse a new group past --push.max-groups with 429, create nothing, and accept pushes to existing groups', async () => {
    const { app } = await gw(['--push.max-groups=2']);
    for (const job of ['a', 'b']) expect((await app.inject({ method: 'PUT', url: `/metrics/job/${job}`, payload: 'x 1\n' })).statusCode).toBe(200);
    const before = JSON.parse((await app.inject({ method: 'GET', url: '/api/v1/metrics' })).body).data as { labels: unknown }[];
    const refused = await app.inject({ method: 'PUT', url: '/metrics/job/c', payload: 'x 1\n' });
    expect({ status: refused.statusCode, text: refused.body, type: refused.headers['content-type'] }).toEqual({
      status: 429,
      text: 'push refused: the gateway holds 2 groups, the limit; delete groups or see --push.max-groups\n',
      type: 'text/plain; charset=utf-8',
    });
    // A refused inconsistent push to a new group does not create it either (no push_failure_time_seconds).
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/c', payload: 'x 1 123\n' })).statusCode).toBe(429);
    const after = await state(app);
    // The gateway's own metrics are collected once per clock second: state() reads them once per test.
    expect(after.groups).toEqual(before.map((g) => g.labels));
    expect(after.refusals).toContain('pushgateway_push_limit_refusals_total{limit="max-groups"} 2');
    expect((await app.inject({ method: 'POST', url: '/metrics/job/a', payload: 'y 2\n' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/metrics/job/b' })).statusCode).toBe(202);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/c', payload: 'x 1\n' })).statusCode).toBe(200);
  });

  it('refuse a push that would leave its group with too many metrics with 413, counting what POST keeps', async () => {
    const { app } = await gw(['--push.max-series-per-group=5']);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: series('x', 5) })).statusCode).toBe(200);
    const put = await app.inject({ method: 'PUT', url: '/metrics/job/b', payload: series('x', 6) });
    expect({ status: put.statusCode, text: put.body }).toEqual({
      status: 413,
      text: 'push refused: the group would hold 6 metrics, more than the limit of 5 per group; see --push.max-series-per-group\n',
    });
    const post = await app.inject({ method: 'POST', url: '/metrics/job/a', payload: 'y 1\n' });
    expect(post.statusCode).toBe(413);
    expect(post.body).toContain('would hold 6 metrics');
    // POST replacing a family of the group by one as large is fine; a histogram counts once.
    expect((await app.inject({ method: 'POST', url: '/metrics/job/a', payload: series('x', 4) + '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n' })).statusCode).toBe(200);
    const s = await state(app);
    expect(s.groups).toEqual([{ job: 'a' }]);
    expect(s.refusals).toContain('pushgateway_push_limit_refusals_total{limit="max-series-per-group"} 2');
  });

  it('refuse a push past --push.max-series with 429, but not a re-push that does not grow the gateway', async () => {
    const { app } = await gw(['--push.max-series=8']);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: series('x', 5) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/b', payload: series('x', 3).replace(/x\{/g, 'x{g="b",') })).statusCode).toBe(200);
    const refused = await app.inject({ method: 'POST', url: '/metrics/job/b', payload: 'z 1\n' });
    expect({ status: refused.statusCode, text: refused.body }).toEqual({
      status: 429,
      text: 'push refused: the gateway would hold 9 metrics, more than the limit of 8; delete groups or see --push.max-series\n',
    });
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: series('x', 5).replace(/ (\d+)\n/g, ' 7\n') })).statusCode).toBe(200);
    expect((await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: series('x', 4) + 'z 1\n' })).statusCode).toBe(200);
    expect((await state(app)).refusals).toContain('pushgateway_push_limit_refusals_total{limit="max-series"} 1');
  });

  it('count bodies refused by --push.max-body-size', async () => {
    const { app } = await gw(['--push.max-body-size=10B']);
    const r = await app.inject({ method: 'PUT', url: '/metrics/job/a', payload: series('x', 3) });
    expect(r.statusCode).toBe(413);
    const s = await state(app);
    expect(s.refusals).toEqual([
      'pushgateway_push_limit_refusals_total{limit="max-body-size"} 1',
      'pushgateway_push_limit_refusals_total{limit="max-groups"} 0',
      'pushgateway_push_limit_refusals_total{limit="max-series-per-group"} 0',
      'pushgateway_push_limit_refusals_total{limit="max-series"} 0',
    ]);
  });

  it('refuse negative limits at start-up, and 0 means none', async () => {
    await expect(gw(['--push.max-groups=-1'])).rejects.toThrow(/push\.max-groups/);
    const base = { newGroup: true, groupsBefore: 1e9, groupSeriesBefore: 0, groupSeriesAfter: 1e9, seriesBefore: 1e9 };
    expect(limitRefusal(NO_LIMITS, base)).toBeUndefined();
  });
});
