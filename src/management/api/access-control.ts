/**
 * Protection for the management listener, which exposes the whole routing configuration:
 * an IP allow-list (403 for other clients) and optional basic auth with bcrypt users
 * (401 with a `WWW-Authenticate` challenge). Both apply to the API and the dashboard; `/ping`
 * stays open so that liveness probes need no credentials.
 */
import type { FastifyInstance } from 'fastify';
import { type BasicAuthVerifier, parseBasicAuthorization } from '../../http/basic-auth.js';
import type { IpAllowList } from '../../http/ip-allow-list.js';

export interface AccessControlOptions {
  /** Null: every client address is allowed. */
  readonly allowList: IpAllowList | null;
  /** Null: no authentication. */
  readonly verifier: BasicAuthVerifier | null;
  /** Paths answered without any check (exact match). */
  readonly openPaths: readonly string[];
  /** Realm of the basic-auth challenge. */
  readonly realm?: string;
}

export function registerAccessControl(app: FastifyInstance, opts: AccessControlOptions): void {
  const { allowList, verifier } = opts;
  if ((allowList === null || allowList.isEmpty) && verifier === null) return;
  const open = new Set(opts.openPaths);
  const realm = opts.realm ?? 'portico';
  app.addHook('onRequest', async (request, reply) => {
    const url = request.raw.url ?? '/';
    const q = url.indexOf('?');
    if (open.has(q === -1 ? url : url.slice(0, q))) return;
    if (allowList !== null && !allowList.allows(request.socket.remoteAddress)) {
      request.log.info({ remoteAddress: request.socket.remoteAddress }, 'refused by management.ip-allow-list');
      return reply.code(403).type('text/plain; charset=utf-8').send('Forbidden\n');
    }
    if (verifier !== null && !(await verifier.verify(parseBasicAuthorization(request.headers.authorization)))) {
      return reply
        .code(401)
        .header('www-authenticate', `Basic realm="${realm}"`)
        .type('text/plain; charset=utf-8')
        .send('401 Unauthorized\n');
    }
  });
}
