import { describe, expect, it } from 'vitest';
import { PairFilter } from '../../../src/search/index/pair-filter.js';
import { TextField } from '../../../src/search/index/text-field.js';
import { Rng } from '../differential/corpus.js';


describe('PairFilter', () => {
  it('never says "never" of a pair it was given, through many layers, and rarely "maybe" of others', () => {
    const rng = new Rng(7);
    const next = (): number => rng.next();
    const filter = new PairFilter();
    const added = new Set<string>();
    const pairs: [number, number][] = [];
    for (let i = 0; i < 200_000; i++) {
      const p: [number, number] = [Math.floor(next() * 50_000), Math.floor(next() * 50_000)];
      pairs.push(p);
      added.add(`${p[0]},${p[1]}`);
      filter.add(p[0], p[1]);
      // Common pairs come again and again (they are not counted twice in a layer).
      if (i % 10 === 0) filter.add(1, 2);
    }
    for (const [a, b] of pairs) expect(filter.mayFollow(a, b)).toBe(true);
    expect(filter.mayFollow(1, 2)).toBe(true);
    let maybes = 0;
    let tried = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = 50_000 + Math.floor(next() * 50_000);
      const b = Math.floor(next() * 50_000);
      if (added.has(`${a},${b}`)) continue;
      tried++;
      if (filter.mayFollow(a, b)) maybes++;
    }
    // About 2 % a layer, summed over the layers (seven here).
    expect(maybes / tried).toBeLessThan(0.2);
    // The order matters: (b, a) is another pair.
    const order = new PairFilter();
    order.add(3, 4);
    expect([order.mayFollow(3, 4), order.mayFollow(4, 3)]).toEqual([true, false]);
    // About a byte per distinct pair, twice over for the layers.
    expect(filter.bytes).toBeLessThan(200_000 * 4);
  });

  it('keeps its pairs through a snapshot; a snapshot without one restores none', () => {
    const filter = new PairFilter();
    for (let i = 0; i < 10_000; i++) filter.add(i, i + 1);
    const restored = PairFilter.restore(structuredClone(filter.snapshot())) as PairFilter;
    for (let i = 0; i < 10_000; i++) expect(restored.mayFollow(i, i + 1)).toBe(true);
    restored.add(-5, 7);
    expect(restored.mayFollow(-5, 7)).toBe(true);
    expect(PairFilter.restore(undefined)).toBeUndefined();
  });
});

describe('TextField pairs', () => {
  const ids = (field: TextField, ...words: string[]) => words.map((w) => field.lookup(w));

  it('records adjacent tokens of one value, never across two values, on every indexing path', () => {
    for (const batched of [false, true]) {
      const field = new TextField();
      if (batched) field.beginBatch();
      // A short value (charCodeAt path), a long ASCII one (byte path), a non-ASCII one, and a repeat.
      field.add(0, ['alpha beta', 'gamma delta']);
      field.add(1, ['the quick brown fox jumps over the lazy dog again and again']);
      field.add(2, ['café crème brûlée']);
      field.add(3, ['alpha beta']);
      field.add(4, ['alpha beta']);
      if (batched) field.flushBatch();
      const pairs = field.pairs as PairFilter;
      const follows = (a: string, b: string) => {
        const [x, y] = ids(field, a, b);
        return pairs.mayFollow(x as number, y as number);
      };
      expect([follows('alpha', 'beta'), follows('gamma', 'delta'), follows('quick', 'brown'), follows('lazy', 'dog'), follows('café', 'crème'), follows('crème', 'brûlée')]).toEqual([true, true, true, true, true, true]);
      // Across the two values of document 0, and backwards: never recorded (a Bloom filter may
      // still say maybe, but not for these few pairs in a filter this empty).
      expect([follows('beta', 'gamma'), follows('beta', 'alpha'), follows('dog', 'alpha')]).toEqual([false, false, false]);
    }
  });

  it('is shared by a frozen view, and absent after restoring a snapshot that has none', () => {
    const field = new TextField();
    field.add(0, ['one two']);
    const view = field.frozenView();
    expect(view.pairs).toBe(field.pairs);
    const data = field.snapshot() as Record<string, unknown>;
    expect(TextField.restore(structuredClone(data)).pairs?.mayFollow(...(ids(field, 'one', 'two') as [number, number]))).toBe(true);
    const { pairs: _dropped, ...old } = data;
    const restored = TextField.restore(structuredClone(old));
    expect(restored.pairs).toBeUndefined();
    // Documents added later record nothing: a filter missing the older pairs would say "never" wrongly.
    restored.add(1, ['three four']);
    expect(restored.pairs).toBeUndefined();
  });
});
