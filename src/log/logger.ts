import { destination as pinoDestination, pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import { formatLogfmt } from './logfmt.js';

/** `--log.format`: `auto` is logfmt when stdout is a terminal (a person reads it), JSON otherwise (a collector does). */
export type LogFormat = 'auto' | 'logfmt' | 'json';

export interface LoggerOptions {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly format: LogFormat;
  /** Whether stdout is a terminal; decides `auto`. */
  readonly stdoutIsTerminal: boolean;
  /** Where lines go (default: stdout, written synchronously so that nothing is lost at exit). */
  readonly destination?: DestinationStream;
}

/** The format `auto` stands for. */
export function resolveLogFormat(format: LogFormat, stdoutIsTerminal: boolean): 'logfmt' | 'json' {
  if (format !== 'auto') return format;
  return stdoutIsTerminal ? 'logfmt' : 'json';
}

/**
 * Rewrites each of pino's JSON lines as logfmt. Pino has no text formatter of its own (its pretty
 * printer is a separate, worker-thread transport); parsing the line again costs a few microseconds,
 * and at the info level Portico writes a handful of lines a minute.
 */
class LogfmtDestination implements DestinationStream {
  constructor(private readonly out: DestinationStream) {}

  write(line: string): void {
    let text: string;
    try {
      text = formatLogfmt(JSON.parse(line) as Record<string, unknown>);
    } catch {
      text = line.trimEnd();
    }
    this.out.write(`${text}\n`);
  }
}

/**
 * The process logger: ISO 8601 timestamps (`time`), level names (`level=info`), the message as
 * `msg`, and no pid or hostname (a container's log collector adds those). Both commands use it, so
 * the operator's lines have the same format as the server's.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const out = opts.destination ?? pinoDestination({ dest: 1, sync: true });
  const destination = resolveLogFormat(opts.format, opts.stdoutIsTerminal) === 'logfmt' ? new LogfmtDestination(out) : out;
  return pino(
    {
      level: opts.level,
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
