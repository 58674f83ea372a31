/**
 * The management area's error catalogue. Traefik's API answers errors as `{"message":"…"}`
 * through Go's http.Error (so `text/plain; charset=utf-8` and `nosniff`); unknown paths get
 * mux's `404 page not found`. The internal endpoint answers `{"message":"…"}` as JSON.
 */
import { goJson } from './go-json.js';

export type ManagementErrorCode =
  | 'bad_page' | 'bad_id' | 'router_not_found' | 'service_not_found' | 'middleware_not_found' | 'entrypoint_not_found'
  | 'bad_snapshot' | 'bad_provider' | 'provider_not_found' | 'snapshot_base_mismatch' | 'unauthorized' | 'bad_request' | 'internal';

export class ManagementError extends Error {
  override readonly name = 'ManagementError';
  constructor(readonly code: ManagementErrorCode, readonly statusCode: number, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

const NOT_FOUND_LABEL: Record<string, [ManagementErrorCode, string]> = {
  routers: ['router_not_found', 'router'],
  services: ['service_not_found', 'service'],
  middlewares: ['middleware_not_found', 'middleware'],
  entrypoints: ['entrypoint_not_found', 'entry point'],
};

export const managementErrors = {
  badPage: (message: string) => new ManagementError('bad_page', 400, message),
  /** Traefik: `unable to decode routerID "<raw>": invalid URL escape "%zz"`. */
  badId: (idName: string, raw: string, cause: string) => new ManagementError('bad_id', 400, `unable to decode ${idName} ${JSON.stringify(raw)}: ${cause}`),
  notFound: (kind: string, name: string) => {
    const [code, label] = NOT_FOUND_LABEL[kind] ?? ['router_not_found', kind];
    return new ManagementError(code, 404, `${label} not found: ${name}`);
  },
  badSnapshot: (message: string, cause?: unknown) => new ManagementError('bad_snapshot', 400, message, { cause }),
  badProvider: (message: string) => new ManagementError('bad_provider', 400, message),
  providerNotFound: (provider: string, detail?: string) =>
    new ManagementError('provider_not_found', 404, `provider ${JSON.stringify(provider)} has no snapshot${detail ? `: ${detail}` : ''}`),
  /** A snapshot delta whose base is not the body the server holds: the sender PUTs the whole snapshot. */
  baseMismatch: (provider: string, wanted: string, held: unknown) => new ManagementError('snapshot_base_mismatch', 412, typeof held === 'string'
    ? `provider ${JSON.stringify(provider)} holds version ${JSON.stringify(held)}, not ${JSON.stringify(wanted)}: send the whole snapshot`
    : `provider ${JSON.stringify(provider)} holds no format 2 snapshot a delta applies to: send the whole snapshot`),
  unauthorized: () => new ManagementError('unauthorized', 401, 'missing or invalid bearer token'),
  /** Another client mistake the HTTP layer found (a 4xx of Fastify's), with its status. */
  badRequest: (status: number, message: string) => new ManagementError('bad_request', status, message),
  internal: () => new ManagementError('internal', 500, 'internal server error'),
};

/** The body Traefik's writeError produces: `{"message":…}` plus the Encoder's newline. */
export function messageBody(message: string): string {
  return `${goJson({ message }, false)}\n`;
}
