import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { checkNesting } from '../syntax/json-members.js';
import { utf8Problem } from '../syntax/utf8-check.js';
import { parseJsonBody, RawJson, renderJson } from './json-render.js';
import { DEFAULT_CONTENT_TYPE, requestMediaType, responseContentType } from './media-type.js';
import { applyResponseFilter, NOTHING, parseFilterPath } from './response-filter.js';

/** Request/response helpers shared by the search route plugins (HTTP translation only). */

export type Params = Record<string, string | undefined>;

export function queryOf(req: FastifyRequest): Params {
  return req.query as Params;
}

function isPretty(req: FastifyRequest): boolean {
  const p = queryOf(req).pretty;
  return p !== undefined && p !== 'false';
}

/**
 * Marks a response as Elasticsearch's, as ES does on every answer (the official clients refuse a
 * 2xx without it). Set where each reply is made, after its content type, rather than in an onSend
 * hook that every response would pay a hook run for; test/search/http/response-headers.test.ts checks
 * every kind of answer.
 */
export function productHeader(reply: FastifyReply): FastifyReply {
  return reply.header('x-elastic-product', 'Elasticsearch');
}

/** Answers a HEAD request: status and headers only. */
export function sendHead(reply: FastifyReply, status: number, contentType: string): FastifyReply {
  return productHeader(reply.code(status).header('content-type', contentType)).send();
}

/**
 * Sends a JSON body in ES's style (pretty on request, vendor content type echoed, `?filter_path`
 * applied). `compact`, when given, is the body already rendered compact (the same bytes renderJson
 * gives), used unless `?pretty` or `?filter_path` asks for something else.
 */
export function sendJson(req: FastifyRequest, reply: FastifyReply, status: number, body: unknown, hasRaw = false, compact?: string): FastifyReply {
  // One property read when there is no filter: the `_search` hot path pays nothing more.
  const filterPath = queryOf(req).filter_path;
  if (filterPath !== undefined) {
    const filter = parseFilterPath(filterPath);
    if (filter !== undefined) return sendFiltered(req, reply, status, applyResponseFilter(body, filter));
  }
  return sendRendered(req, reply, status, body, hasRaw, compact);
}

/**
 * Sends an error body: never filtered, as ES builds error responses without `filter_path`
 * (AbstractRestChannel.newErrorBuilder), so a filter cannot hide why a request failed.
 */
export function sendError(req: FastifyRequest, reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return sendRendered(req, reply, status, body, false);
}

function sendRendered(req: FastifyRequest, reply: FastifyReply, status: number, body: unknown, hasRaw: boolean, compact?: string): FastifyReply {
  const type = responseContentType(req.headers.accept, req.headers['content-type']);
  const pretty = isPretty(req);
  const text = compact !== undefined && !pretty ? compact : renderJson(body, pretty, hasRaw);
  productHeader(reply.code(status).header('content-type', type));
  // Fastify sends a JSON string's content type as is when it names a charset (ours does), and
  // appends one to the vendor types: those go as bytes. A string saves copying the body once more.
  return reply.send(type === DEFAULT_CONTENT_TYPE ? text : Buffer.from(text));
}

/** A filtered body: kept stored `_source` text may remain (RawJson); NOTHING sends an empty body. */
function sendFiltered(req: FastifyRequest, reply: FastifyReply, status: number, filtered: unknown): FastifyReply {
  if (filtered === NOTHING) {
    const type = responseContentType(req.headers.accept, req.headers['content-type']);
    return productHeader(reply.code(status).header('content-type', type)).send(type === DEFAULT_CONTENT_TYPE ? '' : Buffer.alloc(0));
  }
  return sendRendered(req, reply, status, filtered, true);
}

/** Sends JSON already rendered compact as UTF-8 bytes (re-rendered when `?pretty` or `?filter_path` asks for it). */
export function sendJsonBytes(req: FastifyRequest, reply: FastifyReply, status: number, bytes: Buffer): FastifyReply {
  if (isPretty(req) || queryOf(req).filter_path !== undefined) return sendJson(req, reply, status, new RawJson(bytes.toString('utf8')), true);
  return productHeader(reply.code(status).header('content-type', responseContentType(req.headers.accept, req.headers['content-type']))).send(bytes);
}

const NON_BLANK = /\S/;

/** The raw body text, or undefined when there is none. */
export function rawBody(req: FastifyRequest): string | undefined {
  const b = req.body;
  if (b === undefined || b === null) {
    const src = queryOf(req).source;
    // A leading byte order mark is skipped here as the body parser skips it in a body (app.ts):
    // ES reads the parameter's UTF-8 bytes with the same Jackson bootstrapper.
    return src === undefined ? undefined : src.charCodeAt(0) === 0xfeff ? src.slice(1) : src;
  }
  if (Buffer.isBuffer(b)) {
    // Invalid UTF-8 is refused as ES's parser refuses it, never decoded to U+FFFD and stored.
    const bad = utf8Problem(b);
    if (bad !== undefined) throw errors.malformedJson(bad.line, bad.col, bad.message);
  }
  const text = Buffer.isBuffer(b) ? b.toString('utf8') : String(b);
  // Not `text.trim() === ''`: that copies a whole `_bulk` body only to test it (\s is trim's set).
  return NON_BLANK.test(text) ? text : undefined;
}

/** The parsed JSON body (undefined when empty); checks the content type first. */
export function jsonBody(req: FastifyRequest): unknown {
  return jsonBodyAndText(req)?.value;
}

/**
 * jsonBody with the text it parsed (undefined when empty), for a caller that reads the text again:
 * decoding a large body a second time costs about as much as scanning it. A text nested deeper
 * than Jackson's limit is refused, unless `checkDepth` is false (the caller checks it in the
 * order ES's parser would meet it).
 */
export function jsonBodyAndText(req: FastifyRequest, checkDepth = true): { value: unknown; text: string } | undefined {
  const text = rawBody(req);
  if (text === undefined) return undefined;
  // The usual header needs no parse to be accepted (requestMediaType takes it as plain JSON).
  const type = req.headers['content-type'];
  if (type !== 'application/json') requestMediaType(type);
  const value = parseJsonBody(text);
  if (checkDepth) checkNesting(text);
  return { value, text };
}

/** A body that must be present (`PUT /<index>/_doc/<id>`). */
export function requiredJsonBody(req: FastifyRequest): { value: unknown; text: string } {
  const text = rawBody(req);
  if (text === undefined) throw errors.actionValidation(['source is missing']);
  requestMediaType(req.headers['content-type']);
  return { value: parseJsonBody(text), text };
}

