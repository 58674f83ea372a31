/**
 * Issue 21's remaining fidelity, side by side with the OpenSearch node: `docvalue_fields`,
 * `stored_fields` and `fields` in a search, `_close`/`_open`, and date-math index names. Each
 * request goes to both; the answers must agree as fetchDifference defines it (the status, the
 * error type, the hit ids in order, `_id` present or not, `_source`, and `fields` value for value).
 * Where Elasticsearch 8 and OpenSearch differ, ES 8's answer is written out here instead.
 */
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from './compare.js';
import { sideBySide, type Call } from './side-by-side.js';

/** Per test: a guard for a busy shared machine, never a timing assertion. */
const SLOW = 600_000;

const { porticoCall, nodeCall, harness } = sideBySide();

const both = async (method: string, path: string, body?: unknown): Promise<[Answer, Answer]> => [await porticoCall(method, path, body), await nodeCall(method, path, body)];

const SETTINGS = { number_of_shards: 1, number_of_replicas: 0 };

/** The first way two answers differ in what a fetch of fields shows, or undefined. */
function fetchDifference(p: Answer, r: Answer): string | undefined {
  if (p.status !== r.status) return `status ${p.status} (${p.body?.error?.type ?? 'ok'}: ${p.body?.error?.reason ?? ''}) vs ${r.status} (${r.body?.error?.type ?? 'ok'}: ${r.body?.error?.reason ?? ''})`;
  if (r.status >= 300) {
    // ES wraps a shard's failure in search_phase_execution_exception: its cause's type is compared too.
    const type = (a: Answer) => `${a.body?.error?.type}/${a.body?.error?.caused_by?.type ?? ''}`;
    return type(p) === type(r) ? undefined : `error ${type(p)} vs ${type(r)} (${r.body?.error?.reason ?? ''} / ${r.body?.error?.caused_by?.reason ?? ''})`;
  }
  const ph = (p.body?.hits?.hits ?? []) as Record<string, unknown>[];
  const rh = (r.body?.hits?.hits ?? []) as Record<string, unknown>[];
  if (!isDeepStrictEqual(p.body?.hits?.total, r.body?.hits?.total)) return `total ${JSON.stringify(p.body?.hits?.total)} vs ${JSON.stringify(r.body?.hits?.total)}`;
  if (ph.length !== rh.length) return `${ph.length} hits vs ${rh.length}`;
  for (let i = 0; i < rh.length; i++) {
    const a = ph[i] as Record<string, unknown>;
    const b = rh[i] as Record<string, unknown>;
    for (const key of ['_id', '_source', 'fields']) {
      if (!isDeepStrictEqual(a[key], b[key])) return `hit ${i} ${key} ${JSON.stringify(a[key])} vs ${JSON.stringify(b[key])}`;
    }
  }
  return undefined;
}

const FIELDS_MAPPING = {
  properties: {
    title: { type: 'text', store: true, fields: { raw: { type: 'keyword' } } },
    tag: { type: 'keyword', ignore_above: 8 },
    n: { type: 'integer', store: true },
    l: { type: 'long' },
    d: { type: 'double' },
    f: { type: 'float' },
    h: { type: 'half_float' },
    day: { type: 'date' },
    when: { type: 'date', format: 'dd/MM/yyyy||epoch_millis', store: true },
    ok: { type: 'boolean' },
    nv: { type: 'keyword', null_value: 'NONE' },
    bad: { type: 'integer', ignore_malformed: true },
    user: { properties: { name: { type: 'keyword' }, age: { type: 'short' } } },
  },
};

const FIELDS_DOCS: Record<string, unknown>[] = [
  { title: 'The Quick Brown Fox', tag: ['b', 'a', 'b', 'toolongvalue'], n: 3, l: [5, 1, 5], d: 2.5, f: 1.1, h: 1.1, day: '2024-02-29T10:11:12Z', when: '01/02/2020', ok: true, nv: null, bad: 'x', user: { name: 'ann', age: 31 } },
  { title: ['two', 'values'], tag: 'z', n: '7', l: -9007199254740991, d: [3, -1.25], f: [0.1, 2], h: 65504, day: 0, when: 1577836800000, ok: [true, false, true], nv: ['x', null], bad: 'y', 'user.name': 'bob' },
  { title: 'no numbers at all' },
  { tag: 'Zeta', n: 12, f: -3.4028235e38, day: '1969-12-31', ok: 'false', user: [{ name: 'c', age: 1 }, { name: 'a', age: 2 }] },
];

