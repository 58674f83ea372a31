import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushgatewayReplica, type RunningPortico } from '../support/portico-process.js';
import { eventually, freePort, requireBinary } from '../pushgateway/peer-processes.js';
import { RedisServer } from '../pushgateway/redis-server.js';

/**
 * `--pushgateway.store=rediss://…`: Debian's redis-server (built with TLS) serving TLS on a port of
 * its own, with a CA and a server certificate made here by openssl. Two replicas trusting the CA
 * (--pushgateway.redis.tls-ca-file) share a push; a replica given another CA is refused by TLS,
 * says so in its log and answers pushes 503, without crashing.
 */
let dir = '';
let redis: RedisServer | undefined;
let tlsPort = 0;
const replicas: RunningPortico[] = [];

function openssl(args: string[]): void {
  execFileSync(requireBinary('/usr/bin/openssl', 'openssl'), args, { cwd: dir, stdio: 'ignore' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A CA (`<name>.crt`, `<name>.key`), self-signed, valid for a day. */
function makeCa(name: string): string {
  openssl(['req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '1', '-subj', `/CN=portico test ${name}`]);
  return join(dir, `${name}.crt`);
}

async function start(ca: string): Promise<RunningPortico> {
  const data = join(dir, `replica-${replicas.length}`);
  const r = await startPushgatewayReplica(data, `rediss://127.0.0.1:${tlsPort}/0`, ['--pushgateway.redis.tls-ca-file', ca]);
  replicas.push(r);
  return r;
}

const base = (r: RunningPortico): string => `http://127.0.0.1:${r.ports.pushgateway}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-rediss-'));
  makeCa('ca');
  openssl(['req', ...EC, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'server.ext']);
  tlsPort = await freePort();
  // The plain port stays open on loopback only for the helper's readiness PING; Portico uses the TLS port.
  redis = await RedisServer.withOptions([
    '--tls-port', String(tlsPort),
    '--tls-cert-file', join(dir, 'server.crt'),
    '--tls-key-file', join(dir, 'server.key'),
    '--tls-ca-cert-file', join(dir, 'ca.crt'),
    '--tls-auth-clients', 'no',
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
  await redis?.close();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('push gateway replicas sharing Redis over TLS (rediss://)', () => {
  it('shows a push acknowledged by one replica through another', async () => {
    const ca = join(dir, 'ca.crt');
    const a = await start(ca);
    const b = await start(ca);
    // Start-up does not wait for Redis: the first push may come before the TLS handshake is done.
    await eventually(
      async () => ((await fetch(`${base(a)}/metrics/job/tls_job/instance/i1`, { method: 'PUT', body: 'over_tls 7\n' })).status === 200 ? true : undefined),
      15_000,
      'a push through replica a',
    );
    const seen = await eventually(
      async () => {
        const text = await (await fetch(`${base(b)}/metrics`)).text();
        return text.includes('over_tls{instance="i1",job="tls_job"} 7') ? text : undefined;
      },
      15_000,
      'the push in replica b',
    );
    expect(seen).toContain('over_tls{instance="i1",job="tls_job"} 7');
    expect(await (await fetch(`${base(b)}/api/v1/metrics`)).text()).toContain('"job":"tls_job"');
  });

  it('refuses a server certificate the CA file does not sign: a clear log line and 503s, no crash', async () => {
    const c = await start(makeCa('other-ca'));
    const refused = await eventually(
      async () => {
        const res = await fetch(`${base(c)}/metrics/job/untrusted`, { method: 'PUT', body: 'untrusted 1\n' });
        return res.status === 503 ? await res.text() : undefined;
      },
      15_000,
      'a 503 from the replica with the wrong CA',
    );
    expect(refused).toMatch(/^push gateway store unavailable: .*nothing was changed, retry later/);
    const line = await eventually(
      async () => c.lines.find((l) => l.includes("Redis connection error: the server's TLS certificate is not trusted")),
      15_000,
      'a log line naming the certificate problem',
    );
    const logged = JSON.parse(line) as Record<string, unknown>;
    expect(logged.level).toBe('error');
    expect(logged.code).toBe('SELF_SIGNED_CERT_IN_CHAIN');
    expect(logged.caFile).toBe(join(dir, 'other-ca.crt'));
    expect(logged.msg).toContain('--pushgateway.redis.tls-ca-file');
    // Logged once, not once per reconnection attempt.
    await new Promise((r) => setTimeout(r, 2000));
    expect(c.lines.filter((l) => l.includes('TLS certificate is not trusted'))).toHaveLength(1);
    // Still serving, and the push went nowhere.
    expect(c.child.exitCode).toBeNull();
    expect((await fetch(`${base(c)}/-/healthy`)).status).toBe(200);
    const other = replicas[0] as RunningPortico;
    expect(await (await fetch(`${base(other)}/api/v1/metrics`)).text()).not.toContain('untrusted');
  });
});
