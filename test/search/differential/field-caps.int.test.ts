/**
 * `_field_caps` side by side with the OpenSearch node: several indices whose mappings overlap and
 * conflict (every field type Portico has, multi-fields, objects, `index: false`, `fielddata`),
 * asked with field patterns, filters, types, include_unmapped, several indices and wildcards,
 * missing and closed indices, bodies and errors. Each answer is compared whole, except where ES 8
 * (Portico's target) answers otherwise than OpenSearch 2.19: those differences are listed below
 * (ES8_DIFFERENCES) and each is asserted on both answers before the rest is compared.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_FIELDS } from '../../../src/search/engine/field-caps.js';
import type { Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';

const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- ES answers, read loosely

const MAPPINGS: Record<string, unknown> = {
  'dc-a': {
    properties: {
      title: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 20 } }, meta: { unit: 'words' } },
      tag: { type: 'keyword', index: false },
      n: { type: 'long' },
      ratio: { type: 'half_float' },
      when: { type: 'date' },
      flag: { type: 'boolean' },
      body: { type: 'text', index: false },
      user: { properties: { name: { type: 'keyword' }, address: { properties: { city: { type: 'text', fielddata: true } } } } },
    },
  },
  'dc-b': {
    properties: {
      title: { type: 'keyword', meta: { unit: 'chars' } },
      tag: { type: 'keyword' },
      n: { type: 'integer' },
      when: { type: 'date', format: 'yyyy-MM-dd' },
      flag: { type: 'keyword' },
      user: { type: 'object', properties: { name: { type: 'text', fields: { kw: { type: 'keyword' } } } } },
      f: { type: 'float' },
      d: { type: 'double' },
      s: { type: 'short' },
      b: { type: 'byte' },
      i: { type: 'integer', index: false },
    },
  },
  'dc-c': {
    properties: {
      n: { type: 'long', index: false },
      when: { type: 'date', index: false },
      flag: { type: 'boolean', index: false },
      body: { type: 'text', fielddata: true },
      title: { type: 'text', meta: { unit: 'words', lang: 'en' } },
    },
  },
  'zz-other': { properties: { n: { type: 'long' }, other: { type: 'keyword' } } },
  'dc-closed': { properties: { n: { type: 'keyword' } } },
};

const DOCS: [string, Record<string, unknown>][] = [
  ['dc-a', { title: 'first', n: 1, when: '2015-01-02', flag: true, user: { name: 'ann', address: { city: 'Oslo' } } }],
  ['dc-a', { title: 'second', n: 50, when: '2018-10-02' }],
  ['dc-b', { title: 'x', n: 7, when: '2019-10-04' }],
  // Dynamic mapping adds a text field with its .keyword to dc-c.
  ['dc-c', { n: 3, when: '2021-01-01', dyn: 'a string' }],
  ['zz-other', { n: 9 }],
];


/**
 * Where ES 8 (Portico's target) answers otherwise than OpenSearch 2.19, each asserted where it
 * shows before the rest of the answers is compared:
 *  - every field's `metadata_field` (ES 7.13+): OpenSearch leaves the key out;
 *  - the metadata fields: ES 8 also maps `_tier`, `_index_mode`, `_ignored_source` and `_feature`
 *    (ES8_ONLY_METADATA); `_id` is not aggregatable in ES 8 (id field data is off by default),
 *    `_version` and `_ignored` are (doc values), and `_doc_count` has type `_doc_count`
 *    (NODE_METADATA: what the node answers instead);
 *  - `filters`, `types` (ES 8.2) and `include_empty_fields` (ES 8.13) are unknown to OpenSearch:
 *    the node is asked without them and its answer filtered as ES 8 filters (esFilter);
 *  - `fields` in the body (ES 8.5) is unknown to OpenSearch: the node is asked them in the URL;
 *  - no `fields` at all, and `fields` in both the body and the URL: ES 8's own errors.
 */
const ES8_ONLY_METADATA = ['_feature', '_ignored_source', '_index_mode', '_tier'];
const NODE_METADATA: Record<string, Body> = { _id: { aggregatable: true }, _version: { aggregatable: false }, _ignored: { aggregatable: false }, _doc_count: { type: 'long' } };
const ES8_METADATA: Record<string, Body> = Object.fromEntries(METADATA_FIELDS.map(([name, searchable, aggregatable]) => [name, { type: name, metadata_field: true, searchable, aggregatable }]));

