import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, listenGateway, type Harness } from '../pushgateway/gateway-harness.js';
import { pythonPrometheus, startPushgateway, type PushgatewayPeer } from '../pushgateway/peer-processes.js';

/**
 * Python's prometheus_client, the newest release from PyPI (pinned in
 * test/peers/python-prometheus/requirements.txt, installed in its own venv by
 * scripts/build-peers.sh), against Portico and the real Pushgateway 1.11.1, both behind basic auth:
 * push_to_gateway, pushadd_to_gateway and delete_from_gateway with grouping values containing `/`
 * and empty ones, through basic_auth_handler; both gateways must end up with the same groups.
 */
const run = promisify(execFile);
const SCRIPT = new URL('../fixtures/pushgateway/gateway/python-client.py', import.meta.url).pathname;
const WEB_CONFIG = new URL('../fixtures/pushgateway/gateway/web-config.yml', import.meta.url).pathname;
const PINNED = /^prometheus-client==(\S+)/m.exec(readFileSync(new URL('../peers/python-prometheus/requirements.txt', import.meta.url), 'utf8'))?.[1];
const AUTH = { Authorization: `Basic ${Buffer.from('alice:wonderland').toString('base64')}` };

let pg: PushgatewayPeer | undefined;
let portico: (Harness & { url: string }) | undefined;
let python = '';

beforeAll(async () => {
  python = pythonPrometheus();
  pg = await startPushgateway([`--web.config.file=${WEB_CONFIG}`], AUTH);
  portico = await listenGateway([`--web.config.file=${WEB_CONFIG}`], TestClock.real());
});

afterAll(async () => {
  await pg?.stop();
  await portico?.app.close();
});

const gateways = (): [string, string][] => [
  ['pushgateway', pg?.url as string],
  ['portico', portico?.url as string],
];

/** Runs the client; returns its version line and what it printed after (ok, or its error). */
async function py(url: string, action: string, credentials: string[] = ['alice', 'wonderland']): Promise<{ version: string; result: string }> {
  let out: string;
  try {
    out = (await run(python, [SCRIPT, url, action, ...credentials])).stdout;
  } catch (err) {
    out = (err as { stdout?: string }).stdout ?? String(err);
  }
  const [version = '', ...rest] = out.trim().split('\n');
  return { version, result: rest.join('\n').replace(url, '<gateway>') };
}

/** The lines of job py/job on /metrics, push times and created timestamps left out (each push has its own). */
async function jobLines(url: string): Promise<string[]> {
  const text = await (await fetch(`${url}/metrics`, { headers: AUTH })).text();
  return text.split('\n').filter((l) => l.includes('job="py/job"') && !/^push_(?:failure_)?time_seconds|_created\{/.test(l));
}

async function groupLabels(url: string): Promise<unknown> {
  const { data } = (await (await fetch(`${url}/api/v1/metrics`, { headers: AUTH })).json()) as { data: { labels: Record<string, string> }[] };
  return data.find((g) => g.labels.job === 'py/job')?.labels;
}

describe("Python's prometheus_client from PyPI, against Portico and Pushgateway 1.11.1 behind basic auth", () => {
  it('is the pinned PyPI release, not a system package', async () => {
    expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
    expect(python).toContain(`python-prometheus-${PINNED}`);
    expect((await py(portico?.url as string, 'delete')).version).toBe(PINNED);
  });

  it('push_to_gateway through basic_auth_handler: a job and grouping values with / and empty values (base64), the same on both', async () => {
    for (const [, url] of gateways()) expect(await py(url, 'push')).toEqual({ version: PINNED, result: 'ok' });
    const [theirs, ours] = await Promise.all(gateways().map(([, url]) => jobLines(url)));
    // prometheus_client 0.26 percent-encodes a space (Debian's 0.16 sent "a+b", which gateways keep as +).
    const key = 'empty="",instance="",job="py/job",path="/var/tmp/x",plain="a b"';
    expect(ours).toContain(`py_last_success_unixtime{${key}} 1.234567e+06`);
    expect(ours).toContain(`py_duration_seconds_bucket{${key},le="+Inf"} 1`);
    expect(ours).toEqual(theirs);
    const labels = await Promise.all(gateways().map(([, url]) => groupLabels(url)));
    expect(labels[1]).toEqual({ empty: '', job: 'py/job', path: '/var/tmp/x', plain: 'a b' });
    expect(labels[1]).toEqual(labels[0]);
  });

  it('pushadd_to_gateway adds a family, push_to_gateway replaces the group, delete_from_gateway removes it, alike', async () => {
    for (const [, url] of gateways()) expect((await py(url, 'pushadd')).result).toBe('ok');
    let both = await Promise.all(gateways().map(([, url]) => jobLines(url)));
    expect(both[1]?.some((l) => l.startsWith('py_extra{'))).toBe(true);
    expect(both[1]?.some((l) => l.startsWith('py_last_success_unixtime{'))).toBe(true);
    expect(both[1]).toEqual(both[0]);
    for (const [, url] of gateways()) expect((await py(url, 'push')).result).toBe('ok');
    both = await Promise.all(gateways().map(([, url]) => jobLines(url)));
    expect(both[1]?.some((l) => l.startsWith('py_extra{'))).toBe(false);
    expect(both[1]).toEqual(both[0]);
    for (const [, url] of gateways()) expect((await py(url, 'delete')).result).toBe('ok');
    expect(await Promise.all(gateways().map(([, url]) => groupLabels(url)))).toEqual([undefined, undefined]);
  });

  it('without credentials, or with a wrong password, the client raises the same 401 error for both', async () => {
    for (const credentials of [[], ['alice', 'nope']]) {
      const [theirs, ours] = await Promise.all(gateways().map(([, url]) => py(url, 'push', credentials)));
      expect(ours?.result).toMatch(/^HTTPError HTTP Error 401: Unauthorized$/);
      expect(ours).toEqual(theirs);
    }
  });
});
