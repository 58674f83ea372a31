import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireBinary } from './peer-processes.js';

/** Debian's redis-server (apt-get install redis-server), which the Redis store's tests start themselves. */
export const REDIS_SERVER = '/usr/bin/redis-server';

/**
 * One redis-server on a free loopback port with a temporary directory (no daemon, no config file),
 * append-only persistence on so that a restart keeps the data, as a production Redis would.
 */
export class RedisServer {
  private proc: ChildProcess | undefined;
  private output = '';
  readonly dir = mkdtempSync(join(tmpdir(), 'portico-redis-'));

  private constructor(
    readonly port: number,
    /** Extra arguments: a Sentinel's config file first (`--sentinel` mode), or more options. */
    private readonly extra: (dir: string, port: number) => string[] = () => [],
  ) {}

  static async start(): Promise<RedisServer> {
    requireBinary(REDIS_SERVER, 'redis-server');
    const server = new RedisServer(await freePort());
    await server.resume();
    return server;
  }

  /** A server with more options (e.g. `--cluster-enabled yes`). */
  static async withOptions(options: readonly string[]): Promise<RedisServer> {
    requireBinary(REDIS_SERVER, 'redis-server');
    const server = new RedisServer(await freePort(), () => [...options]);
    await server.resume();
    return server;
  }

  /**
   * A node of a Redis Cluster, not yet joined (`redis-cli --cluster create` joins it). Its cluster
   * bus has a free port of its own: by default it is the port + 10,000, which for a free port above
   * 55,535 does not exist and otherwise may belong to another process.
   */
  static async clusterNode(): Promise<RedisServer> {
    const busPort = await freePort();
    return RedisServer.withOptions(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)]);
  }

  /** A Sentinel (redis-server --sentinel) watching `master` under the name `masterName`. */
  static async sentinel(master: RedisServer, masterName: string): Promise<RedisServer> {
    requireBinary(REDIS_SERVER, 'redis-server');
    const server = new RedisServer(await freePort(), (dir, port) => {
      const conf = join(dir, 'sentinel.conf');
      writeFileSync(conf, `port ${port}\nbind 127.0.0.1\nsentinel monitor ${masterName} 127.0.0.1 ${master.port} 1\n`);
      return [conf, '--sentinel'];
    });
    await server.resume();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts (again) on the same port and directory; `wipe` starts without the data written so far. */
  async resume(opts: { wipe?: boolean } = {}): Promise<void> {
    if (opts.wipe === true) {
      rmSync(join(this.dir, 'appendonlydir'), { recursive: true, force: true });
      rmSync(join(this.dir, 'dump.rdb'), { force: true });
    }
    const extra = this.extra(this.dir, this.port);
    const args =
      extra[1] === '--sentinel'
        ? [...extra, '--dir', this.dir]
        : ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no', ...extra];
    const proc = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.proc = proc;
    const deadline = Date.now() + 20_000;
    while (!(await this.answers())) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.port}:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Whether a PING is answered with PONG. */
  answers(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      socket.setTimeout(1000);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
  }

  /** Stops the server (SIGKILL: no goodbye to the clients; with appendfsync always nothing acknowledged is lost). */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const proc = this.proc;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
