import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../../src/search/index/inverted-index.js';
import { Mappings } from '../../src/search/mapping/mapping.js';
import { parseSettings } from '../../src/search/engine/index-settings.js';
import { ScratchArena } from '../../src/search/query/scratch-arena.js';
import { SearchContexts } from '../../src/search/engine/open-contexts.js';
import type { IndexState } from '../../src/search/engine/index-state.js';

// The doc values of a retired ordinal (an updated or deleted document) are kept only while a frozen
// point-in-time view may still read them (InvertedIndex.frozenView): without one, a document
// updated n times kept n copies of its multi-valued keyword and numeric values, in memory and in
// every snapshot, for good (s-pit2's removes kept them always).

const mappings = Mappings.parse({ properties: { tags: { type: 'keyword' }, nums: { type: 'long' } } });
const source = (i: number) => ({ tags: [`a${i}`, `b${i}`, `c${i}`], nums: [i, i + 1, i + 2] });
const parsed = (i: number) => parseDocument(source(i), mappings, 'one').doc;

/** The multi-valued doc values an index holds (ordinals with several values), per field kind. */
function multiSizes(index: InvertedIndex): { keyword: number; numeric: number } {
  const size = (f: unknown) => (f as { multi: Map<number, unknown> }).multi.size;
  return { keyword: size(index.keyword.get('tags')), numeric: size(index.numeric.get('nums')) };
}

/** Updates document `one` from version `from` to `to` (each a new ordinal, the old one removed). */
function update(index: InvertedIndex, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    index.remove(index.idToOrd.get('one') as number, parsed(i));
    index.add('one', parsed(i + 1));
  }
}

describe('doc values of retired ordinals', () => {
  it('go at the remove when no frozen view is open', () => {
    const index = new InvertedIndex();
    index.add('one', parsed(0));
    update(index, 0, 50);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    const ord = index.idToOrd.get('one') as number;
    expect(index.keyword.get('tags')?.valuesOf(0)).toBeUndefined();
    expect(index.numeric.get('nums')?.valuesOf(0)).toEqual([]);
    expect(index.keyword.get('tags')?.valuesOf(ord)).toEqual(['a50', 'b50', 'c50']);
  });

  it('stay for a frozen view, and go when the last view is released', () => {
    const index = new InvertedIndex();
    index.add('one', parsed(0));
    const first = index.frozenView(new Map());
    const second = index.frozenView(new Map());
    update(index, 0, 10);
    expect(first.keyword.get('tags')?.valuesOf(0)).toEqual(['a0', 'b0', 'c0']);
    expect(first.numeric.get('nums')?.valuesOf(0)).toEqual([0, 1, 2]);
    index.releaseView();
    expect(second.keyword.get('tags')?.valuesOf(0)).toEqual(['a0', 'b0', 'c0']);
    index.releaseView();
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    update(index, 10, 20);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
  });

  it('held for a view when a snapshot was taken are not restored with it', () => {
    const index = new InvertedIndex();
    index.add('one', parsed(0));
    index.frozenView(new Map());
    update(index, 0, 10);
    expect(multiSizes(index).keyword).toBe(11);
    const restored = InvertedIndex.restore(index.snapshot());
    expect(multiSizes(restored)).toEqual({ keyword: 1, numeric: 1 });
    expect(restored.keyword.get('tags')?.valuesOf(restored.idToOrd.get('one') as number)).toEqual(['a10', 'b10', 'c10']);
  });

  it('are released with the point in time that froze a view (close, expiry, index deletion)', () => {
    const index = new InvertedIndex();
    index.add('one', parsed(0));
    const state: IndexState = { name: 'r', uuid: 'u', createdMs: 0, settings: parseSettings(undefined), mappings, index, versions: [], seqNos: [], nextSeqNo: 1, arena: new ScratchArena() };
    const contexts = new SearchContexts();
    const write = (i: number): void => {
      const ord = index.idToOrd.get('one') as number;
      contexts.beforeWrite(state, ord, () => JSON.stringify(source(i)));
      index.remove(ord, parsed(i));
      index.add('one', parsed(i + 1));
    };
    const pit = contexts.openPit([state], 1000, 0);
    for (let i = 0; i < 5; i++) write(i);
    expect(multiSizes(index).keyword).toBe(6);
    expect(contexts.closePit(pit.id, 10)).toBe(1);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    // Expired, then swept by the next open.
    contexts.openPit([state], 1000, 20);
    for (let i = 5; i < 10; i++) write(i);
    contexts.openPit([state], 1000, 5000);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    write(10);
    contexts.dropIndex(state);
    write(11);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
  });
});
