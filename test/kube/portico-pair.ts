/**
 * `portico serve` and `portico operator` as real processes (`node dist/cli.js`), for the suites
 * against a real API server: start a pair on free loopback ports in a fresh data directory, restart
 * the operator, read the management API's records, keep each process's log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';

const CLI = process.env.PAIR_CLI ?? resolve(import.meta.dirname, '../../dist/cli.js');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON log lines and API records of every shape
export type Json = Record<string, any>;

export interface Proc {
  readonly child: ChildProcess;
  /** Every log line so far, parsed (a line that is not JSON is kept as `{msg}`). */
  readonly lines: Json[];
  readonly exited: Promise<number | null>;
}

function run(args: string[]): Proc {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" before the kube suites`);
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Json[] = [];
  const keep = (stderr: boolean) => (l: string) => {
    try {
      lines.push(JSON.parse(l) as Json);
    } catch {
      lines.push({ msg: l, stderr });
    }
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', keep(false));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', keep(true));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, lines, exited };
}

async function stopProc(p: Proc | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

export interface PorticoPair {
  /** The management API, `http://127.0.0.1:<port>`. */
  readonly api: string;
  readonly serve: Proc;
  /** The running operator (replaced by restartOperator). */
  readonly operator: Proc;
  /** The operator's health listener port. */
  readonly healthPort: number;
  /** GET on the management API, parsed. */
  get(path: string): Promise<{ status: number; body: Json }>;
  /** Stops the operator (SIGTERM, or `signal`); `startOperator` starts it again. */
  stopOperator(signal?: NodeJS.Signals): Promise<void>;
  startOperator(): Promise<void>;
  /** Resolves when the operator's `/readyz` answers 200. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface PairOptions {
  /** The kubeconfig the operator uses. */
  readonly kubeconfig: string;
  /** More operator flags. */
  readonly operatorFlags?: readonly string[];
}

/** Starts `serve` (management API and internal listener only), then the operator pointed at it. */
export async function startPorticoPair(options: PairOptions): Promise<PorticoPair> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-pair-'));
  const [mgmtPort, internalPort] = [await freePort(), await freePort()];
  const api = `http://127.0.0.1:${mgmtPort}`;
  const serve = run([
    'serve', '--data.dir', dir, '--providers.file.filename', '', '--log.level', 'warn',
    '--management.listen-address', `127.0.0.1:${mgmtPort}`, '--internal.listen-address', `127.0.0.1:${internalPort}`,
    '--pushgateway.listen-address', 'off', '--search.listen-address', 'off',
  ]);
  let operator: Proc | undefined;
  let healthPort = 0;
  const get = async (path: string) => {
    const res = await fetch(api + path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const startOperator = async () => {
    const proc = run([
      'operator', '--kubeconfig', options.kubeconfig, '--data.dir', dir,
      '--operator.server-url', `http://127.0.0.1:${internalPort}`, '--operator.health-address', '127.0.0.1:0',
      '--operator.leader-election', 'false', '--operator.delivery-check', '500ms', '--log.level', 'info',
      ...(options.operatorFlags ?? []),
    ]);
    operator = proc;
    const started = await eventually(() => {
      if (proc.child.exitCode !== null) throw new Error(`the operator exited with ${proc.child.exitCode}: ${JSON.stringify(proc.lines.slice(-5))}`);
      return proc.lines.find((l) => l.msg === 'operator started');
    }, 30_000, 'operator started', 50);
    healthPort = Number(started.healthPort);
  };
  const stop = async () => {
    await stopProc(operator);
    await stopProc(serve);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(async () => (await fetch(`${api}/api/overview`).catch(() => undefined))?.status === 200, 30_000, 'management API', 50);
    await startOperator();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    api,
    serve,
    get operator() {
      return operator as Proc;
    },
    get healthPort() {
      return healthPort;
    },
    get,
    async stopOperator(signal) {
      await stopProc(operator, signal);
    },
    startOperator,
    async ready(timeoutMs = 30_000) {
      await eventually(async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined))?.status === 200, timeoutMs, 'operator /readyz', 50);
    },
    stop,
  };
}
