import { errors, SearchError } from '../errors.js';

/**
 * The members of a JSON object in the order the text gives them, with where each key and value
 * lie in the text. Why: JSON.parse keeps neither, and a few of ES's answers need them: a number's
 * text as written (Jackson's `text()` of `"_id": 1.50` is "1.50", not "1.5"), the first unknown
 * field in document order (JavaScript puts integer-like keys first), and a parser error's
 * `[line:col]`. Only called on text JSON.parse has already accepted, and only on the rare paths
 * that need it, so it checks nothing.
 */

/** Jackson's name for the token a JSON value starts with (ES's parse errors name it). */
export type JsonToken = 'START_OBJECT' | 'START_ARRAY' | 'VALUE_STRING' | 'VALUE_NUMBER' | 'VALUE_BOOLEAN' | 'VALUE_NULL';

/** The token a parsed JSON value starts with. */
export function jsonToken(v: unknown): JsonToken {
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  switch (typeof v) {
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'START_OBJECT';
  }
}

/**
 * Jackson's intValue() on a parsed JSON value, as ES's parsers read an int field: a number
 * truncated (beyond an int's range, ES's input_coercion_exception), a string of an integer
 * coerced, another string ES's number_format_exception; any other value gets `notNumeric`'s error.
 */
export function jacksonInt(v: unknown, notNumeric: () => Error): number {
  if (typeof v === 'number') {
    if (Math.abs(v) > 2147483647) throw errors.inputCoercion(`Numeric value (${v}) out of range of int`);
    return Math.trunc(v);
  }
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  if (typeof v === 'string') throw errors.numberFormat(v);
  throw notNumeric();
}

/**
 * `obj[key] = value` as an own, enumerable field, a key named `__proto__` included: JSON.parse
 * makes such a key an own field, and a plain assignment would set the object's prototype instead
 * (losing the field, or writing onto Object.prototype through it).
 */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

export interface JsonMember {
  /** The key, unescaped. */
  readonly key: string;
  /** Offset of the key's opening quote. */
  readonly keyAt: number;
  /** Offsets of the value's first character and just past its last. */
  readonly valueAt: number;
  readonly valueEnd: number;
}

const isWs = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';

function skipWs(text: string, at: number): number {
  while (isWs(text[at])) at++;
  return at;
}

/** Just past the value that starts at `at`. */
function skipValue(text: string, at: number): number {
  const c = text[at];
  if (c === '"') return stringEnd(text, at);
  if (c === '{' || c === '[') {
    let depth = 0;
    let i = at;
    while (i < text.length) {
      const d = text[i];
      if (d === '"') {
        i = stringEnd(text, i);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = at;
  while (i < text.length && !isWs(text[i]) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
  return i;
}

/**
 * The members of the object that starts at `at` (after any whitespace) in `text`, a valid JSON
 * text; empty when no object starts there.
 */
export function objectMembers(text: string, at = 0): JsonMember[] {
  let i = skipWs(text, at);
  const out: JsonMember[] = [];
  if (text[i] !== '{') return out;
  i = skipWs(text, i + 1);
  while (text[i] === '"') {
    const keyAt = i;
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(keyAt, keyEnd)) as string;
    // Past the colon.
    const valueAt = skipWs(text, skipWs(text, keyEnd) + 1);
    const valueEnd = skipValue(text, valueAt);
    out.push({ key, keyAt, valueAt, valueEnd });
    i = skipWs(text, valueEnd);
    if (text[i] !== ',') break;
    i = skipWs(text, i + 1);
  }
  return out;
}

/**
 * Jackson's location of offset `at` in `text`: 1-based line and 1-based column, the column
 * counted in UTF-8 bytes as ES's byte-array parser counts it.
 */
export function textLocation(text: string, at: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: Buffer.byteLength(text.slice(lineStart, at), 'utf8') + 1 };
}

/**
 * The offset of the value at `path` (object keys and array indexes, from the root) in `text`, a
 * valid JSON text; undefined when the path is not there. A key that repeats in its object is taken
 * at its last place, the value JSON.parse keeps.
 */
export function valueOffset(text: string, path: readonly (string | number)[]): number | undefined {
  let at = skipWs(text, 0);
  for (const step of path) {
    if (typeof step === 'string') {
      let found: number | undefined;
      for (const m of objectMembers(text, at)) if (m.key === step) found = m.valueAt;
      if (found === undefined) return undefined;
      at = found;
    } else {
      if (text[at] !== '[') return undefined;
      at = skipWs(text, at + 1);
      for (let i = 0; i < step; i++) {
        at = skipWs(text, skipValue(text, at));
        if (text[at] !== ',') return undefined;
        at = skipWs(text, at + 1);
      }
      if (text[at] === ']') return undefined;
    }
  }
  return at;
}

/** Just past the value that starts at offset `at` of `text`, a valid JSON text. */
export function valueEndOffset(text: string, at: number): number {
  return skipValue(text, at);
}

/** Whether `v` is a JSON object as JSON.parse makes one (not null, not an array). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Jackson's default StreamReadConstraints nesting depth, which ES 8.8+ keeps: a text nested deeper
 * is refused as it is read.
 */
export const MAX_JSON_NESTING = 1000;

/**
 * The offset of the first `{` or `[` of `text` (a valid JSON text) that opens a container nested
 * deeper than MAX_JSON_NESTING; undefined when there is none. Why: JSON.parse takes any depth,
 * but the recursive walks after it (JSON.stringify among them) exhaust the stack near 10,000
 * levels. A text too short to nest that deep is not read.
 */
export function tooDeepAt(text: string): number | undefined {
  if (text.length <= 2 * MAX_JSON_NESTING) return undefined;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_NESTING) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x22) i = stringEnd(text, i) - 1;
  }
  return undefined;
}

