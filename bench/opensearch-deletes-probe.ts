/**
 * What statistics score a search after updates and deletes, in OpenSearch and in Portico (not a
 * test): `npx tsx bench/opensearch-deletes-probe.ts` (needs the OpenSearch node of
 * test/search/opensearch-node.ts: Java 17 and Maven, see CONTRIBUTING.md).
 *
 * Indexes four documents, overwrites two and deletes one, then asks both for `match: quick` with
 * `explain`: OpenSearch's `n` (docFreq) and `N` (docCount) from its explanation and the scores,
 * before and after `_forcemerge?max_num_segments=1`, with its segments' live and deleted counts;
 * and Portico's scores for the same writes. Prints them; the choice it informs is in
 * docs/search.md ("Reclaiming overwritten and deleted documents").
 */
import { SearchService } from '../src/search/engine/search-service.js';
import { renderJson } from '../src/search/http/json-render.js';
import { parseBulk } from '../src/search/requests/bulk.js';
import { parseSearchRequest } from '../src/search/requests/search-request.js';
import { MapStore } from '../test/search/map-store.js';
import { startOpenSearch } from '../test/search/opensearch-node.js';

const FIRST = ['quick fox', 'lazy dog', 'quick dog', 'slow cat'].map((d, i) => `{"index":{"_id":"${i}"}}\n{"body":"${d}"}\n`).join('');
const CHANGES = '{"index":{"_id":"0"}}\n{"body":"quick fox"}\n{"index":{"_id":"2"}}\n{"body":"quick dog"}\n{"delete":{"_id":"3"}}\n';
const QUERY = { query: { match: { body: 'quick' } } };
const MAPPINGS = { properties: { body: { type: 'text' } } };

const portico = new SearchService(new MapStore(), Date.now);
portico.load();
portico.createIndex('t', { mappings: MAPPINGS });
const porticoHits = (): string => {
  const body = JSON.parse(renderJson(portico.search(portico.resolve('t'), parseSearchRequest(QUERY, {}), 0), false, true)) as { hits: { hits: { _id: string; _score: number }[] } };
  return JSON.stringify(body.hits.hits.map((h) => [h._id, h._score]));
};

const node = await startOpenSearch({ heap: '512m', startTimeoutMs: 400_000 });
try {
  await node.call('PUT', '/t', { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: MAPPINGS });
  const report = async (label: string): Promise<void> => {
    const r = await node.call('POST', '/t/_search', { ...QUERY, explain: true });
    const hits = r.body.hits.hits as { _id: string; _score: number; _explanation: unknown }[];
    const text = JSON.stringify(hits[0]?._explanation);
    const stat = (what: string): string => new RegExp(`"value":(\\d+),"description":"${what}"`).exec(text)?.[1] ?? '?';
    const segments = Object.values((await node.call('GET', '/t/_segments')).body.indices.t.shards['0'][0].segments as Record<string, { num_docs: number; deleted_docs: number }>);
    console.log(`${label}`);
    console.log(`  OpenSearch: scores ${JSON.stringify(hits.map((h) => [h._id, h._score]))}, n (docFreq) ${stat('n, number of documents containing term')}, N (docCount) ${stat('N, total number of documents with field')}, segments [live, deleted] ${JSON.stringify(segments.map((s) => [s.num_docs, s.deleted_docs]))}`);
    console.log(`  Portico:    scores ${porticoHits()}`);
  };
  await node.call('POST', '/t/_bulk?refresh=true', FIRST);
  portico.bulk(parseBulk(Buffer.from(FIRST), 't'));
  await report('four documents:');
  await node.call('POST', '/t/_bulk?refresh=true', CHANGES);
  portico.bulk(parseBulk(Buffer.from(CHANGES), 't'));
  await report('after overwriting 0 and 2 and deleting 3:');
  await node.call('POST', '/t/_forcemerge?max_num_segments=1');
  await node.call('POST', '/t/_refresh');
  portico.reclaimer.compactNow(portico.get('t'));
  await report('after _forcemerge?max_num_segments=1 (Portico: a compaction):');
  const fresh = new SearchService(new MapStore(), Date.now);
  fresh.load();
  fresh.createIndex('t', { mappings: MAPPINGS });
  fresh.bulk(parseBulk(Buffer.from('{"index":{"_id":"1"}}\n{"body":"lazy dog"}\n' + CHANGES.split('{"delete"')[0]), 't'));
  const freshBody = JSON.parse(renderJson(fresh.search(fresh.resolve('t'), parseSearchRequest(QUERY, {}), 0), false, true)) as { hits: { hits: { _id: string; _score: number }[] } };
  console.log(`a fresh index of the three live documents (Portico): ${JSON.stringify(freshBody.hits.hits.map((h) => [h._id, h._score]))}`);
} finally {
  await node.stop();
}
