/**
 * Every mapping parameter Elasticsearch 8 documents for the field types Portico has, walked: each
 * is either honoured, proved side by side with the OpenSearch node (the same mapping, documents
 * and probe searches must agree as the differential suite's compare.ts defines it), or refused
 * with ES's mapper_parsing_exception, creating nothing. Where OpenSearch lacks what ES 8 has
 * (`scaled_float`, a boolean's `ignore_malformed`, the time-series flags), the expected answer is
 * written out here instead.
 */
import { describe, expect, it } from 'vitest';
import { difference } from './compare.js';
import { sideBySide, type Call } from './side-by-side.js';

/**
 * ES 8's mapping parameters by field type, as its reference lists them (mapping-types pages and
 * "Mapping parameters"), besides `type` itself.
 */
const ES8_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  text: ['analyzer', 'copy_to', 'eager_global_ordinals', 'fielddata', 'fielddata_frequency_filter', 'fields', 'index', 'index_options', 'index_prefixes', 'index_phrases', 'norms', 'position_increment_gap', 'store', 'search_analyzer', 'search_quote_analyzer', 'similarity', 'term_vector', 'meta'],
  keyword: ['copy_to', 'doc_values', 'eager_global_ordinals', 'fields', 'ignore_above', 'index', 'index_options', 'meta', 'norms', 'null_value', 'on_script_error', 'script', 'store', 'similarity', 'normalizer', 'split_queries_on_whitespace', 'time_series_dimension'],
  long: ['coerce', 'copy_to', 'doc_values', 'ignore_malformed', 'index', 'meta', 'null_value', 'on_script_error', 'script', 'store', 'time_series_dimension', 'time_series_metric'],
  date: ['copy_to', 'doc_values', 'format', 'locale', 'ignore_malformed', 'index', 'meta', 'null_value', 'on_script_error', 'script', 'store'],
  boolean: ['copy_to', 'doc_values', 'index', 'ignore_malformed', 'meta', 'null_value', 'on_script_error', 'script', 'store', 'time_series_dimension'],
  object: ['dynamic', 'enabled', 'subobjects', 'properties'],
  root: ['_source', '_routing', '_meta', 'dynamic', 'date_detection', 'numeric_detection', 'dynamic_templates'],
};

type Verdict =
  /** Same answers as the node with this mapping. */
  | 'node'
  /** Refused: 400 mapper_parsing_exception, nothing created. */
  | 'refused'
  /** Accepted, answers checked by `expect` (the node lacks it). */
  | { readonly check: (call: Call) => Promise<void> };

interface Case {
  readonly type: string;
  readonly param: string;
  /** The field's mapping (with `type`), or for object/root cases the whole `mappings`. */
  readonly mapping: Record<string, unknown>;
  readonly verdict: Verdict;
}

const field = (type: string, param: string, value: unknown, verdict: Verdict, extra: Record<string, unknown> = {}): Case => ({
  type,
  param,
  mapping: { properties: { f: { type, ...extra, [param]: value } } },
  verdict,
});
const root = (param: string, value: unknown, verdict: Verdict): Case => ({ type: 'root', param, mapping: { [param]: value, properties: { f: { type: 'keyword' } } }, verdict });
const object = (param: string, value: unknown, verdict: Verdict): Case => ({ type: 'object', param, mapping: { properties: { o: { [param]: value, properties: { f: { type: 'keyword' } } } } }, verdict });

