import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, parseFlatDocument, type ParsedDoc } from '../../src/search/document-parser.js';
import { SearchError } from '../../src/search/errors.js';
import { FlatSourceReader } from '../../src/search/flat-source-reader.js';
import { Mappings } from '../../src/search/mapping.js';

/** A ParsedDoc as plain data (Object.is-faithful for -0 through the [path, values] pairs). */
function plain(doc: ParsedDoc): unknown {
  const kinds = [doc.text, doc.keyword, doc.numeric] as const;
  return kinds.map((f) => f.paths.map((p, i) => [p, [...(f.values[i] as readonly unknown[])]]));
}

function outcome(fn: () => unknown): { ok: unknown } | { error: unknown } {
  try {
    return { ok: fn() };
  } catch (e) {
    if (e instanceof SearchError) return { error: [e.status, e.message, JSON.stringify(e.cause_), JSON.stringify(e.rootCauses)] };
    throw e;
  }
}

let accepted = 0;
let compared = 0;

/** Reads `text` with the reader; when it accepts, checks it against JSON.parse + parseDocument. */
function check(text: string, mappings: Mappings): boolean {
  const buf = Buffer.from(text, 'utf8');
  const reader = new FlatSourceReader();
  if (!reader.read(buf, 0, buf.length)) return false;
  // Accepted: the text (as the service decodes the bytes) must be JSON whose for…in visits
  // exactly these members.
  const obj = JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
  const members: [string, unknown][] = [];
  for (const k in obj) members.push([k, obj[k]]);
  expect(reader.names.slice(0, reader.count).map((n, i) => [n, reader.values[i]])).toEqual(members);
  for (let i = 0; i < reader.count; i++) expect(Object.is(reader.values[i], members[i]?.[1])).toBe(true);
  accepted++;
  same(reader, obj, mappings);
  return true;
}

/** parseFlatDocument agrees with parseDocument under `mappings`, and under the mappings that adds. */
function same(reader: FlatSourceReader, obj: Record<string, unknown>, mappings: Mappings, again = true): void {
  const flat = outcome(() => parseFlatDocument(reader.names, reader.values, reader.count, mappings, 'doc-1'));
  const general = outcome(() => parseDocument(obj, mappings, 'doc-1'));
  if ('error' in flat) {
    expect(general).toEqual(flat);
    compared++;
  }  else if (flat.ok !== undefined) {
    // Only when no dynamic mapping was needed: the general way keeps the same mappings.
    expect('ok' in general).toBe(true);
    const g = (general as { ok: { doc: ParsedDoc; mappings: Mappings } }).ok;
    expect(g.mappings).toBe(mappings);
    expect(plain(flat.ok as ParsedDoc)).toEqual(plain(g.doc));
    compared++;
  } else if (again && 'ok' in general) {
    // A dynamic mapping was needed: with it added, the reader's way must agree too.
    same(reader, obj, (general.ok as { mappings: Mappings }).mappings, false);
  }
}

const NAMES = ['a', 'b', 'title', 'n', 'when', 'flag', '__proto__', 'x.y', 'a b', 'constructor'];
/** Names the reader declines (non-ASCII, array index), and any. */
const ODD_NAMES = ['größe', '1', 'é', '01', '-1'];
const name = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) });
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('2024-01-02', '2024-01-02T03:04:05Z', '9007199254740993', 'true', 'false', '', '12', ' 7 ', 'x\ny"z\\', '\u2028', '\ud800'),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, 123456789012345, 1234567890123456, Number.MAX_SAFE_INTEGER, 0.1, -1.5e-7),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof({ weight: 20, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('c', 'd'), scalar, { maxKeys: 2 }) });
const members = fc.array(fc.tuple(name, value), { maxLength: 8 });

