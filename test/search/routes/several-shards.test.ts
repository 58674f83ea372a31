import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRoutingShards, shardOf } from '../../../src/search/engine/shard-routing.js';
import { shardSlice } from '../../../src/search/engine/search-phase.js';
import { esCalls, searchForEach, type EsBody } from '../harness.js';

/**
 * Indices of several shards (`index.number_of_shards`): documents placed by routing as ES places
 * them, statistics and sequence numbers per shard, searches over the shards chosen by `routing` and
 * `preference`, gets that look on the routed shard only, and the shards kept across restarts (from
 * the snapshot and from the documents). Side by side with the node:
 * test/search/differential/shards.int.test.ts.
 */

const h = searchForEach();
const { call, ok } = esCalls(h);

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

/** 60 documents whose text repeats words unevenly (so per-shard statistics differ), every fifth with a routing. */
function docs(): { id: string; routing?: string; source: Record<string, unknown> }[] {
  return Array.from({ length: 60 }, (_, i) => {
    const text = Array.from({ length: 1 + (i % 7) }, (_, k) => WORDS[(i * 3 + k * k) % WORDS.length]).join(' ');
    const d = { id: `d${i}`, source: { text, n: i, tag: WORDS[i % 3] } };
    return i % 5 === 4 ? { ...d, routing: `r${i % 4}` } : d;
  });
}