const CASES: readonly Case[] = [
  // text
  field('text', 'analyzer', 'standard', 'node'),
  field('text', 'analyzer', 'whitespace', 'refused'),
  field('text', 'analyzer', 'english', 'refused'),
  field('text', 'search_analyzer', 'standard', 'node', { analyzer: 'standard' }),
  field('text', 'search_analyzer', 'simple', 'refused', { analyzer: 'standard' }),
  field('text', 'search_quote_analyzer', 'standard', 'node', { analyzer: 'standard', search_analyzer: 'standard' }),
  field('text', 'search_quote_analyzer', 'keyword', 'refused', { analyzer: 'standard', search_analyzer: 'standard' }),
  field('text', 'copy_to', 'g', 'refused'),
  field('text', 'eager_global_ordinals', true, 'node'),
  field('text', 'fielddata', true, 'node'),
  field('text', 'fielddata_frequency_filter', { min: 0.001, max: 0.1 }, 'refused', { fielddata: true }),
  field('text', 'fields', { raw: { type: 'keyword' } }, 'node'),
  field('text', 'index', false, 'node'),
  field('text', 'index_options', 'positions', 'node'),
  field('text', 'index_options', 'offsets', 'node'),
  field('text', 'index_options', 'freqs', 'refused'),
  field('text', 'index_options', 'docs', 'refused'),
  field('text', 'index_prefixes', {}, 'refused'),
  field('text', 'index_phrases', false, 'node'),
  field('text', 'index_phrases', true, 'refused'),
  field('text', 'norms', true, 'node'),
  field('text', 'norms', false, 'refused'),
  field('text', 'position_increment_gap', 0, 'node'),
  field('text', 'position_increment_gap', 1, 'node'),
  field('text', 'position_increment_gap', 100, 'node'),
  field('text', 'store', true, 'node'),
  // OpenSearch scores a field that names BM25 with its legacy BM25 (times 2.2); ES 8 as its default.
  field('text', 'similarity', 'BM25', { check: sameAsWithout('text', 'similarity', 'BM25') }),
  field('text', 'similarity', 'boolean', 'refused'),
  field('text', 'term_vector', 'with_positions_offsets', 'node'),
  field('text', 'meta', { unit: 'words' }, 'node'),
  field('text', 'boost', 2, 'refused'),
  // keyword
  field('keyword', 'copy_to', 'g', 'refused'),
  field('keyword', 'doc_values', true, 'node'),
  field('keyword', 'doc_values', false, 'refused'),
  field('keyword', 'eager_global_ordinals', true, 'node'),
  field('keyword', 'fields', { t: { type: 'text' } }, 'node'),
  field('keyword', 'ignore_above', 3, 'node'),
  field('keyword', 'index', false, 'node'),
  field('keyword', 'index_options', 'docs', 'node'),
  field('keyword', 'index_options', 'freqs', 'refused'),
  field('keyword', 'meta', { unit: 'name' }, 'node'),
  field('keyword', 'norms', false, 'node'),
  field('keyword', 'norms', true, 'refused'),
  field('keyword', 'null_value', 'NULL', 'node'),
  field('keyword', 'on_script_error', 'fail', 'refused'),
  field('keyword', 'script', { source: "emit('x')" }, 'refused'),
  field('keyword', 'store', true, 'node'),
  field('keyword', 'similarity', 'BM25', { check: sameAsWithout('keyword', 'similarity', 'BM25') }),
  field('keyword', 'normalizer', 'lowercase', 'refused'),
  field('keyword', 'split_queries_on_whitespace', false, 'node'),
  field('keyword', 'split_queries_on_whitespace', true, 'refused'),
  field('keyword', 'time_series_dimension', true, { check: sameAsWithout('keyword', 'time_series_dimension', true) }),
  // numbers
  field('long', 'coerce', true, 'node'),
  field('long', 'coerce', false, 'node'),
  field('integer', 'coerce', false, 'node'),
  field('long', 'copy_to', 'g', 'refused'),
  field('long', 'doc_values', true, 'node'),
  field('long', 'doc_values', false, 'refused'),
  field('long', 'ignore_malformed', true, 'node'),
  field('long', 'index', false, 'node'),
  field('long', 'meta', { unit: 'ms' }, 'node'),
  field('long', 'null_value', 7, 'node'),
  field('long', 'null_value', 'seven', 'refused'),
  field('long', 'on_script_error', 'continue', 'refused'),
  field('long', 'script', { source: 'emit(1)' }, 'refused'),
  field('long', 'store', true, 'node'),
  field('long', 'time_series_dimension', true, { check: sameAsWithout('long', 'time_series_dimension', true) }),
  field('long', 'time_series_metric', 'gauge', { check: sameAsWithout('long', 'time_series_metric', 'gauge') }),
  field('long', 'similarity', 'BM25', 'refused'),
  field('half_float', 'null_value', 1.1, 'node'),
  field('float', 'null_value', 1.5, 'node'),
  field('scaled_float', 'scaling_factor', 10, { check: scaledFloat }),
  // date
  field('date', 'copy_to', 'g', 'refused'),
  field('date', 'doc_values', false, 'refused'),
  field('date', 'format', 'yyyy-MM-dd||epoch_millis', 'node'),
  field('date', 'locale', 'en', 'node'),
  field('date', 'ignore_malformed', true, 'node'),
  field('date', 'index', false, 'node'),
  field('date', 'meta', { unit: 'day' }, 'node'),
  field('date', 'null_value', '2020-01-01', 'node'),
  field('date', 'null_value', 'someday', 'refused'),
  field('date', 'on_script_error', 'fail', 'refused'),
  field('date', 'script', { source: 'emit(0)' }, 'refused'),
  field('date', 'store', true, 'node'),
  // boolean
  field('boolean', 'copy_to', 'g', 'refused'),
  field('boolean', 'doc_values', false, 'refused'),
  field('boolean', 'index', false, 'node'),
  field('boolean', 'ignore_malformed', true, { check: booleanIgnoreMalformed }),
  field('boolean', 'meta', { unit: 'flag' }, 'node'),
  field('boolean', 'null_value', true, 'node'),
  field('boolean', 'null_value', 'maybe', 'refused'),
  field('boolean', 'on_script_error', 'fail', 'refused'),
  field('boolean', 'script', { source: 'emit(true)' }, 'refused'),
  field('boolean', 'store', true, 'node'),
  field('boolean', 'time_series_dimension', true, { check: sameAsWithout('boolean', 'time_series_dimension', true) }),
  // objects
  object('dynamic', 'true', 'node'),
  object('dynamic', 'strict', 'refused'),
  object('dynamic', false, 'refused'),
  object('enabled', true, 'node'),
  object('enabled', false, 'refused'),
  object('subobjects', false, 'refused'),
  object('properties', {}, 'node'),
  // the root
  root('_source', { enabled: true }, 'node'),
  root('_source', { enabled: false }, 'node'),
  root('_source', { excludes: ['f'] }, 'node'),
  root('_source', { includes: ['f'] }, 'node'),
  root('_source', { mode: 'synthetic' }, 'refused'),
  root('_routing', { required: false }, 'node'),
  root('_routing', { required: true }, 'node'),
  root('_meta', { owner: 'team' }, 'node'),
  root('dynamic', 'strict', 'node'),
  root('dynamic', false, 'node'),
  root('date_detection', false, 'node'),
  root('numeric_detection', false, 'node'),
  root('numeric_detection', true, 'refused'),
  root('dynamic_templates', [], 'node'),
  root('dynamic_templates', [{ strings: { match_mapping_type: 'string', mapping: { type: 'keyword' } } }], 'refused'),
];

