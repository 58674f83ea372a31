/**
 * JSON text as Go's `encoding/json` Encoder writes it, which is what Traefik's API clients see:
 * compact, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` etc., and 64-bit integers written
 * exactly. BigInt values (router priorities near MaxInt64) are written as bare integers.
 */

import { randomBytes } from 'node:crypto';

// A per-process nonce in the marker, so no string a provider sends can be mistaken for a BigInt.
const NONCE = randomBytes(6).toString('hex');
const BIGINT_MARK = `\u0000${NONCE}:`;
const BIGINT_PLACEHOLDER = new RegExp(`"\\\\u0000${NONCE}:(-?\\d+)"`, 'g');
const MARK_ESCAPED = `\\u0000${NONCE}:`;
const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${BIGINT_MARK}${value.toString()}` : value;
}

/** Go-compatible compact JSON for `value`, without the Encoder's trailing newline. */
export function goJson(value: unknown, hasBigInt = true): string {
  let text: string | undefined;
  try {
    // The fast path: a replacer function makes JSON.stringify several times slower, and only
    // the internal routers' priorities are BigInts (safe integers are plain numbers).
    text = JSON.stringify(value);
  } catch (err) {
    if (!hasBigInt || !(err instanceof TypeError)) throw err;
    text = JSON.stringify(value, replacer);
    if (text !== undefined && text.includes(MARK_ESCAPED)) text = text.replace(BIGINT_PLACEHOLDER, '$1');
  }
  if (text === undefined) return 'null';
  HTML_UNSAFE.lastIndex = 0;
  return HTML_UNSAFE.test(text) ? text.replace(HTML_UNSAFE, (c) => ESCAPES[c] ?? c) : text;
}
