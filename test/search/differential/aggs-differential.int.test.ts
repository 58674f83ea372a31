/**
 * Aggregations and collapse side by side with a real OpenSearch node (test/search/opensearch-node.ts):
 * the same corpus in both servers (the generated documents and a Debian slice, differential/corpus.ts),
 * then generated aggregation requests (every type Portico computes, nested, beside queries and
 * post_filter) and collapse requests; the `aggregations` and `hits` members must agree (numbers
 * within 1e-9 relative) or match a listed, reasoned difference. Then the errors ES gives for
 * aggregations Portico refuses, and aggregations through _msearch, a scroll's first page and a
 * point in time. Prints the figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import type { Answer } from './compare.js';
import { aggDifference, generateAggRequests, generateCollapseRequests, type AggRequest } from './agg-requests.js';
import { DEBIAN_MAPPINGS, GENERATED_MAPPINGS, INDEX_SETTINGS, debianCorpusPath, debianDocs, generatedDocs } from './corpus.js';
import { mapInFlight } from './in-flight.js';
import { sideBySide } from './side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SEED = 22;

const { porticoCall, nodeCall } = sideBySide();

async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return Promise.all([porticoCall(method, path, body), nodeCall(method, path, body)]);
}

async function load(index: string, mappings: unknown, docs: [string, Record<string, unknown>][]): Promise<void> {
  for (const a of await both('PUT', `/${index}`, { settings: INDEX_SETTINGS, mappings })) expect(a.status).toBe(200);
  let ndjson = '';
  for (const [id, doc] of docs) ndjson += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
  for (const a of await both('POST', `/${index}/_bulk?refresh=true`, ndjson)) expect(a.body.errors).toBe(false);
}

/** A difference between the servers that is not Portico's to fix, with its reason. */
interface Known {
  readonly name: string;
  readonly reason: string;
  matches(diff: string, reference: Answer): boolean;
}

