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
        expect(parseBulk(compact, 'i')).toEqual(parseBulk(spaced, 'i'));
        expect(parseBulk(compact, 'i')).toEqual([{ op, index: 'i', id: docId, source: undefined, raw: source }]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a malformed source line for the item to report', () => {
    expect(parseBulk('{"index":{"_id":"1"}}\n{"n":\n', 'i')).toEqual([{ op: 'index', index: 'i', id: '1', source: undefined, raw: '{"n":' }]);
  });
});
