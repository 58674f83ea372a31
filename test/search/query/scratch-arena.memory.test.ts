import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { fastMatchField, matchTopK } from '../../../src/search/query/match-top-k.js';
import { parseQuery, type Query } from '../../../src/search/requests/query-dsl.js';
import { ScratchArena } from '../../../src/search/query/scratch-arena.js';

describe('scratch arena memos', () => {
  // Pages past the end remember each term's best posting in the arena (about 100 bytes a term,
  // measured). Read-only requests must not make an index hold memory that grows with its number of
  // text fields (dynamic mappings make any number): like the score tables, the memos have one
  // budget per index, not one per field. Here 40 fields × 4,000 terms would keep 160,000 (~15 MB).
  it('stay within one budget per index, however many text fields are queried', () => {
    const FIELDS = 40;
    const TERMS = 4000;
    const properties: Record<string, unknown> = {};
    for (let f = 0; f < FIELDS; f++) properties[`f${f}`] = { type: 'text' };
    let mappings = Mappings.parse({ properties });
    const index = new InvertedIndex();
    // 40 documents, each field of each holding 100 words of its own: every term is in one document.
    for (let d = 0; d < 40; d++) {
      const src: Record<string, string> = {};
      for (let f = 0; f < FIELDS; f++) src[`f${f}`] = Array.from({ length: TERMS / 40 }, (_, k) => `t${d}x${k}`).join(' ');
      const parsed = parseDocument(src, mappings, `d${d}`);
      mappings = parsed.mappings;
      index.add(`d${d}`, parsed.doc);
    }
    const arena = new ScratchArena();
    for (let f = 0; f < FIELDS; f++) {
      for (let d = 0; d < 40; d++) {
        for (let k = 0; k < TERMS / 40; k++) {
          const query = parseQuery({ match: { [`f${f}`]: `t${d}x${k}` } }) as Extract<Query, { kind: 'match' }>;
          const field = fastMatchField(query, mappings, index) as NonNullable<ReturnType<typeof fastMatchField>>;
          arena.reset();
          expect(matchTopK(query, field, index.live, 9990, 10, 10_000, arena, 128)?.total).toBe(1);
        }
      }
    }
    let kept = 0;
    for (const field of index.text.values()) kept += arena.termMemo(field.postings).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(16_384 + 1);
  }, 60_000);

  // Each refresh that saw writes gives its view's fields new posting stores, so the owners of memos
  // keep coming: their maps must not pile up with them, empty or not.
  it('forget every owner past a bounded number of them', () => {
    const arena = new ScratchArena();
    const first = {};
    arena.termMemo<number>(first).set(1, 1);
    for (let i = 0; i < 254; i++) arena.termMemo<number>({});
    expect(arena.termMemo<number>(first).get(1)).toBe(1);
    for (let i = 0; i < 300; i++) arena.termMemo<number>({});
    expect(arena.termMemo<number>(first).get(1)).toBeUndefined();
  });
});
