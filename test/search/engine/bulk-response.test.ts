import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BulkResponseWriter, bulkResponseObject, renderBulkResponseBytes } from '../../../src/search/engine/bulk-response.js';
import { errors } from '../../../src/search/errors.js';
import type { BulkItem, WriteResult } from '../../../src/search/engine/document-writes.js';

const results: WriteResult[] = ['created', 'updated', 'deleted', 'not_found', 'noop'];

const outcomeItem = fc.record({
  op: fc.constantFrom('index', 'create', 'update', 'delete'),
  outcome: fc.record({
    index: fc.oneof(fc.string(), fc.string({ unit: 'binary' })),
    id: fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u0001', '\u007f', 'é', '\ud800') })),
    version: fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(2 ** 60)),
    result: fc.constantFrom(...results),
    seqNo: fc.nat(),
  }),
});

const errorItem = fc.record({ op: fc.constantFrom('index', 'create', 'update', 'delete'), index: fc.string(), id: fc.string(), reason: fc.string() }).map(
  ({ op, index, id, reason }): BulkItem => ({ op, index, id, error: reason.length % 2 === 0 ? errors.illegalArgument(reason) : errors.documentMissing(index, 'uuid', id) }),
);

describe('bulk response', () => {
  it('the compact text is exactly JSON.stringify of the reference object', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(outcomeItem, errorItem), { maxLength: 20 }), fc.boolean(), fc.nat(), (items, refresh, took) => {
        expect(renderBulkResponseBytes(items, refresh, took).toString('utf8')).toBe(JSON.stringify(bulkResponseObject(items, refresh, took)));
      }),
    );
  });

  it('items rendered one by one as they are applied give the same bytes, whatever the size guess and took', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(outcomeItem, errorItem), { maxLength: 20 }), fc.boolean(), fc.oneof(fc.nat(), fc.double()), fc.nat(30), (items, refresh, took, guess) => {
        const w = new BulkResponseWriter(refresh, guess);
        for (const item of items) w.add(item);
        expect(w.finish(took).toString('utf8')).toBe(JSON.stringify(bulkResponseObject(items, refresh, took)));
      }),
    );
  });

  it('the bytes are the UTF-8 of that text, also for a bulk whose items outgrow the first guess', () => {
    const long = 'x'.repeat(1000);
    const items: BulkItem[] = Array.from({ length: 50 }, (_, i) => ({ op: 'index', outcome: { index: long, id: `${long}é${i}`, version: 1, result: 'created', seqNo: i } }));
    expect(renderBulkResponseBytes(items, true, 3).equals(Buffer.from(JSON.stringify(bulkResponseObject(items, true, 3)), 'utf8'))).toBe(true);
  });

  it('reports errors:true when any item failed and ES item statuses', () => {
    const items: BulkItem[] = [
      { op: 'index', outcome: { index: 'a', id: '1', version: 1, result: 'created', seqNo: 0 } },
      { op: 'delete', outcome: { index: 'a', id: '2', version: 1, result: 'not_found', seqNo: 1 } },
      { op: 'update', index: 'a', id: '3', error: errors.documentMissing('a', 'u', '3') },
    ];
    const body = JSON.parse(renderBulkResponseBytes(items, false, 5).toString('utf8')) as { errors: boolean; items: Record<string, { status: number; error?: { root_cause?: unknown } }>[] };
    expect(body.errors).toBe(true);
    expect(body.items.map((i) => Object.values(i)[0]?.status)).toEqual([201, 404, 404]);
    expect(body.items[2]?.update?.error?.root_cause).toBeUndefined();
  });
});
