import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { heldAfter } from '../harness.js';
import { FNV_BASIS, fnv, fnvCollisions } from './fnv-collisions.js';
import { tokens } from '../../../src/search/index/analyzer.js';
import { KeywordField } from '../../../src/search/index/keyword-field.js';
import { TextField } from '../../../src/search/index/text-field.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { parseSettings } from '../../../src/search/engine/index-settings.js';
import { SearchContexts } from '../../../src/search/engine/open-contexts.js';
import { newIndexState, type IndexState } from '../../../src/search/engine/index-state.js';

/**
 * InvertedIndex and its fields (index/inverted-index.ts): terms, memory held by big values, doc
 * values of retired ordinals, keyword terms under crafted values, and the frozen view a point in
 * time reads.
 */

describe('inverted index terms', () => {
  it('a text field holds exactly the analyzer tokens as terms, with their frequencies', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 8 }), (values) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v]));
        const expected = new Map<string, number>();
        values.forEach((v) => new Set(tokens(v)).forEach((t) => expected.set(t, (expected.get(t) ?? 0) + 1)));
        expect(new Map([...f.terms.entries()].map(([t, id]) => [t, f.postings.docFreq(id)]))).toEqual(expected);
      }),
    );
  });

  it('keeps every posting (ordinal, frequency) of mixed-case and non-ASCII text, and forgets removed documents in docFreq', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'Q', 'é', 'İ', 'Σ', ' ', '.', '日', '\u{1d400}', '1'), maxLength: 40 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), fc.array(fc.nat(29), { maxLength: 5 }), (values, removed) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v]));
        const gone = new Set(removed.filter((i) => i < values.length));
        for (const i of gone) f.remove(i, [values[i] as string]);
        const expected = new Map<string, [number, number][]>();
        values.forEach((v, ord) => {
          const freqs = new Map<string, number>();
          for (const t of tokens(v)) freqs.set(t, (freqs.get(t) ?? 0) + 1);
          for (const [t, n] of freqs) expected.set(t, [...(expected.get(t) ?? []), [ord, n]]);
        });
        expect(f.terms.size).toBe(expected.size);
        for (const [t, postings] of expected) {
          const id = f.lookup(t);
          expect(id).toBeGreaterThanOrEqual(0);
          const packed = Array.from(f.postings.postings(id));
          expect(packed.map((p) => [p >>> 4, f.postings.freqOf(id, p)])).toEqual(postings);
          expect(f.postings.docFreq(id)).toBe(postings.filter(([ord]) => !gone.has(ord)).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives a term the same id whether it came from a short value, a long ASCII value (bytes) or a non-ASCII one', () => {
    const word = fc.constantFrom('alpha', 'ALPHA', 'Beta', 'x1', 'a.b', "dog's", '3.14', 'foo_bar', 'é', '日');
    const value = fc.array(word, { maxLength: 12 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), fc.array(fc.nat(19), { maxLength: 4 }), (values, removed) => {
        const f = new TextField();
        values.forEach((v, i) => f.add(i, [v, v.toUpperCase()]));
        const gone = new Set(removed.filter((i) => i < values.length));
        for (const i of gone) f.remove(i, [values[i] as string, (values[i] as string).toUpperCase()]);
        const expected = new Map<string, [number, number][]>();
        values.forEach((v, ord) => {
          const freqs = new Map<string, number>();
          for (const t of [...tokens(v), ...tokens(v.toUpperCase())]) freqs.set(t, (freqs.get(t) ?? 0) + 1);
          for (const [t, n] of freqs) expected.set(t, [...(expected.get(t) ?? []), [ord, n]]);
        });
        expect(new Set(f.terms.keys())).toEqual(new Set(expected.keys()));
        for (const [t, postings] of expected) {
          const id = f.lookup(t);
          expect(f.terms.text(id)).toBe(t);
          expect(Array.from(f.postings.postings(id), (p) => [p >>> 4, f.postings.freqOf(id, p)])).toEqual(postings);
          expect(f.postings.docFreq(id)).toBe(postings.filter(([ord]) => !gone.has(ord)).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('indexes a value repeated from the previous document (counted once, replayed) exactly as a value seen for the first time', () => {
    // A small pool so that documents repeat their predecessor's value, often but not always (the last
    // is too long to be remembered); `[v, '']` has the same tokens as `[v]` but is no single value,
    // so the reference field never replays.
    const value = fc.constantFrom('', '--', 'optional', 'Optional extra', 'Debian Games Team <pkg-games@lists.debian.org>', 'a a a a a a a a a a a a a a a a a b', 'héllo wörld', '日本', 'long value '.repeat(100));
    const doc = fc.oneof(value.map((v) => [v]), fc.array(value, { maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 40 }), fc.array(fc.nat(39), { maxLength: 4 }), (docs, removed) => {
        const f = new TextField();
        const ref = new TextField();
        docs.forEach((vs, ord) => {
          f.add(ord, vs);
          ref.add(ord, vs.length === 1 ? [vs[0] as string, ''] : vs);
        });
        for (const ord of new Set(removed.filter((i) => i < docs.length))) {
          f.remove(ord, docs[ord] as string[]);
          ref.remove(ord, docs[ord] as string[]);
        }
        expect([...f.terms.entries()]).toEqual([...ref.terms.entries()]);
        for (const [, id] of ref.terms.entries()) {
          expect(Array.from(f.postings.postings(id), (p) => [p, f.postings.freqOf(id, p)])).toEqual(Array.from(ref.postings.postings(id), (p) => [p, ref.postings.freqOf(id, p)]));
          expect([f.postings.docFreq(id), f.postings.maxFreq(id), f.postings.minNorm(id)]).toEqual([ref.postings.docFreq(id), ref.postings.maxFreq(id), ref.postings.minNorm(id)]);
        }
        expect(Array.from(f.norms.subarray(0, docs.length))).toEqual(Array.from(ref.norms.subarray(0, docs.length)));
        expect([f.docCount, f.sumTotalTermFreq]).toEqual([ref.docCount, ref.sumTotalTermFreq]);
      }),
      { numRuns: 300 },
    );
  });

  it('builds the same text field in batches (postings grouped by term per batch) as document by document', () => {
    // Repeated values (replayed), long ASCII values (bytes path), non-ASCII ones (string path), a
    // frequency of 15 and more (side table), documents removed while their postings are still
    // batched, and batches that start and end anywhere, as `_bulk` requests do.
    const value = fc.oneof(
      fc.constantFrom('', 'optional', 'Optional extra', 'Debian Games Team <pkg-games@lists.debian.org>', 'a a a a a a a a a a a a a a a a a b', 'héllo wörld', 'long value '.repeat(100)),
      fc.array(fc.constantFrom('alpha', 'Beta', 'x1', 'a.b', 'é', '日', 'gamma', 'delta'), { maxLength: 30 }).map((ws) => ws.join(' ')),
    );
    const doc = fc.oneof(value.map((v) => [v]), fc.array(value, { maxLength: 3 }));
    const step = fc.record({ doc, begin: fc.boolean(), end: fc.boolean(), remove: fc.option(fc.nat(59)) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const f = new TextField();
        const ref = new TextField();
        const removed = new Set<number>();
        steps.forEach(({ doc: vs, begin, end, remove }, ord) => {
          if (begin) f.beginBatch();
          f.add(ord, vs);
          ref.add(ord, vs);
          if (remove !== null && remove <= ord && !removed.has(remove)) {
            removed.add(remove);
            f.remove(remove, steps[remove]?.doc as string[]);
            ref.remove(remove, steps[remove]?.doc as string[]);
          }
          if (end) f.flushBatch();
        });
        f.flushBatch();
        expect([...f.terms.entries()]).toEqual([...ref.terms.entries()]);
        for (const [, id] of ref.terms.entries()) {
          expect(Array.from(f.postings.postings(id), (p) => [p, f.postings.freqOf(id, p)])).toEqual(Array.from(ref.postings.postings(id), (p) => [p, ref.postings.freqOf(id, p)]));
          expect([f.postings.docFreq(id), f.postings.maxFreq(id), f.postings.minNorm(id)]).toEqual([ref.postings.docFreq(id), ref.postings.maxFreq(id), ref.postings.minNorm(id)]);
        }
        expect(Array.from(f.norms.subarray(0, steps.length))).toEqual(Array.from(ref.norms.subarray(0, steps.length)));
        expect([f.docCount, f.sumTotalTermFreq]).toEqual([ref.docCount, ref.sumTotalTermFreq]);
      }),
      { numRuns: 300 },
    );
  });

  it('gives a keyword value the same id whether it repeats the previous value or not', () => {
    const value = fc.constantFrom<string>('a', 'b', 'Optional', 'optional', '');
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 3 }), { maxLength: 40 }), (docs) => {
        const f = new KeywordField();
        docs.forEach((vs, ord) => f.add(ord, vs));
        const firstSeen = [...new Set(docs.flat())];
        expect([...f.terms.entries()]).toEqual(firstSeen.map((v, id) => [v, id]));
        for (const [v, id] of f.terms.entries()) {
          const ords = docs.flatMap((vs, ord) => (vs.includes(v) ? [ord] : []));
          expect(Array.from(f.postings.postings(id), (p) => p >>> 4)).toEqual(ords);
        }
        docs.forEach((vs, ord) => expect(f.valuesOf(ord) ?? []).toEqual(vs));
      }),
      { numRuns: 300 },
    );
  });

  it('finds every keyword value it holds and no other, through table growth and after a snapshot restore', () => {
    const value = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'A', 'a ', '\u0000', 'é', 'e\u0301', '日本'));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.array(value, { maxLength: 20 }), (values, probes) => {
        const f = new KeywordField();
        values.forEach((v, ord) => f.add(ord, [v]));
        const firstSeen = [...new Set(values)];
        const restored = KeywordField.restore(f.snapshot());
        for (const field of [f, restored]) {
          expect([...field.terms.entries()]).toEqual(firstSeen.map((v, id) => [v, id]));
          expect([...field.terms.keys()]).toEqual(firstSeen);
          for (const v of [...firstSeen, ...probes]) expect(field.lookup(v)).toBe(firstSeen.indexOf(v));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('does not keep buffers sized by the longest value it has indexed (a big document must not pin memory for good)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const f = new TextField();
    f.add(0, ['a short warm-up value of some length']);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    // 2 M characters of a handful of distinct words: postings and norms stay tiny.
    f.add(1, ['alpha beta '.repeat(200_000)]);
    expect(f.postings.docFreq(f.lookup('alpha'))).toBe(1);
    gc();
    // The bytes path kept a scratch copy of 2x the value and a token batch of 24x (about 50 MB here).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8_000_000);
  });

  it('does not keep a big text value alive once indexed (the repeat check must not pin a document for good)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const f = new TextField();
    f.add(0, ['a short warm-up value of some length']);
    const held = heldAfter(gc, 'external');
    const before = held();
    // 10 MB of text as JSON.parse makes it (one flat heap string), 2 distinct words: the index
    // itself grows by a few bytes per document.
    ((): void => {
      const big = JSON.parse(`"${'alpha beta '.repeat(1_000_000)}"`) as string;
      f.add(1, [big]);
    })();
    expect(f.postings.docFreq(f.lookup('alpha'))).toBe(1);
    expect(held() - before).toBeLessThan(4_000_000);
  });
});

