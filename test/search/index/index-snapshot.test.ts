import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchForAll } from '../harness.js';
import { serialize } from 'node:v8';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { restoreIndices, saveIndices, SNAPSHOT_FORMAT } from '../../../src/search/index/index-snapshot.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';

/**
 * The index snapshot (index/index-snapshot.ts): its format, and its use across restarts only when
 * the store has not changed.
 */

// A clean shutdown saves the in-memory index; the next start uses it instead of re-reading every
// document, but only when the store has not changed since. Either way the answers are the same.
describe('index snapshot across restarts', () => {
  const h = searchForAll();
  const snapshotFile = () => join(h.dataDir, 'search', 'index.snapshot');
  const SEARCHES: Record<string, unknown>[] = [
    { query: { match: { text: 'alpha beta' } }, size: 50 },
    { query: { match: { text: 'gamma' } }, from: 3, size: 5, version: true, seq_no_primary_term: true },
    { query: { term: { 'tag.keyword': 't1' } }, size: 50 },
    { query: { range: { n: { gte: 3, lt: 7 } } }, sort: [{ n: 'desc' }, { 'tag.keyword': 'asc' }], size: 50 },
    { query: { prefix: { text: 'del' } }, size: 50 },
    { query: { bool: { must: [{ exists: { field: 'tags' } }], must_not: [{ match: { text: 'alpha' } }] } }, size: 50 },
    { query: { match_phrase: { text: 'beta gamma' } }, size: 50 },
    // Sized by the numeric field's bounds of every value (NumericField.lo, hi), which a restore recomputes.
    { size: 0, aggs: { h: { histogram: { field: 'n', interval: 2 } }, s: { stats: { field: 'n' } } } },
  ];

  beforeAll(async () => {
    let body = '';
    const words = ['alpha', 'beta', 'gamma', 'delta', 'Épsilon'];
    for (let i = 0; i < 120; i++) {
      const text = Array.from({ length: 1 + (i % 5) }, (_, k) => words[(i * 3 + k) % words.length]).join(' ');
      body += `{"index":{"_id":"d${i}"}}\n${JSON.stringify({ text, n: i % 9, tag: `t${i % 4}`, tags: i % 3 === 0 ? ['x', 'y'] : [] })}\n`;
    }
    for (let i = 0; i < 120; i += 7) body += `{"delete":{"_id":"d${i}"}}\n`;
    for (let i = 1; i < 120; i += 11) body += `{"index":{"_id":"d${i}"}}\n{"text":"alpha re-indexed","n":${i}}\n`;
    const res = await h.app.inject({ method: 'POST', url: '/s/_bulk?refresh=true', payload: body, headers: { 'content-type': 'application/x-ndjson' } });
    expect(res.json()).toMatchObject({ errors: false });
  });

  const answers = async (): Promise<unknown[]> => {
    const out: unknown[] = [];
    for (const s of SEARCHES) {
      const res = await h.app.inject({ method: 'POST', url: '/s/_search', payload: s });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { took?: number };
      delete body.took;
      out.push(body);
    }
    const count = await h.app.inject({ method: 'GET', url: '/s/_count' });
    out.push(count.json());
    return out;
  };

  it('answers the same from the snapshot, from a rebuild, and after writes that make the snapshot stale', async () => {
    const before = await answers();
    await h.restart();
    expect(existsSync(snapshotFile())).toBe(true);
    expect(await answers()).toEqual(before);

    // Without the snapshot: a full rebuild gives the same answers.
    await h.app.close();
    rmSync(snapshotFile());
    await h.restart();
    expect(await answers()).toEqual(before);

    // A stale snapshot (taken before a later write) is ignored.
    await h.restart();
    copyFileSync(snapshotFile(), `${snapshotFile()}.old`);
    const res = await h.app.inject({ method: 'PUT', url: '/s/_doc/new?refresh=true', payload: { text: 'alpha beta gamma', n: 1, tag: 't1' } });
    expect(res.statusCode).toBe(201);
    const after = await answers();
    expect(after).not.toEqual(before);
    await h.app.close();
    copyFileSync(`${snapshotFile()}.old`, snapshotFile());
    await h.restart();
    expect(await answers()).toEqual(after);

    // The snapshot really is what a restart reads: rows removed behind the store's back (no new
    // generation) still count, as the index was not rebuilt from them.
    const counted = (await h.app.inject({ method: 'GET', url: '/s/_count' })).json() as { count: number };
    await h.app.close();
    const db = new Database(join(h.dataDir, 'search', 'documents.db'));
    db.exec('DELETE FROM docs');
    db.close();
    await h.restart();
    expect((await h.app.inject({ method: 'GET', url: '/s/_count' })).json()).toMatchObject({ count: counted.count });
  });
});

describe('index snapshot format', () => {
  const build = (): InvertedIndex => {
    const index = new InvertedIndex();
    let mappings = Mappings.empty();
    for (let i = 0; i < 40; i++) {
      const parsed = parseDocument({ t: `w${i % 7} common common w${i % 3}`.repeat(1 + (i % 3)), k: `k${i % 5}`, n: i }, mappings, `d${i}`);
      mappings = parsed.mappings;
      index.add(`d${i}`, parsed.doc);
    }
    return index;
  };

  it('restores what it saved, posting for posting', () => {
    const index = build();
    const restored = restoreIndices(saveIndices([{ name: 'i', index, versions: [], seqNos: [], nextSeqNo: 0 }]), ['i'])?.get('i')?.index;
    expect(restored).toBeDefined();
    const a = index.text.get('t');
    const b = restored?.text.get('t');
    expect(b?.terms.keys()).toEqual(a?.terms.keys());
    for (const [term, id] of a?.terms.entries() ?? []) expect(b?.postings.postings(b.lookup(term))).toEqual(a?.postings.postings(id));
    // Appending after a restore continues the same lists.
    const parsed = parseDocument({ t: 'common w1' }, Mappings.empty(), 'x');
    index.add('x', parsed.doc);
    restored?.add('x', parsed.doc);
    for (const [term, id] of a?.terms.entries() ?? []) expect(b?.postings.postings(b.lookup(term))).toEqual(a?.postings.postings(id));
  });

  it('refuses a snapshot of an older layout (the caller then rebuilds from the store)', () => {
    const old = serialize({ format: SNAPSHOT_FORMAT - 1, indices: [{ name: 'i', index: build().snapshot(), versions: [], seqNos: [], nextSeqNo: 0 }] });
    expect(restoreIndices(old, ['i'])).toBeUndefined();
  });
});
