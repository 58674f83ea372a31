import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBulk } from '../../src/search/bulk.js';

describe('bulk parser', () => {
  it('reads a compact index/create action line exactly as the JSON parser does', () => {
    const id = fc.string({ unit: fc.constantFrom('a', '7', ' ', '"', '\\', '\u0001', 'é', '\u{1f600}', '/'), maxLength: 12 });
    fc.assert(
      fc.property(fc.constantFrom('index', 'create'), id, fc.constantFrom('', ' ', '\r', '\t'), (op, docId, trailer) => {
        const source = '{"n":1}';
        const compact = `${JSON.stringify({ [op]: { _id: docId } })}${trailer}\n${source}\n`;
        // The same action with a space after the colon always takes the JSON parser.
        const spaced = `${JSON.stringify({ [op]: { _id: docId } }).replace('":{', '": {')}${trailer}\n${source}\n`;
        expect(spans(parseBulk(compact, 'i'))).toEqual(spans(parseBulk(spaced, 'i')));
        expect(spans(parseBulk(compact, 'i'))).toEqual([{ op, index: 'i', id: docId, source: undefined, raw: source }]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a malformed source line for the item to report', () => {
    expect(spans(parseBulk('{"index":{"_id":"1"}}\n{"n":\n', 'i'))).toEqual([{ op: 'index', index: 'i', id: '1', source: undefined, raw: '{"n":' }]);
  });

  it('says where each source lies in the body, whatever whitespace and blank lines surround it', () => {
    const pad = fc.string({ unit: fc.constantFrom(' ', '\t', '\r'), maxLength: 3 });
    const blank = fc.constantFrom('', '\n', ' \n', '\r\n\n');
    const item = fc.record({ spaced: fc.boolean(), id: fc.string({ unit: fc.constantFrom('a', '7', 'é'), maxLength: 4 }), before: pad, after: pad, gap: blank, n: fc.nat() });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), fc.boolean(), (items, finalNewline) => {
        const body = items
          .map((it) => `${it.gap}${it.spaced ? `{ "index": {"_id": "${it.id}"} }` : `{"index":{"_id":"${it.id}"}}`}\n${it.before}{"n":${it.n}}${it.after}`)
          .join('\n') + (finalNewline ? '\n' : '');
        const actions = parseBulk(body, 'i');
        expect(spans(actions)).toEqual(items.map((it) => ({ op: 'index', index: 'i', id: it.id, source: undefined, raw: `{"n":${it.n}}` })));
      }),
      { numRuns: 300 },
    );
  });
});

/** The actions without their source spans, after checking that each span points at its `raw`. */
function spans(actions: ReturnType<typeof parseBulk>): unknown[] {
  return actions.map((a) => {
    if (!('raw' in a)) return a;
    const { rawIn, ...rest } = a;
    expect(rawIn).toBeDefined();
    if (rawIn !== undefined) expect(rawIn.text.slice(rawIn.start, rawIn.start + a.raw.length)).toBe(a.raw);
    return rest;
  });
}
