/**
 * Side by side with a real OpenSearch node (test/search/opensearch-node.ts): aggregations, sorts,
 * collapse and queries on metadata fields (`_index` over several indices, and the fields ES
 * refuses: `_source`, `_version`, `_field_names`, …; `_id` and `_index` in field lists and the
 * match family), then `multi_match` of type `cross_fields`
 * on a Debian slice (operator, minimum_should_match, tie_breaker, boosts, keyword and numeric
 * fields, lenient). Answers must agree: hits, scores (1e-5 relative), aggregations, and for an
 * error its status, type and root-cause reason. Prints the figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { difference, type Answer } from './compare.js';
import { aggDifference } from './agg-requests.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS, debianCorpusPath, debianDocs } from './corpus.js';
import { sideBySide } from './side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../../..');

const { porticoCall, nodeCall } = sideBySide();

async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return [await porticoCall(method, path, body), await nodeCall(method, path, body)];
}

async function load(index: string, mappings: unknown, docs: [string, Record<string, unknown>][]): Promise<void> {
  for (const a of await both('PUT', `/${index}`, { settings: INDEX_SETTINGS, mappings })) expect(a.status).toBe(200);
  let ndjson = '';
  for (const [id, doc] of docs) ndjson += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
  for (const a of await both('POST', `/${index}/_bulk?refresh=true`, ndjson)) expect(a.body.errors).toBe(false);
}

const SMALL = { properties: { k: { type: 'keyword' }, n: { type: 'integer' }, t: { type: 'text' } } };
const small = (prefix: string, count: number): [string, Record<string, unknown>][] =>
  Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { k: `v${i % 3}`, n: i, t: `hello world ${i}` }]);

beforeAll(async () => {
  await load('ma', SMALL, small('a', 5));
  await load('mb', SMALL, small('b', 3));
  await load('mc', SMALL, small('c', 1));
  await load('deb', DEBIAN_MAPPINGS, debianDocs(debianCorpusPath(ROOT), 8));
}, 300_000);

/** The first way the answers differ: errors by status, type and root-cause reason; successes by hits, then aggregations. */
function disagreement(p: Answer, r: Answer): string | undefined {
  if (p.status >= 300 && p.status === r.status) {
    const reason = (a: Answer) => `${a.body?.error?.type}: ${a.body?.error?.root_cause?.[0]?.type} ${a.body?.error?.root_cause?.[0]?.reason}`;
    return reason(p) === reason(r) ? undefined : `${reason(p)} vs ${reason(r)}`;
  }
  return difference(p, r) ?? aggDifference(p.body?.aggregations, r.body?.aggregations);
}

const agg = (a: unknown, query?: unknown) => ({ size: 0, ...(query === undefined ? {} : { query }), aggs: { x: a } });

