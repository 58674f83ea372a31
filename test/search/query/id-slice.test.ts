import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeId, murmur3x86_32, sliceOf } from '../../../src/search/query/id-slice.js';

describe('slices by _id (ES TermsSliceQuery)', () => {
  it('hashes as MurmurHash3 x86 32-bit does (the reference vectors)', () => {
    const h = (s: string, seed: number) => murmur3x86_32(Buffer.from(s, 'utf8'), seed) >>> 0;
    expect(h('', 0)).toBe(0);
    expect(h('', 1)).toBe(0x514e28b7);
    expect(h('test', 0)).toBe(0xba6bd213);
    expect(h('Hello, world!', 0)).toBe(0xc0363e43);
    expect(h('The quick brown fox jumps over the lazy dog', 0)).toBe(0x2e4ff723);
  });

  it('encodes ids as Lucene indexes _id: digits packed, URL-safe base64 decoded, other text UTF-8', () => {
    expect([...encodeId('123')]).toEqual([0xfe, 0x12, 0x3f]);
    expect([...encodeId('42')]).toEqual([0xfe, 0x42]);
    // "AAEC" is base64 for 00 01 02; an id whose first byte would read as a marker is escaped.
    expect([...encodeId('AAEC')]).toEqual([0, 1, 2]);
    expect([...encodeId('_w')]).toEqual([0xfd, 0xff]);
    // One base64 symbol alone, or trailing bits that are not zero: not base64, so UTF-8.
    expect([...encodeId('a')]).toEqual([0xff, 0x61]);
    expect([...encodeId('ab')]).toEqual([0xff, 0x61, 0x62]);
    expect([...encodeId('é')]).toEqual([0xff, 0xc3, 0xa9]);
  });

  it('puts every id in exactly one slice below max', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 2, max: 1024 }), (id, max) => {
        const s = sliceOf(id, max);
        return Number.isInteger(s) && s >= 0 && s < max;
      }),
    );
  });
});
