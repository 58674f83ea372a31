import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { operatorCommandFlags } from '../../../src/flag-groups.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { runOperator } from '../../../src/providers/kubernetes/run-operator.js';
import { FakeKubeApiServer, fakeKubeconfig } from '../../support/fake-kube-apiserver.js';
import { FakeInternalEndpoint } from './fake-internal-endpoint.js';

export interface RunningOperator {
  readonly controller: AbortController;
  readonly done: Promise<void>;
  /** The health listener's port (only with `health: true`). */
  readonly port: Promise<number>;
}

/**
 * Whole operators in-process (runOperator, real HTTP both ways) against a fake API server and a
 * fake internal endpoint, with the token and kubeconfig in a fresh data directory: the setup the
 * operator integration tests share. `setUp` in beforeEach, `tearDown` in afterEach.
 */
export class InProcessOperators {
  kube!: FakeKubeApiServer;
  endpoint!: FakeInternalEndpoint;
  dir!: string;
  readonly running: RunningOperator[] = [];

  async setUp(dirPrefix: string): Promise<void> {
    this.kube = new FakeKubeApiServer({ bookmarkIntervalMs: 200 });
    await this.kube.start();
    this.endpoint = new FakeInternalEndpoint('secret-token');
    await this.endpoint.start();
    this.dir = mkdtempSync(join(tmpdir(), dirPrefix));
    writeFileSync(join(this.dir, 'kubeconfig'), fakeKubeconfig(this.kube.url));
    writeFileSync(join(this.dir, 'internal-token'), 'secret-token\n');
  }

  /** Starts an operator with short debounce and delivery-check intervals, plus `extra` flags. */
  start(extra: readonly string[] = [], options: { health?: boolean } = {}): RunningOperator {
    const config = loadConfig(operatorCommandFlags, {
      argv: [
        '--kubeconfig', join(this.dir, 'kubeconfig'), '--data.dir', this.dir, '--operator.server-url', this.endpoint.url,
        '--operator.health-address', options.health === true ? '127.0.0.1:0' : 'off',
        '--operator.debounce', '20ms', '--operator.delivery-check', '100ms',
        ...extra,
      ],
      env: {},
      readFile: () => '',
    });
    const controller = new AbortController();
    let setPort: (p: number) => void = () => undefined;
    const port = new Promise<number>((resolve) => { setPort = resolve; });
    const done = runOperator(config, { logger: pino({ level: 'silent' }), now: Date.now, signal: controller.signal, onHealthListening: (p) => setPort(p) });
    const running = { controller, done, port };
    this.running.push(running);
    return running;
  }

  /** Stops every running operator (in start order) and waits for each to finish. */
  async stopAll(): Promise<void> {
    for (const r of this.running.splice(0)) {
      r.controller.abort();
      await r.done;
    }
  }

  async tearDown(): Promise<void> {
    await this.stopAll();
    await this.endpoint.close();
    await this.kube.close();
  }
}
