import type { FastifyInstance, FastifyReply } from 'fastify';

/** Pushgateway's (httprouter's) 405: `Allow`, plain text, `nosniff`; HEAD gets the headers only. */
export function methodNotAllowed(reply: FastifyReply, allow: string): FastifyReply {
  return reply
    .code(405)
    .header('allow', allow)
    .header('x-content-type-options', 'nosniff')
    .type('text/plain; charset=utf-8')
    .send('Method Not Allowed\n');
}

/**
 * httprouter (under Pushgateway's router) answers OPTIONS on every path it serves with 200 and
 * `Allow:` listing the methods registered there, and a method not registered on a served path
 * (HEAD included: Pushgateway serves none; also `PUT /metrics` or `POST /api/v1/metrics`) with 405
 * and the same `Allow:`. Call before registering routes, with Fastify's automatic HEAD routes
 * turned off (`exposeHeadRoutes: false`); call the returned function after, to add those OPTIONS
 * routes and the 405 routes on each path.
 * Wildcard paths are left out (the push routes answer OPTIONS and HEAD themselves); so are
 * OPTIONS routes for paths under `optionsSkipUnder` (covered by a wildcard OPTIONS route, e.g. the
 * API's CORS answer).
 */
/** The methods answered 405 on a served path that does not register them (e.g. `PUT /metrics`). */
const NOT_ALLOWED_CANDIDATES = ['HEAD', 'GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

export function automaticMethodAnswers(app: FastifyInstance, optionsSkipUnder: string): () => void {
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    let set = methods.get(route.url);
    if (set === undefined) {
      set = new Set();
      methods.set(route.url, set);
    }
    for (const m of [route.method].flat()) set.add(m);
  });
  return () => {
    for (const [url, set] of [...methods]) {
      const allow = [...new Set([...set, 'OPTIONS'])].filter((m) => m !== 'HEAD').sort().join(', ');
      if (!set.has('OPTIONS') && !url.startsWith(optionsSkipUnder)) {
        app.route({ method: 'OPTIONS', url, handler: async (_request, reply) => reply.code(200).header('allow', allow).send() });
      }
      for (const method of NOT_ALLOWED_CANDIDATES) {
        if (!set.has(method)) app.route({ method, url, handler: async (_request, reply) => methodNotAllowed(reply, allow) });
      }
    }
  };
}
