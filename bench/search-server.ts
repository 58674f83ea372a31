/**
 * The search benchmarks' Portico: `dist/cli.js serve` with only the search listener, on a free port
 * (read from its start-up log line), as its own process; `stop()` sends SIGTERM and waits for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../', import.meta.url).pathname;

export interface SearchServer {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * The malloc settings of Portico's image (the Dockerfile's `ENV MALLOC_…` lines), so that the
 * benchmarks run the server as the image and the chart do; BENCH_SERVER_IMAGE_ENV=0 leaves them out.
 */
export function imageMallocEnv(): Record<string, string> {
  if (process.env.BENCH_SERVER_IMAGE_ENV === '0') return {};
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  return Object.fromEntries([...dockerfile.matchAll(/^ENV (MALLOC_\w+)=(\S+)$/gm)].map((m) => [m[1] as string, m[2] as string]));
}

/** `nodeArgs` go before the script (e.g. `--cpu-prof`). */
export async function startSearchServer(dataDir: string, nodeArgs: readonly string[] = []): Promise<SearchServer> {
  const cli = join(ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--data.dir', dataDir, '--pushgateway.listen-address', 'off', '--management.listen-address', 'off', '--search.listen-address', '127.0.0.1:0', '--log.level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...imageMallocEnv() } });
  const port = await new Promise<number>((res, rej) => {
    let buf = '';
    child.stdout.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"search":(\d+)/.exec(buf);
      if (m) res(Number(m[1]));
    });
    child.on('exit', (code) => rej(new Error(`portico exited with ${code}`)));
  });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
