import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** Fails with a message naming the Debian package when a real peer is not installed. */
export function requireBinary(path: string, debianPackage: string): string {
  if (!existsSync(path)) throw new Error(`${path} not found: install the Debian package "${debianPackage}" (apt-get install ${debianPackage})`);
  return path;
}

/** A TCP port free on 127.0.0.1 right now (for peers that cannot listen on port 0 and report it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Peer {
  readonly proc: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts a peer and waits until `readyUrl` answers 200. */
export async function startPeer(cmd: string, args: string[], readyUrl: string, timeoutMs = 30_000): Promise<Peer> {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const peer: Peer = {
    proc,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${cmd} exited with ${proc.exitCode}:\n${out}`);
    try {
      const res = await fetch(readyUrl);
      if (res.status === 200) return peer;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await peer.stop();
  throw new Error(`${cmd} did not become ready at ${readyUrl} within ${timeoutMs} ms:\n${out}`);
}

/** Polls `fn` until it returns a value other than undefined. */
export async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
