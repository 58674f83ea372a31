/**
 * Issue 21, indices with more than one shard, side by side with the OpenSearch node: the shard a
 * document lives on (src/search/engine/shard-routing.ts) against the node's placement of a few
 * hundred documents, by `_id` and by custom routing, over several shard counts, default and
 * explicit `index.number_of_routing_shards`; the settings that decide the placement, checked as the
 * node checks them; and an index of three shards (and one of two with a replica) answering the
 * same searches (per-shard scores, merged pages, `_shards`, routing and preference), counts, gets
 * and stats as the node. A routing partition and resizing (`_shrink`, `_split`, `_clone`) are
 * refused.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultRoutingShards, shardOf } from '../../../src/search/engine/shard-routing.js';
import { difference, scorePositions, type Answer } from './compare.js';
import { sideBySide } from './side-by-side.js';
import { seeded } from './corpus.js';

/** Per test: a guard for a busy shared machine, never a timing assertion. */
const SLOW = 600_000;

const { porticoCall, nodeCall } = sideBySide();

/** An error's status, type and reason (and its cause's); a success's status and body. */
function comparable(a: Answer): unknown {
  if (a.status >= 300 && a.body?.error !== undefined) {
    const e = a.body.error;
    // Index uuids differ: `[[name/uuid]]` in a reason names the index only.
    const reason = String(e.reason).replace(/\[\[([^/\]]+)\/[^\]]+\]\]/g, '[[$1]]');
    return { status: a.status, type: e.type, reason, cause: e.caused_by === undefined ? undefined : { type: e.caused_by.type, reason: e.caused_by.reason } };
  }
  return { status: a.status, body: a.body };
}

/** Requests sent to both by `same` (each one agreeing, or the test fails), printed at the end. */
let requestsCompared = 0;

/** Sends the request to both and expects equal answers. */
async function same(method: string, path: string, body?: unknown): Promise<void> {
  requestsCompared++;
  const [a, b] = [comparable(await porticoCall(method, path, body)), comparable(await nodeCall(method, path, body))];
  if (!isDeepStrictEqual(a, b)) expect.fail(`${method} ${path} ${JSON.stringify(body) ?? ''}\nPortico: ${JSON.stringify(a)}\nnode:    ${JSON.stringify(b)}`);
}

afterAll(async () => {
  console.log(`shard settings: ${requestsCompared} requests sent to both, each answered alike`);
});

/** Characters of every UTF-8 length and a surrogate pair, so the hash's byte feeding shows. */
const ALPHABET = ['a', 'z', 'Q', '0', '9', '-', '_', '/', ' ', 'é', 'ß', 'Ω', 'ж', '日', '語', '€', '😀', '🚀'];

function word(next: () => number, max: number): string {
  const n = 1 + Math.floor(next() * max);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)] as string;
  return s;
}

interface PlacedDoc {
  readonly id: string;
  readonly routing?: string;
}

/** 300 documents: numeric and generated ids, a third of them with a custom routing. */
function documents(seed: number): PlacedDoc[] {
  const next = seeded(seed);
  const docs: PlacedDoc[] = [];
  const ids = new Set<string>();
  while (docs.length < 300) {
    const id = docs.length < 100 ? String(docs.length) : word(next, 24);
    if (ids.has(id)) continue;
    ids.add(id);
    docs.push(docs.length % 3 === 2 ? { id, routing: word(next, 12) } : { id });
  }
  return docs;
}

