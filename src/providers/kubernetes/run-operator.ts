import type { Logger } from 'pino';
import type { OperatorConfig } from '../../config/flags.js';

export interface OperatorDeps {
  readonly logger: Logger;
  readonly now: () => number;
  /** Aborted on SIGTERM/SIGINT: the operator stops its watches and returns. */
  readonly signal: AbortSignal;
}

/** Runs the operator until `deps.signal` aborts. */
export async function runOperator(_config: OperatorConfig, deps: OperatorDeps): Promise<void> {
  deps.logger.error('the operator is not implemented yet');
  throw new Error('portico operator is not implemented yet');
}
