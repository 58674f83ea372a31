import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareGoStrings } from '../../../src/pushgateway/exposition/go-string-order.js';

describe('compareGoStrings', () => {
  it('orders like Go (UTF-8 bytes), not like UTF-16 code units', () => {
    expect(compareGoStrings('\uf172', '😀')).toBe(-1);
    expect('\uf172' < '😀').toBe(false);
    expect(compareGoStrings('a', 'b')).toBe(-1);
    expect(compareGoStrings('ab', 'a')).toBe(1);
    expect(compareGoStrings('', '')).toBe(0);
  });

  it('agrees with Buffer.compare of the UTF-8 encodings', () => {
    const str = fc.string({ unit: fc.constantFrom('a', 'é', '\uf172', '\uffff', '😀', '\u{10ffff}', '\ud7ff'), maxLength: 5 });
    const full = fc.string({ unit: 'binary', maxLength: 6 });
    fc.assert(
      fc.property(fc.oneof(str, full), fc.oneof(str, full), (a, b) => {
        expect(compareGoStrings(a, b)).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
      { numRuns: 1000 },
    );
  });
});