/** Where the node put each document: its id → the shard whose `preference=_shards:N` search finds it. */
async function nodePlacement(index: string, shards: number): Promise<Map<string, number>> {
  const where = new Map<string, number>();
  for (let shard = 0; shard < shards; shard++) {
    const r = await nodeCall('POST', `/${index}/_search?preference=_shards:${shard}`, { size: 1000, _source: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body._shards.total).toBe(1);
    for (const h of r.body.hits.hits as { _id: string }[]) {
      expect(where.has(h._id), `${h._id} found on two shards`).toBe(false);
      where.set(h._id, shard);
    }
  }
  return where;
}

describe('which shard a document lives on', () => {
  it('is the node’s, by _id and by routing, for several shard counts and routing shards', async () => {
    // [shards, number_of_routing_shards given (undefined: the default)]
    const layouts: [number, number | undefined][] = [[2, undefined], [3, undefined], [5, undefined], [7, undefined], [16, undefined], [3, 12], [4, 64], [6, 6]];
    let compared = 0;
    let agreed = 0;
    for (const [i, [shards, routingShards]] of layouts.entries()) {
      const index = `placed-${shards}-${routingShards ?? 'default'}`;
      const settings: Record<string, unknown> = { number_of_shards: shards, number_of_replicas: 0 };
      if (routingShards !== undefined) settings.number_of_routing_shards = routingShards;
      const created = await nodeCall('PUT', `/${index}`, { settings });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const docs = documents(21 + i);
      const lines = docs.flatMap((d) => [JSON.stringify({ index: { _id: d.id, ...(d.routing === undefined ? {} : { routing: d.routing }) } }), JSON.stringify({ n: 1 })]);
      const bulk = await nodeCall('POST', `/${index}/_bulk?refresh=true`, lines.join('\n') + '\n');
      expect(bulk.body.errors, JSON.stringify(bulk.body.items.find((x: { index: { error?: unknown } }) => x.index.error))).toBe(false);
      const where = await nodePlacement(index, shards);
      const rs = routingShards ?? defaultRoutingShards(shards);
      const wrong: string[] = [];
      for (const d of docs) {
        compared++;
        const mine = shardOf(d.routing ?? d.id, shards, rs);
        if (mine === where.get(d.id)) agreed++;
        else wrong.push(`${JSON.stringify(d)}: node ${where.get(d.id)}, Portico ${mine}`);
      }
      expect(wrong, `${index}: ${wrong.slice(0, 5).join('; ')}`).toEqual([]);
      // The node spread them over every shard (a placement ignoring the routing would not).
      expect(new Set(where.values()).size).toBe(shards);
      await nodeCall('DELETE', `/${index}`);
    }
    console.log(`shard placement: ${compared} documents compared, ${agreed} on the node's shard`);
  }, SLOW);

  it('uses the default number of routing shards the node uses', async () => {
    for (const shards of [2, 3, 5, 9, 24]) {
      const index = `routing-default-${shards}`;
      expect((await nodeCall('PUT', `/${index}`, { settings: { number_of_shards: shards, number_of_replicas: 0 } })).status).toBe(200);
      // The node shows its routing shards in the index metadata (`_cluster/state`).
      const state = await nodeCall('GET', `/_cluster/state/metadata/${index}?filter_path=metadata.indices.*.routing_num_shards`);
      expect(state.body.metadata.indices[index].routing_num_shards).toBe(defaultRoutingShards(shards));
      await nodeCall('DELETE', `/${index}`);
    }
  }, SLOW);
});

describe('the settings that place documents', () => {
  it('are checked at creation as the node checks them', async () => {
    const cases: Record<string, unknown>[] = [
      { number_of_shards: 1, number_of_routing_shards: 0 },
      { number_of_shards: 1, number_of_routing_shards: 'x' },
      { number_of_shards: 1, routing_partition_size: 0 },
      { number_of_shards: 0 },
      { number_of_shards: 1025 },
      { number_of_shards: 'many' },
    ];
    for (const [i, settings] of cases.entries()) await same('PUT', `/bad-${i}`, { settings });
    // Taken by both: on one shard any number of routing shards is a multiple of the shard count.
    const taken = [{ number_of_routing_shards: 1 }, { number_of_routing_shards: 3 }, { number_of_routing_shards: 1024 }, { number_of_routing_shards: 5000 }, { routing_partition_size: 1 }];
    for (const [i, settings] of taken.entries()) {
      await same('PUT', `/good-${i}`, { settings: { number_of_shards: 1, number_of_replicas: 0, ...settings } });
      await same('GET', `/good-${i}/_settings?flat_settings=true&filter_path=*.settings.index.number_of_routing_shards,*.settings.index.routing_partition_size`);
    }
  }, SLOW);

  it('stay as created: changing them is refused as the node refuses it', async () => {
    await same('PUT', '/fixed', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    for (const index of [{ number_of_shards: 2 }, { number_of_routing_shards: 4 }, { routing_partition_size: 1 }]) await same('PUT', '/fixed/_settings', { index });
  }, SLOW);

  it('a routing partition and resizing are refused by Portico', async () => {
    // The node takes a partition size above 1 and then refuses every write whose mapping does not
    // require `_routing` ("must have routing required for partitioned index"): refused here.
    const partitioned = await porticoCall('PUT', '/partitioned', { settings: { number_of_shards: 1, routing_partition_size: 2 } });
    expect([partitioned.status, partitioned.body.error.reason]).toEqual([400, '[index.routing_partition_size] of [2] (a routing value is placed on one shard) is not supported by this server']);
    await same('PUT', '/source', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    for (const op of ['_shrink', '_split', '_clone']) {
      // A missing source index is the node's 404 on both.
      await same('POST', `/nope/${op}/target`, { settings: { 'index.number_of_shards': 2 } });
      const p = await porticoCall('POST', `/source/${op}/target`, { settings: { 'index.number_of_shards': 2 } });
      expect(p.status).toBe(400);
      expect(p.body.error.reason).toBe(`[${op}] (resizing or cloning an index) is not supported by this server`);
    }
  }, SLOW);
});

/** Searches compared by `difference` (hits, order, scores within 1e-5, totals) and `_shards`, counted for the note. */
let searchesCompared = 0;

/** Sends a search to both: the same hits in the same order, scores within the tolerance, the same `_shards` and aggregations. */
async function sameSearch(path: string, body: Record<string, unknown>): Promise<void> {
  searchesCompared++;
  const [p, n] = [await porticoCall('POST', path, body), await nodeCall('POST', path, body)];
  const diff = difference(p, n, scorePositions(body.sort));
  if (diff !== undefined) expect.fail(`POST ${path} ${JSON.stringify(body)}: ${diff}\nPortico ${JSON.stringify(p.body.hits?.hits?.map((h: { _id: string; sort?: unknown; _score?: unknown }) => [h._id, h.sort, h._score]))}\nnode ${JSON.stringify(n.body.hits?.hits?.map((h: { _id: string; sort?: unknown; _score?: unknown }) => [h._id, h.sort, h._score]))}`);
  if (p.status < 300) {
    expect(p.body._shards, `${path} ${JSON.stringify(body)}`).toEqual(n.body._shards);
    expect(p.body.aggregations, `${path} ${JSON.stringify(body)}`).toEqual(n.body.aggregations);
  }
}

const VOCABULARY = ['apt', 'package', 'library', 'python', 'data', 'server', 'tool', 'web', 'client', 'module', 'debian', 'font', 'game', 'kernel', 'perl', 'rust'];

/** 400 documents: words drawn unevenly (so each shard's statistics differ), a keyword, a number, a third with a routing. */
function corpus(seed: number): { id: string; routing?: string; source: Record<string, unknown> }[] {
  const next = seeded(seed);
  return Array.from({ length: 400 }, (_, i) => {
    const words = Array.from({ length: 1 + Math.floor(next() * 9) }, () => VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)] as string);
    // `n` is unique (37 is prime to 1000): a field sort has no ties, whose order across shards
    // OpenSearch and ES 8 break differently (docs/search.md, "Several shards").
    const source = { text: words.join(' '), tag: `t${Math.floor(next() * 5)}`, n: (i * 37) % 1000 };
    // Unique ids (the same id under two routings is two documents on the node, one here: docs/search.md).
    const id = i % 2 === 0 ? String(i) : `${word(next, 10)}~${i}`;
    return i % 3 === 2 ? { id, routing: `r${i % 7}`, source } : { id, source };
  });
}

describe('an index of several shards, side by side', () => {
  const docs = corpus(7);
  const indices = [
    { name: 'multi', settings: { number_of_shards: 3, number_of_replicas: 0 } },
    { name: 'multi-rep', settings: { number_of_shards: 2, number_of_replicas: 1 } },
  ];

  it('loads the same documents on both', async () => {
    const lines = docs.flatMap((d) => [JSON.stringify({ index: { _id: d.id, ...(d.routing === undefined ? {} : { routing: d.routing }) } }), JSON.stringify(d.source)]);
    for (const { name, settings } of indices) {
      const mappings = { properties: { text: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'integer' } } };
      await same('PUT', `/${name}`, { settings, mappings });
      for (const call of [porticoCall, nodeCall]) {
        // One bulk and one refresh: the node then holds each shard in one segment in write order, so
        // its ties (broken by shard, then Lucene's doc id) fall in Portico's order.
        const r = await call('POST', `/${name}/_bulk?refresh=true`, lines.join('\n') + '\n');
        expect(r.body.errors, JSON.stringify(r.body.items?.find((x: { index: { error?: unknown } }) => x.index.error))).toBe(false);
      }
      // Each copy counted, the primaries answering.
      await same('POST', `/${name}/_refresh`);
    }
  }, SLOW);

  it('answers searches alike: per-shard scores, merged pages, totals, _shards and aggregations', async () => {
    const queries: Record<string, unknown>[] = [
      { query: { match: { text: 'python' } } },
      { query: { match: { text: 'rust kernel font' } } },
      { query: { match: { text: { query: 'web server', operator: 'and' } } } },
      { query: { bool: { must: [{ match: { text: 'data' } }], should: [{ match: { text: 'library' } }], filter: [{ term: { tag: 't2' } }] } } },
      { query: { multi_match: { query: 'tool client', fields: ['text', 'tag'] } } },
      { query: { range: { n: { gte: 100, lt: 400 } } }, sort: [{ n: 'asc' }] },
      { query: { match_all: {} }, sort: [{ tag: 'desc' }, { n: 'asc' }] },
      { query: { match: { text: 'package' } }, sort: ['_score', { n: 'desc' }] },
      { query: { term: { tag: 't1' } } },
      { size: 0, aggs: { tags: { terms: { field: 'tag' } }, top: { max: { field: 'n' } } } },
      // More terms than each shard keeps (shard_size 17): the per-shard cut and its error bounds.
      { size: 0, aggs: { ns: { terms: { field: 'n', size: 5, show_term_doc_count_error: true } }, words: { terms: { field: 'tag', size: 2, shard_size: 2 } } } },
      { size: 0, query: { match: { text: 'python' } }, aggs: { ns: { terms: { field: 'n', size: 3, order: { _key: 'desc' } } } } },
      { query: { match: { text: 'debian apt' } }, track_total_hits: false },
      // Gathered over the shards: collapsed hits, each tag's top hits.
      { query: { match: { text: 'python tool' } }, collapse: { field: 'tag' } },
      { size: 0, aggs: { tags: { terms: { field: 'tag' }, aggs: { top: { top_hits: { size: 2, sort: [{ n: 'asc' }], _source: false } } } } } },
    ];
    for (const index of ['multi', 'multi-rep']) {
      for (const q of queries) {
        for (const [from, size] of [[0, 10], [37, 25], [380, 30]] as const) {
          if (q.size === 0 && from > 0) continue;
          await sameSearch(`/${index}/_search`, { from, size, ...q });
        }
      }
      await sameSearch(`/${index}/_search`, { size: 20, query: { match: { text: 'module perl' } }, sort: [{ n: 'asc' }], search_after: [500] });
    }
    for (const routing of ['r0', 'r3', 'r1,r5', docs[0]?.id as string]) await sameSearch(`/multi/_search?routing=${encodeURIComponent(routing)}`, { size: 50, query: { match: { text: 'python data' } } });
    for (const preference of ['_shards:1', '_shards:0,2', '_shards:2|_local']) await sameSearch(`/multi/_search?preference=${encodeURIComponent(preference)}`, { size: 50, query: { match: { text: 'game tool' } } });
    await sameSearch('/multi,multi-rep/_search', { size: 40, query: { match: { text: 'library web' } } });
    // search_after needs a sort: none, or `_score` descending alone (which ES drops), fails every shard.
    for (const sort of [undefined, ['_score'], [{ _score: 'asc' }]]) await sameSearch('/multi/_search', { size: 5, query: { match: { text: 'tool' } }, search_after: [0.5], ...(sort === undefined ? {} : { sort }) });
    // Every shard over its result window: one failure listed per index and cause, as ES groups them.
    const failedShards = async (call: typeof nodeCall) => {
      const r = await call('POST', '/multi,multi-rep/_search', { from: 10_000, size: 1 });
      return [r.status, r.body.error.type, (r.body.error.failed_shards as { shard: number; index: string; reason: { type: string } }[]).map((f) => [f.shard, f.index, f.reason.type])];
    };
    expect(await failedShards(porticoCall)).toEqual(await failedShards(nodeCall));
    // Suggestions merged over the shards (each shard's frequencies summed).
    for (const text of ['pyhton', 'librray servr']) {
      const body = { size: 0, suggest: { s: { text, term: { field: 'text', suggest_mode: 'always' } } } };
      const [p, n] = [await porticoCall('POST', '/multi/_search', body), await nodeCall('POST', '/multi/_search', body)];
      expect(p.body.suggest, text).toEqual(n.body.suggest);
      searchesCompared++;
    }
    console.log(`several shards: ${searchesCompared} searches compared, each alike`);
  }, SLOW);

  it('scores with every shard\'s statistics under dfs_query_then_fetch, as the node does', async () => {
    const before = searchesCompared;
    const queries: Record<string, unknown>[] = [
      { match: { text: 'python' } },
      { match: { text: 'rust kernel font' } },
      { match: { text: { query: 'web server', operator: 'and' } } },
      { bool: { must: [{ match: { text: 'data' } }], should: [{ match: { text: 'library' } }, { term: { tag: 't3' } }], filter: [{ range: { n: { lt: 700 } } }] } },
      { multi_match: { query: 'tool client', fields: ['text', 'tag'] } },
      { multi_match: { query: 'perl module', fields: ['text^2', 'tag'], type: 'most_fields' } },
      // Blended per shard, then summed (each shard's weight asks for its blended frequency).
      { multi_match: { query: 'game t2', fields: ['text', 'tag'], type: 'cross_fields' } },
      { match_phrase: { text: 'python library' } },
      { match_phrase_prefix: { text: 'debian pa' } },
      { match: { text: { query: 'pyhton serevr', fuzziness: 'AUTO' } } },
      { match_bool_prefix: { text: 'web cl' } },
      { query_string: { query: 'text:(apt OR font) AND NOT tag:t0' } },
      { simple_query_string: { query: 'kernel | "data server"', fields: ['text'] } },
      { dis_max: { queries: [{ match: { text: 'rust' } }, { term: { tag: 't4' } }], tie_breaker: 0.5 } },
      { term: { tag: 't1' } },
      { prefix: { text: 'pa' } },
    ];
    for (const query of queries) {
      for (const path of ['/multi/_search', '/multi-rep/_search', '/multi,multi-rep/_search']) {
        for (const [from, size] of [[0, 10], [30, 40]] as const) await sameSearch(`${path}?search_type=dfs_query_then_fetch`, { from, size, query });
      }
    }
    // Sorted by score then a field, with scores tracked under a field sort, and a scroll's first batch.
    await sameSearch('/multi/_search?search_type=dfs_query_then_fetch', { size: 30, query: { match: { text: 'package tool' } }, sort: ['_score', { n: 'asc' }] });
    await sameSearch('/multi/_search?search_type=dfs_query_then_fetch', { size: 30, query: { match: { text: 'package tool' } }, sort: [{ n: 'desc' }], track_scores: true });
    await sameSearch('/multi/_search?search_type=dfs_query_then_fetch&scroll=1m', { size: 400, query: { match: { text: 'apt web' } } });
    console.log(`several shards, dfs_query_then_fetch: ${searchesCompared - before} searches compared, each alike`);
  }, SLOW);

  it('boosts the hits of each index by indices_boost, as the node does', async () => {
    const before = searchesCompared;
    const boosts: unknown[] = [
      [{ multi: 2.5 }],
      [{ 'multi-rep': 0.3 }, { multi: 1.7 }],
      // The first entry naming an index wins: multi-rep takes 3, multi 0.5.
      [{ 'multi-rep': 3 }, { 'multi*': 0.5 }],
      [{ multi: 0 }],
    ];
    const queries: Record<string, unknown>[] = [
      { match: { text: 'python library' } },
      { bool: { must: [{ match: { text: 'data' } }], filter: [{ term: { tag: 't2' } }] } },
      { match_all: {} },
    ];
    for (const indices_boost of boosts) {
      for (const query of queries) {
        await sameSearch('/multi,multi-rep/_search', { size: 30, query, indices_boost });
        await sameSearch('/multi,multi-rep/_search?search_type=dfs_query_then_fetch', { from: 5, size: 20, query, indices_boost });
      }
      await sameSearch('/multi,multi-rep/_search', { size: 20, query: { match: { text: 'tool web' } }, min_score: 1, indices_boost });
      // One index: across the two, equal sort values tie, and the node orders such ties otherwise (docs/search.md).
      await sameSearch('/multi/_search', { size: 20, query: { match: { text: 'tool web' } }, sort: [{ n: 'asc' }], track_scores: true, indices_boost });
    }
    // Refusals: a negative boost fails each boosted shard; a missing index is the 404; malformed entries and ES 7's object form are parse errors.
    // ES 7's object form: the node still takes it; ES 8 reads it as an unknown key, as Portico does.
    const objectForm = await porticoCall('POST', '/multi/_search', { indices_boost: { multi: 2 } });
    expect([objectForm.status, objectForm.body.error.type, objectForm.body.error.reason]).toEqual([400, 'parsing_exception', 'Unknown key for a START_OBJECT in [indices_boost].']);
    for (const indices_boost of [[{ multi: -1 }], [{ nope: 2 }], [{ multi: '2' }], [{ multi: 2, 'multi-rep': 1 }], [5], [{}]]) {
      const body = { query: { match_all: {} }, indices_boost };
      const [p, n] = [await porticoCall('POST', '/multi,multi-rep/_search', body), await nodeCall('POST', '/multi,multi-rep/_search', body)];
      searchesCompared++;
      const error = (a: Answer) => [a.status, a.body.error?.type, a.body.error?.reason, a.body.error?.failed_shards?.map((f: { shard: number; index: string; reason: { reason: string } }) => [f.shard, f.index, f.reason.reason])];
      expect(error(p), JSON.stringify(indices_boost)).toEqual(error(n));
    }
    await sameSearch('/multi,multi-rep/_search?ignore_unavailable=true', { size: 10, query: { match: { text: 'font' } }, indices_boost: [{ nope: 2 }, { multi: 2 }] });
    console.log(`several shards, indices_boost: ${searchesCompared - before} searches compared, each alike`);
  }, SLOW);

  it('spreads scroll slices over the shards as the node does', async () => {
    let slices = 0;
    for (const max of [2, 3, 4, 5]) {
      for (let id = 0; id < max; id++) {
        const body = { size: 400, _source: false, sort: ['_doc'], slice: { id, max } };
        const [p, n] = [await porticoCall('POST', '/multi/_search?scroll=1m', body), await nodeCall('POST', '/multi/_search?scroll=1m', body)];
        const ids = (a: Answer) => (a.body.hits.hits as { _id: string }[]).map((x) => x._id).sort();
        expect([p.body.hits.total, ids(p)], `slice ${id} of ${max}`).toEqual([n.body.hits.total, ids(n)]);
        slices++;
      }
    }
    console.log(`several shards: ${slices} scroll slices compared, each the node's documents`);
  }, SLOW);

  it('counts, gets and stats alike', async () => {
    for (const path of ['/multi/_count', '/multi/_count?routing=r2', '/multi-rep/_count?preference=_shards:1']) await same('POST', path, { query: { match: { text: 'server' } } });
    // Gets look on the routed shard only: with and without the routing, each document's answer (its sequence number on its shard included).
    for (const d of docs.filter((x) => x.routing !== undefined).slice(0, 40)) {
      await same('GET', `/multi/_doc/${encodeURIComponent(d.id)}`);
      await same('GET', `/multi/_doc/${encodeURIComponent(d.id)}?routing=${d.routing}`);
    }
    for (const d of docs.filter((x) => x.routing === undefined).slice(0, 20)) await same('GET', `/multi-rep/_doc/${encodeURIComponent(d.id)}`);
    await same('GET', '/multi,multi-rep/_stats/docs?filter_path=_shards,indices.*.primaries.docs.count');
    const rows = async (call: typeof nodeCall) => ((await call('GET', '/_cat/shards/multi,multi-rep?format=json&h=index,shard,prirep,state,docs')).body as Record<string, string>[])
      .map((r) => JSON.stringify(r)).sort();
    expect(await rows(porticoCall)).toEqual(await rows(nodeCall));
  }, SLOW);
});
