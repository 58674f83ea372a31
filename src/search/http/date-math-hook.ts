import type { FastifyInstance } from 'fastify';
import { resolveDateMathExpression } from '../syntax/date-math-index-name.js';

/**
 * Resolves date-math index names in the path (`/<logs-{now/d}>/_search`, URL-encoded as
 * `/%3Clogs-%7Bnow%2Fd%7D%3E/_search`) before any handler reads the index, as ES resolves them
 * for every API (`now` is when the request is handled, in UTC unless the name gives a zone).
 */
export function resolveDateMathIndices(app: FastifyInstance, now: () => number): void {
  app.addHook('preHandler', (req, _reply, done) => {
    const params = req.params as Record<string, string | undefined> | undefined;
    const index = params?.index;
    if (params !== undefined && index !== undefined && index.includes('<')) {
      try {
        params.index = resolveDateMathExpression(index, now());
      } catch (e) {
        done(e as Error);
        return;
      }
    }
    done();
  });
}
