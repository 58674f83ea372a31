import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/search/mapping/document-parser.js';
import { InvertedIndex } from '../../../src/search/index/inverted-index.js';
import { Mappings } from '../../../src/search/mapping/mapping.js';
import { planSort } from '../../../src/search/query/sort.js';

/** Sort plans (query/sort.ts): search_after values. */

// search_after values are the same for every hit; reading them (a date string
// through the field's js-joda format, ~10 us a value) once per hit made a deep page cost
// O(hits) parses. They are read once per search.
describe('sort plan: search_after', () => {
  it('reads the search_after values once, not once per hit', () => {
    const mappings = Mappings.parse({ properties: { d: { type: 'date', format: 'yyyy-MM-dd' } } });
    const index = new InvertedIndex();
    const n = 200;
    for (let i = 0; i < n; i++) index.add(String(i), parseDocument({ d: `2020-01-${String((i % 28) + 1).padStart(2, '0')}` }, mappings, String(i)).doc);
    const def = mappings.field('d') as NonNullable<ReturnType<Mappings['field']>>;
    const format = def.dateFormat as NonNullable<typeof def.dateFormat>;
    const parse = format.parse.bind(format);
    let calls = 0;
    (format as { parse: typeof parse }).parse = (v, up) => {
      calls++;
      return parse(v, up);
    };
    const docs = Int32Array.from({ length: n }, (_, i) => i);
    const plan = planSort('i', index, mappings, 0, [{ field: 'd', order: 'asc' } as never], { docs, scores: new Float32Array(n), length: n });
    const after = ['2020-01-14'];
    let kept = 0;
    for (let i = 0; i < n; i++) if (plan.after(i, after)) kept++;
    expect(kept).toBe(Array.from({ length: n }, (_, i) => (i % 28) + 1).filter((day) => day > 14).length);
    expect(calls).toBeLessThanOrEqual(1);
  });
});