/** Multi-fields of MAPPINGS and of the dynamic mapping (for `-multifield` on the node's answer). */
const MULTI_FIELDS = new Set(['title.raw', 'user.name.kw', 'dyn.keyword']);

let compared = 0;
let identical = 0;
const differencesSeen = new Map<string, number>();

function note(kind: string): void {
  differencesSeen.set(kind, (differencesSeen.get(kind) ?? 0) + 1);
}

function comparable(a: Answer): Body {
  if (a.status >= 300 && a.body?.error !== undefined) {
    const e = a.body.error;
    return { status: a.status, type: e.type, reason: String(e.reason).replace(/\[\[([^/\]]+)\/[^\]]+\]\]/g, '[[$1]]') };
  }
  return { status: a.status, body: a.body };
}

const isMetadata = (name: string): boolean => name.startsWith('_');

/**
 * The node's success body as ES 8 gives it: `metadata_field` added to every entry, and each
 * metadata field's entry checked against ES 8's with NODE_METADATA's differences, then replaced
 * by ES 8's; ES 8's extra metadata fields are added where Portico has them (checked against
 * ES8_METADATA on Portico's side).
 */
function nodeAsEs8(node: Body, portico: Body | undefined): Body {
  const fields: Body = {};
  for (const [name, types] of Object.entries(node.fields as Body)) {
    const out: Body = {};
    for (const [type, caps] of Object.entries(types as Body)) {
      expect(caps.metadata_field, `${name}: the node now writes metadata_field`).toBeUndefined();
      note('metadata_field: left out by OpenSearch');
      const { type: t, searchable, aggregatable, ...rest } = caps as Body;
      out[type] = { type: t, metadata_field: isMetadata(name), searchable, aggregatable, ...rest };
    }
    if (isMetadata(name)) {
      const es8 = ES8_METADATA[name];
      expect(es8, `${name}: a metadata field of the node's that ES 8 does not have`).toBeDefined();
      const asNode: Body = { ...(es8 as Body), ...(NODE_METADATA[name] ?? {}) };
      expect(Object.values(out), `${name} on the node`).toEqual([{ ...asNode, metadata_field: true }]);
      if (NODE_METADATA[name] !== undefined) note(`metadata ${name}: ${JSON.stringify(NODE_METADATA[name])} on the node`);
      fields[name] = { [name]: es8 };
    } else fields[name] = out;
  }
  for (const name of ES8_ONLY_METADATA) {
    if (portico?.fields?.[name] !== undefined) {
      expect(portico.fields[name], name).toEqual({ [name]: ES8_METADATA[name] });
      note(`metadata ${name}: only in ES 8`);
      fields[name] = portico.fields[name];
    }
  }
  return { ...node, fields };
}

/**
 * ES 8's `filters` and `types` applied to the node's answer to the same request without them
 * (FieldCapabilitiesFetcher: per index, before the merge, the parent objects of every kept field
 * added): a type left alone in a field no longer lists its indices.
 */
function esFilter(body: Body, filters: readonly string[], types: readonly string[]): Body {
  const keepLeaf = (name: string, type: string): boolean =>
    (types.length === 0 || types.includes(type)) &&
    !(filters.includes('-metadata') && isMetadata(name)) &&
    !(filters.includes('+metadata') && !isMetadata(name)) &&
    !(filters.includes('-multifield') && MULTI_FIELDS.has(name));
  const fields: Body = {};
  const parents = new Set<string>();
  for (const [name, byType] of Object.entries(body.fields as Body)) {
    if (Object.keys(byType as Body).some((t) => t === 'object' || t === 'nested')) continue;
    const kept = Object.fromEntries(Object.entries(byType as Body).filter(([t]) => t === 'unmapped' || keepLeaf(name, t)));
    const mapped = Object.keys(kept).filter((t) => t !== 'unmapped');
    if (mapped.length === 0) continue;
    if (Object.keys(kept).length === 1) delete (kept[mapped[0] as string] as Body).indices;
    fields[name] = kept;
    for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1)) parents.add(name.slice(0, dot));
  }
  if (!filters.includes('-parent')) {
    for (const [name, byType] of Object.entries(body.fields as Body)) {
      if (parents.has(name) && Object.keys(byType as Body).some((t) => t === 'object' || t === 'nested')) fields[name] = byType;
    }
  }
  return { ...body, fields };
}

