/**
 * Portico's own processes for the real-Kubernetes suites: `node dist/cli.js serve` (management API
 * and internal listener on free loopback ports, a temporary data directory) and `node dist/cli.js
 * operator` with the flags the chart's Deployment passes, read from the rendered chart. Each keeps
 * its log lines; both can be stopped (SIGTERM) or killed (SIGKILL). Plus the management API's
 * records, and `until()` polling.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { renderChart } from './chart-objects.js';
import { freePort } from './control-plane.js';

const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/cli.js');

/** One log line: the parsed JSON of pino, or `{ msg }` for a line that is not JSON. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface PorticoProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every line of stdout and stderr so far, in order (stderr lines carry `stderr: true`). */
  readonly lines: LogLine[];
  /** Resolves with the exit code (null after a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<number | null>;
  /** SIGKILL, then wait for the exit: no shutdown code runs (a crash, a node lost). */
  kill(): Promise<number | null>;
  /** The lines whose `msg` contains `text`. */
  logged(text: string): LogLine[];
  /** The last lines, as text, for an assertion message. */
  tail(n?: number): string;
}

/** Polls `fn` every 100 ms until it gives a value (not undefined/false) or `timeoutMs` passes. */
export function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  return eventually(fn, timeoutMs, what, 100);
}

function spawnPortico(args: string[], env: NodeJS.ProcessEnv = {}): PorticoProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the Kubernetes suites`);
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    try {
      lines.push(JSON.parse(l) as LogLine);
    } catch {
      lines.push({ msg: l });
    }
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) => lines.push({ msg: l, stderr: true }));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    return exited;
  };
  return {
    child,
    pid: child.pid ?? -1,
    lines,
    exited,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    logged: (text) => lines.filter((l) => typeof l.msg === 'string' && l.msg.includes(text)),
    tail: (n = 30) => lines.slice(-n).map((l) => JSON.stringify(l)).join('\n'),
  };
}

export interface ServeProcess extends PorticoProcess {
  /** `http://127.0.0.1:<port>` of the management API. */
  readonly api: string;
  /** `http://127.0.0.1:<port>` of the internal listener (the operator's --operator.server-url). */
  readonly internalUrl: string;
  /** The internal token file both sides read (the chart mounts one Secret into both containers). */
  readonly tokenFile: string;
  readonly dataDir: string;
  /** Starts a new `serve` on the same ports, data directory and token (after stop or kill). */
  restart(): Promise<ServeProcess>;
  /** Stops the process and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * Starts `portico serve` with the management API and the internal listener on free loopback
 * ports (push gateway and search off) and waits until the management API answers.
 */
