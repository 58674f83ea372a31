import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashBytes, hashRange } from '../../../src/search/index/analyzer.js';
import { PostingStore } from '../../../src/search/index/posting-store.js';
import { TermDictionary } from '../../../src/search/index/term-dictionary.js';

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
