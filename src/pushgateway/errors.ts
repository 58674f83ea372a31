/**
 * Error catalogue of the push gateway area. Messages are Pushgateway's own texts wherever it has
 * one (clients and scripts match on them): the parsers' and the grouping key's are passed in
 * verbatim, the store's and the routes' are composed by the helpers below.
 */
import { EnvironmentError } from '../config/start-up-errors.js';

/** Base class: every push gateway error carries a stable code and the HTTP status to answer with. */
export abstract class PushgatewayError extends Error {
  abstract readonly code: string;
  readonly statusCode: number;

  constructor(message: string, statusCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.statusCode = statusCode;
  }
}

/** A request body that is not valid text 0.0.4 or delimited protobuf (HTTP 400). */
export class ExpositionError extends PushgatewayError {
  readonly code = 'EXPOSITION_INVALID';
  override readonly name = 'ExpositionError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 400, options);
  }
}

/**
 * A grouping key in the URL that Pushgateway refuses (HTTP 400), or a path that Pushgateway's
 * router would not route to a push handler at all (HTTP 404, message `404 page not found`).
 */
export class GroupingKeyError extends PushgatewayError {
  readonly code = 'GROUPING_KEY_INVALID';
  override readonly name = 'GroupingKeyError';

  constructor(message: string, statusCode: 400 | 404 = 400, options?: { cause?: unknown }) {
    super(message, statusCode, options);
  }
}

/** Pushgateway's prefix of every refused push's message (and of a scrape of an inconsistent store). */
export const CONSISTENCY_PREFIX = 'pushed metrics are invalid or inconsistent with existing metrics: ';

/** An error of the store or the routes, with its own code (`body_too_large`, `bad_gzip`, ...). */
export class GatewayError extends PushgatewayError {
  override readonly name: string = 'GatewayError';
  constructor(
    readonly code: string,
    statusCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, statusCode, options);
  }
}

/** A push refused by the validation or the consistency check; the store is left as it was. */
export class ConsistencyError extends GatewayError {
  override readonly name = 'ConsistencyError';
  constructor(readonly detail: string) {
    super('inconsistent_push', 400, CONSISTENCY_PREFIX + detail);
  }
}

export function timestampsRefused(): ConsistencyError {
  return new ConsistencyError('pushed metrics must not have timestamps');
}

export function bodyTooLarge(limit: number): GatewayError {
  return new GatewayError('body_too_large', 413, `push body exceeds the limit of ${limit} bytes (after gzip or snappy decoding); see --push.max-body-size`);
}

export function badGzip(): GatewayError {
  return new GatewayError('bad_gzip', 400, 'gzip: invalid header');
}

export function badGzipData(detail: string, prefixed = true): GatewayError {
  return new GatewayError('bad_gzip', 400, prefixed ? `gzip: ${detail}` : detail);
}

export function badTtlHeader(value: string): GatewayError {
  return new GatewayError('bad_ttl', 400, `invalid X-Portico-Group-TTL header "${value}": expected a duration like 30s, 5m, 1h30m, or 0 for none`);
}

/**
 * A write while the shared store (Redis) cannot take it (HTTP 503). Nothing was stored; the
 * message says so in plain words and holds nothing internal, so it is answered as it is.
 */
export class StoreUnavailableError extends GatewayError {
  override readonly name = 'StoreUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super('store_unavailable', 503, `push gateway store unavailable: ${reason}; nothing was changed, retry later (scrapes serve the last state this replica read)`, options);
  }
}

/**
 * The persistence file cannot be read back (unknown format, bad content, permissions); not an HTTP
 * answer. An EnvironmentError: start-up stops with this one line and exit code 1.
 */
export class PersistenceError extends EnvironmentError {
  override readonly name = 'PersistenceError';
}

/**
 * The write-ahead log could not make a write durable (a full disk, an I/O error): the write is not
 * acknowledged and the store goes back to what the disk holds (HTTP 500, as Pushgateway answers
 * errors it cannot blame on the client).
 */
export class WalWriteError extends PushgatewayError {
  readonly code = 'WAL_WRITE_FAILED';
  override readonly name = 'WalWriteError';

  constructor(reason: string, options?: { cause?: unknown }) {
    super(`error writing the push to the write-ahead log: ${reason}; the push was not stored, retry later`, 500, options);
  }
}
