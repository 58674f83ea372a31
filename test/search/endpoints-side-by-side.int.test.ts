/**
 * The endpoints tools call and highlighting, side by side with the OpenSearch node
 * (test/search/opensearch-node.ts): the same Debian slice in both, then the same `_analyze`,
 * highlight, `_cat`, `_stats` and `_nodes` requests; every answer that can be compared must agree,
 * and the one listed difference (ES 8 marks a phrase as one span, OpenSearch each of its terms)
 * must be exactly that. The node has no reindex module, so `_delete_by_query`, `_update_by_query`
 * and `_reindex` are checked against ES's documented answers in test/search/routes/by-query.test.ts.
 */
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer } from './differential/compare.js';
import { DEBIAN_MAPPINGS, INDEX_SETTINGS, debianCorpusPath, debianDocs } from './differential/corpus.js';
import { HIGHLIGHT_CASES, highlightDifference } from './differential/highlight-cases.js';
import { sideBySide } from './differential/side-by-side.js';

const ROOT = resolve(import.meta.dirname, '../..');

const { porticoCall, nodeCall } = sideBySide();

async function both(method: string, path: string, body?: unknown): Promise<[Answer, Answer]> {
  return [await porticoCall(method, path, body), await nodeCall(method, path, body)];
}

beforeAll(async () => {
  const docs = debianDocs(debianCorpusPath(ROOT), 32);
  for (const a of await both('PUT', '/deb', { settings: INDEX_SETTINGS, mappings: DEBIAN_MAPPINGS })) expect(a.status).toBe(200);
  let ndjson = '';
  for (const [id, doc] of docs) ndjson += `${JSON.stringify({ index: { _id: id } })}\n${JSON.stringify(doc)}\n`;
  for (const a of await both('POST', '/deb/_bulk?refresh=true', ndjson)) expect(a.body.errors).toBe(false);
}, 300_000);

/**
 * Hits where a phrase occurrence straddles a passage's end ("command\nline" across a sentence
 * cut): ES 8, which matches the phrase as one span, clips it at the passage's end and opens no
 * passage for its rest; OpenSearch, matching each term, opens a new passage at "line".
 */
const STRADDLING_PHRASES = ['th-scheme-utilities', 'yaggo'];

/** ES 8's weight matches mark a phrase as one span; OpenSearch 2 marks each term: Portico's answer, as OpenSearch marks it. */
function asTermSpans(a: Answer): Answer {
  const split = (f: string) => f.replace(/<em>([^<]*)<\/em>/g, (_m, inner: string) => inner.replace(/[\p{L}\p{N}]+/gu, (w) => `<em>${w}</em>`));
  const hits = (a.body.hits.hits as { highlight?: Record<string, string[]> }[]).map((h) =>
    h.highlight === undefined ? h : { ...h, highlight: Object.fromEntries(Object.entries(h.highlight).map(([k, fs]) => [k, fs.map(split)])) },
  );
  return { status: a.status, body: { ...a.body, hits: { ...a.body.hits, hits } } };
}

describe('highlighting against OpenSearch', () => {
  it('gives the same fragments, in the same order, for every case over the Debian slice', async () => {
    const differences: string[] = [];
    let hits = 0;
    for (const c of HIGHLIGHT_CASES) {
      const [p, r] = await both('POST', '/deb/_search', { size: 20, _source: false, ...c.body });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      hits += (r.body.hits.hits as unknown[]).length;
      const phrase = c.name === 'phrase';
      const diff = highlightDifference(phrase ? asTermSpans(p) : p, r, phrase ? STRADDLING_PHRASES : []);
      if (diff !== undefined) differences.push(`${c.name}: ${diff}`);
      // The listed difference is real: Portico's phrase spans are whole.
      if (phrase) expect(JSON.stringify(p.body)).toContain('<em>command line</em>');
    }
    console.log(`highlight side by side: ${HIGHLIGHT_CASES.length} requests, ${hits} hits compared, ${differences.length} differences`);
    expect(differences.join("\n")).toBe("");
    expect(hits).toBeGreaterThan(150);
  }, 120_000);

  it("refuses fvh and unknown highlighter types with ES's error types", async () => {
    for (const type of ['fvh', 'nope']) {
      const [p, r] = await both('POST', '/deb/_search', { query: { match: { description: 'python' } }, highlight: { type, fields: { description: {} } } });
      expect([p.status, r.status]).toEqual([400, 400]);
    }
    const [p, r] = await both('POST', '/deb/_search', { query: { match: { description: 'python' } }, highlight: { foo: 1, fields: { description: {} } } });
    expect([p.status, p.body.error.type, p.body.error.reason]).toEqual([r.status, r.body.error.type, r.body.error.reason]);
  });
});

