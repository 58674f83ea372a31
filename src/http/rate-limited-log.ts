import type { Logger } from 'pino';

/**
 * Warnings about something a client can make happen many times a second (a limit hit, a timeout):
 * the first of each kind is logged at once, then at most one line per interval, counting what it
 * stands for, so that an attack is visible in the log without flooding it.
 */
export class RateLimitedLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  /** `intervalMs`: the least time between two lines of one kind (default 10 s). */
  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `msg` with `fields` unless a line of this kind was logged less than an interval ago. */
  warn(kind: string, fields: Record<string, unknown>, msg: string): void {
    const t = this.now();
    const seen = this.last.get(kind);
    if (seen !== undefined && t - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    const suppressed = seen?.suppressed ?? 0;
    this.last.set(kind, { at: t, suppressed: 0 });
    this.logger.warn(suppressed > 0 ? { ...fields, alsoSinceLastLine: suppressed } : fields, msg);
  }
}
