import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedRuns } from '../../../src/pushgateway/store/sorted-runs.js';

/** Items are boxes so that removal by identity is tested with equal keys held by distinct items. */
interface Box {
  readonly key: number;
}

function insert(runs: SortedRuns<Box>, model: Box[], box: Box): void {
  runs.insert(
    runs.lowerBound((b) => b.key < box.key),
    box,
  );
  let i = 0;
  while (i < model.length && (model[i] as Box).key < box.key) i++;
  model.splice(i, 0, box);
}

describe('SortedRuns', () => {
  it('keeps the same order as one sorted array through any inserts and removals, across run splits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ add: fc.integer({ min: 0, max: 300 }) }), fc.record({ drop: fc.nat() })), { maxLength: 3000, size: 'max' }),
        (ops) => {
          const runs = new SortedRuns<Box>();
          const model: Box[] = [];
          for (const op of ops) {
            if ('add' in op) insert(runs, model, { key: op.add });
            else if (model.length > 0) {
              const box = model[op.drop % model.length] as Box;
              expect(runs.remove(runs.lowerBound((b) => b.key < box.key), box)).toBe(true);
              model.splice(model.indexOf(box), 1);
            }
          }
          expect([...runs]).toEqual(model);
          expect(runs.length).toBe(model.length);
          expect(runs.first()).toBe(model[0]);
          expect(runs.map((b) => b.key)).toEqual(model.map((b) => b.key));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('finds positions, neighbours and the items after a position as an array would', () => {
    const runs = new SortedRuns<Box>();
    const model: Box[] = [];
    // 2,000 items: several runs of at most 512.
    for (let i = 0; i < 2000; i++) insert(runs, model, { key: (i * 7919) % 1000 });
    for (const key of [-1, 0, 1, 499, 500, 998, 999, 1000]) {
      const at = runs.lowerBound((b) => b.key < key);
      const index = model.findIndex((b) => b.key >= key);
      const i = index < 0 ? model.length : index;
      expect(runs.at(at)).toBe(model[i]);
      expect(runs.before(at)).toBe(model[i - 1]);
      expect([...runs.from(at)]).toEqual(model.slice(i));
    }
  });

  it('says false when asked to remove an item it does not hold, and changes nothing', () => {
    const runs = new SortedRuns<Box>();
    const held = { key: 1 };
    runs.insert(
      runs.lowerBound(() => false),
      held,
    );
    expect(runs.remove(runs.lowerBound(() => false), { key: 1 })).toBe(false);
    expect([...runs]).toEqual([held]);
    expect(runs.remove(runs.lowerBound(() => false), held)).toBe(true);
    expect(runs.length).toBe(0);
    expect(runs.first()).toBeUndefined();
  });
});
