/**
 * The internal endpoint where providers deliver whole snapshots (see the contract in
 * src/dynamic-config): `PUT|GET|DELETE /internal/v1/providers/{provider}` behind a bearer token.
 * A PUT body is format 1 (`application/json`, the snapshot as one JSON document), format 2
 * (snapshot lines, see src/dynamic-config/snapshot/lines.ts), whose unchanged records are neither parsed nor
 * validated again, or a snapshot delta from the format 2 body held (src/dynamic-config/snapshot/delta.ts; `412`
 * when another one is held).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BodyBuffers } from './body-buffers.js';
import type { ProviderSnapshot } from '../../dynamic-config/configuration.js';
import { INTERNAL_PROVIDERS_PATH, PROVIDER_NAME_PATTERN, RESERVED_PROVIDERS, type ProviderPutResponse, type ProviderStatusResponse } from '../../dynamic-config/internal-endpoint.js';
import { managementErrors, ManagementError } from '../errors.js';
import { bearerMatches } from './token.js';
import type { HeapReclaimer } from '../../http/heap-reclaim.js';
import { expandSnapshotDelta, SNAPSHOT_DELTA_MEDIA_TYPE } from '../../dynamic-config/snapshot/delta.js';
import type { RecordStore, SnapshotChanges } from '../record-store.js';
import { SNAPSHOT_LINES_MEDIA_TYPE, SnapshotLineDecoder, SnapshotLinesError, type DecodeSession, type DecodedSnapshot } from '../../dynamic-config/snapshot/lines.js';
import { SnapshotValidationError, validateChangedLines, validateProviderSnapshot } from '../../dynamic-config/validation.js';

/** A snapshot delta (src/dynamic-config/snapshot/delta.ts), as read. */
class DeltaBody {
  constructor(readonly bytes: Buffer) {}
}

/** The version an `If-Match` header names (`"v"`, `W/"v"` or bare), if one. */
function ifMatchVersion(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"([^"]*)"\s*$/.exec(header);
  return m ? m[1] : header.trim() === '' ? undefined : header.trim();
}

/** A format 2 body as its content-type parser leaves it: the bytes, and their decoding begun. */
class LinesBody {
  constructor(readonly bytes: Buffer, readonly decoder: SnapshotLineDecoder | undefined, readonly session: DecodeSession | undefined) {}
}

/**
 * Validates a format 2 body: only its changed lines when they are records in record maps (the
 * rest was validated with the snapshot it came from), else the whole snapshot, skipping the
 * records taken over unchanged.
 */
function validateDecodedSnapshot(decoded: DecodedSnapshot): ProviderSnapshot {
  if (decoded.previous !== undefined) {
    const snapshot = validateChangedLines(decoded.value, decoded.added, decoded.removed);
    if (snapshot !== undefined) return snapshot;
  }
  return validateProviderSnapshot(decoded.value, decoded.reused);
}

/** What a decoded body changed, for the record store's incremental runtime. */
function snapshotChanges(decoded: DecodedSnapshot): SnapshotChanges | undefined {
  if (decoded.previous === undefined) return undefined;
  return { basis: decoded.previous, added: decoded.added, removed: decoded.removed };
}

export interface InternalRoutesOptions {
  readonly store: RecordStore;
  readonly token: string;
  /** Extra state of in-process providers (the file provider's last error). */
  readonly providerError?: (provider: string) => string | undefined;
  /** Told when a snapshot starts arriving: no collection while its body is parsed and applied. */
  readonly heap?: HeapReclaimer;
}