/** Writes members as JSON text in varied but valid ways: spacing, escapes, number forms. */
const styled = fc.tuple(members, fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n  '), { minLength: 4, maxLength: 4 }), fc.boolean(), fc.boolean()).map(([ms, ws, escapeAll, numberForms]) => {
  const str = (s: string): string => (escapeAll ? JSON.stringify(s).replace(/[^"\\\x20-\x7e]|\//g, (c) => (c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)) : JSON.stringify(s));
  const val = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (typeof v === 'number' && numberForms && Number.isInteger(v) && Math.abs(v) < 1e15) return `${v}.0e0`;
    return JSON.stringify(v) ?? 'null';
  };
  const [w0, w1, w2, w3] = ws as [string, string, string, string];
  return `{${w0}${ms.map(([k, v]) => `${str(k)}${w1}:${w2}${val(v)}`).join(`${w3},${w0}`)}${w3}}`;
});

const FIELD_TYPES = ['text', 'keyword', 'long', 'integer', 'float', 'date', 'boolean', 'match_only_text'];
const mappings = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...NAMES), fc.record({ type: fc.constantFrom(...FIELD_TYPES), index: fc.boolean(), ignore_above: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }), keyword: fc.boolean() }), { maxKeys: 5 }),
    fc.constantFrom(true, false, 'strict'),
    fc.boolean(),
  )
  .map(([props, dynamic, dateDetection]) => {
    const properties: Record<string, unknown> = {};
    for (const [k, d] of Object.entries(props)) {
      if (k.includes('.')) continue;
      const def: Record<string, unknown> = { type: d.type, index: d.index };
      if (d.type === 'keyword' && d.ignore_above !== undefined) def.ignore_above = d.ignore_above;
      if (d.keyword && d.type === 'text') def.fields = { raw: { type: 'keyword', ignore_above: d.ignore_above ?? 256 } };
      properties[k] = def;
    }
    return Mappings.parse({ properties, dynamic, date_detection: dateDetection });
  });

describe('flat source reader', () => {
  it('reads the corpus shape, escapes and UTF-8 included', () => {
    const text = '{"package":"0ad","version":"0.0.26-3","installed_size":28591,"summary":"Real-time strategy – game","description":"Line one\\nLine \\"two\\"\\u00e9\\/","homepage":null,"ok":true}';
    const reader = new FlatSourceReader();
    const buf = Buffer.from(`xx${text}yy`);
    expect(reader.read(buf, 2, buf.length - 2)).toBe(true);
    expect(Object.fromEntries(reader.names.slice(0, reader.count).map((n, i) => [n, reader.values[i]]))).toEqual(JSON.parse(text));
    // A second document reuses the first one's name strings.
    const names = reader.names.slice(0, reader.count);
    expect(reader.read(buf, 2, buf.length - 2)).toBe(true);
    for (let i = 0; i < names.length; i++) expect(reader.names[i]).toBe(names[i]);
  });

  it('values numbers exactly as JSON.parse does, beyond 15 digits and in every form', () => {
    const text = '{"a":9007199254740993,"b":-12345678901234567890,"c":1.5e300,"d":-0,"e":0.1e-5,"f":123456789012345,"g":1E+2,"h":-0.0}';
    expect(check(text, Mappings.empty())).toBe(true);
  });

  it('declines what the general way must read', () => {
    const reader = new FlatSourceReader();
    for (const text of ['{"a":{"b":1}}', '{"a":[1]}', '{"a":1,"a":2}', '{"1":1,"b":2}', '{"a\\u0062":1}', '{"é":1}', '{"a":1,}', '{"a":01}', '{"a":"\u0001"}', '{"a":1} x', '{"a":tru}', '[1]', '{"a":"\\x"}', '{"a":-}', '{"a":1.}', '{\u000b"a":1}']) {
      const buf = Buffer.from(text);
      expect(reader.read(buf, 0, buf.length), text).toBe(false);
    }
  });

  it('agrees with JSON.parse + parseDocument on every flat text it accepts', () => {
    fc.assert(
      fc.property(styled, mappings, (text, m) => {
        check(text, m);
      }),
      { numRuns: 3000 },
    );
    // The property must have been exercised, not mostly declined.
    expect({ accepted: accepted > 1000, compared: compared > 600 }).toEqual({ accepted: true, compared: true });
  });

  it('accepts only valid JSON, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), styled.chain((t) => fc.tuple(fc.nat(t.length), fc.nat(t.length), fc.string({ maxLength: 3 })).map(([i, j, s]) => t.slice(0, Math.min(i, j)) + s + t.slice(Math.max(i, j))))), mappings, (text, m) => {
        const trimmed = text.trim();
        if (trimmed !== '') check(trimmed, m);
      }),
      { numRuns: 3000 },
    );
  });
});