const INDEX_FIELD: readonly Record<string, unknown>[] = [
  agg({ terms: { field: '_index' } }),
  agg({ terms: { field: '_index', size: 1 } }),
  agg({ terms: { field: '_index', order: { _key: 'asc' }, include: 'ma|mc' } }),
  agg({ terms: { field: '_index', exclude: ['mb'] } }),
  agg({ terms: { field: '_index', min_doc_count: 0 } }, { term: { k: 'v1' } }),
  agg({ terms: { field: '_index', missing: 'zz' } }),
  agg({ terms: { field: '_index' }, aggs: { s: { sum: { field: 'n' } }, kk: { terms: { field: 'k' } } } }),
  agg({ terms: { field: 'k' }, aggs: { i: { terms: { field: '_index' } } } }),
  agg({ cardinality: { field: '_index' } }),
  agg({ value_count: { field: '_index' } }),
  agg({ missing: { field: '_index' } }),
  agg({ avg: { field: '_index' } }),
  agg({ histogram: { field: '_index', interval: 1 } }),
  agg({ range: { field: '_index', ranges: [{ to: 1 }] } }),
  agg({ top_hits: { size: 2, sort: [{ _index: 'desc' }, { n: 'asc' }] } }),
  { size: 4, sort: [{ _index: 'desc' }, { n: 'asc' }], _source: false },
  { size: 4, sort: [{ _index: { order: 'asc' } }, { n: 'desc' }], _source: false },
  { size: 3, sort: ['_index', { n: 'desc' }], _source: false, search_after: ['ma', 0] },
  { size: 2, collapse: { field: '_index' }, _source: false },
  { size: 3, query: { exists: { field: '_index' } }, _source: false },
  { size: 2, query: { range: { _index: { gte: 'mb' } } }, _source: false },
  { size: 2, query: { regexp: { _index: 'mb.*' } }, _source: false },
  { size: 2, query: { fuzzy: { _index: 'md' } }, _source: false },
  { size: 5, query: { query_string: { query: '_index:mb' } }, _source: false },
  // Every value on `_index` is a simple pattern (`*` any run, `?` itself) matched against the name.
  ...[
    { wildcard: { _index: 'm?' } },
    { wildcard: { _index: '*b' } },
    { wildcard: { _index: { value: 'M*', case_insensitive: true } } },
    { prefix: { _index: 'm*b' } },
    { term: { _index: 'm*' } },
    { term: { _index: '*c' } },
    { term: { _index: 'm?' } },
    { term: { _index: { value: 'M*', case_insensitive: true } } },
    { terms: { _index: ['x', 'm*'] } },
    { match: { _index: 'm*' } },
    { match: { _index: '*' } },
    { match_phrase: { _index: '*a' } },
    { query_string: { query: '_index:m\\*' } },
    { query_string: { query: '_index:"*b"' } },
  ].map((query) => ({ size: 10, query, _source: false })),
  // A pattern on `_index` in the query text: a bare prefix (and `*`) matches index names, any other
  // wildcard nothing (the node's answer), also boosted, grouped, negated and beside other clauses;
  // a range on `_index` or `_id` there nothing either.
  ...['_index:m?', '_index:?b', '_index:m*c', '_index:*', '_index:m*', '_index:m?^2', '_index:(m? OR mb)', 'NOT _index:m?', 't:hello AND _index:m?', 't:hello OR _index:?c', '_index:[ma TO mb]', '_index:>ma', '_index:{* TO mb]', '_id:[a0 TO a3]', '_id:>=b1', 'NOT _index:[ma TO mb]'].map((query) => ({
    size: 10,
    query: { query_string: { query } },
    _source: false,
  })),
  { size: 2, query: { terms: { _index: ['mc', 'x'] } }, _source: false },
];

/** Metadata fields ES refuses to aggregate, sort or query (or, for exists, answers itself). */
const REFUSING = ['_source', '_version', '_ignored', '_field_names', '_doc_count', '_nested_path', '_data_stream_timestamp', '_primary_term', '_type', '_tier'];
const OTHER_META: readonly Record<string, unknown>[] = [
  ...REFUSING.flatMap((f) => [
    agg({ terms: { field: f } }),
    agg({ max: { field: f } }),
    agg({ cardinality: { field: f } }),
    { size: 2, sort: [{ [f]: 'asc' }], _source: false },
    { size: 2, query: { term: { [f]: 'x' } }, _source: false },
    { size: 2, query: { exists: { field: f } }, _source: false },
    { size: 2, query: { range: { [f]: { gte: 1 } } }, _source: false },
  ]),
  { size: 2, query: { exists: { field: '_id' } }, _source: false },
  { size: 2, query: { exists: { field: '_seq_no' } }, _source: false },
  { size: 2, query: { range: { _id: { gte: 1 } } }, _source: false },
];

/**
 * `_id` and `_index` named in the field lists of multi_match (every type), query_string and
 * simple_query_string, and the match family and multi-term queries on them alone: searched as a
 * term on the whole text scoring 1 (each index's documents for its own name), or refused as the
 * node refuses them (prefix, wildcard, regexp, fuzzy, phrase prefix).
 */
