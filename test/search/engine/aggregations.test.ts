import { beforeAll, describe, expect, it } from 'vitest';
import { esCalls, searchForAll, type EsBody } from '../harness.js';

/**
 * Each aggregation type over a small index whose answers are worked out by hand (ES's rules:
 * a document counts once per bucket, numeric values keep their duplicates in metrics, a keyword's
 * values are distinct per document), then post_filter, collapse, typed_keys, _msearch and the
 * refusals. The side-by-side suite (differential/aggs-differential.int.test.ts) checks the same
 * against OpenSearch over generated requests.
 */

const DOCS: Record<string, unknown>[] = [
  { tag: 'a', g: 'x', n: 1, price: 1.5, d: '2020-01-01', flag: true, t: 'hello world' },
  { tag: ['a', 'b'], g: 'x', n: 5, price: 2.5, d: '2020-01-15T10:00:00Z', flag: false },
  { tag: 'b', g: 'y', n: 10, d: '2020-02-03' },
  { tag: 'c', price: 10 },
  { g: 'y', n: [2, 2, 20], d: '2021-03-01', flag: true },
];

describe('aggregations', () => {
  const h = searchForAll();
  const { call, ok } = esCalls(h);
  const aggs = async (a: Record<string, unknown>, extra: Record<string, unknown> = {}, url = '/s/_search'): Promise<EsBody> => (await ok('POST', url, { size: 0, aggs: a, ...extra })).aggregations;

  beforeAll(async () => {
    await ok('PUT', '/s', {
      mappings: { properties: { tag: { type: 'keyword' }, g: { type: 'keyword' }, n: { type: 'integer' }, price: { type: 'double' }, d: { type: 'date' }, flag: { type: 'boolean' }, t: { type: 'text' } } },
    });
    for (const [i, doc] of DOCS.entries()) await ok('PUT', `/s/_doc/${i + 1}?refresh=true`, doc);
  });

  it('terms: counts per value by count then key, size, sum_other_doc_count, order, missing, include/exclude', async () => {
    expect(await aggs({ t: { terms: { field: 'tag' } } })).toEqual({ t: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'a', doc_count: 2 }, { key: 'b', doc_count: 2 }, { key: 'c', doc_count: 1 }] } });
    expect((await aggs({ t: { terms: { field: 'tag', size: 1 } } })).t).toMatchObject({ sum_other_doc_count: 3, buckets: [{ key: 'a', doc_count: 2 }] });
    expect((await aggs({ t: { terms: { field: 'tag', order: { _key: 'desc' } } } })).t.buckets.map((b: EsBody) => b.key)).toEqual(['c', 'b', 'a']);
    expect((await aggs({ t: { terms: { field: 'tag', missing: 'none' } } })).t.buckets).toContainEqual({ key: 'none', doc_count: 1 });
    expect((await aggs({ t: { terms: { field: 'tag', include: 'a|b', exclude: 'b' } } })).t.buckets).toEqual([{ key: 'a', doc_count: 2 }]);
    expect((await aggs({ t: { terms: { field: 'tag', exclude: ['a', 'c'] } } })).t.buckets).toEqual([{ key: 'b', doc_count: 2 }]);
    // A bucket under min_doc_count among the shard's top buckets is dropped without counting in sum_other_doc_count, as ES does.
    expect((await aggs({ t: { terms: { field: 'tag', min_doc_count: 2 } } })).t).toMatchObject({ sum_other_doc_count: 0, buckets: [{ key: 'a' }, { key: 'b' }] });
  });

  it('terms over numbers, booleans and dates: keys, key_as_string, a value counted once per document', async () => {
    expect((await aggs({ t: { terms: { field: 'n', order: { _key: 'asc' } } } })).t.buckets).toEqual([1, 2, 5, 10, 20].map((key) => ({ key, doc_count: 1 })));
    expect((await aggs({ t: { terms: { field: 'flag' } } })).t.buckets).toEqual([{ key: 1, key_as_string: 'true', doc_count: 2 }, { key: 0, key_as_string: 'false', doc_count: 1 }]);
    expect((await aggs({ t: { terms: { field: 'd', size: 1, order: { _key: 'asc' } } } })).t.buckets).toEqual([{ key: 1577836800000, key_as_string: '2020-01-01T00:00:00.000Z', doc_count: 1 }]);
  });

  it('terms ordered by a sub-aggregation, with the sub-aggregation in each bucket', async () => {
    const out = await aggs({ t: { terms: { field: 'tag', order: { m: 'desc' } }, aggs: { m: { max: { field: 'price' } } } } });
    expect(out.t.buckets).toEqual([
      { key: 'c', doc_count: 1, m: { value: 10 } },
      { key: 'a', doc_count: 2, m: { value: 2.5 } },
      { key: 'b', doc_count: 2, m: { value: 2.5 } },
    ]);
  });

  it('histogram and date_histogram fill empty buckets; calendar months, time zones and formats', async () => {
    expect((await aggs({ h: { histogram: { field: 'n', interval: 5 } } })).h.buckets).toEqual([
      { key: 0, doc_count: 2 }, { key: 5, doc_count: 1 }, { key: 10, doc_count: 1 }, { key: 15, doc_count: 0 }, { key: 20, doc_count: 1 },
    ]);
    const months = (await aggs({ m: { date_histogram: { field: 'd', calendar_interval: 'month', format: 'yyyy-MM' } } })).m.buckets;
    expect(months).toHaveLength(15);
    expect(months[0]).toEqual({ key_as_string: '2020-01', key: 1577836800000, doc_count: 2 });
    expect(months[14]).toEqual({ key_as_string: '2021-03', key: Date.UTC(2021, 2, 1), doc_count: 1 });
    const days = (await aggs({ m: { date_histogram: { field: 'd', calendar_interval: 'day', time_zone: '+01:00', min_doc_count: 1 } } })).m.buckets;
    expect(days[0]).toEqual({ key_as_string: '2020-01-01T00:00:00.000+01:00', key: Date.UTC(2019, 11, 31, 23), doc_count: 1 });
    const paris = (await aggs({ m: { date_histogram: { field: 'd', calendar_interval: 'year', time_zone: 'Europe/Paris' } } })).m.buckets;
    expect(paris.map((b: EsBody) => [b.key_as_string, b.doc_count])).toEqual([['2020-01-01T00:00:00.000+01:00', 3], ['2021-01-01T00:00:00.000+01:00', 1]]);
    expect((await aggs({ m: { date_histogram: { field: 'd', fixed_interval: '30d', min_doc_count: 1 } } })).m.buckets.map((b: EsBody) => b.doc_count)).toEqual([1, 2, 1]);
  });

  it('range and date_range: ES order and keys, from inclusive, to exclusive, keyed', async () => {
    expect((await aggs({ r: { range: { field: 'n', ranges: [{ from: 5 }, { to: 5 }] } } })).r.buckets).toEqual([
      { key: '*-5.0', to: 5, doc_count: 2 },
      { key: '5.0-*', from: 5, doc_count: 3 },
    ]);
    expect((await aggs({ r: { range: { field: 'price', keyed: true, ranges: [{ from: 1e7, key: 'big' }, { to: 2 }] } } })).r.buckets).toEqual({ '*-2.0': { to: 2, doc_count: 1 }, big: { from: 1e7, doc_count: 0 } });
    expect((await aggs({ r: { date_range: { field: 'd', format: 'yyyy-MM', ranges: [{ to: '2020-02' }] } } })).r.buckets).toEqual([{ key: '*-2020-02', to: 1580515200000, to_as_string: '2020-02', doc_count: 2 }]);
  });

  it('filter, filters (named in name order, anonymous, other bucket) and missing', async () => {
    expect(await aggs({ f: { filter: { term: { tag: 'a' } }, aggs: { s: { sum: { field: 'n' } } } } })).toEqual({ f: { doc_count: 2, s: { value: 6 } } });
    expect((await aggs({ f: { filters: { filters: { z: { term: { tag: 'c' } }, b: { term: { tag: 'b' } } }, other_bucket: true } } })).f.buckets).toEqual({ b: { doc_count: 2 }, z: { doc_count: 1 }, _other_: { doc_count: 2 } });
    expect((await aggs({ f: { filters: { filters: [{ term: { tag: 'c' } }, { match_all: {} }] } } })).f.buckets).toEqual([{ doc_count: 1 }, { doc_count: 5 }]);
    expect(await aggs({ m: { missing: { field: 'price' } } })).toEqual({ m: { doc_count: 2 } });
  });

  it('metrics: duplicates count in numbers, keywords are distinct per document, dates and booleans as strings, empty sets', async () => {
    expect(await aggs({ s: { stats: { field: 'n' } }, c: { value_count: { field: 'tag' } }, k: { cardinality: { field: 'tag' } } })).toEqual({
      s: { count: 6, min: 1, max: 20, avg: 40 / 6, sum: 40 },
      c: { value: 5 },
      k: { value: 3 },
    });
    expect((await aggs({ m: { min: { field: 'd' } } })).m).toEqual({ value: 1577836800000, value_as_string: '2020-01-01T00:00:00.000Z' });
    expect((await aggs({ m: { max: { field: 'flag' } } })).m).toEqual({ value: 1, value_as_string: 'true' });
    expect(await aggs({ a: { avg: { field: 'price' } }, m: { min: { field: 'price' } }, s: { sum: { field: 'price' } } }, { query: { match_none: {} } })).toEqual({ a: { value: null }, m: { value: null }, s: { value: 0 } });
    expect((await aggs({ a: { avg: { field: 'price', missing: 0 } } })).a.value).toBe(14 / 5);
  });

  it('top_hits: the best hits of each bucket, sorted and filtered as search hits', async () => {
    const out = await aggs({ t: { terms: { field: 'g' }, aggs: { top: { top_hits: { size: 1, sort: [{ n: 'desc' }], _source: ['n'] } } } } });
    expect(out.t.buckets[0]).toEqual({ key: 'x', doc_count: 2, top: { hits: { total: { value: 2, relation: 'eq' }, max_score: null, hits: [{ _index: 's', _id: '2', _score: null, _source: { n: 5 }, sort: [5] }] } } });
  });

  it('post_filter narrows the hits, not the aggregations; typed_keys names results by type', async () => {
    const body = await ok('POST', '/s/_search?typed_keys=true', { post_filter: { term: { tag: 'c' } }, aggs: { t: { terms: { field: 'tag' } }, n: { terms: { field: 'price' } }, s: { sum: { field: 'n' } } } });
    expect(body.hits.hits.map((x: EsBody) => x._id)).toEqual(['4']);
    expect(Object.keys(body.aggregations)).toEqual(['sterms#t', 'dterms#n', 'sum#s']);
    expect(body.aggregations['sterms#t'].buckets).toHaveLength(3);
  });

  it('collapse: one hit per value in the search order, documents without a value in one group, inner hits', async () => {
    const body = await ok('POST', '/s/_search', { _source: false, collapse: { field: 'g', inner_hits: { name: 'all', size: 5, _source: false, sort: [{ n: 'desc' }] } } });
    expect(body.hits.total).toEqual({ value: 5, relation: 'eq' });
    expect(body.hits.hits.map((x: EsBody) => [x._id, x.fields?.g?.[0] ?? null])).toEqual([['1', 'x'], ['3', 'y'], ['4', null]]);
    expect(body.hits.hits[0].inner_hits.all.hits.hits.map((x: EsBody) => x._id)).toEqual(['2', '1']);
    const page = await ok('POST', '/s/_search', { _source: false, from: 1, size: 1, sort: [{ n: 'desc' }], collapse: { field: 'g' } });
    expect(page.hits.hits.map((x: EsBody) => x._id)).toEqual(['2']);
    const multi = await call('POST', '/s/_search', { collapse: { field: 'tag' } });
    expect(multi.status).toBe(400);
    expect(multi.body.error.root_cause[0].reason).toMatch(/the collapse field must be single valued$/);
  });

  it('answers _msearch items with their aggregations', async () => {
    const lines = `{"index":"s"}\n${JSON.stringify({ size: 0, aggs: { m: { missing: { field: 'price' } } } })}\n`;
    const res = await h.app.inject({ method: 'POST', url: '/_msearch?typed_keys=true', headers: { 'content-type': 'application/x-ndjson' }, payload: lines });
    expect(JSON.parse(res.body).responses[0].aggregations).toEqual({ 'missing#m': { doc_count: 2 } });
  });

  it('over every live document and over columns, after updates and deletes: the counts, sums and buckets of the documents themselves', async () => {
    // The fast paths (a term's live docFreq when every live document is aggregated, numbers read
    // from the column, bucket documents laid out by a counting sort) against sums worked out here.
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % n;
    };
    const docOf = (): Record<string, unknown> => {
      const doc: Record<string, unknown> = {};
      const tags = Array.from({ length: rnd(4) }, () => 'abcdef'[rnd(6)] as string);
      if (tags.length > 0) doc.tag = tags.length === 1 ? tags[0] : tags;
      if (rnd(5) > 0) doc.n = rnd(1000) - 300;
      if (rnd(4) > 0) doc.x = (rnd(2000) - 500) / 7;
      if (rnd(5) > 0) doc.g = 'pqr'[rnd(3)];
      if (rnd(5) > 0) doc.z = rnd(100000) / 3 + 0.1;
      return doc;
    };
    const live = new Map<string, Record<string, unknown>>();
    await ok('PUT', '/cols', { mappings: { properties: { tag: { type: 'keyword' }, g: { type: 'keyword' }, n: { type: 'long' }, x: { type: 'float' }, z: { type: 'double' } } } });
    let ndjson = '';
    for (let i = 0; i < 300; i++) {
      const doc = docOf();
      live.set(String(i), doc);
      ndjson += `{"index":{"_id":"${i}"}}\n${JSON.stringify(doc)}\n`;
    }
    // Updates (a new ordinal each, the old one retired) and deletes.
    for (let i = 0; i < 300; i += 7) {
      const doc = docOf();
      live.set(String(i), doc);
      ndjson += `{"index":{"_id":"${i}"}}\n${JSON.stringify(doc)}\n`;
    }
    for (let i = 3; i < 300; i += 11) {
      live.delete(String(i));
      ndjson += `{"delete":{"_id":"${i}"}}\n`;
    }
    const res = await h.app.inject({ method: 'POST', url: '/cols/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: ndjson });
    expect(JSON.parse(res.body).errors).toBe(false);
    const docs = [...live.values()];
    const tagsOf = (d: Record<string, unknown>): string[] => [...new Set(d.tag === undefined ? [] : ([] as string[]).concat(d.tag as string | string[]))];
    const counts = new Map<string, number>();
    const sums = new Map<string, number>();
    for (const d of docs) {
      for (const t of tagsOf(d)) {
        counts.set(t, (counts.get(t) ?? 0) + 1);
        if (typeof d.n === 'number') sums.set(t, (sums.get(t) ?? 0) + d.n);
      }
    }
    const expected = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const out = await aggs({ t: { terms: { field: 'tag', missing: 'none' }, aggs: { s: { sum: { field: 'n' } } } } }, {}, '/cols/_search');
    const untagged = docs.filter((d) => tagsOf(d).length === 0);
    const withMissing = [...expected, ['none', untagged.length] as [string, number]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    expect(out.t.buckets).toEqual(
      withMissing.map(([key, c]) => ({ key, doc_count: c, s: { value: key === 'none' ? untagged.reduce((n, d) => n + (typeof d.n === 'number' ? d.n : 0), 0) : (sums.get(key) ?? 0) } })),
    );
    const ns = docs.flatMap((d) => (typeof d.n === 'number' ? [d.n] : []));
    expect((await aggs({ s: { stats: { field: 'n' } } }, {}, '/cols/_search')).s).toEqual({ count: ns.length, min: Math.min(...ns), max: Math.max(...ns), avg: ns.reduce((a, b) => a + b, 0) / ns.length, sum: ns.reduce((a, b) => a + b, 0) });
    // A float field's values are float32, as its doc values hold them; keys floor((v - offset) / interval) * interval + offset.
    const perKey = new Map<number, number>();
    for (const d of docs) if (typeof d.x === 'number') {
      const k = Math.floor((Math.fround(d.x) - 0.25) / 7.5) * 7.5 + 0.25;
      perKey.set(k, (perKey.get(k) ?? 0) + 1);
    }
    const hist = await aggs({ h: { histogram: { field: 'x', interval: 7.5, offset: 0.25, min_doc_count: 1 } } }, {}, '/cols/_search');
    expect(hist.h.buckets).toEqual([...perKey].sort((a, b) => a[0] - b[0]).map(([key, c]) => ({ key, doc_count: c })));
    // Metrics under a single-valued keyword's terms (all buckets in one pass), with meta and typed_keys,
    // as worked out here and as the bucket-by-bucket path computes them (which `missing` takes).
    const subs = { a: { avg: { field: 'n' } }, s: { stats: { field: 'n' }, meta: { m: 1 } }, x: { max: { field: 'x' } }, y: { sum: { field: 'x' } }, z: { sum: { field: 'z' } } };
    const fused = (await ok('POST', '/cols/_search?typed_keys=true', { size: 0, aggs: { g: { terms: { field: 'g' }, aggs: subs } } })).aggregations['sterms#g'].buckets;
    const general = (await ok('POST', '/cols/_search?typed_keys=true', { size: 0, aggs: { g: { terms: { field: 'g', missing: 'zz' }, aggs: subs } } })).aggregations['sterms#g'].buckets;
    expect(fused.map((b: EsBody) => b.key).sort()).toEqual(['p', 'q', 'r']);
    expect(general.filter((b: EsBody) => b.key !== 'zz')).toEqual(fused);
    for (const b of fused) {
      const mine = docs.filter((d) => d.g === b.key);
      const bn = mine.flatMap((d) => (typeof d.n === 'number' ? [d.n] : []));
      expect(b.doc_count).toBe(mine.length);
      expect(b['avg#a'].value).toBe(bn.reduce((x, y) => x + y, 0) / bn.length);
      expect(b['stats#s']).toEqual({ count: bn.length, min: Math.min(...bn), max: Math.max(...bn), avg: bn.reduce((x, y) => x + y, 0) / bn.length, sum: bn.reduce((x, y) => x + y, 0), meta: { m: 1 } });
      expect(b['max#x'].value).toBe(Math.max(...mine.flatMap((d) => (typeof d.x === 'number' ? [Math.fround(d.x)] : []))));
    }
  });

  it('sums integers as ES compensates them, also past 2^53', async () => {
    await ok('PUT', '/big', { mappings: { properties: { n: { type: 'long' }, g: { type: 'keyword' } } } });
    let nd = '';
    for (const n of [2 ** 53 - 1, 1, 1, -(2 ** 53 - 1)]) nd += `{"index":{}}\n${JSON.stringify({ n, g: 'k' })}\n`;
    for (const n of [5, 7]) nd += `{"index":{}}\n${JSON.stringify({ n, g: 'j' })}\n`;
    await h.app.inject({ method: 'POST', url: '/big/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: nd });
    // A plain sum rounds 2^53 + 1 down and answers 1; the compensated sum keeps the lost 1.
    expect((await aggs({ s: { sum: { field: 'n' } } }, {}, '/big/_search')).s.value).toBe(14);
    // So per bucket, all buckets summed in one pass.
    const per = await aggs({ g: { terms: { field: 'g' }, aggs: { s: { sum: { field: 'n' } } } } }, {}, '/big/_search');
    expect(per.g.buckets.map((b: EsBody) => [b.key, b.s.value])).toEqual([['k', 2], ['j', 12]]);
  });

  it('refuses what ES refuses', async () => {
    const text = await call('POST', '/s/_search', { aggs: { a: { terms: { field: 't' } } } });
    expect([text.status, text.body.error.type, text.body.error.root_cause[0].reason]).toEqual([400, 'search_phase_execution_exception', expect.stringMatching(/^Text fields are not optimised/)]);
    const sum = await call('POST', '/s/_search', { aggs: { a: { sum: { field: 'tag' } } } });
    expect(sum.body.error.root_cause[0].reason).toBe('Field [tag] of type [keyword] is not supported for aggregation [sum]');
    const order = await call('POST', '/s/_search', { aggs: { a: { terms: { field: 'tag', order: { nope: 'asc' } } } } });
    expect(order.body.error.root_cause[0]).toMatchObject({ type: 'aggregation_execution_exception', reason: expect.stringMatching(/^Invalid aggregation order path \[nope\]/) });
    const bad = await call('POST', '/s/_search', { aggs: { a: { terms: { field: 'tag', size: 0 } } } });
    expect(bad.body.error).toMatchObject({ type: 'x_content_parse_exception', reason: '[1:45] [terms] failed to parse field [size]', caused_by: { reason: '[size] must be greater than 0. Found [0] in [a]' } });
    const regexp = await call('POST', '/s/_search', { aggs: { a: { terms: { field: 'tag', include: 'a&b' } } } });
    expect(regexp.body.error.caused_by.reason).toMatch(/the intersection operator \[&\] is not supported/);
  });
});
