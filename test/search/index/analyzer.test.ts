import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashRange, asciiBytes, scanAsciiBytes, scanTokens, scanTokensGeneral, tokenText, tokens } from '../../../src/search/index/analyzer.js';

/**
 * The standard analyzer (index/analyzer.ts): tokens, hashes and the ASCII byte scan at the edges of
 * its byte ranges.
 */

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

  /** The tokens and hashes scanAsciiBytes gives for `s`, or undefined when asciiBytes refuses it. */
  const byteTokens = (s: string): string[] | undefined => {
    const bytes = new Uint8Array(s.length);
    const n = asciiBytes(s, bytes);
    if (n < 0) return undefined;
    const out = new Int32Array(3 * Math.ceil(n / 2) + 3);
    const count = scanAsciiBytes(bytes, n, out);
    const texts: string[] = [];
    for (let t = 0; t < 3 * count; t += 3) {
      const text = String.fromCharCode(...bytes.subarray(out[t], out[t + 1]));
      texts.push(text);
      expect(out[t + 2]).toBe(hashRange(text, 0, text.length));
    }
    return texts;
  };

  it('tokenizes ASCII values as bytes exactly as the general loop does, with matching hashes', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aZ09_.,;:\'" -/@xQ\n'.split('')), maxLength: 300 });
    fc.assert(
      fc.property(ascii, (s) => {
        const general: string[] = [];
        scanTokensGeneral(s, (src, start, end) => general.push(src.slice(start, end)));
        expect(byteTokens(s)).toEqual(general);
      }),
      { numRuns: 1000 },
    );
  });

  it('takes a value as bytes only when that gives the tokens of the string path', () => {
    // KELVIN SIGN lowercases to ASCII `k`; dotted I lowercases to two units; the others stay non-ASCII.
    const mixed = fc.array(fc.constantFrom(...[...'aZ09_.,;:\' -xK\u212aΣéÉ\u0130日'], '\u{1d400}'), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(mixed, (s) => {
        const bytes = byteTokens(s);
        if (bytes !== undefined) expect(bytes).toEqual(tokens(s));
      }),
      { numRuns: 2000 },
    );
    // Not ASCII, so the string path takes it (and lowercases KELVIN SIGN to `k`).
    expect(byteTokens('\u212aelvin')).toBeUndefined();
    expect(tokens('\u212aelvin')).toEqual(['kelvin']);
    for (const v of ['café', 'a\u0130b', 'x日', '\u{1d400}']) expect(byteTokens(v)).toBeUndefined();
    // A buffer too small to hold the value is never taken for all of it.
    expect(asciiBytes('abcdef', new Uint8Array(3))).toBe(-1);
  });

  it('lowercases the upper-case letters of the bytes it scans, in place, and only those', () => {
    const s = 'Hello, WORLD_Zz 09 @[`{ A.B x:Y';
    const bytes = new Uint8Array(s.length);
    expect(asciiBytes(s, bytes)).toBe(s.length);
    // asciiBytes copies as is; the scan lowercases.
    expect(Buffer.from(bytes).toString('latin1')).toBe(s);
    scanAsciiBytes(bytes, s.length, new Int32Array(3 * s.length + 3));
    expect(Buffer.from(bytes).toString('latin1')).toBe(s.toLowerCase());
  });

  it('splits long ASCII runs as bytes like the string path', () => {
    const s = `${'A'.repeat(300)} b.${'c'.repeat(600)} __ _a_ ${'_'.repeat(400)}x`;
    expect(byteTokens(s)).toEqual(tokens(s));
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

// scanAsciiBytes classifies bytes by range compares (a-z, A-Z, 0-9, `_`, and the five middle
// characters) rather than by a class table: an off-by-one at a range's edge would change tokens
// only for the characters next to it (`/` `:` `@` `[` `` ` `` `{`), which the property tests in
// analyzer.test.ts draw rarely or never. Here every ASCII character meets every other one.
describe('scanAsciiBytes at the edges of its byte ranges', () => {
  const bytes = new Uint8Array(8);
  const out = new Int32Array(3 * 8 + 3);

  /** start:end:hash of each token, from the byte scanner. */
  const fromBytes = (s: string): string => {
    const n = asciiBytes(s, bytes);
    if (n !== s.length) return `refused (${n})`;
    const count = scanAsciiBytes(bytes, n, out);
    let text = '';
    for (let t = 0; t < 3 * count; t += 3) text += `${out[t]}:${out[t + 1]}:${out[t + 2]} `;
    return text;
  };
  /** The same from the general scanner (its hash is hashRange of the lowered token). */
  const fromScan = (s: string): string => {
    let text = '';
    scanTokens(s, (_src, start, end, hash) => (text += `${start}:${end}:${hash} `));
    return text;
  };

  it('agrees with scanTokens on every three-character ASCII string around a letter, digit or middle character', () => {
    const all = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    const middles = [...'a0_.:,'];
    let mismatches: string[] = [];
    for (const m of middles) {
      for (const a of all) {
        for (const b of all) {
          const s = a + m + b;
          if (fromBytes(s) !== fromScan(s)) mismatches.push(JSON.stringify(s));
        }
      }
    }
    mismatches = mismatches.slice(0, 10);
    expect(mismatches).toEqual([]);
  });
});