/** Search bodies over FIELDS_DOCS, each compared with the node. */
const FIELDS_REQUESTS: readonly unknown[] = [
  { docvalue_fields: ['tag', 'n', 'l', 'd', 'f', 'h', 'ok', 'nv', 'bad', 'title.raw', 'user.name', 'user.age'] },
  { docvalue_fields: ['day', 'when'] },
  { docvalue_fields: [{ field: 'day', format: 'epoch_millis' }, { field: 'when', format: 'yyyy/MM/dd HH:mm' }] },
  { docvalue_fields: [{ field: 'd', format: '0.00' }, { field: 'l', format: '#,##0.0' }, { field: 'f', format: '#.#' }] },
  { docvalue_fields: ['*'], _source: false },
  { docvalue_fields: ['user.*', 'missing_field'] },
  { docvalue_fields: [{ field: 'tag', format: 'x' }] },
  { docvalue_fields: ['title'] },
  { docvalue_fields: [{ field: 'day', format: 'not a format [' }] },
  { fields: ['title', 'tag', 'n', 'l', 'd', 'f', 'h', 'ok', 'nv', 'bad'] },
  { fields: ['day', 'when', { field: 'day', format: 'yyyy' }], _source: false },
  { fields: ['user.*', 'title.*'] },
  { fields: ['*'] },
  { fields: [{ field: 'n', format: '0.0' }] },
  { stored_fields: ['title', 'n', 'when'] },
  { stored_fields: ['title', 'tag'], _source: true },
  { stored_fields: ['*'] },
  { stored_fields: [] },
  { stored_fields: '_none_' },
  { stored_fields: ['_none_', 'title'] },
  { stored_fields: '_none_', _source: true },
  { stored_fields: '_none_', fields: ['tag'] },
  { stored_fields: ['title', '_source'] },
  { stored_fields: ['n'], docvalue_fields: ['n'], fields: ['tag'] },
  { query: { match: { title: 'fox' } }, docvalue_fields: ['tag'], fields: ['day'] },
  { sort: [{ n: 'asc' }], docvalue_fields: ['n'], stored_fields: ['n'] },
];

/**
 * What ES 8 answers where OpenSearch 2.19 answers otherwise: the `fields` of an ignore_malformed
 * field keep its good values (SourceValueFetcher skips each value that does not parse; OpenSearch
 * leaves the whole field out).
 */
async function malformedValuesSkippedOneByOne(): Promise<void> {
  expect((await porticoCall('PUT', '/malformed', { settings: SETTINGS, mappings: { properties: { bad: { type: 'integer', ignore_malformed: true } } } })).status).toBe(200);
  expect((await porticoCall('PUT', '/malformed/_doc/1?refresh=true', { bad: [1, 'y', '2'] })).status).toBe(201);
  const res = await porticoCall('POST', '/malformed/_search', { fields: ['bad'], _source: false });
  expect(res.body.hits.hits[0].fields).toEqual({ bad: [1, 2] });
}

/** What ES 8 answers where OpenSearch 2.19 answers otherwise: `_id` has no field data by default. */
async function idDocValuesRefused(): Promise<void> {
  const res = await porticoCall('POST', '/ff/_search', { docvalue_fields: ['_id'] });
  expect(res.status).toBe(400);
  expect(res.body.error.caused_by.reason).toContain('Fielddata access on the _id field is disallowed');
}

async function load(call: Call, index: string, mappings: unknown, docs: readonly Record<string, unknown>[]): Promise<void> {
  expect((await call('PUT', `/${index}`, { settings: SETTINGS, mappings })).status).toBe(200);
  if (docs.length === 0) return;
  let ndjson = '';
  docs.forEach((doc, i) => (ndjson += `${JSON.stringify({ index: { _id: String(i) } })}\n${JSON.stringify(doc)}\n`));
  const res = await call('POST', `/${index}/_bulk?refresh=true`, ndjson);
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  await Promise.all([load(porticoCall, 'ff', FIELDS_MAPPING, FIELDS_DOCS), load(nodeCall, 'ff', FIELDS_MAPPING, FIELDS_DOCS)]);
}, 900_000);