/** Types ES 8 has that Portico would index with a different meaning: refused. */
const REFUSED_TYPES = ['match_only_text', 'constant_keyword', 'wildcard', 'nested'];

/** Values for a field of each kind: values, arrays, nulls, malformed values. */
function valuesFor(type: string): unknown[] {
  const kind = ['text', 'keyword', 'date', 'boolean'].includes(type) ? type : 'number';
  const values: Record<string, unknown[]> = {
    text: ['the quick brown fox', ['x quick', 'brown y'], ['quick', 'quick brown'], null, [null, 'a quick one'], 'Quick Brown', 12],
    keyword: ['abc', 'abcd', ['abc', 'x'], null, [null, 'b'], 'ABC', 7],
    number: [1, 2.5, '3', [4, 5], null, [null, 6], 1.1, 'x7', 9.99, -0.04],
    date: ['2020-01-01', 1577836800000, ['2021-06-15', null], null, 'not a date', '2019-12-31T23:59:59Z'],
    boolean: [true, 'false', [true, false], null, [null], 'maybe'],
  };
  return values[kind] ?? [];
}

/** One document per value of field `f` (with an object `o.f` beside it), so a refused value fails only its own document. */
function docsFor(type: string, f = 'f'): Record<string, unknown>[] {
  return valuesFor(type).map((v) => ({ [f]: v, o: { [f]: 'v' } }));
}