/** Whether `index` maps the field `path` (MAPPINGS, multi-fields included, and dc-c's dynamic `dyn`). */
function mapsField(index: string, path: string): boolean {
  if (index === 'dc-c' && (path === 'dyn' || path === 'dyn.keyword')) return true;
  let props = (MAPPINGS[index] as Body | undefined)?.properties as Body | undefined;
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const def = props?.[parts[i] as string] as Body | undefined;
    if (def === undefined) return false;
    if (i === parts.length - 1) return def.type !== undefined && def.type !== 'object';
    if (def.fields?.[parts[i + 1] as string] !== undefined && i + 1 === parts.length - 1) return true;
    props = def.properties;
  }
  return false;
}

/** index → the keyword, number, date and boolean fields it maps with `index: false`. */
const NOT_INDEXED: Record<string, string[]> = { 'dc-a': ['tag'], 'dc-b': ['i'], 'dc-c': ['n', 'when', 'flag'] };

/**
 * The node's answer with the searchable flags ES 8 gives: a keyword, number, date or boolean
 * field mapped with `index: false` is searched through its doc values in ES 8 (searchable), where
 * OpenSearch 2.19 says not searchable. Each such field is checked on the node first.
 */
function searchableAsEs8(node: Body): Body {
  const fields = structuredClone(node.fields) as Body;
  for (const [name, types] of Object.entries(fields)) {
    for (const caps of Object.values(types as Body) as Body[]) {
      if (caps.type === 'text' || caps.type === 'unmapped' || name.startsWith('_')) continue;
      const inIndices: string[] = caps.indices ?? (node.indices as string[]).filter((i) => mapsField(i, name));
      const notIndexed = inIndices.filter((i) => NOT_INDEXED[i]?.includes(name));
      if (notIndexed.length === 0) continue;
      note('searchable: keyword/number/date/boolean with index: false (ES 8 searches doc values)');
      const nonSearchable: string[] = caps.non_searchable_indices ?? (caps.searchable === true ? [] : inIndices);
      expect(nonSearchable, `${name}: the node's non-searchable indices`).toEqual(expect.arrayContaining(notIndexed));
      const left = nonSearchable.filter((i) => !notIndexed.includes(i));
      caps.searchable = left.length === 0;
      if (left.length > 0 && left.length < inIndices.length) caps.non_searchable_indices = left;
      else delete caps.non_searchable_indices;
    }
  }
  return { ...node, fields };
}

/**
 * Sends the request to both and compares the answers whole, the node's as ES 8 gives it
 * (nodeAsEs8). `node`: the request the node is sent instead, when ES 8 takes parameters it does not
 * (`filters`, `types`, body `fields`), and `es8`, what ES 8 makes of its answer.
 */
async function same(method: string, path: string, body?: unknown, node?: { path: string; body?: unknown; es8?: (b: Body) => Body; kind: string }): Promise<void> {
  compared++;
  const p = comparable(await porticoCall(method, path, body));
  let n = comparable(await nodeCall(method, node?.path ?? path, node === undefined ? body : node.body));
  if (node !== undefined) note(node.kind);
  if (n.status === 200 && n.body !== undefined) {
    const es8 = nodeAsEs8(searchableAsEs8(n.body), p.body);
    n = { status: 200, body: node?.es8 === undefined ? es8 : node.es8(es8) };
  }
  if (isDeepStrictEqual(p, n)) identical++;
  else expect.fail(`${method} ${path} ${JSON.stringify(body) ?? ''}\nPortico: ${JSON.stringify(p)}\nnode:    ${JSON.stringify(n)}`);
}

/** A request ES 8 takes with `filters`/`types` (URL `query`), compared with the node's answer without them, filtered as ES 8 filters. */
async function filtered(index: string, query: string): Promise<void> {
  const params = new URLSearchParams(query);
  const filters = (params.get('filters') ?? '').split(',').filter((f) => f !== '');
  const types = (params.get('types') ?? '').split(',').filter((f) => f !== '');
  params.delete('filters');
  params.delete('types');
  params.delete('include_empty_fields');
  await same('GET', `/${index}/_field_caps?${query}`, undefined, { path: `/${index}/_field_caps?${params.toString()}`, es8: (b) => esFilter(b, filters, types), kind: 'filters/types/include_empty_fields: ES 8 only, the node answer filtered' });
}

