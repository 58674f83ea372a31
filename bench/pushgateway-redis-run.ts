/**
 * The Redis-store part of `npm run bench:pushgateway`: the same push and scrape workload on a
 * Portico whose groups live in a redis-server started here (Debian's package, a free port, a
 * temporary directory, append-only persistence with fsync every second as a production Redis
 * would run). Runs while the other servers are idle, one server at a time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REDIS_SERVER = '/usr/bin/redis-server';

interface Proc {
  readonly url: string;
  stop(): Promise<void>;
}

/** The bench's own helpers, passed in so that this file adds a run without copying them. */
export interface BenchTools {
  readonly root: string;
  start(cmd: string, argv: string[], url: string): Promise<Proc>;
  fill(url: string, from: number, to: number): Promise<void>;
  wrkPushes(url: string, groups: number, secs: number): number;
  scrapeMs(url: string, runs: number): Promise<number>;
  freePort(): Promise<number>;
}

/** Pushes per second and scrape ms of Portico on Redis at `groups` groups; undefined when redis-server is missing. */
export async function redisStoreRun(t: BenchTools, groups: number, seconds: number): Promise<{ pushes: number; scrapeMs: number } | undefined> {
  if (!existsSync(REDIS_SERVER)) {
    console.log(`Redis store run skipped: ${REDIS_SERVER} not found (apt-get install redis-server)`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'pg-bench-redis-'));
  const redisPort = await t.freePort();
  const redis = spawn(REDIS_SERVER, ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'], { stdio: 'ignore' });
  const port = await t.freePort();
  let portico: Proc | undefined;
  try {
    portico = await t.start(
      process.execPath,
      [
        join(t.root, 'dist/cli.js'),
        'serve',
        `--pushgateway.listen-address=127.0.0.1:${port}`,
        '--management.listen-address=off',
        '--search.listen-address=off',
        `--pushgateway.store=redis://127.0.0.1:${redisPort}/0`,
        '--log.level=warn',
      ],
      `http://127.0.0.1:${port}`,
    );
    console.log(`Redis store: filling ${groups} groups…`);
    await t.fill(portico.url, 0, groups);
    const pushes = t.wrkPushes(portico.url, groups, seconds);
    const scrapeMs = await t.scrapeMs(portico.url, 21);
    return { pushes, scrapeMs };
  } finally {
    await portico?.stop();
    redis.kill('SIGTERM');
    await new Promise((r) => redis.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}