/** Probe searches on field `f` (and `o.f`), each compared with the node. */
function probesFor(type: string, f = 'f'): unknown[] {
  const sorted = { sort: [{ [f]: { order: 'asc' } }], size: 20, query: { exists: { field: f } } };
  const base: unknown[] = [{ query: { exists: { field: f } }, size: 20 }, { query: { exists: { field: `o.${f}` } }, size: 20 }];
  switch (type) {
    case 'text':
      return [...base, { query: { match: { [f]: 'quick' } } }, { query: { match_phrase: { [f]: 'quick brown' } } }, { query: { match_phrase: { [f]: { query: 'quick brown', slop: 2 } } } }, { query: { match: { [`${f}.raw`]: 'abc' } } }];
    case 'keyword':
      return [...base, sorted, { query: { term: { [f]: 'abc' } } }, { query: { term: { [f]: 'NULL' } } }, { query: { match: { [`${f}.t`]: 'abc' } } }];
    case 'date':
      return [...base, sorted, { query: { range: { [f]: { gte: '2020-01-01' } } } }, { query: { term: { [f]: '2020-01-01' } } }];
    case 'boolean':
      return [...base, sorted, { query: { term: { [f]: true } } }];
    default:
      return [...base, sorted, { query: { range: { [f]: { gte: 2 } } } }, { query: { term: { [f]: 7 } } }, { query: { term: { [f]: 1.1 } } }];
  }
}

const { porticoCall, nodeCall } = sideBySide();

const SETTINGS = { number_of_shards: 1, number_of_replicas: 0 };

/** Loads `docs` (one bulk, refreshed) and returns each item's status and error type. */
async function load(call: Call, index: string, docs: Record<string, unknown>[]): Promise<string[]> {
  let ndjson = '';
  docs.forEach((doc, i) => (ndjson += `${JSON.stringify({ index: { _id: String(i) } })}\n${JSON.stringify(doc)}\n`));
  const res = await call('POST', `/${index}/_bulk?refresh=true`, ndjson);
  expect(res.status).toBe(200);
  return (res.body.items as { index: { status: number; error?: { type: string } } }[]).map((i, n) => `${i.index.status} ${JSON.stringify(docs[n])}`);
}

/** Searches the probes of field `f` on `a` and `b`, returning the differences. */
async function compareProbes(index: string, type: string, a: Call, b: Call, indexB = index, f = 'f'): Promise<string[]> {
  const diffs: string[] = [];
  for (const probe of probesFor(type, f)) {
    const d = difference(await a('POST', `/${index}/_search`, probe), await b('POST', `/${indexB}/_search`, probe), []);
    if (d !== undefined) diffs.push(`${JSON.stringify(probe)}: ${d}`);
  }
  return diffs;
}

let counter = 0;

