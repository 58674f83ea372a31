import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI; integration tests run the real binary, as a user would. */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface RunningPortico {
  readonly child: ChildProcess;
  /** Bound port per listener name, from the "portico started" log line. */
  readonly ports: Record<string, number>;
  /** Every stdout line so far (JSON logs). */
  readonly lines: string[];
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node dist/cli.js serve <args>` and waits until every listener is bound.
 * Pass `127.0.0.1:0` addresses so parallel runs never collide.
 */
export async function startPortico(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 45_000): Promise<RunningPortico> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" (make test does) before the integration tests`);
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`portico did not start in ${timeoutMs} ms:\n${stderr}\n${lines.join('\n')}`)), timeoutMs);
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        try {
          const rec = JSON.parse(line) as { msg?: string; listeners?: Record<string, number> };
          if (rec.msg === 'portico started' && rec.listeners) {
            clearTimeout(timer);
            resolve(rec.listeners);
          }
        } catch {
          // not a JSON line; kept in `lines` for diagnostics
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`portico exited with ${code} before starting:\n${stderr}`));
    });
  });
  return {
    child,
    ports,
    lines,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** `portico serve` with only the push gateway listening (port 0), its groups in the store at `storeUrl`. */
export function startPushgatewayReplica(dataDir: string, storeUrl: string, extra: readonly string[] = []): Promise<RunningPortico> {
  return startPortico([
    '--data.dir', dataDir,
    '--pushgateway.listen-address', '127.0.0.1:0',
    '--management.listen-address', 'off',
    '--search.listen-address', 'off',
    '--internal.listen-address', 'off',
    '--pushgateway.store', storeUrl,
    ...extra,
  ]);
}
