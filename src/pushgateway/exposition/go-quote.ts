/**
 * Go's `%q` verb (strconv.Quote / strconv.QuoteRune) for error messages. Pushgateway's parse errors
 * quote the offending token with it, and clients compare those texts, so invalid UTF-8 must come out
 * as `\xff`, control characters as `\x01` or `\n`, and non-printable runes as `\u200b`.
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(v: number, width: number): string {
  return v.toString(16).padStart(width, '0');
}

function escapeRune(r: number, quote: number): string {
  if (r === quote || r === 0x5c) return `\\${String.fromCodePoint(r)}`;
  if (r === 0x20 || (r > 0x20 && r !== 0x7f && PRINTABLE.test(String.fromCodePoint(r)))) {
    return String.fromCodePoint(r);
  }
  switch (r) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (r < 0x20 || r === 0x7f) return `\\x${hex(r, 2)}`;
  if (r < 0x10000) return `\\u${hex(r, 4)}`;
  return `\\U${hex(r, 8)}`;
}

/** Decodes one UTF-8 sequence at `i` the way Go does; returns [rune, width] or undefined if invalid. */
function decodeRune(b: Uint8Array, i: number): [number, number] | undefined {
  const b0 = b[i] ?? 0;
  if (b0 < 0x80) return [b0, 1];
  const cont = (k: number): number => {
    const x = b[i + k];
    return x !== undefined && (x & 0xc0) === 0x80 ? x & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? undefined : [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 < 0 || c2 < 0) return undefined;
    const r = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    return r < 0x800 || (r >= 0xd800 && r <= 0xdfff) ? undefined : [r, 3];
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return undefined;
    const r = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    return r < 0x10000 || r > 0x10ffff ? undefined : [r, 4];
  }
  return undefined;
}

/** Go `%q` of a byte string (which need not be valid UTF-8). */
export function goQuoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < bytes.length; ) {
    const d = decodeRune(bytes, i);
    if (d === undefined) {
      out += `\\x${hex(bytes[i] ?? 0, 2)}`;
      i++;
    } else {
      out += escapeRune(d[0], 0x22);
      i += d[1];
    }
  }
  return `${out}"`;
}

/**
 * The bytes Go would hold for a JavaScript string: UTF-8, except that a lone surrogate (which no
 * valid UTF-8 text decodes to) is kept as its 3-byte WTF-8 form so that it is shown as invalid.
 */
export function goBytes(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Uint8Array.from(out);
}

/** Go `%q` of a Go string held as a JavaScript string. */
export function goQuote(s: string): string {
  return goQuoteBytes(goBytes(s));
}

/** Go `%q` of a single byte (Go formats a `byte` with %q as a rune literal of that code point). */
export function goQuoteByte(b: number): string {
  return `'${escapeRune(b, 0x27)}'`;
}

/** True when `s` has no lone surrogate, i.e. it is valid UTF-8 once encoded. */
export function isWellFormedString(s: string): boolean {
  // String.prototype.isWellFormed exists on Node 20 but is not in the ES2023 lib typings.
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}