const q = (query: Record<string, unknown>) => ({ size: 10, _source: false, query });
const listed = (type: string, text: string, fields: string[], more: Record<string, unknown> = {}) => q({ multi_match: { query: text, type, fields, ...more } });
const ID_AND_INDEX: readonly Record<string, unknown>[] = [
  ...['best_fields', 'most_fields', 'cross_fields', 'phrase', 'phrase_prefix', 'bool_prefix'].flatMap((type) => [
    listed(type, 'a1', ['t', '_id']),
    listed(type, 'mb', ['t', '_index']),
    // (With both in a phrase_prefix list the node names one of them in its refusal, in no order of the list's.)
    ...(type === 'phrase_prefix' ? [] : [listed(type, 'hello a1', ['t', '_id', '_index'], { tie_breaker: 0.3 })]),
  ]),
  listed('best_fields', 'a1', ['_id^3', 't']),
  listed('best_fields', 'a1 b2', ['_id', 'k']),
  listed('best_fields', 'hello a1', ['t', '_id'], { operator: 'and' }),
  listed('best_fields', 'a1', ['t', '_id'], { fuzziness: 'AUTO' }),
  listed('best_fields', 'a1', ['t', '_id'], { fuzziness: 'AUTO', lenient: true }),
  listed('phrase_prefix', 'a1', ['t', '_id'], { lenient: true }),
  listed('cross_fields', 'v1', ['k', '_id', 't']),
  listed('cross_fields', 'ma', ['k', '_index', 't']),
  listed('most_fields', 'x', ['_id', '_index', 'k']),
  q({ query_string: { query: 'a1', fields: ['t', '_id'] } }),
  q({ query_string: { query: 'ma', fields: ['t', '_index'] } }),
  q({ query_string: { query: '"a1"', fields: ['t', '_id'] } }),
  q({ query_string: { query: 'a1', default_field: '_id' } }),
  q({ query_string: { query: 'a*', fields: ['t', '_id'] } }),
  q({ query_string: { query: 'a?', fields: ['t', '_id'] } }),
  q({ query_string: { query: '_id:a*' } }),
  q({ query_string: { query: '_id:a?' } }),
  // Over a field list a pattern on `_index` is refused (skipped when lenient); a bare prefix matches names.
  q({ query_string: { query: 'm?', fields: ['t', '_index'] } }),
  q({ query_string: { query: 'm?', fields: ['_index'] } }),
  q({ query_string: { query: '*b', default_field: '_index' } }),
  q({ query_string: { query: 'm?', fields: ['t', '_index'], lenient: true } }),
  q({ query_string: { query: 'm*', fields: ['t', '_index'] } }),
  q({ simple_query_string: { query: 'a1', fields: ['t', '_id'] } }),
  q({ simple_query_string: { query: 'mb hello', fields: ['t', '_index'] } }),
  ...['_id', '_index'].flatMap((field) => {
    const value = field === '_id' ? 'a1' : 'ma';
    return [
      q({ match_phrase: { [field]: value } }),
      q({ match_bool_prefix: { [field]: value } }),
      q({ match_phrase_prefix: { [field]: value } }),
      q({ match: { [field]: { query: value, fuzziness: 'AUTO' } } }),
      q({ prefix: { [field]: value.slice(0, 1) } }),
      q({ wildcard: { [field]: `${value.slice(0, 1)}*` } }),
      q({ regexp: { [field]: `${value.slice(0, 1)}.*` } }),
      q({ fuzzy: { [field]: value } }),
    ];
  }),
];

