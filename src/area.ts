import type { Logger } from 'pino';

/** What `src/cli.ts` hands every area; areas never read process.env or argv themselves. */
export interface AreaDeps {
  readonly logger: Logger;
  /** Asks the process to shut down gracefully (Pushgateway's `/-/quit`). */
  readonly requestShutdown: (reason: string) => void;
  /** Wall clock in milliseconds; injected so tests can move time. */
  readonly now: () => number;
  /**
   * The next request id (`req-1`, `req-2`, ...), one sequence for the whole process so that an id
   * in the log names one request; each listener numbers its own when absent (tests).
   */
  readonly nextRequestId?: () => string;
}
