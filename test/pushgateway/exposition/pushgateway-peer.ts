/**
 * Runs the real Pushgateway (Debian package `prometheus-pushgateway`, 1.5.1) on a free loopback
 * port for differential tests, and speaks raw HTTP to it so that paths reach it byte for byte.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { freePort } from '../peer-processes.js';

export interface PeerResponse {
  status: number;
  body: Buffer;
  text: string;
}

export interface Pushgateway {
  readonly port: number;
  send(method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>): Promise<PeerResponse>;
  stop(): Promise<void>;
}

const BINARY = 'prometheus-pushgateway';

function send(
  port: number,
  method: string,
  path: string,
  body?: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<PeerResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, body: buf, text: buf.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : Buffer.from(body));
  });
}

/** Starts Pushgateway in memory-only mode; fails clearly when the Debian package is missing. */
export async function startPushgateway(): Promise<Pushgateway> {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `${BINARY} is not installed or does not run (${probe.error?.message ?? probe.stderr}); install the Debian package prometheus-pushgateway`,
    );
  }
  const port = await freePort();
  const child: ChildProcess = spawn(BINARY, [`--web.listen-address=127.0.0.1:${port}`, '--persistence.file='], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${BINARY} exited with ${child.exitCode}: ${stderr}`);
    try {
      const r = await send(port, 'GET', '/-/ready');
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${BINARY} did not become ready on port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    send: (method, path, body, headers) => send(port, method, path, body, headers),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
