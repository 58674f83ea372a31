import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonBodyAndText, queryOf, sendJson, type Params } from '../http/http-io.js';
import { ANALYZE_PARAMS, checkParams } from '../http/url-params.js';
import { analyzeTexts, parseAnalyzeRequest } from '../requests/analyze-request.js';
import type { SearchService } from '../engine/search-service.js';

/** `GET|POST /_analyze` and `/<index>/_analyze`: the tokens an analyzer makes of a text. */
export async function analyzeRoutes(app: FastifyInstance, opts: { service: SearchService }): Promise<void> {
  const { service } = opts;
  const analyze = async (req: FastifyRequest, reply: FastifyReply) => {
    const index = (req.params as Params).index;
    // ES reads the body (a body is required) before it looks at the index or the URL's parameters.
    const body = jsonBodyAndText(req);
    if (body === undefined) throw errors.bodyRequired();
    const request = parseAnalyzeRequest(body.text, body.value);
    checkParams(req.url, queryOf(req), ANALYZE_PARAMS);
    const state = index === undefined ? undefined : service.get(index);
    // index.max_shingle_diff bounds an index's shingle filters (3 when not set, and for a global _analyze).
    const diff = Number(state?.settings.raw['index.max_shingle_diff'] ?? 3);
    // positionLength: a token spanning several positions (a shingle), as ES lists it.
    const tokens = analyzeTexts(request, state?.mappings, Number.isInteger(diff) ? diff : 3).map((t) => ({
      token: t.token, start_offset: t.start, end_offset: t.end, type: t.type, position: t.position, ...(t.positionLength === undefined ? {} : { positionLength: t.positionLength }),
    }));
    return sendJson(req, reply, 200, { tokens });
  };
  for (const path of ['/_analyze', '/:index/_analyze']) {
    app.get(path, analyze);
    app.post(path, analyze);
  }
}
