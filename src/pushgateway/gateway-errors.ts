/**
 * Errors of the push gateway's store and routes (the exposition and grouping-key errors live in
 * errors.ts). Messages follow Pushgateway's texts where it has one; `status` is the HTTP answer.
 */

export const CONSISTENCY_PREFIX = 'pushed metrics are invalid or inconsistent with existing metrics: ';

export class GatewayError extends Error {
  override readonly name: string = 'GatewayError';
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
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

export function adminApiDisabled(): GatewayError {
  return new GatewayError('admin_disabled', 404, '404 page not found');
}
