/**
 * Request ids for the log (`reqId`): `req-1`, `req-2`, ... Fastify numbers each instance's requests
 * from `req-1`, so with one instance per listener three different requests were all `req-1`;
 * `src/cli.ts` makes one sequence and every listener draws from it.
 */
export function requestIdSequence(prefix = 'req-'): () => string {
  let last = 0;
  return () => `${prefix}${++last}`;
}