async function load(index: string, shards: number, list = docs()): Promise<void> {
  await ok('PUT', `/${index}`, { settings: { number_of_shards: shards, number_of_replicas: 0 }, mappings: { properties: { text: { type: 'text' }, n: { type: 'integer' }, tag: { type: 'keyword' } } } });
  const lines = list.flatMap((d) => [JSON.stringify({ index: { _id: d.id, ...(d.routing === undefined ? {} : { routing: d.routing }) } }), JSON.stringify(d.source)]);
  const res = await h.app.inject({ method: 'POST', url: `/${index}/_bulk?refresh=true`, headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
  expect(JSON.parse(res.body).errors).toBe(false);
}

function shardOfDoc(d: { id: string; routing?: string }, shards: number): number {
  return shardOf(d.routing ?? d.id, shards, defaultRoutingShards(shards));
}

const ids = (b: EsBody): string[] => (b.hits.hits as { _id: string }[]).map((x) => x._id);

describe('an index of several shards', () => {
  it('places each document on its routed shard: per-shard searches, _cat/shards and sequence numbers show it', async () => {
    await load('m', 3);
    const all = docs();
    for (let shard = 0; shard < 3; shard++) {
      const b = await ok('POST', `/m/_search?preference=_shards:${shard}`, { size: 100, _source: false, seq_no_primary_term: true });
      expect(b._shards.total).toBe(1);
      const expected = all.filter((d) => shardOfDoc(d, 3) === shard).map((d) => d.id);
      expect(expected.length).toBeGreaterThan(5);
      expect(ids(b).sort()).toEqual([...expected].sort());
      // Sequence numbers count per shard: 0 .. n-1 on each.
      expect((b.hits.hits as { _seq_no: number }[]).map((x) => x._seq_no).sort((a, c) => a - c)).toEqual(expected.map((_, i) => i));
    }
    const cat = await ok('GET', '/_cat/shards/m?format=json&h=shard,prirep,docs');
    expect(cat).toEqual([0, 1, 2].map((s) => ({ shard: String(s), prirep: 'p', docs: String(all.filter((d) => shardOfDoc(d, 3) === s).length) })));
    const search = await ok('POST', '/m/_search', { size: 0 });
    expect([search._shards.total, search.hits.total.value]).toEqual([3, 60]);
    expect((await ok('GET', '/m/_count'))._shards.total).toBe(3);
    const stats = await ok('GET', '/m/_stats/docs');
    expect([stats._shards, stats.indices.m.primaries.docs.count]).toEqual([{ total: 3, successful: 3, failed: 0 }, 60]);
  });

  it('scores each hit with its own shard’s statistics, as one-shard indices of each shard’s documents do', async () => {
    await load('m', 2);
    const all = docs();
    for (let shard = 0; shard < 2; shard++) await load(`s${shard}`, 1, all.filter((d) => shardOfDoc(d, 2) === shard));
    const query = { size: 100, query: { match: { text: 'alpha gamma theta' } } };
    const many = await ok('POST', '/m/_search', query);
    const single = new Map<string, number>();
    for (let shard = 0; shard < 2; shard++) for (const x of (await ok('POST', `/s${shard}/_search`, query)).hits.hits as { _id: string; _score: number }[]) single.set(x._id, x._score);
    expect(many.hits.hits.length).toBe(single.size);
    for (const x of many.hits.hits as { _id: string; _score: number }[]) expect(x._score, x._id).toBe(single.get(x._id));
    // The two shards' statistics differ: some document scores otherwise than over all 60 at once.
    await load('one', 1);
    const merged = new Map((((await ok('POST', '/one/_search', query)).hits.hits) as { _id: string; _score: number }[]).map((x) => [x._id, x._score]));
    expect((many.hits.hits as { _id: string; _score: number }[]).some((x) => merged.get(x._id) !== x._score)).toBe(true);
  });

  it('gets, updates and deletes on the routed shard only', async () => {
    await load('m', 4);
    const routed = docs().filter((d) => d.routing !== undefined && shardOfDoc(d, 4) !== shardOf(d.id, 4, defaultRoutingShards(4)));
    expect(routed.length).toBeGreaterThan(0);
    const d = routed[0] as { id: string; routing: string };
    expect((await call('GET', `/m/_doc/${d.id}`)).body.found).toBe(false);
    const got = await ok('GET', `/m/_doc/${d.id}?routing=${d.routing}`);
    expect([got.found, got._routing]).toEqual([true, d.routing]);
    expect((await call('POST', `/m/_update/${d.id}`, { doc: { n: -1 } })).status).toBe(404);
    const updated = await ok('POST', `/m/_update/${d.id}?routing=${d.routing}&refresh=true`, { doc: { n: -1 }, _source: true });
    expect(updated.get._source.n).toBe(-1);
    expect((await call('DELETE', `/m/_doc/${d.id}`)).body.result).toBe('not_found');
    expect((await ok('DELETE', `/m/_doc/${d.id}?routing=${d.routing}&refresh=true`)).result).toBe('deleted');
    expect((await ok('GET', '/m/_count')).count).toBe(59);
    // mget: each item on its own routed shard.
    const other = routed[1] as { id: string; routing: string } | undefined;
    if (other !== undefined) {
      const m = await ok('POST', '/m/_mget', { docs: [{ _id: other.id }, { _id: other.id, routing: other.routing }] });
      expect(m.docs.map((x: { found: boolean }) => x.found)).toEqual([false, true]);
    }
  });

  it('searches only the shards routing and preference name', async () => {
    await load('m', 3);
    const all = docs();
    const r = await ok('POST', '/m/_search?routing=r1', { size: 100, _source: false });
    const shard = shardOf('r1', 3, defaultRoutingShards(3));
    expect(r._shards.total).toBe(1);
    expect(ids(r).sort()).toEqual(all.filter((d) => shardOfDoc(d, 3) === shard).map((d) => d.id).sort());
    const two = await ok('POST', '/m/_search?preference=_shards:0,2', { size: 0 });
    expect([two._shards.total, two.hits.total.value]).toEqual([2, all.filter((d) => shardOfDoc(d, 3) !== 1).length]);
    const none = await ok('POST', '/m/_search?preference=_shards:7', { size: 0 });
    expect([none._shards.total, none.hits.total.value]).toEqual([0, 0]);
    const counted = await ok('GET', '/m/_count?routing=r1');
    expect([counted._shards.total, counted.count]).toEqual([1, all.filter((d) => shardOfDoc(d, 3) === shard).length]);
    expect((await call('POST', '/m/_search?preference=_shards:1,x', { size: 0 })).body.error.type).toBe('number_format_exception');
  });

  it('pages a point in time with the _shard_doc tiebreaker over every shard, each document once', async () => {
    await load('m', 3);
    const pit = await ok('POST', '/m/_pit?keep_alive=1m');
    expect(pit._shards.total).toBe(3);
    const seen: string[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const page = await ok('POST', '/_search', { size: 7, pit: { id: pit.id }, sort: [{ tag: 'asc' }], ...(after === undefined ? {} : { search_after: after }) });
      if (page.hits.hits.length === 0) break;
      for (const x of page.hits.hits as { _id: string; sort: unknown[] }[]) {
        seen.push(x._id);
        const tiebreak = x.sort[1] as number;
        // The shard's position (high 32 bits) and the document's ordinal there.
        expect(Math.floor(tiebreak / 2 ** 32)).toBe(shardOfDoc(docs().find((d) => d.id === x._id) as { id: string }, 3));
      }
      after = page.hits.hits.at(-1).sort;
    }
    expect(seen.length).toBe(60);
    expect(new Set(seen).size).toBe(60);
  });

  it('spreads scroll slices over the shards as ES does', async () => {
    await load('m', 2);
    const bySlice: string[][] = [];
    for (let id = 0; id < 3; id++) {
      const b = await ok('POST', '/m/_search?scroll=1m', { size: 100, _source: false, slice: { id, max: 3 } });
      bySlice.push(ids(b));
    }
    expect(bySlice.flat().sort()).toEqual(docs().map((d) => d.id).sort());
    // Slices 0 and 2 share shard 0 (split by _id), slice 1 is all of shard 1.
    expect(bySlice[1]?.sort()).toEqual(docs().filter((d) => shardOfDoc(d, 2) === 1).map((d) => d.id).sort());
    expect(shardSlice({ id: 1, max: 3 }, 1, 2)).toBe('all');
    expect(shardSlice({ id: 2, max: 3 }, 0, 2)).toEqual({ id: 1, max: 2 });
    expect(shardSlice({ id: 1, max: 2 }, 0, 5)).toBe('none');
    expect(shardSlice({ id: 1, max: 2 }, 3, 5)).toBe('all');
  });

  it('keeps its shards across a restart, from the snapshot and from the documents', async () => {
    await load('m', 3);
    const before = await ok('POST', '/m/_search', { size: 60, query: { match: { text: 'beta delta' } } });
    for (const removeSnapshot of [false, true]) {
      if (removeSnapshot) {
        // Written at shutdown: without it the indices are rebuilt from the stored documents.
        await h.app.close();
        const files = readdirSync(h.dataDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('index.snapshot'));
        expect(files.length).toBe(1);
        for (const f of files) rmSync(join(h.dataDir, f));
      }
      await h.restart();
      const after = await ok('POST', '/m/_search', { size: 60, query: { match: { text: 'beta delta' } } });
      expect(after._shards.total).toBe(3);
      expect(after.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score])).toEqual(before.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score]));
      const d = docs().find((x) => x.routing !== undefined) as { id: string; routing: string };
      expect((await ok('GET', `/m/_doc/${d.id}?routing=${d.routing}`)).found).toBe(true);
    }
  });

  it('re-indexed many times, answers as after one load, and its shards are compacted by the snapshot', async () => {
    await load('m', 3);
    const query = { size: 60, query: { match: { text: 'beta zeta' } } };
    const before = await ok('POST', '/m/_search', query);
    const lines = docs().flatMap((d) => [JSON.stringify({ index: { _id: d.id, ...(d.routing === undefined ? {} : { routing: d.routing }) } }), JSON.stringify(d.source)]);
    for (let pass = 0; pass < 4; pass++) {
      await h.app.inject({ method: 'POST', url: '/m/_bulk?refresh=true', headers: { 'content-type': 'application/x-ndjson' }, payload: lines.join('\n') + '\n' });
    }
    const after = await ok('POST', '/m/_search', query);
    expect(after.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score])).toEqual(before.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score]));
    expect((await ok('GET', '/m/_count')).count).toBe(60);
    // The snapshot written at shutdown holds each shard's live documents only.
    await h.restart();
    const stats = await ok('GET', '/m/_stats/docs');
    expect([stats.indices.m.primaries.docs.count, stats.indices.m.primaries.docs.deleted]).toEqual([60, 0]);
    const restarted = await ok('POST', '/m/_search', query);
    expect(restarted.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score])).toEqual(before.hits.hits.map((x: { _id: string; _score: number }) => [x._id, x._score]));
  });

  it('moves a document written again under another routing (one document per _id here)', async () => {
    await load('m', 3);
    const d = docs()[0] as { id: string };
    const other = ['x', 'y', 'z', 'w'].find((r) => shardOf(r, 3, defaultRoutingShards(3)) !== shardOfDoc(d, 3)) as string;
    const w = await ok('PUT', `/m/_doc/${d.id}?routing=${other}&refresh=true`, { text: 'moved', n: 0, tag: 'alpha' });
    expect([w.result, w._version]).toEqual(['updated', 2]);
    expect((await ok('GET', '/m/_count')).count).toBe(60);
    expect((await ok('GET', `/m/_doc/${d.id}?routing=${other}`))._source.text).toBe('moved');
    expect((await call('GET', `/m/_doc/${d.id}`)).body.found).toBe(false);
    expect((await call('PUT', `/m/_create/${d.id}`, { text: 'again' })).status).toBe(409);
  });

  it('bounds each term bucket’s count error by the shards that did not return it', async () => {
    // 30 distinct values of n on each of 2 shards, each value once: shard_size 2 keeps two a shard.
    await load('m', 2);
    const all = docs();
    const r = await ok('POST', '/m/_search', { size: 0, aggs: { ns: { terms: { field: 'n', size: 3, shard_size: 2, show_term_doc_count_error: true } } } });
    const ns = r.aggregations.ns as { doc_count_error_upper_bound: number; sum_other_doc_count: number; buckets: { key: number; doc_count: number; doc_count_error_upper_bound: number }[] };
    // Each shard cut its list at a count of 1: a term one shard returned may have had 1 on the other.
    expect(ns.doc_count_error_upper_bound).toBe(2);
    expect(ns.buckets.map((b) => b.doc_count_error_upper_bound)).toEqual([1, 1, 1]);
    // Ties by key: the shards' two smallest values, the three smallest of them kept.
    const byShard = [0, 1].map((s) => all.filter((d) => shardOfDoc(d, 2) === s).map((d) => d.source.n as number).sort((a, b) => a - b).slice(0, 2));
    expect(ns.buckets.map((b) => b.key)).toEqual(byShard.flat().sort((a, b) => a - b).slice(0, 3));
    expect(ns.sum_other_doc_count).toBe(60 - 3);
  });

  it('scores with every shard\'s statistics under dfs_query_then_fetch: as one shard holding every document scores', async () => {
    await load('m', 3);
    await load('one', 1);
    // The same documents split over two indices of one shard each.
    await load('half-a', 1, docs().filter((_, i) => i % 2 === 0));
    await load('half-b', 1, docs().filter((_, i) => i % 2 === 1));
    const scores = (b: EsBody): [string, number][] => (b.hits.hits as { _id: string; _score: number }[]).map((x): [string, number] => [x._id, x._score]).sort((a, c) => a[0].localeCompare(c[0]));
    const queries: Record<string, unknown>[] = [
      { match: { text: 'alpha' } },
      { match: { text: 'beta gamma theta' } },
      { match: { text: { query: 'delta theta', operator: 'and' } } },
      { bool: { must: [{ match: { text: 'eta' } }], should: [{ term: { tag: 'beta' } }, { match: { text: 'alpha' } }] } },
      { multi_match: { query: 'alpha beta', fields: ['text', 'tag'] } },
      { multi_match: { query: 'gamma alpha', fields: ['text', 'tag'], type: 'most_fields' } },
      { match_phrase: { text: 'alpha delta' } },
      { match_phrase_prefix: { text: 'eta th' } },
      { match_bool_prefix: { text: 'epsilon ze' } },
      { query_string: { query: 'text:(alpha OR epsilon) AND NOT tag:gamma' } },
      { dis_max: { queries: [{ match: { text: 'theta' } }, { term: { tag: 'alpha' } }], tie_breaker: 0.3 } },
    ];
    let differsWithout = 0;
    for (const query of queries) {
      const body = { size: 100, query };
      const whole = await ok('POST', '/one/_search', body);
      expect(whole.hits.total.value, JSON.stringify(query)).toBeGreaterThan(0);
      for (const target of ['m', 'half-a,half-b']) {
        const dfs = await ok('POST', `/${target}/_search?search_type=dfs_query_then_fetch`, body);
        expect(scores(dfs), `${target} ${JSON.stringify(query)}`).toEqual(scores(whole));
        expect(dfs.hits.max_score).toBe(whole.hits.max_score);
        const plain = await ok('POST', `/${target}/_search`, body);
        if (JSON.stringify(scores(plain)) !== JSON.stringify(scores(whole))) differsWithout++;
      }
    }
    // Without dfs each shard scores with its own statistics: most of these differ.
    expect(differsWithout).toBeGreaterThan(queries.length);
    const query = { match: { text: 'beta epsilon' } };
    const whole = scores(await ok('POST', '/one/_search', { size: 100, query }));
    // A scroll, a point in time and _msearch gather them too; routing to one shard is query_then_fetch.
    expect(scores(await ok('POST', '/m/_search?search_type=dfs_query_then_fetch&scroll=1m', { size: 100, query }))).toEqual(whole);
    const pit = await ok('POST', '/m/_pit?keep_alive=1m');
    expect(scores(await ok('POST', '/_search?search_type=dfs_query_then_fetch', { size: 100, query, pit: { id: pit.id } }))).toEqual(whole);
    const routed = await ok('POST', '/m/_search?search_type=dfs_query_then_fetch&routing=r1', { size: 100, query });
    expect(routed._shards.total).toBe(1);
    expect(scores(routed)).toEqual(scores(await ok('POST', '/m/_search?routing=r1', { size: 100, query })));
    const res = await h.app.inject({
      method: 'POST',
      url: '/_msearch',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: ['{"index":"m","search_type":"dfs_query_then_fetch"}', JSON.stringify({ size: 100, query }), '{"index":"m"}', JSON.stringify({ size: 100, query }), ''].join('\n'),
    });
    const items = JSON.parse(res.body).responses as EsBody[];
    expect(scores(items[0] as EsBody)).toEqual(whole);
    expect(scores(items[1] as EsBody)).not.toEqual(whole);
  });

  it('deletes by query across the shards in scroll order, and in one slice per shard with slices=auto', async () => {
    await load('m', 3);
    const r = await ok('POST', '/m/_delete_by_query?refresh=true&max_docs=10', { query: { match_all: {} } });
    expect([r.deleted, r.slices]).toEqual([10, undefined]);
    expect((await ok('GET', '/m/_count')).count).toBe(50);
    // One slice per shard (slices=auto): each slice is a shard's documents, its status listed.
    await load('n', 3);
    const perShard = [0, 1, 2].map((s) => docs().filter((d) => shardOfDoc(d, 3) === s).length);
    const sliced = await ok('POST', '/n/_update_by_query?slices=auto&refresh=true', { query: { match_all: {} } });
    expect([sliced.total, sliced.updated, sliced.batches, sliced.failures]).toEqual([60, 60, 3, []]);
    expect(sliced.slices).toEqual(perShard.map((n, i) => ({ slice_id: i, total: n, updated: n, deleted: 0, batches: 1, version_conflicts: 0, noops: 0, retries: { bulk: 0, search: 0 }, throttled_millis: 0, requests_per_second: -1, throttled_until_millis: 0 })));
    expect(Object.keys(sliced)).toEqual(['took', 'timed_out', 'total', 'updated', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'slices', 'failures']);
    // max_docs is split between the slices, rounded down (ES: "the maxDocs might round down").
    const capped = await ok('POST', '/n/_delete_by_query?slices=auto&max_docs=10&refresh=true', { query: { match_all: {} } });
    expect([capped.deleted, capped.slices.map((x: { deleted: number }) => x.deleted)]).toEqual([9, [3, 3, 3]]);
    // More slices than shards: a shard shared by two slices is split by _id; together they hold every document once.
    await load('o', 2);
    const five = await ok('POST', '/o/_delete_by_query?slices=5&refresh=true', { query: { match_all: {} } });
    expect([five.deleted, five.slices.length, five.slices.reduce((n: number, x: { total: number }) => n + x.total, 0)]).toEqual([60, 5, 60]);
    expect((await ok('GET', '/o/_count')).count).toBe(0);
  });
});
