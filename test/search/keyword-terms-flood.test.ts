import { describe, expect, it } from 'vitest';
import { KeywordField } from '../../src/search/index/keyword-field.js';

// Second reader: KeywordTerms (s-bulk3) is an open-addressing table keyed by FNV-1a of the value,
// with a fixed offset basis. FNV-1a is iterated, so two blocks that take one state to the same
// state can be chained: k pairs found by a birthday search (about 2^16 hashes each) give 2^k
// distinct values with the same 32-bit hash. They all probe one chain and compare strings with
// each other: a _bulk of 16,384 such values cost 1.65 s of CPU on the branch (29 ms on main's Map,
// whose string hashes V8 seeds per process), 2^18 values would block the event loop for minutes.
// The table must not put values that collide under the unseeded hash into one probe chain.

const P = 0x01000193;
function step(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), P);
  return h;
}

function crafted(rounds: number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let seed = 1;
  const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  let h = 0x811c9dc5 | 0;
  let values = [''];
  for (let r = 0; r < rounds; r++) {
    const seen = new Map<number, string>();
    for (;;) {
      let b = '';
      for (let i = 0; i < 5; i++) b += alphabet[rnd() % alphabet.length];
      const x = step(h, b);
      const o = seen.get(x);
      if (o !== undefined && o !== b) {
        values = values.flatMap((v) => [v + o, v + b]);
        h = x;
        break;
      }
      seen.set(x, b);
    }
  }
  return values;
}

describe('keyword terms under crafted values', () => {
  it('does not chain values whose unseeded FNV-1a hashes collide', () => {
    const values = crafted(10);
    expect(new Set(values.map((v) => step(0x811c9dc5 | 0, v))).size).toBe(1);
    const f = new KeywordField();
    values.forEach((v, ord) => f.add(ord, [v]));
    values.forEach((v, id) => expect(f.lookup(v)).toBe(id));
    // The longest run of occupied slots (a probe chain) in the table.
    const table = (f.terms as unknown as { table: Int32Array }).table;
    let longest = 0;
    let run = 0;
    for (let s = 0; s < table.length; s += 2) {
      run = table[s] === 0 ? 0 : run + 1;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeLessThan(64);
    // The birthday search above takes ~0.7 s alone; a reader saw it pass the 10 s default on a
    // machine busy with other suites.
  }, 60_000);
});
