import type { Logger } from 'pino';

/** What `src/cli.ts` hands every area; areas never read process.env or argv themselves. */
export interface AreaDeps {
  readonly logger: Logger;
  /** Asks the process to shut down gracefully (Pushgateway's `/-/quit`). */
  readonly requestShutdown: (reason: string) => void;
  /** Wall clock in milliseconds; injected so tests can move time. */
  readonly now: () => number;
}