describe('_analyze against OpenSearch', () => {
  const requests: [string, unknown][] = [
    ['/_analyze', { analyzer: 'standard', text: ['The Quick-brown fox 3.14 v1 2nd', 'Hello 世界 한국어 カタカナ ひら 😀 ไทย', "don't e.g. x_1 1,000.5"] }],
    ['/_analyze', { analyzer: 'simple', text: ["Don't stop-me 42x Ünïcödé", 'ß straße'] }],
    ['/_analyze', { analyzer: 'whitespace', text: ['A  b\tc\nd', 'e\u00a0f'] }],
    ['/_analyze', { analyzer: 'keyword', text: ['A b', '', 'c'] }],
    ['/_analyze', { text: 'default analyzer' }],
    ['/deb/_analyze', { field: 'description', text: ['Python library for XML', 'second value'] }],
    ['/deb/_analyze', { field: 'maintainer.raw', text: 'Debian Python Team <team@x.org>' }],
    ['/deb/_analyze', { field: 'section', text: ['libs', 'python'] }],
    ['/deb/_analyze', { analyzer: 'whitespace', field: 'description', text: 'A B' }],
  ];
  const errors: [string, unknown][] = [
    ['/_analyze', { analyzer: 'nope', text: 'x' }],
    ['/_analyze', { analyzer: 'standard' }],
    ['/_analyze', { field: 'description', text: 'x' }],
    ['/deb/_analyze', { field: 'installed_size', text: '12' }],
    ['/deb/_analyze', { foo: 1, text: 'x' }],
    ['/_analyze', { analyzer: 'standard', text: 5 }],
    ['/_analyze', { analyzer: 'standard', text: 'x', filter: ['lowercase'] }],
    ['/nope/_analyze', { text: 'x' }],
  ];

  it('gives the same tokens, offsets, types and positions', async () => {
    for (const [path, body] of requests) {
      const [p, r] = await both('POST', path, body);
      expect([path, body, p.status, p.body]).toEqual([path, body, r.status, r.body]);
    }
  });

  it('refuses the same requests with the same error types (and texts where ES and OpenSearch agree)', async () => {
    for (const [path, body] of errors) {
      const [p, r] = await both('POST', path, body);
      expect([path, body, p.status, p.body.error.type, p.body.error.reason]).toEqual([path, body, r.status, r.body.error.type, r.body.error.reason]);
    }
  });
});

describe('counts and statistics against OpenSearch', () => {
  it('_cat/count, _cat/indices docs.count and _stats docs agree', async () => {
    const [p, r] = await both('GET', '/_cat/count/deb?format=json&h=count');
    expect(p.body).toEqual(r.body);
    const [pi, ri] = await both('GET', '/_cat/indices/deb?format=json&h=index,health,status,pri,rep,docs.count,docs.deleted');
    expect(pi.body).toEqual(ri.body);
    // Columns asked for by alias are shown under the alias, a `*` pattern's under their names.
    for (const h of ['i,h,s,p,r,dc,dd', 'i,dc,docs.count,idx', 'docs.*', 'I,DC']) {
      const [pa, ra] = await both('GET', `/_cat/indices/deb?format=json&h=${h}`);
      expect([h, pa.body]).toEqual([h, ra.body]);
    }
    const [ps, rs] = await both('GET', '/deb/_stats/docs');
    expect(ps.body.indices.deb.primaries.docs.count).toBe(rs.body.indices.deb.primaries.docs.count);
    expect(ps.body._shards).toEqual({ ...rs.body._shards });
    // Both count the searches each index served.
    const [pq, rq] = await both('GET', '/deb/_stats/search');
    expect(pq.body.indices.deb.total.search.query_total).toBeGreaterThan(0);
    expect(rq.body.indices.deb.total.search.query_total).toBeGreaterThan(0);
  });

  it('_cat/health and _nodes have the same shape, with ES 8 names where OpenSearch renamed them', async () => {
    const [p, r] = await both('GET', '/_cat/health?format=json');
    const pr = p.body[0] as Record<string, string>;
    const rr = r.body[0] as Record<string, string>;
    for (const k of ['status', 'node.total', 'node.data', 'shards', 'pri', 'relo', 'init', 'unassign', 'pending_tasks', 'max_task_wait_time', 'active_shards_percent']) {
      expect([k, pr[k]]).toEqual([k, rr[k]]);
    }
    // OpenSearch names the master `cluster_manager` and has no `unassign.pri`; ES 8 is followed.
    expect(Object.keys(rr)).toContain('discovered_cluster_manager');
    expect(Object.keys(pr)).toContain('unassign.pri');
    const [pn, rn] = await both('GET', '/_nodes/http');
    expect(pn.body._nodes).toEqual(rn.body._nodes);
    const pNode = Object.values(pn.body.nodes)[0] as Record<string, unknown>;
    const rNode = Object.values(rn.body.nodes)[0] as Record<string, unknown>;
    for (const k of ['name', 'transport_address', 'host', 'ip', 'version', 'roles', 'attributes', 'http']) expect(Object.keys(pNode)).toContain(k);
    expect(Object.keys(rNode)).toEqual(expect.arrayContaining(['name', 'host', 'ip', 'version', 'roles', 'http']));
    expect(rNode.roles).toContain('cluster_manager');
    expect(pNode.roles).toContain('master');
    expect(isDeepStrictEqual(Object.keys(pNode.http as object).sort(), Object.keys(rNode.http as object).sort())).toBe(true);
  });
});