// The doc values of a retired ordinal (an updated or deleted document) are kept only while a frozen
// point-in-time view may still read them (InvertedIndex.frozenView): without one, a document
// updated n times kept n copies of its multi-valued keyword and numeric values, in memory and in
// every snapshot, for good.

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
    const state: IndexState = newIndexState('r', 'u', 0, parseSettings(undefined), mappings, [{ index, versions: [], seqNos: [], nextSeqNo: 1 }]);
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
    // The view of the last refresh (searches see it until the next refresh) shares the frozen view.
    expect(multiSizes(index).keyword).toBe(6);
    contexts.refreshed(state);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    // Expired, then swept.
    contexts.openPit([state], 1000, 20);
    for (let i = 5; i < 10; i++) write(i);
    contexts.refreshed(state);
    expect(multiSizes(index).keyword).toBe(6);
    contexts.sweep(5000);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
    // The first write since the refresh freezes a view again; deleting the index lets it go.
    write(10);
    expect(multiSizes(index).keyword).toBe(2);
    contexts.dropIndex(state);
    expect(multiSizes(index)).toEqual({ keyword: 1, numeric: 1 });
  });
});

// KeywordTerms is an open-addressing table keyed by FNV-1a of the value,
// with a fixed offset basis. FNV-1a is iterated, so two blocks that take one state to the same
// state can be chained: k pairs found by a birthday search (about 2^16 hashes each) give 2^k
// distinct values with the same 32-bit hash. They all probe one chain and compare strings with
// each other: a _bulk of 16,384 such values cost 1.65 s of CPU (29 ms with a Map,
// whose string hashes V8 seeds per process), 2^18 values would block the event loop for minutes.
// The table must not put values that collide under the unseeded hash into one probe chain.

