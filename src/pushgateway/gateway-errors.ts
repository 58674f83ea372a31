import { PushgatewayError } from './errors.js';

/**
 * Errors of the push gateway's store and routes, on the area's PushgatewayError base (errors.ts
 * holds the exposition and grouping-key ones). Messages follow Pushgateway's texts where it has one.
 */

export const CONSISTENCY_PREFIX = 'pushed metrics are invalid or inconsistent with existing metrics: ';

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
  return new GatewayError('body_too_large', 413, `push body exceeds the limit of ${limit} bytes (after gzip decoding); see --push.max-body-size`);
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
