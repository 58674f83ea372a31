import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from './errors.js';
import { parseJsonBody, RawJson, renderJson } from './json-render.js';
import { requestMediaType, responseContentType } from './media-type.js';

/** Request/response helpers shared by the search route plugins (HTTP translation only). */

export type Params = Record<string, string | undefined>;

export function queryOf(req: FastifyRequest): Params {
  return req.query as Params;
}

function isPretty(req: FastifyRequest): boolean {
  const p = queryOf(req).pretty;
  return p !== undefined && p !== 'false';
}

/** Sends a JSON body in ES's style (pretty on request, vendor content type echoed). */
export function sendJson(req: FastifyRequest, reply: FastifyReply, status: number, body: unknown, hasRaw = false): FastifyReply {
  return reply
    .code(status)
    .header('content-type', responseContentType(req.headers.accept, req.headers['content-type']))
    // A Buffer, so that Fastify sends our content type as is (it rewrites it for strings).
    .send(Buffer.from(renderJson(body, isPretty(req), hasRaw)));
}

/** Sends JSON already rendered compact as UTF-8 bytes (re-rendered when `?pretty` asks for it). */
export function sendJsonBytes(req: FastifyRequest, reply: FastifyReply, status: number, bytes: Buffer): FastifyReply {
  if (isPretty(req)) return sendJson(req, reply, status, new RawJson(bytes.toString('utf8')), true);
  return reply.code(status).header('content-type', responseContentType(req.headers.accept, req.headers['content-type'])).send(bytes);
}

const NON_BLANK = /\S/;

/** The raw body text, or undefined when there is none. */
export function rawBody(req: FastifyRequest): string | undefined {
  const b = req.body;
  if (b === undefined || b === null) {
    const src = queryOf(req).source;
    return src === undefined ? undefined : src;
  }
  const text = Buffer.isBuffer(b) ? b.toString('utf8') : String(b);
  // Not `text.trim() === ''`: that copies a whole `_bulk` body only to test it (\s is trim's set).
  return NON_BLANK.test(text) ? text : undefined;
}

/** The parsed JSON body (undefined when empty); checks the content type first. */
export function jsonBody(req: FastifyRequest): unknown {
  const text = rawBody(req);
  if (text === undefined) return undefined;
  requestMediaType(req.headers['content-type']);
  return parseJsonBody(text);
}

/** A body that must be present (`PUT /<index>/_doc/<id>`). */
export function requiredJsonBody(req: FastifyRequest): { value: unknown; text: string } {
  const text = rawBody(req);
  if (text === undefined) throw errors.actionValidation(['source is missing']);
  requestMediaType(req.headers['content-type']);
  return { value: parseJsonBody(text), text };
}

/** `?refresh`, `?refresh=true` force a refresh (forced_refresh in the answer); wait_for and false do not. */
export function forcedRefresh(req: FastifyRequest): boolean {
  const r = queryOf(req).refresh;
  return r === '' || r === 'true';
}