/** A request body nested deeper than MAX_JSON_NESTING (tooDeepAt), refused as ES's parser refuses it. */
export function checkNesting(text: string): void {
  const at = tooDeepAt(text);
  if (at !== undefined) throw nestingError(text, at);
}

/** ES's refusal of the container at offset `at` of `text` (tooDeepAt's). */
export function nestingError(text: string, at: number): SearchError {
  const { line, col } = textLocation(text, at);
  return errors.nestingTooDeep(line, col);
}

/** Just past the string whose opening quote is at `at`: a quote ends it unless an odd run of backslashes escapes it. */
function stringEnd(text: string, at: number): number {
  let q = text.indexOf('"', at + 1);
  while (q !== -1) {
    let b = q - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    q = text.indexOf('"', q + 1);
  }
  return text.length + 1;
}

/**
 * The first key, in text order, that repeats a key of the same object in `text` (a valid JSON
 * text), with the offset just past its closing quote: where Jackson, whose strict duplicate
 * detection ES 8 always turns on, stops and reports "Duplicate field 'k'". Undefined when no
 * object repeats a key. One pass over the text, jumping over each string with indexOf (every
 * `_search` body and `_bulk` update line is scanned, and most of their text is strings); a Set
 * only per object that has two keys or more.
 */
export function findDuplicateKey(text: string): { key: string; at: number } | undefined {
  const dup = scanDuplicateKey(text);
  return dup === undefined ? undefined : { key: dup.key, at: dup.at };
}

/** ES's "Duplicate field" error for `dup` (findDuplicateKey's) of `text`, located as Jackson locates it. */
export function duplicateFieldError(text: string, dup: { key: string; at: number }): SearchError {
  const { line, col } = textLocation(text, dup.at);
  return errors.duplicateField(line, col, dup.key);
}

/** findDuplicateKey's scan, with the offset of the repeated key's opening quote (keyAt). */
function scanDuplicateKey(text: string): { key: string; at: number; keyAt: number } | undefined {
  // One entry per open object (its keys so far; null until it has one) or array (undefined).
  const stack: (Set<string> | string | null | undefined)[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) stack.push(null); // {
    else if (c === 0x5b) stack.push(undefined); // [
    else if (c === 0x7d || c === 0x5d) stack.pop(); // } ]
    else if (c === 0x22) {
      const end = stringEnd(text, i);
      const top = stack.length - 1;
      const keys = stack[top];
      if (keys !== undefined && text.charCodeAt(skipWs(text, end)) === 0x3a) {
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        if (keys === null) stack[top] = key;
        else if (typeof keys === 'string') {
          if (keys === key) return { key, at: end, keyAt: i };
          stack[top] = new Set([keys, key]);
        } else {
          if (keys.has(key)) return { key, at: end, keyAt: i };
          keys.add(key);
        }
      }
      i = end - 1;
    }
  }
  return undefined;
}

/** The closing brackets of the objects and arrays still open at offset `end` of `text`, innermost first. */
function closersAt(text: string, end: number): string {
  const open: string[] = [];
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) open.push('}');
    else if (c === 0x5b) open.push(']');
    else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x22) i = stringEnd(text, i) - 1;
  }
  return open.reverse().join('');
}

/**
 * `read(value)`, where `value` was parsed from `text`, answering as ES does when an object of the
 * text repeats a key: ES's parser reads the text in order and stops at the first problem, so the
 * repeated key ("Duplicate field", Jackson's strict duplicate detection) is answered unless `read`
 * refuses something the text holds before it.
 *
 * Our readers work on parsed values and know no offsets, so "before it" is found by reading two
 * texts: the text cut just before the repeated member (its open objects closed), which holds all
 * ES read before stopping, and the text with only the repeated member left out. An error of the
 * cut text that the other gives too lies before the repeated key, and is answered. One the cut
 * text alone gives is a check the cut made up (a member required at the end of an object the
 * repeated key sits in, which ES never reaches): the repeated key is answered. Still different from
 * ES: a reader that checks members out of text order (e.g. JavaScript's integer-like keys first), and
 * a key repeated three times, whose later value stands in the second text. The extra reads happen
 * only when a key repeats.
 */
export function readInTextOrder<T>(text: string, value: unknown, read: (value: unknown) => T): T {
  if (value === null || typeof value !== 'object') return read(value);
  const dup = scanDuplicateKey(text);
  if (dup === undefined) return read(value);
  const duplicate = (): SearchError => duplicateFieldError(text, dup);
  // A repeated key is never its object's first, so a comma comes before it.
  let comma = dup.keyAt - 1;
  while (isWs(text[comma])) comma--;
  const valueEnd = skipValue(text, skipWs(text, skipWs(text, dup.at) + 1));
  const early = refusal(() => read(JSON.parse(text.slice(0, comma) + closersAt(text, comma))));
  // ES validates a request (ActionRequest.validate) only once its parser has read all of it.
  if (early === undefined || early.type === 'action_request_validation_exception') throw duplicate();
  const without = refusal(() => read(JSON.parse(text.slice(0, comma) + text.slice(valueEnd))));
  if (without !== undefined && without.type === early.type && without.message === early.message) throw early;
  throw duplicate();
}

/**
 * The SearchError `f` throws; undefined when it returns. A SyntaxError (a cut text that would not
 * parse: it always should, the text being valid JSON) counts as no refusal, so that the repeated
 * key is answered; anything else thrown goes on.
 */
function refusal(f: () => unknown): SearchError | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof SearchError) return e;
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}
