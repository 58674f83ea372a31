import type { FastifyInstance } from 'fastify';

/**
 * httprouter (under Pushgateway's router) answers OPTIONS on every path it serves with 200 and
 * `Allow:` listing the methods registered there. Call before registering routes; call the returned
 * function after, to add those OPTIONS routes. Wildcard paths are left out (the push and API
 * routes answer OPTIONS themselves), as are paths under `skipUnder` (covered by a wildcard
 * OPTIONS route, e.g. the API's CORS answer). HEAD is never listed: Pushgateway serves none.
 */
export function automaticOptions(app: FastifyInstance, skipUnder: string): () => void {
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*') || route.url.startsWith(skipUnder)) return;
    let set = methods.get(route.url);
    if (set === undefined) {
      set = new Set();
      methods.set(route.url, set);
    }
    for (const m of [route.method].flat()) set.add(m);
  });
  return () => {
    for (const [url, set] of [...methods]) {
      if (set.has('OPTIONS')) continue;
      const allow = [...set, 'OPTIONS'].filter((m) => m !== 'HEAD').sort().join(', ');
      app.route({ method: 'OPTIONS', url, handler: async (_request, reply) => reply.code(200).header('allow', allow).send() });
    }
  };
}