const KNOWN: readonly Known[] = [
  {
    name: 'integer sort values of a missing field in top_hits and inner_hits',
    reason: 'OpenSearch 2.x sorts integer fields as Lucene INT (a missing value sorts as -2147483648); Elasticsearch 8 sorts them as LONG, as Portico does (see known-differences.ts).',
    matches: (d) => /sort\.0: -9223372036854776000 vs -2147483648$/.test(d) || /sort\.0: 9223372036854776000 vs 2147483647$/.test(d),
  },
  {
    name: 'the status of an invalid bucket order path',
    reason: 'Elasticsearch 8 answers an order path naming no usable sub-aggregation with 400 (AggregationExecutionException.InvalidPath); OpenSearch 2.x with 500. The error type is the same.',
    matches: (d, r) => r.status === 500 && /^status 400 \(search_phase_execution_exception/.test(d) && JSON.stringify(r.body).includes('Invalid aggregation order path'),
  },
  {
    name: "OpenSearch's internal error in cardinality under some histograms",
    reason: 'OpenSearch 2.19 answers 500 array_index_out_of_bounds_exception ("Index 0 out of bounds for length -3") for a cardinality sub-aggregation it cannot size; a bug of its own, not an answer to copy.',
    matches: (_d, r) => r.status === 500 && JSON.stringify(r.body).includes('array_index_out_of_bounds_exception'),
  },
];

function difference(p: Answer, r: Answer): string | undefined {
  if (p.status !== r.status) return `status ${p.status} (${p.body?.error?.type ?? 'ok'}: ${p.body?.error?.reason ?? ''}) vs ${r.status} (${r.body?.error?.type ?? 'ok'}: ${r.body?.error?.reason ?? ''})`;
  if (r.status >= 300) return p.body?.error?.type === r.body?.error?.type ? undefined : `error type ${p.body?.error?.type} vs ${r.body?.error?.type}`;
  return aggDifference(p.body.aggregations, r.body.aggregations) ?? aggDifference(p.body.hits, r.body.hits, 'hits');
}

beforeAll(async () => {
  await load('gen', GENERATED_MAPPINGS, generatedDocs(3_000, 21));
  await load('debian', DEBIAN_MAPPINGS, debianDocs(debianCorpusPath(ROOT), 8));
}, 300_000);

describe('aggregations and collapse against OpenSearch', () => {
  const figures = { compared: 0, agreed: 0, known: new Map<string, number>(), unstable: [] as string[] };
  const unexplained: string[] = [];

  async function compare(reqs: readonly AggRequest[]): Promise<void> {
    await mapInFlight(reqs, async (req) => {
      const [p, r] = await both('POST', `/${req.index}/_search${req.params === undefined ? '' : `?${req.params}`}`, req.body);
      figures.compared++;
      const diff = difference(p, r);
      if (diff === undefined) {
        figures.agreed++;
        return;
      }
      const known = KNOWN.find((k) => k.matches(diff, r));
      if (known !== undefined) {
        figures.known.set(known.name, (figures.known.get(known.name) ?? 0) + 1);
        return;
      }
      // Once in a loaded run OpenSearch answered a date_histogram bucket with 42 documents where it
      // answers 46 on every other run and every segment layout, and Portico (and a count of the
      // corpus) say 46. A reference that changes its answer to the same request on the same data
      // is not one to compare with for that request: asked again, if OpenSearch now gives exactly
      // Portico's first answer, the request is counted apart; otherwise it is unexplained.
      const again = await nodeCall('POST', `/${req.index}/_search${req.params === undefined ? '' : `?${req.params}`}`, req.body);
      if (again !== undefined && difference(p, again) === undefined) {
        figures.unstable.push(`${JSON.stringify(req.body)}\n  => first ${diff}`);
        return;
      }
      unexplained.push(`${JSON.stringify(req.body)}\n  => ${diff}`);
    });
  }

  it('computes the generated aggregations as OpenSearch does', async () => {
    const before = unexplained.length;
    await compare(generateAggRequests(250, SEED));
    expect(unexplained.slice(before, before + 5)).toEqual([]);
  }, 600_000);

  it('collapses the generated requests as OpenSearch does', async () => {
    const before = unexplained.length;
    await compare(generateCollapseRequests(80, SEED + 1));
    expect(unexplained.slice(before, before + 5)).toEqual([]);
  }, 600_000);

  it('refuses what ES refuses, with the same error types', async () => {
    const cases: Record<string, unknown>[] = [
      { aggs: { a: { nope: {} } } },
      { aggs: { a: { terms: { field: 'title' } } } },
      { aggs: { a: { sum: { field: 'tags' } } } },
      { aggs: { a: { histogram: { field: 'tags', interval: 5 } } } },
      { aggs: { a: { avg: { field: 'n' }, aggs: { b: { max: { field: 'n' } } } } } },
      { aggs: { a: { terms: { field: 'n' }, avg: { field: 'n' } } } },
      { aggs: { a: {} } },
      { aggs: { 'a>b': { terms: { field: 'n' } } } },
      { aggs: { a: { terms: { field: 'n', size: 0 } } } },
      { aggs: { a: { terms: { field: 'n', bad: 1 } } } },
      { aggs: { a: { terms: { field: 'n', order: { nope: 'desc' } } } } },
      { aggs: { a: { terms: { field: 'n', order: { _count: 'up' } } } } },
      { aggs: { a: { terms: { field: 'tags', include: 'r.*', exclude: ['red'] } } } },
      { aggs: { a: { date_histogram: { field: 'created' } } } },
      { aggs: { a: { date_histogram: { field: 'created', calendar_interval: '2d' } } } },
      { aggs: { a: { date_histogram: { field: 'created', fixed_interval: '1M' } } } },
      { aggs: { a: { histogram: { field: 'n' } } } },
      { aggs: { a: { terms: {} } } },
      { aggs: [] },
      { collapse: { field: 'title' } },
      { collapse: { field: 'created' } },
      { collapse: { field: 'owner.name', bad: 1 } },
      { collapse: { field: 'owner.name', inner_hits: {} } },
      { size: 1, collapse: { field: 'owner.name', inner_hits: {} } },
    ];
    const found: string[] = [];
    for (const body of cases) {
      const [p, r] = await both('POST', '/gen/_search', { size: 0, _source: false, ...body });
      const diff = difference(p, r);
      if (diff !== undefined && KNOWN.find((k) => k.matches(diff, r)) === undefined) found.push(`${JSON.stringify(body)} => ${diff}`);
    }
    expect(found).toEqual([]);
  });

  it('aggregates through _msearch, a scroll first page and a point in time', async () => {
    const body = { size: 2, query: { term: { flag: true } }, aggs: { t: { terms: { field: 'tags' } }, h: { histogram: { field: 'n', interval: 200 } } } };
    const ms = `{"index":"gen"}\n${JSON.stringify(body)}\n{"index":"debian"}\n${JSON.stringify({ size: 0, aggs: { s: { terms: { field: 'section', size: 5 } } } })}\n`;
    const [pm, rm] = await both('POST', '/_msearch', ms);
    expect(pm.status).toBe(200);
    for (let i = 0; i < 2; i++) expect(aggDifference(pm.body.responses[i].aggregations, rm.body.responses[i].aggregations)).toBeUndefined();
    const [ps, rs] = await both('POST', '/gen/_search?scroll=1m', body);
    expect(ps.status).toBe(200);
    expect(aggDifference(ps.body.aggregations, rs.body.aggregations)).toBeUndefined();
    const [pn] = await both('POST', '/_search/scroll', { scroll: '1m', scroll_id: ps.body._scroll_id });
    expect(pn.body.aggregations).toBeUndefined();
    const pit = await porticoCall('POST', '/gen/_pit?keep_alive=1m');
    const pp = await porticoCall('POST', '/_search', { ...body, pit: { id: pit.body.id } });
    expect(pp.status).toBe(200);
    expect(aggDifference(pp.body.aggregations, ps.body.aggregations)).toBeUndefined();
  });

  afterAll(() => {
    const known = [...figures.known].map(([name, n]) => `${n} × ${name}`).join('; ');
    console.log(`aggregations and collapse: ${figures.compared} requests compared, ${figures.agreed} agreements, ${figures.compared - figures.agreed - unexplained.length} listed differences (${known || 'none'}), ${unexplained.length} unexplained`);
    if (unexplained.length > 0) console.log(unexplained.slice(0, 20).join('\n'));
    if (figures.unstable.length > 0) console.log(`answered otherwise by OpenSearch when asked again (${figures.unstable.length}):\n${figures.unstable.join('\n')}`);
  });
});
