import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../support/free-port.js';
export { freePort } from '../support/free-port.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The push gateway's Go peers, built from the Go module proxy by scripts/build-peers.sh (pinned in
 * test/peers/<name>/, cached outside the repository): Pushgateway 1.11.1, Prometheus 3.16.0
 * and push-client (our program on client_golang 1.25.0's push package).
 */
export type GoPeer = 'pushgateway' | 'prometheus' | 'push-client';

const goPeerPaths = new Map<GoPeer | 'python-prometheus', string>();

/**
 * The path of a Go peer's binary: found in the cache, or built on the first run (minutes; `make
 * peers` builds every peer before the tests). Fails with what to install when Go is missing.
 */
export function goPeer(name: GoPeer): string {
  const known = goPeerPaths.get(name);
  if (known !== undefined) return known;
  let out: string;
  try {
    out = execFileSync('bash', [resolve(ROOT, 'scripts/build-peers.sh'), name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(
      `scripts/build-peers.sh ${name} failed: the push gateway's peer tests need Go 1.26 or newer (https://go.dev/doc/install) and the Go module proxy (${(err as Error).message})`,
      { cause: err },
    );
  }
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`scripts/build-peers.sh ${name} printed no binary path: ${out}`);
  goPeerPaths.set(name, path);
  return path;
}

/**
 * The Python interpreter of a venv holding PyPI's prometheus_client (pinned in
 * test/peers/python-prometheus/requirements.txt), installed by scripts/build-peers.sh on the first
 * run and cached by version. Fails with what to install when Debian's python3-venv is missing.
 */
export function pythonPrometheus(): string {
  const known = goPeerPaths.get('python-prometheus');
  if (known !== undefined) return known;
  let out: string;
  try {
    out = execFileSync('bash', [resolve(ROOT, 'scripts/build-peers.sh'), 'python-prometheus'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (err) {
    throw new Error(`scripts/build-peers.sh python-prometheus failed: it needs Debian's python3-venv and python3-pip, and PyPI (${(err as Error).message})`, { cause: err });
  }
  const path = out.trim().split('\n').pop() ?? '';
  if (!existsSync(path)) throw new Error(`scripts/build-peers.sh python-prometheus printed no interpreter path: ${out}`);
  goPeerPaths.set('python-prometheus', path);
  return path;
}

/** Fails with a message naming the Debian package when a real peer is not installed. */
export function requireBinary(path: string, debianPackage: string): string {
  if (!existsSync(path)) throw new Error(`${path} not found: install the Debian package "${debianPackage}" (apt-get install ${debianPackage})`);
  return path;
}


export interface Peer {
  readonly proc: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts a peer and waits until `readyUrl` answers 200 (asked with `readyHeaders`, e.g. credentials). */
export async function startPeer(cmd: string, args: string[], readyUrl: string, timeoutMs = 30_000, readyHeaders: Record<string, string> = {}): Promise<Peer> {
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
      const res = await fetch(readyUrl, { headers: readyHeaders });
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

/** A peer's answer read in full. */
export interface PeerResponse {
  status: number;
  body: Buffer;
  text: string;
}

/** Pushgateway 1.11.1 (built by scripts/build-peers.sh), in memory only, on loopback. */
export interface PushgatewayPeer extends Peer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Raw HTTP, so that a path reaches Pushgateway byte for byte (fetch would normalize it). */
  send(method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>): Promise<PeerResponse>;
}

/** Raw HTTP to any server on 127.0.0.1 (`base` is `http://127.0.0.1:<port>`), paths byte for byte. */
export function rawSend(base: string, method: string, path: string, body?: Uint8Array | string, headers?: Record<string, string>): Promise<PeerResponse> {
  return rawRequest(Number(new URL(base).port), method, path, body, headers);
}

function rawRequest(port: number, method: string, path: string, body?: Uint8Array | string, headers: Record<string, string> = {}): Promise<PeerResponse> {
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

/**
 * Starts the real Pushgateway on a free port and waits until it is ready (asking with
 * `readyHeaders`: behind basic auth, Pushgateway's /-/ready wants credentials too).
 */
export async function startPushgateway(extraArgs: readonly string[] = [], readyHeaders: Record<string, string> = {}): Promise<PushgatewayPeer> {
  const bin = goPeer('pushgateway');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const peer = await startPeer(bin, [`--web.listen-address=127.0.0.1:${port}`, '--persistence.file=', '--log.level=warn', ...extraArgs], `${url}/-/ready`, 30_000, readyHeaders);
  return { ...peer, port, url, send: (method, path, body, headers) => rawRequest(port, method, path, body, headers) };
}

/**
 * For a test file that compares with Pushgateway: starts it before the file's tests and stops it
 * after them; returns the running peer's getter.
 */
export function pushgatewayForFile(): () => PushgatewayPeer {
  let peer: PushgatewayPeer | undefined;
  beforeAll(async () => {
    peer = await startPushgateway();
  });
  afterAll(async () => {
    await peer?.stop();
  });
  return () => {
    if (peer === undefined) throw new Error('Pushgateway is not running (beforeAll failed?)');
    return peer;
  };
}