/** An accepted parameter the node lacks that changes nothing: the same answers as without it (both in Portico). */
function sameAsWithout(type: string, param: string, value: unknown): (call: Call) => Promise<void> {
  return async (call) => {
    const plain = `plain-${counter++}`;
    expect((await call('PUT', `/${plain}`, { settings: SETTINGS, mappings: { properties: { f: { type } } } })).status).toBe(200);
    const index = `with-${counter++}`;
    expect((await call('PUT', `/${index}`, { settings: SETTINGS, mappings: { properties: { f: { type, [param]: value } } } })).status).toBe(200);
    expect(await load(call, index, docsFor(type))).toEqual(await load(call, plain, docsFor(type)));
    expect(await compareProbes(index, type, call, call, plain)).toEqual([]);
  };
}

/** scaled_float (ES 8's mapper-extras, not in the node): values kept as multiples of 1/scaling_factor. */
async function scaledFloat(call: Call): Promise<void> {
  const index = `scaled-${counter++}`;
  expect((await call('PUT', `/${index}`, { settings: SETTINGS, mappings: { properties: { f: { type: 'scaled_float', scaling_factor: 10 } } } })).status).toBe(200);
  await load(call, index, [{ f: 1.234 }, { f: 1.26 }, { f: [2.05, -0.04] }]);
  const sorted = await call('POST', `/${index}/_search`, { sort: [{ f: 'asc' }] });
  expect(sorted.body.hits.hits.map((h: { sort: unknown[] }) => h.sort[0])).toEqual([0, 1.2, 1.3]);
  // ES rounds a term's value as it rounds what it indexes: 1.23 is 12 tenths, as 1.234 was.
  const term = await call('POST', `/${index}/_search`, { query: { term: { f: 1.23 } } });
  expect(term.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['0']);
  expect((await call('PUT', '/scaled-bad', { mappings: { properties: { f: { type: 'scaled_float' } } } })).body.error.type).toBe('mapper_parsing_exception');
}

/** A boolean's ignore_malformed (ES 8.x, not in the node): a value that is no boolean is left out, the document kept. */
async function booleanIgnoreMalformed(call: Call): Promise<void> {
  const index = `bool-${counter++}`;
  expect((await call('PUT', `/${index}`, { settings: SETTINGS, mappings: { properties: { f: { type: 'boolean', ignore_malformed: true } } } })).status).toBe(200);
  expect(await load(call, index, [{ f: 'maybe' }, { f: true }])).toEqual(['201 {"f":"maybe"}', '201 {"f":true}']);
  const exists = await call('POST', `/${index}/_search`, { query: { exists: { field: 'f' } } });
  expect(exists.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['1']);
}

