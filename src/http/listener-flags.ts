import { ConfigError, flag, type FlagValues } from '../config/flag-types.js';

/**
 * Timeouts and limits of every listener of `portico serve` (push gateway, management API, its
 * internal listener, search). Each listener applies them on its own: holding one listener's
 * connections never stops the others.
 */
export const listenerFlags = {
  'http.header-timeout': flag.duration('10s', 'How long a client may take to send a request\'s headers (from its first byte, or from connecting); slower clients get 408 and are disconnected'),
  'http.request-timeout': flag.duration('1m', 'How long a client may take to send a whole request, headers and body; slower clients get 408 and are disconnected (0: no limit). Answering is not limited'),
  'http.idle-timeout': flag.duration('1m', 'How long an idle keep-alive connection stays open between two requests'),
  'http.max-connections': flag.int(1000, 'Most open connections per listener; a connection over the limit is answered 503 (429 on search) in the listener\'s dialect and closed', 1, 1_000_000),
};

export type ListenerFlagValues = FlagValues<typeof listenerFlags>;

/** The limits one listener applies, in milliseconds and connections. */
export interface ListenerLimits {
  readonly headerTimeoutMs: number;
  /** 0: no whole-request limit. */
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxConnections: number;
}

/** The limits of the flags, checked together (a header timeout longer than the request's is a mistake). */
export function listenerLimits(config: ListenerFlagValues): ListenerLimits {
  const header = config['http.header-timeout'];
  const request = config['http.request-timeout'];
  if (header <= 0) throw new ConfigError('--http.header-timeout: must be more than 0');
  if (config['http.idle-timeout'] <= 0) throw new ConfigError('--http.idle-timeout: must be more than 0');
  if (request > 0 && header > request) {
    throw new ConfigError(`--http.header-timeout (${header} ms) is longer than --http.request-timeout (${request} ms); the headers are part of the request`);
  }
  return { headerTimeoutMs: header, requestTimeoutMs: request, idleTimeoutMs: config['http.idle-timeout'], maxConnections: config['http.max-connections'] };
}

/** Defaults, for apps built without the CLI (tests, benchmarks). */
export const DEFAULT_LISTENER_LIMITS: ListenerLimits = { headerTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 60_000, maxConnections: 1000 };
