import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { restoreIndices, saveIndices, SNAPSHOT_FORMAT } from '../../../src/search/index/index-snapshot.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';

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