describe('docvalue_fields, fields and stored_fields', () => {
  it('answers every request as the node does', async () => {
    const diffs: string[] = [];
    for (const body of FIELDS_REQUESTS) {
      const [p, r] = await both('POST', '/ff/_search', { sort: ['_doc'], ...(body as object) });
      const d = fetchDifference(p, r);
      if (d !== undefined) diffs.push(`${JSON.stringify(body)}: ${d}`);
    }
    expect(diffs).toEqual([]);
  }, SLOW);

  it('reads stored_fields and docvalue_fields from the URL as the node does', async () => {
    const diffs: string[] = [];
    for (const url of ['/ff/_search?stored_fields=title,n&sort=_doc', '/ff/_search?docvalue_fields=tag,n&sort=_doc', '/ff/_search?stored_fields=_none_&sort=_doc']) {
      const [p, r] = await both('GET', url);
      const d = fetchDifference(p, r);
      if (d !== undefined) diffs.push(`${url}: ${d}`);
    }
    expect(diffs).toEqual([]);
  }, SLOW);

  it('refuses doc values of _id as ES 8 does', idDocValuesRefused, SLOW);

  it('keeps the good values of an ignore_malformed field in fields, as ES 8 does', malformedValuesSkippedOneByOne, SLOW);
});

describe('_close and _open', () => {
  it('closes an index: searches, gets and writes naming it are refused as the node refuses them, metadata stays readable', async () => {
    for (const call of [porticoCall, nodeCall]) await load(call, 'shut', { properties: { t: { type: 'keyword' } } }, [{ t: 'a' }, { t: 'b' }]);
    const steps: [string, string, unknown?][] = [
      ['POST', '/shut/_close'],
      ['POST', '/shut/_search'],
      ['POST', '/shut/_count'],
      ['GET', '/shut/_doc/0'],
      ['PUT', '/shut/_doc/9', { t: 'c' }],
      ['DELETE', '/shut/_doc/0'],
      ['POST', '/shut/_update/0', { doc: { t: 'd' } }],
      ['POST', '/sh*/_search'],
      ['POST', '/shut,ff/_search?ignore_unavailable=true&size=0'],
      ['GET', '/shut/_mapping'],
      ['HEAD', '/shut'],
      ['POST', '/shut/_close'],
      ['POST', '/nope/_close'],
      ['POST', '/shut/_open'],
      ['POST', '/shut/_search'],
      ['GET', '/shut/_doc/0'],
    ];
    const diffs: string[] = [];
    for (const [method, path, body] of steps) {
      const [p, r] = await both(method, path, body);
      const d = fetchDifference(p, r);
      if (d !== undefined) diffs.push(`${method} ${path}: ${d}`);
    }
    expect(diffs).toEqual([]);
    // ES 8 refuses a point in time on a closed index (its indices options forbid closed ones);
    // OpenSearch 2.19 answers otherwise.
    await porticoCall('POST', '/shut/_close');
    const pit = await porticoCall('POST', '/shut/_pit?keep_alive=1m');
    expect([pit.status, pit.body.error.type]).toEqual([400, 'index_closed_exception']);
    await porticoCall('POST', '/shut/_open');
    // ES 8's action.destructive_requires_name (true by default; OpenSearch 2 defaults it to false).
    const wild = await porticoCall('POST', '/sh*/_close');
    expect([wild.status, wild.body.error.reason]).toEqual([400, 'Wildcard expressions or all indices are not allowed']);
  }, SLOW);

  it('answers a closed index in a bulk item, in _cat/indices and in _settings as the node does', async () => {
    for (const call of [porticoCall, nodeCall]) await load(call, 'shut2', { properties: { t: { type: 'keyword' } } }, [{ t: 'a' }]);
    const [pc, rc] = await both('POST', '/shut2/_close');
    expect(pc.body).toEqual(rc.body);
    const [pb, rb] = await both('POST', '/_bulk', `${JSON.stringify({ index: { _index: 'shut2', _id: '5' } })}\n{"t":"x"}\n${JSON.stringify({ index: { _index: 'ff2', _id: '5' } })}\n{"t":"x"}\n`);
    const items = (a: Answer) => a.body.items.map((i: { index: { status: number; error?: { type: string } } }) => `${i.index.status} ${i.index.error?.type ?? ''}`);
    expect(items(pb)).toEqual(items(rb));
    const [pcat, rcat] = await both('GET', '/_cat/indices/shut2?format=json&h=status,index,health');
    expect(pcat.body).toEqual(rcat.body);
    const [ps, rs] = await both('GET', '/shut2/_settings');
    expect(ps.body.shut2.settings.index.verified_before_close).toBe(rs.body.shut2.settings.index.verified_before_close);
    const [pd, rd] = await both('DELETE', '/shut2');
    expect([pd.status, pd.body]).toEqual([rd.status, rd.body]);
  }, SLOW);

  it('keeps an index closed across a restart, and its documents once opened', async () => {
    await load(porticoCall, 'durable', { properties: { t: { type: 'keyword' } } }, [{ t: 'a' }, { t: 'b' }]);
    expect((await porticoCall('POST', '/durable/_close')).status).toBe(200);
    await harness().restart();
    expect((await porticoCall('POST', '/durable/_search')).body.error.type).toBe('index_closed_exception');
    expect((await porticoCall('POST', '/durable/_open')).body).toEqual({ acknowledged: true, shards_acknowledged: true });
    await harness().restart();
    expect((await porticoCall('POST', '/durable/_count')).body.count).toBe(2);
    expect((await porticoCall('GET', '/durable/_settings')).body.durable.settings.index.verified_before_close).toBeUndefined();
  }, SLOW);

  it('refuses the private setting at creation as ES does', async () => {
    const res = await porticoCall('PUT', '/private', { settings: { 'index.verified_before_close': true } });
    expect([res.status, res.body.error.type]).toEqual([400, 'illegal_argument_exception']);
  }, SLOW);
});

