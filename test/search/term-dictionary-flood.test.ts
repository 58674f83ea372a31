import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashBytes, hashRange, hashUnits, scanAsciiBytes, tokens } from '../../src/search/index/analyzer.js';
import { parseDocument } from '../../src/search/mapping/document-parser.js';
import { restoreIndices, saveIndices } from '../../src/search/index/index-snapshot.js';
import { InvertedIndex } from '../../src/search/index/inverted-index.js';
import { TextField } from '../../src/search/index/text-field.js';
import { Mappings } from '../../src/search/mapping/mapping.js';
import { PostingStore } from '../../src/search/index/posting-store.js';
import { TermDictionary } from '../../src/search/index/term-dictionary.js';

// Issue 3 (security): the text-term dictionary is an open-addressing table on the analyzer's token
// hash, and tokens come from _bulk. With the old public hash (FNV-1a from the fixed basis), tokens
// crafted to share it, or only its low bits (the slot: linear probing), all land in one probe run,
// so inserting N of them walks O(N^2) slots. No timing here: the tests count the longest run of
// occupied slots in the table (every probe for a token of that run walks it), which is the size of
// the crafted set for the old hash and a small number for a keyed one.

const P = 0x01000193;
const FNV_BASIS = 0x811c9dc5 | 0;

/** Plain (unkeyed) FNV-1a over UTF-16 units from state `h`: the dictionary's old token hash. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), P);
  return h | 0;
}

/**
 * 2^rounds distinct lowercase ASCII tokens with one plain FNV-1a hash: per round, a birthday
 * search for two 5-character blocks taking the current state to the same state, then every token
 * so far is extended by either block (the attack a reviewer ran; ~2^16 hashes a round).
 */
