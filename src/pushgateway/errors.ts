/**
 * Error catalogue of the push gateway area. Messages are Pushgateway's own texts (clients and
 * scripts match on them), so they are passed in verbatim rather than composed here.
 */

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