describe('date-math index names', () => {
  const year = String(new Date().getUTCFullYear());
  const encoded = (name: string) => encodeURIComponent(name);

  it('creates, writes to and searches the index a date-math name resolves to, as the node does', async () => {
    const name = '<dm-{now/y{yyyy}}>';
    const [pc, rc] = await both('PUT', `/${encoded(name)}`, { settings: SETTINGS });
    expect(pc.body).toEqual(rc.body);
    expect(pc.body.index).toBe(`dm-${year}`);
    const bulk = `${JSON.stringify({ index: { _index: '<dm-{now/y{yyyy}}>', _id: '1' } })}\n{"a":"x"}\n${JSON.stringify({ index: { _index: '<dm2-{now/M{yyyy.MM|+00:00}}>', _id: '1' } })}\n{"a":"y"}\n`;
    const [pb, rb] = await both('POST', '/_bulk?refresh=true', bulk);
    expect(pb.body.items.map((i: { index: { _index: string; status: number } }) => [i.index._index, i.index.status])).toEqual(rb.body.items.map((i: { index: { _index: string; status: number } }) => [i.index._index, i.index.status]));
    const diffs: string[] = [];
    for (const [method, path, body] of [
      ['POST', `/${encoded(name)}/_search`, {}],
      ['GET', `/${encoded('<dm-{now/y{yyyy}}>')}/_doc/1`],
      ['POST', `/${encoded('<dm-{now/y{yyyy}}>,<dm2-{now/M}>')}/_search?ignore_unavailable=true`, {}],
      ['PUT', `/${encoded('<dm-{now/d>')}`, {}],
      ['PUT', `/${encoded('<dm-}>')}`, {}],
      ['PUT', `/${encoded('<dm-{now/d{}}>')}`, {}],
      ['PUT', `/${encoded('<dm-\\{x\\}-{now/d}>')}`, {}],
      ['PUT', `/${encoded('<{now/d{yyyy.MM.dd|Europe/Paris}}>')}`, {}],
      ['PUT', `/${encoded('<dm-{now/d{yyyy.MM.dd|Nowhere/City}}>')}`, {}],
      ['PUT', `/${encoded('<dm-{now/q}>')}`, {}],
    ] as [string, string, unknown?][]) {
      const [p, r] = await both(method, path, body);
      const d = fetchDifference(p, r) ?? (p.status < 300 && !isDeepStrictEqual(p.body?.index ?? p.body?._index, r.body?.index ?? r.body?._index) ? `index ${p.body?.index} vs ${r.body?.index}` : undefined);
      if (d !== undefined) diffs.push(`${method} ${path}: ${d}`);
    }
    expect(diffs).toEqual([]);
  }, SLOW);
});