export async function startServe(extraArgs: string[] = []): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-kube-serve-'));
  const tokenFile = join(dataDir, 'internal-token');
  writeFileSync(tokenFile, `kube-suite-${process.pid}-${Date.now()}\n`, { mode: 0o600 });
  const [mgmtPort, internalPort] = [await freePort(), await freePort()];
  const args = [
    'serve', '--data.dir', dataDir, '--providers.file.filename', '', '--log.level', 'info',
    '--management.listen-address', `127.0.0.1:${mgmtPort}`, '--internal.listen-address', `127.0.0.1:${internalPort}`,
    '--internal.token-file', tokenFile, '--pushgateway.listen-address', 'off', '--search.listen-address', 'off',
    ...extraArgs,
  ];
  const api = `http://127.0.0.1:${mgmtPort}`;
  const launch = async (): Promise<ServeProcess> => {
    const proc = spawnPortico(args);
    await until(`portico serve on ${api}`, async () => {
      if (proc.child.exitCode !== null) throw new Error(`portico serve exited with ${proc.child.exitCode}:\n${proc.tail()}`);
      return (await fetch(`${api}/api/overview`).catch(() => undefined))?.status === 200;
    });
    return {
      ...proc,
      api,
      internalUrl: `http://127.0.0.1:${internalPort}`,
      tokenFile,
      dataDir,
      restart: launch,
      dispose: async () => {
        await proc.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
  return launch();
}

/**
 * The operator container's arguments from the chart's Deployment (`helm template` with `values`),
 * without the first word (`operator`).
 */
export function chartOperatorArgs(values: string[] = []): string[] {
  const deployment = renderChart(values).find((d) => d.kind === 'Deployment');
  const containers = (deployment?.spec?.template?.spec?.containers ?? []) as { name: string; args?: string[] }[];
  const operator = containers.find((c) => c.name === 'operator');
  if (!operator?.args) throw new Error('the rendered chart has no operator container with args');
  return operator.args.slice(1);
}

export interface OperatorProcess extends PorticoProcess {
  /** Port of the health listener (`/healthz`, `/readyz`), from the "operator started" line. */
  readonly healthPort: number;
  /** GET /readyz: its status and text. */
  readyz(): Promise<{ status: number; text: string }>;
}

export interface OperatorOptions {
  /** The kubeconfig file (e.g. `cp.kubeconfig('operator')`). */
  readonly kubeconfig: string;
  /** The server it delivers to (its internal listener and token file). */
  readonly serve: ServeProcess;
  /** Flags after the chart's (a later flag wins), e.g. `['--operator.identity=a']`. */
  readonly extraArgs?: readonly string[];
  /** Values given to `helm template` for the chart's arguments (`--set` expressions). */
  readonly chartValues?: readonly string[];
  /** Wait for the "operator started" line (default true). */
  readonly waitStarted?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

/** Flags of the chart's Deployment this harness must replace: the pod's loopback, token mount and fixed port. */
const REPLACED = ['--operator.server-url=', '--operator.token-file=', '--operator.health-address='];

/**
 * Starts `portico operator` with the chart's flags, except where the pod differs from this
 * machine: the server URL and token file of `serve`, and a free health port.
 */
export async function startOperator(opts: OperatorOptions): Promise<OperatorProcess> {
  const chart = chartOperatorArgs([...(opts.chartValues ?? [])]).filter((a) => !REPLACED.some((p) => a.startsWith(p)));
  const args = [
    'operator', ...chart,
    `--kubeconfig=${opts.kubeconfig}`,
    `--operator.server-url=${opts.serve.internalUrl}`,
    `--operator.token-file=${opts.serve.tokenFile}`,
    '--operator.health-address=127.0.0.1:0',
    '--operator.debounce=50ms',
    '--operator.delivery-check=500ms',
    ...(opts.extraArgs ?? []),
  ];
  const proc = spawnPortico(args, opts.env);
  let healthPort = -1;
  if (opts.waitStarted !== false) {
    const started = await until('operator started', () => {
      if (proc.child.exitCode !== null) throw new Error(`portico operator exited with ${proc.child.exitCode}:\n${proc.tail()}`);
      return proc.lines.find((l) => l.msg === 'operator started');
    });
    healthPort = started.healthPort as number;
  }
  return {
    ...proc,
    healthPort,
    readyz: async () => {
      const res = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
      return { status: res.status, text: await res.text() };
    },
  };
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- Traefik's records of every kind

/** GET a management API path; undefined on 404. */
export async function apiGet(serve: ServeProcess, path: string): Promise<Json> {
  const res = await fetch(serve.api + path);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** One record (`kind` is e.g. `http/routers`), or undefined when the API has none of that name. */
export function record(serve: ServeProcess, kind: string, name: string): Promise<Json> {
  return apiGet(serve, `/api/${kind}/${encodeURIComponent(name)}`);
}

/** Every record of a kind (`http/routers`, `http/services`, `http/middlewares`, `tcp/routers`, ...). */
export async function records(serve: ServeProcess, kind: string): Promise<Json[]> {
  return (await apiGet(serve, `/api/${kind}?per_page=10000`)) as Json[];
}

/** `/api/rawdata`: every record by kind, keyed by name. */
export function rawdata(serve: ServeProcess): Promise<Json> {
  return apiGet(serve, '/api/rawdata');
}

/** Waits until the record exists and `check` (default: always) accepts it; returns it. */
export function untilRecord(serve: ServeProcess, kind: string, name: string, check: (r: Json) => boolean = () => true, timeoutMs = 20_000): Promise<Json> {
  return until(`${kind} ${name}`, async () => {
    const r = await record(serve, kind, name);
    return r !== undefined && check(r) ? r : undefined;
  }, timeoutMs);
}

/** Waits until the management API has no record of that name. */
export function untilGone(serve: ServeProcess, kind: string, name: string, timeoutMs = 20_000): Promise<boolean> {
  return until(`${kind} ${name} gone`, async () => (await record(serve, kind, name)) === undefined, timeoutMs);
}

export { applyChartRbac, applyCrds, renderChart } from './chart-objects.js';
