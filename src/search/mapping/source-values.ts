/**
 * The scalar values at a dotted field path in a document's `_source`, through objects and arrays,
 * with the path written nested (`{"a":{"b":1}}`), as one dotted key (`{"a.b":1}`) or partly both,
 * as the document parser indexes them (document-parser.ts joins keys with dots). Nulls and objects
 * at the end of the path are no values.
 */
export function sourceValues(source: unknown, path: string): unknown[] {
  return valuesAt(source, path.split('.'));
}

function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value.flatMap((v) => valuesAt(v, path)) : value === null || typeof value === 'object' ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => valuesAt(v, path));
  if (value === null || typeof value !== 'object') return [];
  const obj = value as Record<string, unknown>;
  const out: unknown[] = [];
  for (let n = 1; n <= path.length; n++) {
    const key = path.slice(0, n).join('.');
    if (Object.hasOwn(obj, key)) out.push(...valuesAt(obj[key], path.slice(n)));
  }
  return out;
}

/**
 * The values of the field at `path` of a stored `_source`, as text (what phrase verification
 * analyzes): `sourceValues(JSON.parse(text), path).map(String)`, but without building the whole
 * document when the field is a top-level key holding a string or null, which the phrase queries
 * check for every candidate (a description among ten other fields: parsing them all was a
 * sixth of a `match_phrase_prefix` candidate's cost).
 */
export function sourceStrings(text: string, path: string): string[] {
  return (path.includes('.') ? undefined : topLevelString(text, path)) ?? sourceValues(JSON.parse(text), path).map(String);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Past the JSON string opening at `i` (-1 if it does not close). */
function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    // An even run of backslashes escapes each other, not the quote.
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Whether text[from, to) holds a backslash (an escape). */
function escaped(text: string, from: number, to: number): boolean {
  for (let j = from; j < to; j++) if (text.charCodeAt(j) === BACKSLASH) return true;
  return false;
}

/** Past the JSON value starting at `i` (-1 if it does not end). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < text.length; ) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) {
        j = stringEnd(text, j);
        if (j < 0) return -1;
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
      j++;
    }
    return -1;
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isJsonSpace(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * The values of the top-level member `key` of the JSON object `text` when they can be told
 * without parsing it: `[]` when there is no such member or it is null, `[the string]` when it is
 * a string (the last member of that name, as JSON.parse keeps it); undefined for any other value
 * (a number, an array, an object: the caller parses) or a text that is not an object. `text` is a
 * stored source, valid JSON: this skips values, it does not validate them.
 */
export function topLevelString(text: string, key: string): string[] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i = skipSpace(text, i + 1);
  let start = -1;
  let end = -1;
  if (text.charCodeAt(i) !== 0x7d) {
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return undefined;
      const keyEnd = stringEnd(text, i);
      if (keyEnd < 0) return undefined;
      const raw = keyEnd - i - 2;
      const named = escaped(text, i + 1, keyEnd - 1) ? JSON.parse(text.slice(i, keyEnd)) === key : raw === key.length && text.startsWith(key, i + 1);
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== 0x3a) return undefined;
      i = skipSpace(text, i + 1);
      const after = valueEnd(text, i);
      if (after < 0) return undefined;
      if (named) {
        start = i;
        end = after;
      }
      i = skipSpace(text, after);
      const c = text.charCodeAt(i);
      if (c === 0x7d) break;
      if (c !== 0x2c) return undefined;
      i = skipSpace(text, i + 1);
    }
  }
  if (start < 0) return [];
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    return [JSON.parse(text.slice(start, end)) as string];
  }
  if (end - start === 4 && text.startsWith('null', start)) return [];
  return undefined;
}
