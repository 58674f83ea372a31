/**
 * The text of one snapshot line (format 2, see lines.ts): its path and its JSON value, parsed as
 * JSON.parse would parse them, with the prototype-reaching keys refused. The decoder
 * (line-decoder.ts) calls these for the lines it has not seen before.
 */

// Keys that would reach an object's prototype when assigned; refused as Fastify refuses them in
// format 1 bodies (secure-json-parse).
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The code unit of `"`, shared with the byte scanner of the decoder. */
export const QUOTE = 0x22;

/** A line's problem, prefixed with its line number by the decoder (counted only when one occurs). */
export class LineProblem extends Error {}

function parsePath(text: string): string[] {
  let path: unknown;
  try {
    path = JSON.parse(text);
  } catch {
    throw new LineProblem('the path is not valid JSON');
  }
  if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) {
    throw new LineProblem('the path must be a non-empty JSON array of strings');
  }
  for (const key of path as string[]) {
    if (FORBIDDEN_KEYS.has(key)) throw new LineProblem(`the key ${JSON.stringify(key)} is not allowed`);
  }
  return path as string[];
}

function hasForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasForbiddenKey);
  for (const k of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(k) || hasForbiddenKey((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

export function parseLine(line: string): { path: string[]; value: unknown } {
  const tab = line.indexOf('\t');
  if (tab === -1) throw new LineProblem('expected <path><TAB><value>');
  const path = parsePath(line.slice(0, tab));
  return { path, value: parseValue(line.slice(tab + 1)) };
}

/**
 * @param strings the value is likely a flat object of strings (a service's server states): see
 *   {@link flatStrings}
 */
export function parseValue(text: string, strings = false): unknown {
  if (strings) {
    const flat = flatStrings(text);
    if (flat !== undefined) return flat;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LineProblem(`the value is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  // Only a text naming one of them can hold one; the walk is the rare case.
  if ((text.includes('__proto__') || text.includes('constructor') || text.includes('prototype')) && hasForbiddenKey(value)) {
    throw new LineProblem('the value holds a key that is not allowed (__proto__, constructor or prototype)');
  }
  return value;
}

/** A backslash (an escape) or a control character (invalid in a JSON string). */
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings
const NOT_PLAIN = /[\\\u0000-\u001f]/;

/**
 * A new empty object that V8 keeps in dictionary mode: deleting a property other than the last
 * one added turns an object into a hash table for good.
 */
function dictionaryObject(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 0, b: 0 };
  delete o.a;
  delete o.b;
  return o;
}

/**
 * A compact JSON object whose values are all strings without escapes (`{"http://10.0.0.1:8080":
 * "UP",…}`: a service's server states), as JSON.parse gives it, key order included; undefined for
 * any other text (then JSON.parse it). Why: each service has its own server URLs, and JSON.parse
 * gives every such object a hidden class of its own, built key by key (5,000 services of 12
 * servers make 60,000 classes, a third of a body's parse time, kept as long as the objects). A
 * dictionary-mode object has no class to build; to the code that reads it, it is the same object.
 */
export function flatStrings(text: string): Record<string, unknown> | undefined {
  const n = text.length;
  if (n < 7 || text.charCodeAt(0) !== 0x7b || text.charCodeAt(n - 1) !== 0x7d || NOT_PLAIN.test(text)) return undefined;
  const out = dictionaryObject();
  let i = 1;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = text.indexOf('"', i + 1);
    if (keyEnd === -1 || text.charCodeAt(keyEnd + 1) !== 0x3a || text.charCodeAt(keyEnd + 2) !== QUOTE) return undefined;
    const valueEnd = text.indexOf('"', keyEnd + 3);
    if (valueEnd === -1) return undefined;
    const key = text.slice(i + 1, keyEnd);
    // Assigning these would not make an own property: JSON.parse them (and refuse them).
    if (FORBIDDEN_KEYS.has(key)) return undefined;
    const value = text.slice(keyEnd + 3, valueEnd);
    // The usual states as the shared literals: not two small strings per server kept.
    out[key] = value === 'UP' ? 'UP' : value === 'DOWN' ? 'DOWN' : value;
    i = valueEnd + 1;
    const c = text.charCodeAt(i);
    if (c === 0x7d) return i === n - 1 ? out : undefined;
    if (c !== 0x2c) return undefined;
    i++;
  }
}