/** A request where ES 8 and the node answer differently by design: both answers asserted. */
async function differs(method: string, path: string, body: unknown, portico: unknown, node: unknown, kind: string): Promise<void> {
  compared++;
  note(kind);
  expect(comparable(await porticoCall(method, path, body)), `Portico ${path}`).toEqual(portico);
  expect(comparable(await nodeCall(method, path, body)), `node ${path}`).toEqual(node);
}

beforeAll(async () => {
  for (const call of [porticoCall, nodeCall]) {
    for (const [index, mappings] of Object.entries(MAPPINGS)) {
      const r = await call('PUT', `/${index}`, { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (const [index, doc] of DOCS) expect((await call('POST', `/${index}/_doc?refresh=true`, doc)).status).toBe(201);
    expect((await call('POST', '/dc-closed/_close')).status).toBe(200);
  }
}, SLOW);

afterAll(() => {
  console.log(`field caps: ${compared} requests sent to both, ${identical} answered alike (with the ES 8 differences applied)`);
  for (const [kind, times] of differencesSeen) console.log(`  ${kind}: ${times}`);
});

describe('_field_caps side by side', () => {
  it('answers field patterns, several indices and wildcards alike', async () => {
    for (const q of ['*', 'title,n', 'user.*', '*.city', 'user', 't*', 'title.raw', 'nothere', '*.kw', 'n,when,flag', 'ratio', 'f,d,s,b,i', '_id,_index,_source', 'dyn*', '_*']) {
      await same('GET', `/dc-*/_field_caps?fields=${q}`);
    }
    for (const index of ['dc-a', 'dc-b', 'dc-c', 'dc-a,dc-b', 'dc-a,zz-other', '*', '_all', 'dc-*,zz-*', 'dc-c,dc-a']) await same('GET', `/${index}/_field_caps?fields=*`);
    await same('GET', '/_field_caps?fields=n');
    await same('POST', '/_field_caps?fields=n,other');
  }, SLOW);

  it('answers filters, types and include_unmapped as ES 8 filters the node’s answer', async () => {
    for (const q of ['filters=-parent', 'filters=-metadata', 'filters=%2Bmetadata', 'filters=-multifield', 'filters=-nested', 'filters=-metadata,-multifield,-parent', 'types=keyword', 'types=text,long', 'types=date&filters=-parent', 'types=integer', 'include_empty_fields=true']) {
      await filtered('dc-*', `fields=*&${q}`);
    }
    for (const q of ['fields=*', 'fields=flag', 'fields=nothere', 'fields=user.*', 'fields=n,title,ratio']) {
      await same('GET', `/dc-*,zz-other/_field_caps?${q}&include_unmapped=true`);
    }
  }, SLOW);

  it('answers missing and closed indices alike', async () => {
    await same('GET', '/nope/_field_caps?fields=*');
    await same('GET', '/nope,dc-a/_field_caps?fields=n&ignore_unavailable=true');
    await same('GET', '/nope*/_field_caps?fields=*');
    await same('GET', '/nope*/_field_caps?fields=*&allow_no_indices=false');
    // ES 8 resolves a closed index it is given by name and refuses it by its block
    // (TransportFieldCapabilitiesAction.checkIndexBlocks); OpenSearch leaves it out of its answer.
    const blocked = { status: 403, type: 'cluster_block_exception', reason: 'index [dc-closed] blocked by: [FORBIDDEN/4/index closed];' };
    await differs('GET', '/dc-closed/_field_caps?fields=*', undefined, blocked, { status: 200, body: { indices: [], fields: {} } }, 'closed index named: ES 8 block error');
    await differs('GET', '/dc-closed/_field_caps?fields=*&ignore_unavailable=true', undefined, blocked, { status: 200, body: { indices: [], fields: {} } }, 'closed index named: ES 8 block error');
    compared++;
    note('closed index named: ES 8 block error');
    expect(comparable(await porticoCall('GET', '/dc-closed,dc-a/_field_caps?fields=n'))).toEqual(blocked);
    expect(comparable(await nodeCall('GET', '/dc-closed,dc-a/_field_caps?fields=n')).body.indices).toEqual(['dc-a']);
    await same('GET', '/dc-*/_field_caps?fields=n&expand_wildcards=open');
  }, SLOW);

  it('answers bodies and index filters alike', async () => {
    const bodyFields = { kind: 'fields in the body: ES 8 only, the node asked in the URL' };
    await same('POST', '/dc-*/_field_caps', { fields: ['title', 'n'] }, { ...bodyFields, path: '/dc-*/_field_caps?fields=title,n' });
    await same('POST', '/dc-*/_field_caps', { fields: 'n' }, { ...bodyFields, path: '/dc-*/_field_caps?fields=n' });
    await same('POST', '/dc-*/_field_caps?fields=*', { index_filter: { range: { when: { gte: '2019-01-01' } } } });
    await same('POST', '/dc-*/_field_caps?fields=*', { index_filter: { range: { when: { lt: '2019-01-01' } } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { range: { n: { gte: 10, lte: 20 } } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { range: { n: { gte: 100 } } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { range: { when: { gte: '2030-01-01' } } } });
    await same('POST', '/dc-a,dc-b/_field_caps?fields=n', { index_filter: { range: { when: { gte: '2016-01-01', lte: '2017-01-01' } } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { range: { nothere: { gte: 1 } } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { term: { title: 'zzz' } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { term: { ratio: 1 } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { term: { _index: 'dc-b' } } });
    await same('POST', '/dc-*,zz-*/_field_caps?fields=n', { index_filter: { term: { _index: 'dc-*' } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { terms: { ratio: [1, 2] } } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { match_none: {} } });
    await same('POST', '/dc-*/_field_caps?fields=n', { index_filter: { match_all: {} } });
    await same('POST', '/dc-*,zz-*/_field_caps?fields=n', { index_filter: { bool: { filter: [{ range: { n: { gte: 2 } } }, { terms: { _index: ['dc-a', 'zz-other'] } }] } } });
  }, SLOW);

  it('answers the errors alike, and ES 8’s own where they differ', async () => {
    await same('GET', '/dc-a/_field_caps?fields=');
    await differs(
      'POST', '/dc-a/_field_caps?fields=*', { size: 1 },
      { status: 400, type: 'x_content_parse_exception', reason: '[1:2] [field_caps_request] unknown field [size]' },
      { status: 400, type: 'parsing_exception', reason: 'request does not support [size]' },
      'unknown body key: ES 8 ObjectParser error',
    );
    await same('GET', '/dc-a/_field_caps?fields=*&include_unmapped=abc');
    await same('GET', '/dc-a/_field_caps?fields=*&foo=1');
    // Other methods on an index's _field_caps: ES's 405 with Allow (HEAD without a body).
    for (const method of ['PUT', 'DELETE', 'HEAD']) await same(method, '/dc-a/_field_caps');
    // On /_field_caps, ES 8's router goes on to /{index}, which serves PUT (RestController's
    // handleNoHandlerFound counts every matching path's methods): create-index on the name
    // _field_caps. OpenSearch's router answers 405 at the first path.
    await differs(
      'PUT', '/_field_caps', undefined,
      { status: 400, type: 'invalid_index_name_exception', reason: "Invalid index name [_field_caps], must not start with '_', '-', or '+'" },
      { status: 405, type: undefined, reason: 'undefined' },
      'PUT /_field_caps: ES 8 create-index',
    );
    await differs(
      'GET', '/dc-a/_field_caps', undefined,
      { status: 400, type: 'action_request_validation_exception', reason: 'Validation Failed: 1: no fields specified;' },
      { status: 400, type: 'illegal_argument_exception', reason: "specified fields can't be null or empty" },
      'no fields: ES 8 validation error',
    );
    await differs(
      'POST', '/dc-a/_field_caps?fields=n', { fields: ['title'] },
      { status: 400, type: 'illegal_argument_exception', reason: "can't specify a request body and [fields] request parameter, either specify a request body or the [fields] request parameter" },
      { status: 400, type: 'parsing_exception', reason: 'request does not support [fields]' },
      'fields in both body and URL: ES 8 error',
    );
  }, SLOW);
});