function sendError(reply: FastifyReply, err: ManagementError): FastifyReply {
  if (err.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="portico-internal"');
  return reply.code(err.statusCode).type('application/json').send({ message: err.message });
}

function checkProvider(provider: string, writing: boolean): void {
  if (!PROVIDER_NAME_PATTERN.test(provider)) {
    throw managementErrors.badProvider(`provider name ${JSON.stringify(provider)} is not valid (lower-case letters, digits and dashes)`);
  }
  if (writing && RESERVED_PROVIDERS.includes(provider)) {
    throw managementErrors.badProvider(`provider ${JSON.stringify(provider)} is reserved and cannot be written here`);
  }
}

// eslint-disable-next-line max-lines-per-function -- registers the internal listener's three routes with their shared body handling; each route is a statement
export function registerInternalRoutes(app: FastifyInstance, opts: InternalRoutesOptions): void {
  const { store, token } = opts;
  // Per provider: the format 2 lines it last had accepted.
  const decoders = new Map<string, SnapshotLineDecoder>();
  // Format 2 bodies being received or applied. While one is, the store does not prepare for
  // incremental changes after a computation from scratch: that one's will do it (the operator's
  // first delivery sends both providers at once, and the first preparation would be redone).
  // Linking the records of a provider's first snapshot is never redone: that goes ahead.
  const inFlight = new Set<FastifyRequest>();
  app.addHook('onResponse', async (request) => {
    inFlight.delete(request);
  });
  app.addHook('onRequestAbort', async (request) => {
    inFlight.delete(request);
  });

  // Bytes, not a string: the decoder compares them with the last accepted body before decoding
  // any of it, and most of it is never turned into strings. Read into a buffer of the provider's
  // used before (see body-buffers.ts).
  // The lines are compared and parsed as they arrive (an operator streams its snapshot as it
  // writes it), so that little is left to do once the body is whole.
  const buffers = new BodyBuffers();
  app.addContentTypeParser(SNAPSHOT_LINES_MEDIA_TYPE, async (request: FastifyRequest, payload: AsyncIterable<Buffer>) => {
    inFlight.add(request);
    const provider = (request.params as { provider?: string }).provider ?? '';
    const length = request.headers['content-length'];
    const expected = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    let decoder = decoders.get(provider);
    if (decoder === undefined && PROVIDER_NAME_PATTERN.test(provider)) decoders.set(provider, (decoder = new SnapshotLineDecoder()));
    const session = decoder?.begin();
    const bytes = await buffers.read(provider, payload, request.routeOptions.bodyLimit, expected, session === undefined ? undefined : (buf, n) => session.feed(buf, n, false));
    return new LinesBody(bytes, decoder, session);
  });

  // Deltas are small: read whole, then expanded against the body the provider's decoder holds.
  app.addContentTypeParser(SNAPSHOT_DELTA_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, new DeltaBody(body as Buffer)));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ManagementError) return sendError(reply, error);
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own refusals: bad JSON, wrong content type, body too large.
      return reply.code(error.statusCode).type('application/json').send({ message: error.message });
    }
    request.log.error({ err: error }, 'internal endpoint failed');
    return sendError(reply, managementErrors.internal());
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).type('application/json').send({ message: `no route for ${request.method} ${request.url.split('?')[0]}` }));

  app.addHook('onRequest', async (request) => {
    if (!bearerMatches(request.headers.authorization, token)) throw managementErrors.unauthorized();
    if (request.method !== 'GET') opts.heap?.busy();
  });

  const path = `${INTERNAL_PROVIDERS_PATH}/:provider`;
  const params = { type: 'object', properties: { provider: { type: 'string' } }, required: ['provider'] } as const;

  app.put<{ Params: { provider: string } }>(path, { schema: { params } }, async (request, reply) => {
    const { provider } = request.params;
    checkProvider(provider, true);
    const started = performance.now();
    let snapshot;
    let decoded: DecodedSnapshot | undefined;
    // The decoder that began decoding the body (the provider's, unless it was removed meanwhile).
    const decoder = (request.body instanceof LinesBody ? request.body.decoder : undefined) ?? decoders.get(provider) ?? new SnapshotLineDecoder();
    try {
      if (request.body instanceof DeltaBody) {
        const wanted = ifMatchVersion(request.headers['if-match']);
        const base = decoder.base;
        if (base === undefined || wanted === undefined || base.version !== wanted) throw managementErrors.baseMismatch(provider, wanted ?? '', base?.version);
        decoded = decoder.decode(expandSnapshotDelta(request.body.bytes, base, (size) => buffers.take(provider, size)));
        snapshot = validateDecodedSnapshot(decoded);
      } else if (request.body instanceof LinesBody) {
        decoded = request.body.session === undefined ? decoder.decode(request.body.bytes) : request.body.session.finish(request.body.bytes);
        snapshot = validateDecodedSnapshot(decoded);
      } else if (typeof request.body === 'string') {
        decoded = decoder.decode(request.body);
        snapshot = validateDecodedSnapshot(decoded);
      } else {
        snapshot = validateProviderSnapshot(request.body);
      }
    } catch (err) {
      if (request.body instanceof LinesBody) buffers.release(provider, request.body.bytes);
      if (err instanceof SnapshotValidationError || err instanceof SnapshotLinesError) throw managementErrors.badSnapshot(err.message, err);
      throw err;
    }
    inFlight.delete(request);
    const stored = store.set(provider, snapshot, decoded === undefined ? {} : { incremental: true, othersInFlight: inFlight.size > 0, changes: snapshotChanges(decoded) });
    if (decoded !== undefined) {
      buffers.release(provider, decoder.commit(decoded));
      decoders.set(provider, decoder);
    } else {
      decoders.delete(provider);
    }
    request.log.info({
      provider, version: stored.version, ms: Math.round(performance.now() - started), ...(decoded ? { parsedLines: decoded.parsed } : {}),
    }, 'provider snapshot applied');
    const body: ProviderPutResponse = { provider, version: stored.version };
    return reply.code(200).send(body);
  });

  app.get<{ Params: { provider: string } }>(path, { schema: { params } }, async (request, reply) => {
    const { provider } = request.params;
    checkProvider(provider, false);
    const stored = store.get(provider);
    const lastError = opts.providerError?.(provider);
    if (stored === undefined) throw managementErrors.providerNotFound(provider, lastError);
    const body: ProviderStatusResponse = { provider, version: stored.version, receivedAt: new Date(stored.receivedAt).toISOString() };
    if (lastError !== undefined) body.lastError = lastError;
    return reply.code(200).send(body);
  });

  app.delete<{ Params: { provider: string } }>(path, { schema: { params } }, async (request, reply) => {
    const { provider } = request.params;
    checkProvider(provider, true);
    const stored = store.get(provider);
    if (stored === undefined || !store.delete(provider)) throw managementErrors.providerNotFound(provider);
    decoders.delete(provider);
    buffers.forget(provider);
    request.log.info({ provider }, 'provider snapshot removed');
    const body: ProviderPutResponse = { provider, version: stored.version };
    return reply.code(200).send(body);
  });
}