/** 2^rounds distinct values with one plain FNV-1a hash. */
const crafted = (rounds: number): string[] => fnvCollisions(rounds, { alphabet: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', seed: 1 });

describe('keyword terms under crafted values', () => {
  it('does not chain values whose unseeded FNV-1a hashes collide', () => {
    const values = crafted(10);
    expect(new Set(values.map((v) => fnv(FNV_BASIS, v))).size).toBe(1);
    const f = new KeywordField();
    values.forEach((v, ord) => f.add(ord, [v]));
    values.forEach((v, id) => expect(f.lookup(v)).toBe(id));
    // The longest run of occupied slots (a probe chain) in the table.
    const table = (f.terms as unknown as { table: Int32Array }).table;
    let longest = 0;
    let run = 0;
    for (let s = 0; s < table.length; s += 2) {
      run = table[s] === 0 ? 0 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeLessThan(64);
    // The birthday search above takes ~0.7 s alone; a reader saw it pass the 10 s default on a
    // machine busy with other suites.
  }, 60_000);
});

describe('InvertedIndex.frozenView', () => {
  it('knows no term, field or ordinal written after it was taken, and keeps the statistics of then', () => {
    let mappings = Mappings.empty();
    const index = new InvertedIndex();
    const add = (id: string, source: Record<string, unknown>): number => {
      const parsed = parseDocument(source, mappings, id);
      mappings = parsed.mappings;
      return index.add(id, parsed.doc);
    };
    const remove = (ord: number, id: string, source: Record<string, unknown>): void => index.remove(ord, parseDocument(source, mappings, id).doc);
    const a = { text: 'red fox', k: 'one', n: 1 };
    const b = { text: 'red dog', k: 'two', n: 2 };
    add('a', a);
    add('b', b);
    const ids = new Map<string, number>();
    const view = index.frozenView(ids);
    remove(0, 'a', a);
    for (let i = 0; i < 500; i++) add(`x${i}`, { text: `red w${i}`, k: `v${i}`, n: i, late: 'x' });
    const text = view.text.get('text');
    const live = index.text.get('text');
    expect(view.maxOrd).toBe(2);
    expect(view.liveCount).toBe(2);
    expect([...view.allLive()]).toEqual([0, 1]);
    expect(text?.docCount).toBe(2);
    expect(live?.docCount).toBe(501);
    expect(text?.postings.docFreq(text.lookup('red'))).toBe(2);
    expect(text?.postings.docFreq(text.lookup('fox'))).toBe(1);
    // The last term of the view (its record the last one copied).
    expect(text?.postings.docFreq(text.lookup('dog'))).toBe(1);
    expect(text?.lookup('w499')).toBe(-1);
    expect(live?.lookup('w499')).toBeGreaterThanOrEqual(0);
    expect(view.keyword.get('k.keyword')?.lookup('v499')).toBe(-1);
    expect(view.keyword.get('k.keyword')?.valuesOf(0)).toEqual(['one']);
    expect(view.numeric.get('n')?.valuesOf(0)).toEqual([1]);
    expect(view.text.has('late') || view.keyword.has('late')).toBe(false);
  });
});
