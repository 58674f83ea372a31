/**
 * The `phrase` suggester side by side with a real OpenSearch node (test/search/opensearch-node.ts):
 * a few hundred Debian packages in both, then seeded phrase requests (phrase-suggest-requests.ts):
 * misspelled and real-word-error phrases from the summaries with the suggester's options, its
 * smoothing models, generators and highlighting; the edge cases; every error. Each answer must
 * agree: the same option texts in the same order, scores within 1e-5 relative, the same
 * highlighted texts; for an error, the same status and type.
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCORE_TOLERANCE, type Answer } from './compare.js';
import { mapInFlight } from './in-flight.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS, debianCorpusPath, debianDocs } from './corpus.js';
import { phraseEdgeRequests, phraseErrorRequests, phraseRequests, type PhraseRequest } from './phrase-suggest-requests.js';
import { sideBySide } from './side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SEED = 2222;
const REQUESTS = 150;

const { porticoCall, nodeCall } = sideBySide();
let docs: [string, Record<string, unknown>][] = [];

async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return Promise.all([porticoCall(method, path, body), nodeCall(method, path, body)]);
}

beforeAll(async () => {
  // Every 100th package: 637 documents.
  docs = debianDocs(debianCorpusPath(ROOT), 100);
  // One bulk, one refresh, no periodic refresh: one segment on the node. The suggester's language
  // model counts the field's terms, which Lucene only knows for one segment (with several,
  // WordScorer takes maxDoc instead).
  const settings = { ...INDEX_SETTINGS, refresh_interval: '-1' };
  for (const a of await both('PUT', '/debian', { settings, mappings: DEBIAN_MAPPINGS })) expect(a.status).toBe(200);
  let ndjson = '';
  for (const [id, doc] of docs) ndjson += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
  for (const a of await both('POST', '/debian/_bulk?refresh=true', ndjson)) expect(a.body.errors).toBe(false);
  const segs = await nodeCall('GET', '/debian/_segments');
  const shards = segs.body.indices.debian.shards['0'] as { segments: Record<string, { search: boolean }> }[];
  expect(Object.values(shards[0]?.segments ?? {}).filter((seg) => seg.search)).toHaveLength(1);
}, 300_000);

function close(a: unknown, b: unknown): boolean {
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  return Math.abs(a - b) <= SCORE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
}

interface Option {
  text: string;
  highlighted?: string;
  score: number;
}

/** How Portico's answer differs from the node's (status and error type; entry, option texts in order, highlights, scores), or undefined. */
function phraseDifference(p: Answer, r: Answer): string | undefined {
  if (p.status !== r.status) return `status ${p.status} (${p.body?.error?.type ?? 'ok'}) vs ${r.status} (${r.body?.error?.type ?? 'ok'}: ${r.body?.error?.reason ?? ''})`;
  if (r.status !== 200) return p.body?.error?.type === r.body?.error?.type ? undefined : `error ${p.body?.error?.type} vs ${r.body?.error?.type} (${r.body?.error?.reason})`;
  const pe = p.body?.suggest?.s?.[0];
  const re = r.body?.suggest?.s?.[0];
  if (pe === undefined || re === undefined) return `entry ${JSON.stringify(pe)} vs ${JSON.stringify(re)}`;
  if (pe.text !== re.text || pe.offset !== re.offset || pe.length !== re.length || p.body.suggest.s.length !== 1) return `entry ${JSON.stringify(pe)} vs ${JSON.stringify(re)}`;
  const po = pe.options as Option[];
  const ro = re.options as Option[];
  const texts = (os: Option[]) => os.map((o) => o.text).join(' | ');
  if (texts(po) !== texts(ro)) return `options [${texts(po)}] vs [${texts(ro)}]`;
  for (let i = 0; i < ro.length; i++) {
    const a = po[i] as Option;
    const b = ro[i] as Option;
    if (a.highlighted !== b.highlighted) return `highlighted ${a.highlighted} vs ${b.highlighted}`;
    if (!close(a.score, b.score)) return `score of ${b.text}: ${a.score} vs ${b.score}`;
    if (Object.keys(a).join() !== Object.keys(b).join()) return `option keys ${Object.keys(a).join()} vs ${Object.keys(b).join()}`;
  }
  return undefined;
}

describe('the phrase suggester against OpenSearch', () => {
  it('answers the generated, edge and error requests as OpenSearch does', async () => {
    const requests: PhraseRequest[] = [...phraseRequests(REQUESTS, SEED, docs), ...phraseEdgeRequests(), ...phraseErrorRequests()];
    const found: string[] = [];
    const byTag = new Map<string, number>();
    let withOptions = 0;
    let options = 0;
    await mapInFlight(requests, async (req) => {
      const [p, r] = await both('POST', '/debian/_search', req.body);
      const diff = phraseDifference(p, r);
      const n = (r.body?.suggest?.s?.[0]?.options ?? []).length as number;
      options += n;
      if (n > 0) withOptions++;
      if (diff !== undefined) found.push(`${req.tags.join(',')} ${JSON.stringify(req.body.suggest)} → ${diff}`);
      for (const t of req.tags) byTag.set(t, (byTag.get(t) ?? 0) + 1);
    });
    const errorsSent = requests.filter((r) => r.kind === 'error').length;
    console.log(
      `phrase suggester differential: ${requests.length} requests (${errorsSent} errors, ${withOptions} with options, ${options} options), ${requests.length - found.length} agreements; ` +
        [...byTag].map(([t, n]) => `${t} ${n}`).join(', '),
    );
    expect(found.slice(0, 10)).toEqual([]);
    // The generated requests found corrections: agreement on empty answers proves nothing.
    expect(withOptions).toBeGreaterThan(REQUESTS / 2);
    for (const tag of ['misspelling', 'real-word error', 'confidence', 'max_errors', 'size', 'gram_size', 'highlight', 'smoothing:stupid_backoff', 'smoothing:laplace', 'smoothing:linear', 'direct_generator']) {
      expect(byTag.get(tag) ?? 0, tag).toBeGreaterThan(3);
    }
  }, 600_000);
});
