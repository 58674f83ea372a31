import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiBytes, hashRange, scanAsciiBytes, scanTokens, scanTokensGeneral, tokenText, tokens } from '../../src/search/analyzer.js';

describe('standard analyzer', () => {
  it.each([
    ["The 2 QUICK Brown-Foxes jumped over the lazy dog's bone.", ['the', '2', 'quick', 'brown', 'foxes', 'jumped', 'over', 'the', 'lazy', "dog's", 'bone']],
    ['john@example.com', ['john', 'example.com']],
    ['https://www.example.com/path?x=1', ['https', 'www.example.com', 'path', 'x', '1']],
    ['3.14 1,000 v1.2 2nd', ['3.14', '1,000', 'v1.2', '2nd']],
    ['foo_bar a:b U.S.A. ___', ['foo_bar', 'a:b', 'u.s.a']],
    ["'quoted' rock'n'roll", ['quoted', "rock'n'roll"]],
    ['日本語のテキスト', ['日', '本', '語', 'の', 'テキスト']],
    ['한국어 café naïve ÉCOLE', ['한국어', 'café', 'naïve', 'école']],
    ['', []],
  ])('%s', (input, expected) => {
    expect(tokens(input)).toEqual(expected);
  });

  it('splits tokens longer than 255 characters', () => {
    expect(tokens('a'.repeat(300)).map((t) => t.length)).toEqual([255, 45]);
  });

  it('never emits empty tokens or upper case, and is stable under re-analysis of its output', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        const out = tokens(s);
        for (const t of out) {
          expect(t.length).toBeGreaterThan(0);
          expect(t).toBe(t.toLowerCase());
        }
        expect(tokens(out.join(' '))).toEqual(out);
      }),
    );
  });

  it('tokenizes ASCII text with the fast path exactly as the general loop does, with matching hashes', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aZ09_.,;:\'" -/@x'.split('')), maxLength: 60 });
    fc.assert(
      fc.property(ascii, (s) => {
        const fast: string[] = [];
        scanTokens(s, (src, start, end, hash) => {
          fast.push(tokenText(src, start, end));
          if (hash !== undefined) expect(hash).toBe(hashRange(src, start, end));
        });
        const general: string[] = [];
        scanTokensGeneral(s, (src, start, end) => general.push(src.slice(start, end)));
        expect(fast).toEqual(general);
      }),
      { numRuns: 500 },
    );
  });

  it('tokenizes ASCII values as bytes exactly as the general loop does, with matching hashes', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aZ09_.,;:\'" -/@xQ\n'.split('')), maxLength: 300 });
    fc.assert(
      fc.property(ascii, (s) => {
        const bytes = new Uint8Array(s.length + 1);
        const n = asciiBytes(s, bytes);
        expect(n).toBe(s.length);
        const fast: string[] = [];
        const count = scanAsciiBytes(bytes, n, (b, start, end, hash) => {
          const text = String.fromCharCode(...b.subarray(start, end));
          fast.push(text);
          expect(hash).toBe(hashRange(text, 0, text.length));
        });
        const general: string[] = [];
        scanTokensGeneral(s, (src, start, end) => general.push(src.slice(start, end)));
        expect(fast).toEqual(general);
        expect(count).toBe(general.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('splits long ASCII runs as bytes like the string path, and refuses non-ASCII values', () => {
    const s = `${'A'.repeat(300)} b.${'c'.repeat(600)}`;
    const bytes = new Uint8Array(s.length);
    const fast: string[] = [];
    scanAsciiBytes(bytes, asciiBytes(s, bytes), (b, start, end, hash) => {
      const text = String.fromCharCode(...b.subarray(start, end));
      fast.push(text);
      expect(hash).toBe(hashRange(text, 0, text.length));
    });
    expect(fast).toEqual(tokens(s));
    for (const v of ['café', 'a\u0130b', 'x日', '\u{1d400}']) expect(asciiBytes(v, new Uint8Array(16))).toBe(-1);
    // A buffer too small to hold the value is never taken for all of it.
    expect(asciiBytes('abcdef', new Uint8Array(3))).toBe(-1);
  });

  it('restarts into the general loop at a non-ASCII character exactly as if it had run the general loop throughout', () => {
    // ASCII word characters and punctuation next to letters, marks, sigma (final-sigma context),
    // dotted I (lowercasing changes the length), CJK, Thai and a surrogate pair.
    const mixed = fc.array(fc.constantFrom(...[...'aZ09_.,;:\'" -/^`xΣσÉé\u0301\u0130日テไ—', '\u{1d400}']), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(mixed, (s) => {
        const fast: string[] = [];
        const n = scanTokens(s, (src, start, end, hash) => {
          fast.push(tokenText(src, start, end));
          expect(hash ?? hashRange(src, start, end)).toBe(hashRange(tokenText(src, start, end), 0, end - start));
        });
        const general: string[] = [];
        scanTokensGeneral(s, (src, start, end) => general.push(src.slice(start, end)));
        expect(fast).toEqual(general);
        expect(n).toBe(general.length);
      }),
      { numRuns: 2000 },
    );
  });
});
