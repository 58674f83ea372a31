import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { binaryBytes, utf8OfBinary } from '../../../src/pushgateway/exposition/binary-text.js';

const binary = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

describe('utf8OfBinary', () => {
  it('returns an ASCII string itself and decodes UTF-8 bytes', () => {
    const ascii = 'plain/value';
    expect(utf8OfBinary(ascii)).toBe(ascii);
    expect(utf8OfBinary(binary(Buffer.from('é€😀', 'utf8')))).toBe('é€😀');
    expect(utf8OfBinary('')).toBe('');
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(utf8OfBinary('\xff')).toBeUndefined();
    expect(utf8OfBinary('a\xc3')).toBeUndefined();
    expect(utf8OfBinary(binary(Buffer.from([0xed, 0xa0, 0x80])))).toBeUndefined();
  });

  it('round-trips any text and agrees with isUtf8 on any bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(utf8OfBinary(binary(Buffer.from(text, 'utf8')))).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        const got = utf8OfBinary(binary(bytes));
        expect(got).toBe(isUtf8(bytes) ? Buffer.from(bytes).toString('utf8') : undefined);
        expect(binaryBytes(binary(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });
});