function fullCollisions(rounds: number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let seed = 7;
  const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  // A leading letter: a token may not start with a digit-only run that splits differently.
  let h = fnv(FNV_BASIS, 'q');
  let values = ['q'];
  for (let r = 0; r < rounds; r++) {
    const seen = new Map<number, string>();
    for (;;) {
      let b = '';
      for (let i = 0; i < 5; i++) b += alphabet[(rnd() >>> 8) % alphabet.length];
      const x = fnv(h, b);
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

/**
 * 2^k tokens whose plain FNV-1a states (from ANY basis) agree in their low 15 bits: k positions
 * each holding U+2C30 or U+AC30 (both lowercase letters, differing in bit 15 alone), separated by
 * ASCII letters, which carry a difference above bit 14 through unchanged.
 */
function lowBitCollisions(k: number): string[] {
  let values = ['x'];
  for (let i = 0; i < k; i++) values = values.flatMap((v) => [`${v}\u2c30a`, `${v}\uac30a`]);
  return values;
}

/** The longest run of occupied slots (hash != 0) in a TermDictionary's table. */
function longestRun(dict: TermDictionary): number {
  const table = (dict as unknown as { table: Int32Array }).table;
  let longest = 0;
  let run = 0;
  for (let s = 0; s < table.length; s += 4) {
    run = table[s] === 0 ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  // A run may wrap around the end of the table.
  let head = 0;
  while (head * 4 < table.length && table[head * 4] !== 0) head++;
  return head * 4 >= table.length ? table.length / 4 : Math.max(longest, run + head);
}

describe('term dictionary under crafted tokens', () => {
  const crafted = fullCollisions(11);

  it('the crafted tokens are what the attack needs: single tokens, distinct, one plain FNV-1a hash', () => {
    expect(new Set(crafted).size).toBe(2048);
    for (const t of crafted.slice(0, 64)) expect(tokens(t)).toEqual([t]);
    expect(new Set(crafted.map((t) => fnv(FNV_BASIS, t))).size).toBe(1);
    const low = lowBitCollisions(10);
    expect(new Set(low).size).toBe(1024);
    for (const t of low.slice(0, 64)) expect(tokens(t)).toEqual([t]);
    for (const basis of [FNV_BASIS, 1, 0x12345678, -7]) expect(new Set(low.map((t) => fnv(basis, t) & 0x7fff)).size).toBe(1);
  });

  it('does not chain tokens whose plain FNV-1a hashes collide, through the ASCII byte path of bulk indexing', () => {
    const field = new TextField();
    // Many tokens per value, as a _bulk document would carry them; several values.
    for (let v = 0; v < crafted.length; v += 256) field.add(v, [crafted.slice(v, v + 256).join(' ')]);
    expect(field.terms.size).toBe(crafted.length);
    crafted.forEach((t, id) => expect(field.lookup(t)).toBe(id));
    expect(longestRun(field.terms)).toBeLessThan(48);
  });

  it('does not chain them through the string path either (intern with the scan hash or hashRange)', () => {
    const dict = new TermDictionary(new PostingStore());
    crafted.forEach((t, id) => expect(dict.intern(`(${t})`, 1, 1 + t.length)).toBe(id));
    expect(longestRun(dict)).toBeLessThan(48);
  });

  it('does not gather tokens whose FNV-1a states share their low bits for every basis (non-ASCII, general scanner)', () => {
    const low = lowBitCollisions(11);
    const field = new TextField();
    for (let v = 0; v < low.length; v += 256) field.add(v, [low.slice(v, v + 256).join(' ')]);
    expect(field.terms.size).toBe(low.length);
    low.forEach((t, id) => expect(field.lookup(t)).toBe(id));
    expect(longestRun(field.terms)).toBeLessThan(48);
  });

  it('a restored dictionary rebuilds its table with this process hash (a saved table would hold another process keys)', () => {
    const index = new InvertedIndex();
    let mappings = Mappings.empty();
    const words = [...crafted.slice(0, 300), ...lowBitCollisions(6), 'common', 'énorme', 'a'.repeat(40)];
    for (let i = 0; i < words.length; i += 10) {
      const parsed = parseDocument({ t: words.slice(i, i + 10).join(' ') }, mappings, `d${i}`);
      mappings = parsed.mappings;
      index.add(`d${i}`, parsed.doc);
    }
    const saved = index.text.get('t')?.terms.snapshot() as Record<string, unknown>;
    expect(saved).not.toHaveProperty('table');
    const restoredIndex = restoreIndices(saveIndices([{ name: 'i', index, versions: [], seqNos: [], nextSeqNo: 0 }]), ['i'])?.get('i')?.index;
    const restored = restoredIndex?.text.get('t');
    expect(restored).toBeDefined();
    const a = index.text.get('t');
    for (const [term, id] of a?.terms.entries() ?? []) {
      expect(restored?.terms.get(term)).toBe(id);
      expect(restored?.terms.find(term, 0, term.length, hashRange(term, 0, term.length))).toBe(id);
    }
    expect(longestRun(restored?.terms as TermDictionary)).toBeLessThan(48);
    // New terms after a restore get the next ids; known ones keep theirs.
    const parsed = parseDocument({ t: `common fresh ${crafted[5] ?? ''}` }, mappings, 'x');
    restoredIndex?.add('x', parsed.doc);
    expect(restored?.terms.get('fresh')).toBe(a?.terms.size);
    expect(restored?.terms.get(crafted[5] ?? '')).toBe(a?.terms.get(crafted[5] ?? ''));
  });

  it('hashRange, hashBytes, hashUnits and the scanners\' inline hash agree (one keyed hash, several sources)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'z', '0', '9', '_', 'é', '日', '\u2c30', '\uac30'), minLength: 1, maxLength: 20 }), (t) => {
        const units = Uint16Array.from(` ${t}`, (c) => c.charCodeAt(0));
        const h = hashRange(t, 0, t.length);
        expect(hashUnits(units, 1, 1 + t.length)).toBe(h);
        if (/^[a-z0-9_]+$/.test(t)) {
          const bytes = Uint8Array.from(` ${t} `, (c) => c.charCodeAt(0));
          expect(hashBytes(bytes, 1, 1 + t.length)).toBe(h);
          const out = new Int32Array(3 * bytes.length + 3);
          if (/[a-z0-9]/.test(t)) {
            expect(scanAsciiBytes(bytes, bytes.length, out)).toBe(1);
            expect(out[2]).toBe(h);
          }
        }
      }),
    );
  });
});
