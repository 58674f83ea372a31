import { describe, expect, it } from 'vitest';
import { asciiBytes, scanAsciiBytes, scanTokens } from '../../../src/search/index/analyzer.js';

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
