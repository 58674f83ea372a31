/**
 * A `portico serve` and a `portico operator` delivering to it, for the fault suites, on the shared
 * harness of the kube suites (portico-processes.ts: the real `dist/cli.js`, the operator with the
 * chart's flags). The fault suites replace the operator now and then, so the pair keeps the
 * current one, and reads the management API's records.
 */
import { eventually } from '../providers/kubernetes/fake-internal-endpoint.js';
import { startOperator, startServe, type OperatorProcess, type ServeProcess } from './portico-processes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON log lines and API records of every shape
export type Json = Record<string, any>;

export interface PorticoPair {
  /** The management API, `http://127.0.0.1:<port>`. */
  readonly api: string;
  readonly serve: ServeProcess;
  /** The running operator (replaced by startOperator). */
  readonly operator: OperatorProcess;
  /** GET on the management API, parsed. */
  get(path: string): Promise<{ status: number; body: Json }>;
  /** Stops the operator (SIGTERM); `startOperator` starts another. */
  stopOperator(): Promise<void>;
  startOperator(): Promise<void>;
  /** Resolves when the operator's `/readyz` answers 200. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface PairOptions {
  /** The kubeconfig the operator uses. */
  readonly kubeconfig: string;
  /** More operator flags (after the chart's and the pair's). */
  readonly operatorFlags?: readonly string[];
}

/**
 * The chart's flags that need what these clusters lack: the release namespace (for the Lease) and
 * the chart's own Service (the published ingress endpoint). The fault suites check records, not
 * leadership or Ingress status, which the operator suite covers.
 */
const PAIR_FLAGS = ['--operator.leader-election=false', '--operator.ingress-endpoint.published-service=', '--log.level=info'];

/** Starts `serve`, then the operator pointed at it. */
export async function startPorticoPair(options: PairOptions): Promise<PorticoPair> {
  const serve = await startServe();
  let operator: OperatorProcess | undefined;
  const start = async () => {
    operator = await startOperator({ kubeconfig: options.kubeconfig, serve, extraArgs: [...PAIR_FLAGS, ...(options.operatorFlags ?? [])] });
  };
  const stop = async () => {
    await operator?.stop();
    await serve.dispose();
  };
  try {
    await start();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    api: serve.api,
    serve,
    get operator() {
      return operator as OperatorProcess;
    },
    async get(path) {
      const res = await fetch(serve.api + path);
      return { status: res.status, body: (await res.json()) as Json };
    },
    async stopOperator() {
      await operator?.stop();
    },
    startOperator: start,
    async ready(timeoutMs = 30_000) {
      await eventually(async () => (await operator?.readyz().catch(() => undefined))?.status === 200, timeoutMs, 'operator /readyz', 50);
    },
    stop,
  };
}
