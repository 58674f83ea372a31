import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FNV_BASIS, fnv, fnvCollisions } from './fnv-collisions.js';
import { hashBytes, hashRange, hashSecrets, hashUnits, keyedHash, scanAsciiBytes, tokens } from '../../../src/search/index/analyzer.js';
import { PostingStore } from '../../../src/search/index/posting-store.js';
import { TermDictionary } from '../../../src/search/index/term-dictionary.js';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { restoreIndices, saveIndices } from '../../../src/search/index/index-snapshot.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { TextField } from '../../../src/search/index/text-field.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';

/**
 * TermDictionary (index/term-dictionary.ts): lookups through both paths, and probe runs under
 * tokens crafted against a public hash.
 */

describe('term dictionary', () => {
  // Lengths around the inline limit (8 units), ASCII and not, through both the string and the byte path.
  const term = fc.string({ unit: fc.constantFrom('a', 'b', 'z', '0', '_', '.', 'é', '日'), minLength: 1, maxLength: 14 });

  it('gives each distinct term one dense id, from strings and from bytes alike, and finds exactly the terms it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(term, fc.boolean()), { maxLength: 200 }), fc.array(term, { maxLength: 20 }), (adds, probes) => {
        const dict = new TermDictionary(new PostingStore());
        const model = new Map<string, number>();
        for (const [t, viaBytes] of adds) {
          const ascii = [...t].every((c) => c.charCodeAt(0) < 128);
          let id: number;
          if (viaBytes && ascii) {
            // Somewhere inside a larger buffer, as scanAsciiBytes hands tokens over.
            const bytes = Uint8Array.from(`  ${t} `, (c) => c.charCodeAt(0));
            id = dict.internBytes(bytes, 2, 2 + t.length, hashBytes(bytes, 2, 2 + t.length));
          } else {
            id = dict.intern(`x${t}`, 1, 1 + t.length);
          }
          if (!model.has(t)) model.set(t, model.size);
          expect(id).toBe(model.get(t));
        }
        expect(dict.size).toBe(model.size);
        for (const [t, id] of model) {
          expect(dict.get(t)).toBe(id);
          expect(dict.text(id)).toBe(t);
        }
        for (const t of probes) expect(dict.get(t)).toBe(model.get(t) ?? -1);
      }),
      { numRuns: 300 },
    );
  });

  it('never confuses a short term with the same text plus NUL units (the inline form pads with zeros)', () => {
    const dict = new TermDictionary(new PostingStore());
    const id = dict.intern('ab', 0, 2);
    expect(dict.get('ab')).toBe(id);
    expect(dict.get('ab\0')).toBe(-1);
    expect(dict.get('\0ab')).toBe(-1);
    expect(dict.find('ab\0', 0, 3, hashRange('ab', 0, 2))).toBe(-1);
  });

  it('keeps every term through table growth', () => {
    const dict = new TermDictionary(new PostingStore());
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}${i % 3 === 0 ? 'longer-than-eight' : ''}`);
    expect(words.map((w) => dict.intern(w, 0, w.length))).toEqual(words.map((_, i) => i));
    expect(words.map((w) => dict.get(w))).toEqual(words.map((_, i) => i));
  });

  it('finds a term by its exact text only: stored terms are lowercase, so a term with capitals (ASCII or not) is absent', () => {
    const dict = new TermDictionary(new PostingStore());
    const quick = dict.intern('quick', 0, 5);
    const enorme = dict.intern('énorme', 0, 6);
    expect(dict.get('quick')).toBe(quick);
    expect(dict.get('énorme')).toBe(enorme);
    expect(dict.get('Quick')).toBe(-1);
    expect(dict.get('Énorme')).toBe(-1);
  });
});

// Security: the text-term dictionary is an open-addressing table on the analyzer's token
// hash, and tokens come from _bulk. With the old public hash (FNV-1a from the fixed basis), tokens
// crafted to share it, or only its low bits (the slot: linear probing), all land in one probe run,
// so inserting N of them walks O(N^2) slots. No timing here: the tests count the longest run of
// occupied slots in the table (every probe for a token of that run walks it), which is the size of
// the crafted set for the old hash and a small number for a keyed one.

/**
 * 2^rounds distinct lowercase ASCII tokens with one plain FNV-1a hash (the attack that showed the
 * flood; ~2^16 hashes a round). A leading letter: a token may not start with a digit-only run that
 * splits differently.
 */
const fullCollisions = (rounds: number): string[] => fnvCollisions(rounds, { alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789', seed: 7, prefix: 'q', draw: (r) => r >>> 8 });

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

  it('keeps the crafted tokens apart for every secret basis, also those sharing the public basis low bits (plain FNV-1a collides for all of those)', () => {
    // Without a fold per unit, the high bits of the basis only add a length-dependent constant, so
    // a set crafted against the public basis collided in one process of 128: the secret bases
    // whose low 7 bits are the public basis's. This checks the hash itself, for chosen secrets,
    // rather than this process's random ones.
    const secrets = [0, 0x80, 0x12345680, 0x7fffff80, -128, 0x40, 0x5a5a5a5a].map((d) => (FNV_BASIS ^ d) | 0);
    for (const basis of secrets) {
      if (((basis ^ FNV_BASIS) & 0x7f) === 0) expect(new Set(crafted.map((t) => fnv(basis, t))).size).toBe(1);
      expect(new Set(crafted.map((t) => keyedHash(basis, 0x2545f491, t))).size).toBeGreaterThan(2040);
    }
    const { basis, key } = hashSecrets();
    for (const t of crafted.slice(0, 64)) expect(hashRange(t, 0, t.length)).toBe(keyedHash(basis, key, t));
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
