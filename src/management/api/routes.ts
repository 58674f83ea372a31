/**
 * Traefik's read-only API routes (`pkg/api/handler.go`): one dispatcher over the raw, still
 * encoded path, as gorilla/mux with UseEncodedPath matches it, so `%2F` inside a name never
 * splits a segment and bad escapes get Traefik's 400. GET only; other methods on a known path
 * get 405, unknown paths `404 page not found`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HeapReclaimer } from '../../http/heap-reclaim.js';
import { goJson } from '../go-json.js';
import { managementErrors, ManagementError, messageBody } from '../errors.js';
import { listPage, simplePage } from './query.js';
import type { RecordStore } from '../record-store.js';
import type { Protocol, ResourceKind } from '../view/kind-view.js';

export interface VersionInfo {
  /** Traefik version the API answers as (`Version`). */
  readonly version: string;
  readonly codename: string;
  /** Process start, milliseconds since the epoch. */
  readonly startDate: number;
}

/** Go's url.PathUnescape: `%XX` decoding, `+` kept; a bad escape names the offending text. */
export function pathUnescape(raw: string): { value: string } | { error: string } {
  if (!raw.includes('%')) return { value: raw };
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charCodeAt(i);
    if (ch === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { error: `invalid URL escape ${JSON.stringify(raw.slice(i, i + 3))}` };
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(raw[i] as string, 'utf8')) bytes.push(b);
    }
  }
  return { value: Buffer.from(bytes).toString('utf8') };
}

const ID_NAMES: Record<string, string> = {
  routers: 'routerID', services: 'serviceID', middlewares: 'middlewareID', entrypoints: 'entryPointID',
};

type Route =
  | { kind: 'rawdata' } | { kind: 'overview' } | { kind: 'version' }
  | { kind: 'entrypoints'; id?: string }
  | { kind: 'records'; protocol: Protocol; resource: ResourceKind; id?: string };

/** Matches the encoded path (below `/api/`) against Traefik's route table; null = no route. */
export function matchApiPath(segments: readonly string[]): Route | null {
  const [a, b, c, extra] = segments;
  if (a === undefined) return null;
  if (segments.length === 1) {
    if (a === 'rawdata' || a === 'overview' || a === 'version') return { kind: a };
    if (a === 'entrypoints') return { kind: 'entrypoints' };
    return null;
  }
  if (a === 'entrypoints' && segments.length === 2 && b !== '') return { kind: 'entrypoints', id: b as string };
  if (a !== 'http' && a !== 'tcp' && a !== 'udp') return null;
  if (b !== 'routers' && b !== 'services' && b !== 'middlewares') return null;
  if (a === 'udp' && b === 'middlewares') return null;
  if (segments.length === 2) return { kind: 'records', protocol: a, resource: b };
  if (segments.length === 3 && c !== '' && extra === undefined) return { kind: 'records', protocol: a, resource: b, id: c as string };
  return null;
}

// Sent as a Buffer: Fastify appends `; charset=utf-8` to JSON types for strings, Traefik does not.
function sendJson(reply: FastifyReply, body: string): FastifyReply {
  return sendJsonLine(reply, `${body}\n`);
}

/** sendJson for a text that already ends with Go's newline (a list page). */
function sendJsonLine(reply: FastifyReply, line: string): FastifyReply {
  return reply.code(200).header('content-type', 'application/json').send(Buffer.from(line, 'utf8'));
}

/** Traefik's writeError: JSON text sent by http.Error, hence text/plain and nosniff. */
export function sendTraefikError(reply: FastifyReply, err: ManagementError): FastifyReply {
  return reply
    .code(err.statusCode)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(messageBody(err.message));
}

/** mux's NotFoundHandler. */
export function sendPageNotFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('404 page not found\n');
}

function decodeId(resource: string, raw: string): string {
  const decoded = pathUnescape(raw);
  if ('error' in decoded) throw managementErrors.badId(ID_NAMES[resource] ?? 'id', raw, decoded.error);
  return decoded.value;
}