describe('mapping parameters of ES 8', () => {
  it('walks every parameter ES 8 documents for the field types Portico has', () => {
    const covered = new Set(CASES.map((c) => `${['integer', 'half_float', 'float', 'scaled_float'].includes(c.type) ? 'long' : c.type} ${c.param}`));
    const missing = Object.entries(ES8_PARAMETERS).flatMap(([type, params]) => params.filter((p) => !covered.has(`${type} ${p}`)).map((p) => `${type} ${p}`));
    expect(missing).toEqual([]);
  });

  it('refuses what it does not do, creating nothing', async () => {
    const failures: string[] = [];
    for (const c of CASES.filter((x) => x.verdict === 'refused')) {
      const index = `p-${counter++}`;
      const res = await porticoCall('PUT', `/${index}`, { settings: SETTINGS, mappings: c.mapping });
      const label = `${c.type} ${c.param} ${JSON.stringify(c.mapping)}`;
      if (res.status !== 400 || res.body?.error?.type !== 'mapper_parsing_exception') failures.push(`${label}: not refused (${res.status} ${JSON.stringify(res.body).slice(0, 200)})`);
      if ((await porticoCall('HEAD', `/${index}`)).status !== 404) failures.push(`${label}: created the index it refused`);
    }
    expect(failures).toEqual([]);
  });

  it('checks what the node lacks by its own expectations', async () => {
    for (const c of CASES) if (typeof c.verdict === 'object') await c.verdict.check(porticoCall);
  });

  // The field cases share one index (a field each, c0, c1, …, and a document per value of each
  // field, so a value one field refuses fails only that document): one index to create on the node
  // instead of one per case.
  it('honours each field parameter as the node does', async () => {
    const cases = CASES.filter((c) => c.verdict === 'node' && c.type !== 'root' && c.type !== 'object');
    const properties: Record<string, unknown> = {};
    const docs: Record<string, unknown>[] = [];
    cases.forEach((c, i) => {
      const def = (c.mapping.properties as Record<string, Record<string, unknown>>).f as Record<string, unknown>;
      properties[`c${i}`] = def;
      docs.push(...docsFor(String(def.type), `c${i}`));
    });
    const body = { settings: SETTINGS, mappings: { properties } };
    const [p, r] = [await porticoCall('PUT', '/fields', body), await nodeCall('PUT', '/fields', body)];
    expect([p.status, p.body?.error?.reason]).toEqual([r.status, r.body?.error?.reason]);
    expect(await load(porticoCall, 'fields', docs)).toEqual(await load(nodeCall, 'fields', docs));
    const failures: string[] = [];
    for (const [i, c] of cases.entries()) {
      const type = String((c.mapping.properties as Record<string, Record<string, unknown>>).f?.type);
      for (const d of await compareProbes('fields', type, porticoCall, nodeCall, 'fields', `c${i}`)) failures.push(`${c.type} ${c.param} ${JSON.stringify(c.mapping)}: ${d}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('honours each object and root parameter as the node does', async () => {
    const failures: string[] = [];
    for (const c of CASES.filter((x) => x.verdict === 'node' && (x.type === 'root' || x.type === 'object'))) {
      const index = `p-${counter++}`;
      const body = { settings: SETTINGS, mappings: c.mapping };
      const label = `${c.type} ${c.param} ${JSON.stringify(c.mapping)}`;
      const [p, r] = [await porticoCall('PUT', `/${index}`, body), await nodeCall('PUT', `/${index}`, body)];
      if (p.status !== r.status) {
        failures.push(`${label}: create ${p.status} vs ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        continue;
      }
      const docs = [...docsFor('keyword'), { other: 'x', o: { g: 'y' } }];
      const [pl, rl] = [await load(porticoCall, index, docs), await load(nodeCall, index, docs)];
      if (JSON.stringify(pl) !== JSON.stringify(rl)) failures.push(`${label}: bulk items ${JSON.stringify(pl)} vs ${JSON.stringify(rl)}`);
      for (const d of await compareProbes(index, 'keyword', porticoCall, nodeCall)) failures.push(`${label}: ${d}`);
      const [pm, rm] = [await porticoCall('GET', `/${index}/_mapping`), await nodeCall('GET', `/${index}/_mapping`)];
      if (JSON.stringify(pm.body[index].mappings._meta) !== JSON.stringify(rm.body[index].mappings._meta)) failures.push(`${label}: _meta ${JSON.stringify(pm.body[index].mappings._meta)} vs ${JSON.stringify(rm.body[index].mappings._meta)}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuses the types it would index with another meaning', async () => {
    for (const type of REFUSED_TYPES) {
      const res = await porticoCall('PUT', `/t-${type}`, { mappings: { properties: { f: { type } } } });
      expect(res.body.error, type).toMatchObject({ type: 'mapper_parsing_exception', reason: `Failed to parse mapping: type [${type}] on field [f] is not supported by this server` });
    }
  });

  it('refuses a parameter ES 8 does not know for the type with its own error', async () => {
    const res = await porticoCall('PUT', '/unknown', { mappings: { properties: { f: { type: 'text', doc_values: true } } } });
    expect(res.body.error.root_cause[0]).toEqual({ type: 'mapper_parsing_exception', reason: 'unknown parameter [doc_values] on mapper [f] of type [text]' });
  });
});
