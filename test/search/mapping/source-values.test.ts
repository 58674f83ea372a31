import { describe, expect, it } from 'vitest';
import { sourceStrings, sourceValues, topLevelString } from '../../../src/search/mapping/source-values.js';

/** What sourceStrings must always equal: the values of the whole parsed source, as text. */
const parsed = (text: string, path: string): string[] => sourceValues(JSON.parse(text), path).map(String);

describe('sourceStrings (a field of a stored source as text, without parsing the rest when it can)', () => {
  const texts = [
    '{"description":"plain"}',
    '{"a":1,"description":"line one\\nline two \\"quoted\\" \\\\ end\\\\","b":[1,{"description":"nested"}]}',
    // The last of two members of that name, as JSON.parse keeps it.
    '{"description":"first","x":{"description":"deep"},"description":"second"}',
    // A key written with an escape; a key text inside a value; a value ending in an escaped backslash.
    '{"descr\\u0069ption":"escaped key","s":"\\"description\\":\\"not a key\\"","t":"ends \\\\"}',
    '{"s":"{\\"description\\":\\"in a string\\"}","description":"outer"}',
    ' {\n\t"description" :\r\n "spaced" ,"z" : true } ',
    '{"description":null}',
    '{"description":["one","two"]}',
    '{"description":42.5e1}',
    '{"description":true}',
    '{"description":{"en":"object"}}',
    '{"other":"x"}',
    '{}',
    '{"description":"\\u00e9t\\u00e9 \\ud83d\\ude00 ünï"}',
    '{"a":[[],{},[{"b":"]}"}]],"description":"after brackets in strings"}',
    '[{"description":"top-level array"}]',
  ];

  it('equals the values of the parsed source for every shape of source', () => {
    for (const t of texts) {
      expect(sourceStrings(t, 'description'), t).toEqual(parsed(t, 'description'));
      expect(sourceStrings(t, 'x.description'), t).toEqual(parsed(t, 'x.description'));
      expect(sourceStrings(t, 'b.description'), t).toEqual(parsed(t, 'b.description'));
    }
  });

  it('reads a top-level string or null from the text, and leaves every other value to the parse', () => {
    expect(topLevelString(texts[2] as string, 'description')).toEqual(['second']);
    expect(topLevelString(texts[3] as string, 'description')).toEqual(['escaped key']);
    expect(topLevelString(texts[4] as string, 'description')).toEqual(['outer']);
    expect(topLevelString(texts[6] as string, 'description')).toEqual([]);
    expect(topLevelString('{"other":"x"}', 'description')).toEqual([]);
    for (const t of [texts[7], texts[8], texts[9], texts[10], texts[15]] as string[]) expect(topLevelString(t, 'description'), t).toBeUndefined();
  });

  it('agrees with the parse on generated sources', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const pieces = ['a', 'description', ' ', '"', '\\', '\n', '{', '}', '[', ']', ':', ',', 'é', '\u2028', '\ud83d\ude00'];
    const str = (): string => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
    const value = (depth: number): unknown => {
      const k = rand(depth > 2 ? 4 : 6);
      if (k === 0) return str();
      if (k === 1) return rand(1000) - 500;
      if (k === 2) return null;
      if (k === 3) return rand(2) === 0;
      if (k === 4) return Array.from({ length: rand(3) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rand(4); i > 0; i--) o[rand(2) === 0 ? 'description' : str()] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 2000; i++) {
      const doc: Record<string, unknown> = {};
      for (let j = rand(5); j > 0; j--) doc[rand(3) === 0 ? 'description' : str()] = value(1);
      // Written with and without spaces, and with a duplicate key spliced in.
      for (const t of [JSON.stringify(doc), JSON.stringify(doc, null, 1), JSON.stringify(doc).replace(/^\{/, `{"description":${JSON.stringify(str())}${Object.keys(doc).length > 0 ? ',' : ''}`)]) {
        expect(sourceStrings(t, 'description'), t).toEqual(parsed(t, 'description'));
      }
    }
  });
});
