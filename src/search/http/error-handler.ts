import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { ListenerDialect } from '../../http/listener-guard.js';
import { errors, SearchError } from '../errors.js';
import { productHeader, sendError, sendHead } from './http-io.js';
import { renderJson } from './json-render.js';
import { responseContentType } from './media-type.js';

/**
 * Every refusal of the search listener in ES's shape and with its product header: errors thrown
 * by handlers and hooks (searchErrorHandler), refusals Fastify makes before routing
 * (frameworkErrors) and the HTTP layer's refusals (searchDialect).
 */

/**
 * The error handler: a SearchError as it says, Fastify's own refusals as ES's, anything else a
 * 500 (logged once, with the error, as every 5xx is).
 */
export function searchErrorHandler(maxBody: number) {
  return (error: FastifyError | SearchError, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    let e: SearchError;
    if (error instanceof SearchError) e = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = errors.bodyTooLarge(Number(req.headers['content-length'] ?? 0), maxBody);
    else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') e = errors.unsupportedContentType(req.headers['content-type'] ?? '');
    else if (typeof error.statusCode === 'number' && error.statusCode < 500) e = errors.illegalArgument(error.message);
    else e = errors.internal();
    if (e.status >= 500) req.log.error({ err: error }, 'search request failed');
    for (const [k, v] of Object.entries(e.headers ?? {})) reply.header(k, v);
    if (req.method === 'HEAD') return sendHead(reply, e.status, 'application/json');
    return sendError(req, reply, e.status, e.toBody());
  };
}

/**
 * Refusals made before routing (a malformed percent-escape, a parameter over the router's limit):
 * Fastify would answer them itself, without the product header and in its own body shape. The
 * request has no query here (no ?pretty), so the body is rendered compact.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, req, reply) => {
  const e = errors.illegalArgument(error.message);
  if (req.method === 'HEAD') return sendHead(reply, e.status, 'application/json');
  const type = responseContentType(req.headers.accept, req.headers['content-type']);
  return productHeader(reply.header('content-type', type)).code(e.status).send(renderJson(e.toBody(), false));
};

/**
 * The HTTP layer's refusals in ES's shape with its product header: requests the HTTP parser
 * refuses (a content-length that is no number, headers or URL over the size limit, a request line
 * that is not HTTP), clients too slow to send a request, and connections over the listener's limit
 * (429 `es_rejected_execution_exception`, as ES answers work it has no room for).
 */
export const searchDialect: ListenerDialect = {
  overloadStatus: 429,
  refusal: (status, reason) => ({
    status,
    contentType: 'application/json; charset=UTF-8',
    headers: { 'x-elastic-product': 'Elasticsearch' },
    body: renderJson(status === 429 ? errors.rejected(reason).toBody() : status === 503 ? errors.shuttingDown(reason).toBody() : { ...errors.illegalArgument(reason).toBody(), status }, false),
  }),
};
