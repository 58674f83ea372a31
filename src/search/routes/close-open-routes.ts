import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { queryOf, sendJson, type Params } from '../http/http-io.js';
import { checkParams } from '../http/url-params.js';
import type { SearchService } from '../engine/search-service.js';

/**
 * `POST /<index>/_close` and `POST /<index>/_open` (ES 8's close and open index APIs). A closed
 * index keeps its documents, mapping and settings (`GET /<index>`, `_mapping`, `_settings` and
 * `_cat/indices`, with status `close`, still show it, and it can be deleted); searches, gets and
 * writes naming it get ES's 400 `index_closed_exception`, and wildcard searches leave it out.
 */

/** What ES 8's RestCloseIndexAction and RestOpenIndexAction read. */
const CLOSE_OPEN_PARAMS: ReadonlySet<string> = new Set([
  'pretty', 'human', 'error_trace', 'filter_path', 'source', 'source_content_type', 'index', 'timeout', 'master_timeout',
  'wait_for_active_shards', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards',
]);

function target(req: FastifyRequest, close: boolean): string {
  const params = queryOf(req);
  checkParams(req.url, params, CLOSE_OPEN_PARAMS);
  const expr = (req.params as Params).index as string;
  // ES 8 defaults action.destructive_requires_name to true, and closing is destructive: every index named.
  if (close && expr.split(',').some((part) => part.trim() === '_all' || part.includes('*'))) {
    throw errors.illegalArgument('Wildcard expressions or all indices are not allowed');
  }
  return expr;
}

export async function closeOpenRoutes(app: FastifyInstance, opts: { service: SearchService }): Promise<void> {
  const { service } = opts;
  app.post('/:index/_close', async (req, reply) => {
    const closed = service.setClosed(target(req, true), true);
    const indices: Record<string, unknown> = {};
    for (const s of closed) indices[s.name] = { closed: true };
    return sendJson(req, reply, 200, { acknowledged: true, shards_acknowledged: true, indices });
  });
  app.post('/:index/_open', async (req, reply) => {
    service.setClosed(target(req, false), false);
    return sendJson(req, reply, 200, { acknowledged: true, shards_acknowledged: true });
  });
}
