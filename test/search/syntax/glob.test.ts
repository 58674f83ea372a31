import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';

/** Glob matching (syntax/glob.ts) as index-name and field-name wildcards use it over HTTP. */

/**
 * Index-name wildcards (search-service resolve) and field-name wildcards in queries (query-exec
 * resolveFields) were once compiled to RegExps (as `filter_path` segments were) with a `.*` per star, which backtrack exponentially:
 * `*a*a*a*a*a*a*a*a*a*b` against a 40-character name of `a`s held the event loop (every listener
 * of the process) for minutes. Both now use glob.ts; these requests answer at once.
 */

const json = { 'content-type': 'application/json' };
const pattern = `${'*a'.repeat(9)}*b`;
const long = 'a'.repeat(40);

describe('wildcards in index and field names', () => {
  const h = searchForAll();
  beforeAll(async () => {
    await h.app.inject({ method: 'PUT', url: `/${long}/_doc/1?refresh=true`, headers: json, payload: JSON.stringify({ [long]: 'x', t: 'x' }) });
  });

  it('an index pattern that does not match answers at once', async () => {
    const r = await h.app.inject({ method: 'POST', url: `/${pattern}/_search`, headers: json, payload: '{}' });
    expect(r.statusCode).toBe(200);
    expect((JSON.parse(r.body) as { hits: { total: { value: number } } }).hits.total.value).toBe(0);
    const hit = await h.app.inject({ method: 'POST', url: `/${'*a'.repeat(9)}*/_search`, headers: json, payload: '{}' });
    expect((JSON.parse(hit.body) as { hits: { total: { value: number } } }).hits.total.value).toBe(1);
  });

  it('a field pattern in a query answers at once', async () => {
    const r = await h.app.inject({ method: 'POST', url: `/${long}/_search`, headers: json, payload: JSON.stringify({ query: { multi_match: { query: 'x', fields: [pattern, `${'*a'.repeat(9)}*`] } } }) });
    expect(r.statusCode).toBe(200);
    expect((JSON.parse(r.body) as { hits: { total: { value: number } } }).hits.total.value).toBe(1);
    const exists = await h.app.inject({ method: 'POST', url: `/${long}/_search`, headers: json, payload: JSON.stringify({ query: { exists: { field: pattern } } }) });
    expect((JSON.parse(exists.body) as { hits: { total: { value: number } } }).hits.total.value).toBe(0);
  });
});
