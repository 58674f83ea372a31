import { parse } from 'fast-querystring';

/**
 * The search listener's query-string parser (Fastify's `querystringParser`).
 *
 * Fastify's default (find-my-way over fast-querystring) hands a name given more than once over as
 * an array (`?from=0&from=1` → `['0', '1']`), which no parameter reader expects: each calls string
 * methods on it, a TypeError, answered as a 500. ES keeps the last value of a repeated name
 * (RestUtils.decodeQueryString puts each pair into a map in order), so this does the same and every
 * value is a string. Decoding is fast-querystring's, exactly as before ('+' is a space, a malformed
 * percent-escape is kept as written).
 */
export function parseUrlQuery(query: string): Record<string, string> {
  if (query.length === 0) return {};
  const params = parse(query) as Record<string, string | string[]>;
  // Repeats are rare: one pass over the names, touching only the arrays.
  for (const name in params) {
    const value = params[name];
    if (typeof value !== 'string') params[name] = (value as string[])[(value as string[]).length - 1] as string;
  }
  return params as Record<string, string>;
}