const mm = (o: Record<string, unknown>, size = 10) => ({ size, _source: false, query: { multi_match: { type: 'cross_fields', ...o } } });
const CROSS_FIELDS: readonly Record<string, unknown>[] = [
  mm({ query: 'python library', fields: ['summary', 'description'] }),
  mm({ query: 'python library', fields: ['summary^3', 'description', 'maintainer'] }),
  mm({ query: 'python library for parsing', fields: ['summary', 'description'], operator: 'and' }),
  mm({ query: 'python library for parsing xml', fields: ['summary', 'description'], minimum_should_match: '75%' }),
  mm({ query: 'gnome games', fields: ['summary', 'description'], tie_breaker: 0.3 }),
  mm({ query: 'debian perl', fields: ['summary', 'description', 'maintainer', 'section', 'package'], tie_breaker: 0.5 }),
  mm({ query: 'perl', fields: ['summary', 'section', 'package'] }),
  mm({ query: 'python', fields: ['section', 'priority', 'summary'], boost: 2 }),
  mm({ query: 'utils', fields: ['section', 'summary'] }),
  mm({ query: 'python', fields: ['summary', 'installed_size'] }),
  mm({ query: '42', fields: ['summary', 'installed_size', 'section'] }),
  mm({ query: 'python', fields: ['summary', 'installed_size', 'section'] }),
  mm({ query: 'python', fields: ['summary', 'installed_size', 'section'], lenient: true }),
  mm({ query: 'python', fields: ['*'] }),
  mm({ query: 'the of', fields: ['summary', 'description'], operator: 'and' }),
  mm({ query: 'python', fields: ['summary', 'description'], fuzziness: 1 }),
  mm({ query: 'library tools', fields: ['summary', 'description'], minimum_should_match: 2, operator: 'and' }),
  mm({ query: 'python module', fields: ['summary', 'description^0.5'] }, 50),
];

describe('metadata fields and cross_fields against OpenSearch', () => {
  const figures = { compared: 0, agreed: 0 };

  async function disagreements(path: string, bodies: readonly Record<string, unknown>[]): Promise<string[]> {
    const found: string[] = [];
    for (const body of bodies) {
      const [p, r] = await both('POST', path, body);
      figures.compared++;
      const diff = disagreement(p, r);
      if (diff === undefined) figures.agreed++;
      else found.push(`${JSON.stringify(body)} => ${diff}`);
    }
    return found;
  }

  it('aggregates, sorts, collapses and queries _index over several indices as OpenSearch does', async () => {
    expect(await disagreements('/ma,mb,mc/_search', INDEX_FIELD)).toEqual([]);
  }, 120_000);

  it('refuses or answers the other metadata fields as OpenSearch does, never as unmapped fields', async () => {
    expect(await disagreements('/ma,mb/_search', OTHER_META)).toEqual([]);
  }, 120_000);

  it('searches _id and _index in field lists and the match family on them, or refuses them, as OpenSearch does', async () => {
    expect(await disagreements('/ma,mb/_search', ID_AND_INDEX)).toEqual([]);
  }, 120_000);

  it('refuses _seq_no aggregations, sorts and range queries, which OpenSearch answers', async () => {
    for (const body of [agg({ terms: { field: '_seq_no' } }), { sort: [{ _seq_no: 'asc' }] }, { query: { range: { _seq_no: { gte: 1 } } } }]) {
      const [p, r] = await both('POST', '/ma,mb/_search', body);
      expect(r.status).toBe(200);
      expect(p.status).toBe(400);
      expect(p.body.error.root_cause[0].reason).toMatch(/\[_seq_no\] field are not supported by this server/);
    }
  }, 60_000);

  it('scores multi_match cross_fields as OpenSearch does', async () => {
    expect(await disagreements('/deb/_search', CROSS_FIELDS)).toEqual([]);
    // The blended query really differs from best_fields: the same request ranks otherwise.
    const body = CROSS_FIELDS[1] as { query: { multi_match: Record<string, unknown> } };
    const [cross] = await both('POST', '/deb/_search', body);
    const [best] = await both('POST', '/deb/_search', { ...body, query: { multi_match: { ...body.query.multi_match, type: 'best_fields' } } });
    expect(cross.body.hits.hits.map((h: { _score: number }) => h._score)).not.toEqual(best.body.hits.hits.map((h: { _score: number }) => h._score));
  }, 120_000);

  afterAll(() => {
    console.log(`metadata fields and cross_fields: ${figures.compared} requests compared, ${figures.agreed} agreements`);
  });
});
