import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareByName, findByName, lowerBoundByName, type Named } from '../../src/collections/sorted-array.js';

const named = (...names: string[]): Named[] => names.map((name) => ({ name }));

// Full Unicode, so that surrogate pairs meet BMP characters above them (code unit order differs
// from code point order there); the searches must agree with compareByName's order either way.
const names = fc.array(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 40 });
const sortedUnique = names.map((ns) => [...new Set(ns)].map((name) => ({ name })).sort(compareByName));

describe('compareByName', () => {
  it('orders as < does on strings', () => {
    expect(compareByName({ name: 'a' }, { name: 'b' })).toBe(-1);
    expect(compareByName({ name: 'b' }, { name: 'a' })).toBe(1);
    expect(compareByName({ name: 'a' }, { name: 'a' })).toBe(0);
    expect(compareByName({ name: 'Z' }, { name: 'a' })).toBe(-1);
    expect(compareByName({ name: '\u{10000}' }, { name: '\uff00' })).toBe(-1);
  });
});

describe('findByName', () => {
  it('finds present names and no others', () => {
    const list = named('a', 'c', 'e');
    expect(findByName(list, 'a')).toBe(list[0]);
    expect(findByName(list, 'e')).toBe(list[2]);
    expect(findByName(list, 'b')).toBeUndefined();
    expect(findByName(list, 'f')).toBeUndefined();
    expect(findByName([], 'a')).toBeUndefined();
  });

  it('agrees with a linear search on any sorted list of unique names', () => {
    fc.assert(
      fc.property(sortedUnique, fc.string({ unit: 'binary', maxLength: 6 }), (list, probe) => {
        for (const e of list) expect(findByName(list, e.name)).toBe(e);
        expect(findByName(list, probe)).toBe(list.find((e) => e.name === probe));
      }),
    );
  });
});

describe('lowerBoundByName', () => {
  it('is the index of the first name not below the probe', () => {
    const list = named('a', 'c', 'e');
    expect(lowerBoundByName(list, '')).toBe(0);
    expect(lowerBoundByName(list, 'a')).toBe(0);
    expect(lowerBoundByName(list, 'b')).toBe(1);
    expect(lowerBoundByName(list, 'e')).toBe(2);
    expect(lowerBoundByName(list, 'f')).toBe(3);
    expect(lowerBoundByName(list, 'a', 2)).toBe(2);
  });

  it('agrees with a linear scan from any start, duplicates included', () => {
    fc.assert(
      fc.property(names, fc.string({ unit: 'binary', maxLength: 6 }), fc.nat(), (ns, probe, start) => {
        const list = ns.map((name) => ({ name })).sort(compareByName);
        const from = list.length === 0 ? 0 : start % (list.length + 1);
        const linear = list.findIndex((e, i) => i >= from && !(e.name < probe));
        expect(lowerBoundByName(list, probe, from)).toBe(linear === -1 ? list.length : linear);
      }),
    );
  });
});
