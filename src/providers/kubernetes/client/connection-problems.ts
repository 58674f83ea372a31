import type { Logger } from 'pino';

/**
 * The API server not answering at all (connection refused, DNS, TLS, a reset), as opposed to
 * answering with an error. Every reflector and writer meets the same outage at once; a line per
 * watched resource per retry would be dozens of lines a second saying one thing. The first failure
 * is logged as a warning naming the server and the error; while the outage lasts, another line only
 * when the error changes or once per backoff step (when at least the reporter's next delay has
 * passed since the last line); the first success logs how long it lasted.
 */
export class ConnectionProblems {
  private outage: { since: number; error: string; lastLogAt: number; failures: number; resources: Set<string> } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly server: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes a failure of `resource`'s request; `retryInMs` is its next backoff delay. */
  failed(resource: string, error: string, retryInMs: number): void {
    const t = this.now();
    const o = this.outage;
    if (o === undefined) {
      this.outage = { since: t, error, lastLogAt: t, failures: 1, resources: new Set([resource]) };
      this.logger.warn({ server: this.server, err: error, retryInMs }, `cannot reach the Kubernetes API server ${this.server}: ${error}; retrying`);
      return;
    }
    o.failures++;
    o.resources.add(resource);
    if (error === o.error && t - o.lastLogAt < retryInMs) return;
    o.error = error;
    o.lastLogAt = t;
    this.logger.warn(
      { server: this.server, err: error, retryInMs, downForMs: t - o.since, failures: o.failures, resources: o.resources.size },
      `still cannot reach the Kubernetes API server ${this.server} after ${Math.round((t - o.since) / 1000)} s: ${error}; ${o.resources.size} watches waiting, next retry in ${Math.round(retryInMs / 100) / 10} s`,
    );
  }

  /** Notes that a request got an answer; logs the end of an outage. */
  answered(): void {
    const o = this.outage;
    if (o === undefined) return;
    this.outage = undefined;
    const downForMs = this.now() - o.since;
    this.logger.info({ server: this.server, downForMs, failures: o.failures }, `the Kubernetes API server ${this.server} answers again after ${Math.round(downForMs / 100) / 10} s`);
  }
}
