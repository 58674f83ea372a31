import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeleteTombstones, GC_DELETES_MS } from '../../../src/search/engine/delete-tombstones.js';

describe('DeleteTombstones', () => {
  it('remembers a delete for gc_deletes (60 s), then forgets it', () => {
    const t = new DeleteTombstones();
    t.put('a', 7, 3, 1_000);
    expect(t.get('a', 1_000 + GC_DELETES_MS)).toEqual({ version: 7, seqNo: 3, deletedMs: 1_000 });
    expect(t.get('a', 1_001 + GC_DELETES_MS)).toBeUndefined();
    expect(t.size).toBe(0);
  });

  it('forgets a dropped id and replaces a repeated delete', () => {
    const t = new DeleteTombstones();
    t.put('a', 2, 1, 0);
    t.put('a', 3, 2, 5);
    expect(t.get('a', 5)?.version).toBe(3);
    t.drop('a');
    expect(t.get('a', 5)).toBeUndefined();
  });

  it('never holds more than its bound, nor an expired one past a put, and keeps the newest', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.nat(30)), { maxLength: 40 }), (deletes) => {
        const t = new DeleteTombstones(50, 3);
        let now = 0;
        for (const [id, dt] of deletes) {
          now += dt;
          t.put(id, 1, 0, now);
          expect(t.size).toBeLessThanOrEqual(3);
          expect(t.get(id, now)?.deletedMs).toBe(now);
        }
      }),
    );
  });
});
