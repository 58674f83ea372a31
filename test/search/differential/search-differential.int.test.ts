/**
 * The differential search suite: the same index settings, mappings and documents in Portico and in a
 * real OpenSearch node (test/search/opensearch-node.ts), then the same generated requests to both;
 * every answer must agree (compare.ts) or match a listed, reasoned difference (known-differences.ts).
 * Prints the figures: requests compared, agreements, listed differences.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { difference, scorePositions, type Answer } from './compare.js';
import { mapInFlight } from './in-flight.js';
import { DEBIAN_MAPPINGS, GENERATED_MAPPINGS, INDEX_SETTINGS, debianCorpusPath, debianDocs, generatedDocs } from './corpus.js';
import { KNOWN_DIFFERENCES, type Found } from './known-differences.js';
import { generateRequests, searchAfterWalks, type DiffRequest } from './requests.js';
import { sideBySide } from './side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SEED = 21;
const REQUESTS = 2_100;
const WALKS = 40;

const { porticoCall, nodeCall } = sideBySide();

async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return Promise.all([porticoCall(method, path, body), nodeCall(method, path, body)]);
}

async function load(index: string, mappings: unknown, docs: [string, Record<string, unknown>][]): Promise<void> {
  for (const [status] of (await both('PUT', `/${index}`, { settings: INDEX_SETTINGS, mappings })).map((a) => [a.status])) expect(status).toBe(200);
  let ndjson = '';
  for (const [id, doc] of docs) ndjson += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
  // One bulk and one refresh: OpenSearch then holds the index in few segments in write order, so
  // its ties (broken by Lucene's doc id) fall in Portico's order (write order).
  for (const answer of await both('POST', `/${index}/_bulk?refresh=true`, ndjson)) {
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
    expect(answer.body.errors, JSON.stringify(answer.body.items.find((i: { index: { error?: unknown } }) => i.index.error))).toBe(false);
  }
}

beforeAll(async () => {
  const debian = debianDocs(debianCorpusPath(ROOT), 8);
  await load('debian', DEBIAN_MAPPINGS, debian);
  await load('gen', GENERATED_MAPPINGS, generatedDocs(3_000, SEED));
}, 300_000);

describe('Portico against OpenSearch', () => {
  const found: Found[] = [];
  let compared = 0;

  it('answers the generated requests as OpenSearch does', async () => {
    await mapInFlight(generateRequests(REQUESTS, SEED), async (req) => {
      const path = `/${req.index}/_search${req.params === undefined ? '' : `?${req.params}`}`;
      const [p, r] = await both('POST', path, req.body);
      compared++;
      const diff = difference(p, r, scorePositions(req.body.sort));
      if (diff !== undefined) found.push({ request: req, diff, portico: p, reference: r });
    });
  }, 600_000);

  it('walks search_after pages as OpenSearch does', async () => {
    // The walks side by side, each walk's pages in turn.
    await mapInFlight(searchAfterWalks(WALKS, SEED), async (walk) => {
      let after: unknown[] | undefined;
      for (let page = 0; page < 5; page++) {
        const body = after === undefined ? walk.body : { ...walk.body, search_after: after };
        const [p, r] = await both('POST', `/${walk.index}/_search`, body);
        compared++;
        const diff = difference(p, r, scorePositions(body.sort));
        const req: DiffRequest = { index: walk.index, body, kind: 'search_after' };
        if (diff !== undefined) {
          found.push({ request: req, diff, portico: p, reference: r });
          break;
        }
        const hits = r.body.hits.hits as { sort: unknown[] }[];
        if (hits.length === 0) break;
        after = hits[hits.length - 1]?.sort;
      }
    });
  }, 300_000);

  it('differs only where known-differences.ts says, and in each case it lists', () => {
    // PORTICO_DIFFERENTIAL_OUT=<file>: every difference found, to study them.
    const out = process.env.PORTICO_DIFFERENTIAL_OUT;
    if (out !== undefined) writeFileSync(out, JSON.stringify(found.map((f) => ({ request: f.request, diff: f.diff })), null, 1));
    const unexplained = found.filter((f) => !KNOWN_DIFFERENCES.some((k) => k.matches(f)));
    const stale = KNOWN_DIFFERENCES.filter((k) => !found.some((f) => k.matches(f)));
    const agreements = compared - found.length;
    console.log(`differential: ${compared} requests compared, ${agreements} agreements, ${found.length - unexplained.length} listed differences (${KNOWN_DIFFERENCES.length} cases), ${unexplained.length} unexplained`);
    for (const k of KNOWN_DIFFERENCES) console.log(`  ${found.filter((f) => k.matches(f)).length} × ${k.name} (${k.follows})`);
    expect(compared).toBeGreaterThanOrEqual(2_000);
    expect(unexplained.slice(0, 10).map((f) => `${JSON.stringify(f.request)} → ${f.diff}`)).toEqual([]);
    expect(stale.map((k) => `${k.name}: no longer differs; remove it from known-differences.ts and docs/search.md`)).toEqual([]);
  });
});
