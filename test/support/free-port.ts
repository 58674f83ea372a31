import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';

/**
 * Loopback ports for the peers and processes a test starts itself.
 *
 * Asking the kernel for port 0 and closing it again gives a port from the ephemeral range, which
 * is also where every outgoing connection's local port comes from: between the probe and the
 * child's listen, a connection to etcd or the API server can take it ("--internal.listen-address
 * 127.0.0.1:33487 is in use"), and two probes in a row can even give the same port. So ports are
 * picked below the ephemeral range, each vitest worker from its own slice of it, never twice in
 * one process, and only after a bind shows nothing holds them now.
 */

const LOW = 20_000;

/** The first port of the kernel's ephemeral range (32768 by default). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOW + 1_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const HIGH = ephemeralStart();
const SLICES = 16;
const given = new Set<number>();

/** This worker's slice of [LOW, HIGH): vitest numbers its workers from 1. */
function slice(): { from: number; size: number } {
  const size = Math.floor((HIGH - LOW) / SLICES);
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? process.pid);
  return { from: LOW + (Math.abs(worker) % SLICES) * size, size };
}

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** A loopback TCP port nothing holds now, outside the ephemeral range, not given before here. */
export async function freePort(): Promise<number> {
  const { from, size } = slice();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * size);
    if (given.has(port)) continue;
    given.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${from}-${from + size - 1} after 200 tries`);
}