/** The route of a raw (still encoded) request URL under `prefix`, and its query string. */
function routeOfUrl(url: string, prefix: string): { route: Route | null; query: string } {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const route = path.startsWith(prefix) ? matchApiPath(path.slice(prefix.length).split('/')) : null;
  return { route, query: q === -1 ? '' : url.slice(q + 1) };
}

/**
 * Answers a URL Fastify could not decode (`%zz`): inside a record path that is Traefik's
 * `unable to decode routerID` 400, anywhere else mux's 404. Set as Fastify's frameworkErrors.
 */
export function badUrlResponder(basePath = '/') {
  const prefix = `${basePath}api/`;
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const { route } = routeOfUrl(request.raw.url ?? '', prefix);
    if (route === null) return sendPageNotFound(reply);
    if (request.method !== 'GET') return reply.code(405).send('');
    if (route.kind !== 'entrypoints' && route.kind !== 'records') return sendPageNotFound(reply);
    const id = route.id;
    if (id === undefined) return sendPageNotFound(reply);
    const decoded = pathUnescape(id);
    const resource = route.kind === 'entrypoints' ? 'entrypoints' : route.resource;
    if ('error' in decoded) return sendTraefikError(reply, managementErrors.badId(ID_NAMES[resource] ?? 'id', id, decoded.error));
    return sendPageNotFound(reply);
  };
}

/** A first `/api/rawdata` body from this size on counts as a burst of garbage (the joined parts). */
const LARGE_RAWDATA_BYTES = 1024 * 1024;

/**
 * Registers `{basePath}api/*` on the management app.
 * @param heap told when a large `/api/rawdata` body was just built (src/http/heap-reclaim.ts)
 */
export function registerApiRoutes(app: FastifyInstance, store: RecordStore, version: VersionInfo, basePath = '/', heap?: HeapReclaimer): void {
  const prefix = `${basePath}api/`;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { route, query: rawQuery } = routeOfUrl(request.raw.url ?? '', prefix);
    if (route === null) return sendPageNotFound(reply);
    // gorilla/mux: the path matched but the method did not.
    if (request.method !== 'GET') return reply.code(405).send('');
    const query = new URLSearchParams(rawQuery);
    const view = store.view;
    try {
      switch (route.kind) {
        case 'rawdata': {
          const built = view.rawdataBuilt;
          const body = view.rawdata();
          if (!built && body.length >= LARGE_RAWDATA_BYTES) heap?.afterBurst();
          return reply.code(200).header('content-type', 'application/json').send(body);
        }
        case 'overview':
          return sendJson(reply, goJson(view.overview(), false));
        case 'version':
          // unrolled/render: json.Marshal, charset in the type, no trailing newline.
          return reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(goJson({
            Version: version.version, Codename: version.codename, startDate: new Date(version.startDate).toISOString(),
            disableDashboardAd: true,
          }, false));
        case 'entrypoints': {
          if (route.id !== undefined) {
            const name = decodeId('entrypoints', route.id);
            const ep = view.entryPointsByName.get(name);
            if (ep === undefined) throw managementErrors.notFound('entrypoints', name);
            return sendJson(reply, ep.json);
          }
          const page = simplePage(view.entryPoints, query);
          if ('error' in page) throw managementErrors.badPage(page.error);
          reply.header('x-next-page', page.nextPage);
          return sendJsonLine(reply, page.body);
        }
        case 'records': {
          const kindView = view.kind(route.protocol, route.resource);
          if (kindView === undefined) return sendPageNotFound(reply);
          if (route.id !== undefined) {
            const name = decodeId(route.resource, route.id);
            const entry = kindView.get(name);
            if (entry === undefined) throw managementErrors.notFound(route.resource, name);
            return sendJson(reply, entry.json);
          }
          const page = listPage(kindView, query);
          if ('error' in page) throw managementErrors.badPage(page.error);
          reply.header('x-next-page', page.nextPage);
          return sendJsonLine(reply, page.body);
        }
      }
    } catch (err) {
      if (err instanceof ManagementError) return sendTraefikError(reply, err);
      throw err;
    }
  };
  app.all(`${prefix}*`, handler);
}