describe('slice on a scroll and a point in time', () => {
  // Ids of every kind Lucene encodes differently: digits, URL-safe base64 (as generated ids are), other text.
  const IDS = Array.from({ length: 240 }, (_, i) =>
    i % 3 === 0 ? String(i * 7919) : i % 3 === 1 ? Buffer.from(`id-${i}-xyz`).toString('base64url') : `doc ${i} é`,
  );

  const sliceIds = async (call: Call, body: Record<string, unknown>, path: string): Promise<string[]> => {
    const res = await call('POST', path, { size: 1000, sort: ['_doc'], ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.hits.hits as { _id: string }[]).map((h) => h._id).sort();
  };

  it('splits a scroll by _id as the node does: the same documents in each slice, disjoint, their union the whole', async () => {
    for (const call of [porticoCall, nodeCall]) await load(call, 'sl', { properties: { n: { type: 'integer' } } }, []);
    let ndjson = '';
    IDS.forEach((id, i) => (ndjson += `${JSON.stringify({ index: { _index: 'sl', _id: id } })}\n${JSON.stringify({ n: i })}\n`));
    for (const call of [porticoCall, nodeCall]) expect((await call('POST', '/_bulk?refresh=true', ndjson)).body.errors).toBe(false);
    const diffs: string[] = [];
    for (const max of [2, 3, 7]) {
      const union: string[] = [];
      for (let id = 0; id < max; id++) {
        const p = await sliceIds(porticoCall, { slice: { id, max } }, '/sl/_search?scroll=1m');
        const r = await sliceIds(nodeCall, { slice: { id, max } }, '/sl/_search?scroll=1m');
        if (!isDeepStrictEqual(p, r)) diffs.push(`slice ${id}/${max}: ${p.length} ids vs ${r.length}`);
        union.push(...p);
      }
      expect(union.length).toBe(IDS.length);
      expect(new Set(union).size).toBe(IDS.length);
    }
    expect(diffs).toEqual([]);
  }, SLOW);

  it('splits a point in time the same way, with the totals and errors the node gives', async () => {
    const pit = (await porticoCall('POST', '/sl/_pit?keep_alive=1m')).body.id as string;
    const union: string[] = [];
    for (let id = 0; id < 3; id++) {
      const ids = await sliceIds(porticoCall, { slice: { id, max: 3 }, pit: { id: pit } }, '/_search');
      expect(ids).toEqual(await sliceIds(porticoCall, { slice: { id, max: 3 } }, '/sl/_search?scroll=1m'));
      union.push(...ids);
    }
    expect(new Set(union).size).toBe(IDS.length);
    const diffs: string[] = [];
    for (const slice of [{ id: 3, max: 3 }, { id: -1, max: 3 }, { id: 0, max: 1 }, { id: 0, max: 2000 }, { id: 0, max: 2, nope: 1 }]) {
      const [p, r] = await both('POST', '/sl/_search?scroll=1m', { slice });
      const d = fetchDifference(p, r);
      if (d !== undefined) diffs.push(`${JSON.stringify(slice)}: ${d}`);
    }
    expect(diffs).toEqual([]);
    // ES 8's validation: no slice on a plain search.
    const plain = await porticoCall('POST', '/sl/_search', { slice: { id: 0, max: 2 } });
    expect([plain.status, plain.body.error.type]).toEqual([400, 'action_request_validation_exception']);
  }, SLOW);
});

describe('preference', () => {
  // What both answer, but `took`: a search of no shard is compared whole.
  const whole = (a: Answer) => (a.status >= 300 ? { status: a.status, type: a.body?.error?.type, reason: a.body?.error?.reason } : { ...a.body, took: 0 });

  it('searches no shard when _shards names no shard 0, and refuses an id that is not an int, as the node does', async () => {
    const diffs: string[] = [];
    const prefs = ['_shards:1', '_shards:1,2', '_shards:1|_local', '_shards:', '_shards:,', '_shards:-1', '_shards:0,1', '_shards:0,', '_shards:0,abc', '_shards:abc,0', '_shards:1,,0', '_shards:+0', '_shards:00', '_shards: 1', '_shards:99999999999', '_shards:0|abc', '_shards:0|_local'];
    const urls = [
      ...prefs.map((pref) => `/ff/_search?sort=_doc&preference=${encodeURIComponent(pref)}`),
      ...['size=0', 'scroll=1m', 'q=title:x', 'track_total_hits=false', 'rest_total_hits_as_int=true', 'filter_path=hits.total'].map((more) => `/ff/_search?preference=_shards:1&${more}`),
      '/ff,ff*/_search?preference=_shards:1',
      '/nope/_search?preference=_shards:1',
      '/ff/_count?preference=_shards:1',
      '/ff/_count?preference=_shards:0',
    ];
    for (const url of urls) {
      const [p, r] = await both('GET', url);
      const d = fetchDifference(p, r) ?? (r.body?._shards?.total === 0 || r.status >= 300 || url.includes('_count') ? (isDeepStrictEqual(whole(p), whole(r)) ? undefined : `${JSON.stringify(whole(p))} vs ${JSON.stringify(whole(r))}`) : undefined);
      if (d !== undefined) diffs.push(`${url}: ${d}`);
    }
    for (const body of [{ size: 0, aggs: { t: { terms: { field: 'tag' } }, m: { max: { field: 'n' } } } }, { suggest: { s: { text: 'helo', term: { field: 'title' } } } }, { query: { match: { title: 'x' } }, sort: [{ n: 'asc' }] }]) {
      const [p, r] = await both('POST', '/ff/_search?preference=_shards:1', body);
      if (!isDeepStrictEqual(whole(p), whole(r))) diffs.push(`${JSON.stringify(body)}: ${JSON.stringify(whole(p))} vs ${JSON.stringify(whole(r))}`);
    }
    // The same in a multi-search header, item by item.
    const [p, r] = await both('POST', '/_msearch', ['_shards:1', '_shards:abc', '_nope', '_shards:0'].map((pref) => `${JSON.stringify({ index: 'ff', preference: pref })}\n{"size":0}\n`).join(''));
    const items = (a: Answer) => (a.body?.responses ?? []).map((item: Record<string, unknown>) => (item.error === undefined ? { ...item, took: 0 } : { status: item.status, type: (item.error as { type: string }).type, reason: (item.error as { reason: string }).reason }));
    if (!isDeepStrictEqual(items(p), items(r))) diffs.push(`_msearch: ${JSON.stringify(items(p))} vs ${JSON.stringify(items(r))}`);
    expect(diffs).toEqual([]);
    // Not vacuous: the node did search no shard, and refused what is no int.
    expect((await nodeCall('GET', '/ff/_search?preference=_shards:1')).body._shards.total).toBe(0);
    expect((await nodeCall('GET', '/ff/_search?preference=_shards:abc')).status).toBe(400);
  }, SLOW);

  it('takes what ES takes and refuses what it refuses, as the node does', async () => {
    const diffs: string[] = [];
    for (const pref of ['_local', '_only_local', 'my-session-1', '_shards:0', '_shards:0|_local', '_prefer_nodes:abc', '_nope:1']) {
      const [p, r] = await both('GET', `/ff/_search?sort=_doc&preference=${encodeURIComponent(pref)}`);
      const d = fetchDifference(p, r);
      if (d !== undefined) diffs.push(`${pref}: ${d}`);
    }
    expect(diffs).toEqual([]);
    // ES 7.0 removed the copy preferences OpenSearch 2 still takes (_primary, _replica, …).
    for (const gone of ['_primary', '_primary_first', '_replica', '_replica_first']) {
      const res = await porticoCall('GET', `/ff/_search?preference=${gone}`);
      expect([res.status, res.body.error.reason]).toEqual([400, `no Preference for [${gone}]`]);
    }
  }, SLOW);
});
