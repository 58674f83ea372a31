import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../../src/search/syntax/json-members.js';

// Review of s-conf3: findDuplicateKey scans every `_search`/`_count`/`_mget` body, `_msearch` line
// and update body (`_bulk` update lines included). Checked here against a plain recursive-descent
// reading of the same text: the first key, in text order, that repeats one of its object's, and
// the offset just past its closing quote.

/** The reference: reads `text` (valid JSON) value by value, keeping each object's keys. */
function reference(text: string): { key: string; at: number } | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): { key: string; at: number } | undefined => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        const key = str();
        if (keys.has(key)) return { key, at: i };
        keys.add(key);
        ws();
        i++; // :
        const found = value();
        if (found !== undefined) return found;
        ws();
        if (text[i++] === '}') return undefined;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        const found = value();
        if (found !== undefined) return found;
        ws();
        if (text[i++] === ']') return undefined;
      }
    }
    if (c === '"') return void str();
    while (i < text.length && !' \t\n\r,]}'.includes(text[i] as string)) i++;
    return undefined;
  };
  return value();
}

// Keys from a small set (so objects often repeat one), some written with escapes that decode to
// another's text, and strings that look like JSON.
const KEYS = ['a', 'b', '\\u0061', 'é', '\\u00e9', '\\"', '\\\\', 'a\\\\', '{\\"a\\":1}', ':', '', '😀', '\\ud83d\\ude00'];
const space = fc.constantFrom('', ' ', '\n', '\t', ' \r\n ');
const text = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('1', '-2.5e3', 'true', 'null', '"x"', '"a\\\\"', '"\\"a\\":1"', '"{\\"a\\":[}"', '""'),
    fc.array(fc.tuple(space, tie('value'), space), { maxLength: 4 }).map((xs) => `[${xs.map(([s, v, t]) => s + v + t).join(',')}]`),
    fc
      .array(fc.tuple(space, fc.constantFrom(...KEYS), space, tie('value')), { maxLength: 5 })
      .map((ms) => `{${ms.map(([s, k, t, v]) => `${s}"${k}"${t}:${s}${v}${t}`).join(',')}}`),
  ),
})).value;

describe('findDuplicateKey (review)', () => {
  it('agrees with a recursive-descent reading on generated JSON', () => {
    fc.assert(
      fc.property(text, (t) => {
        JSON.parse(t); // the generator makes valid JSON only
        expect(findDuplicateKey(t)).toEqual(reference(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds repeats written with escapes, and none inside strings or across sibling objects', () => {
    expect(findDuplicateKey('{"a":1,"\\u0061":2}')).toEqual({ key: 'a', at: 15 });
    expect(findDuplicateKey('{"k":"\\\\","k":1}')).toEqual({ key: 'k', at: 13 });
    expect(findDuplicateKey('{"k":"\\"k\\":1,\\"k\\":2"}')).toBeUndefined();
    expect(findDuplicateKey('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(findDuplicateKey('{"a":{"b":1},"b":{"a":1}}')).toBeUndefined();
  });
});
