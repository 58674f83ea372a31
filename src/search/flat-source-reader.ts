/**
 * Reads the common shape of a `_bulk` source straight from the body's bytes: one JSON object whose
 * values are all strings, numbers, booleans or null (the Debian corpus, most log lines). It yields
 * the object's members in the order a `for…in` over `JSON.parse` of the same text visits them, and
 * declines (returns false) on anything else, so that the caller takes the general way
 * (decode, JSON.parse, parseDocument) and answers exactly as before, errors included.
 *
 * Why: decoding each source into a string and JSON.parse building an object of it were about a
 * seventh of the main thread's time per document on the bulk path, and every one of those strings
 * and objects was garbage for the young generation to scavenge. Here member names are matched
 * against the names of earlier documents on their bytes (a bulk repeats the same few), and only
 * the values become strings: an ASCII value without escapes by one latin1 slice of the bytes.
 *
 * Declined (left to JSON.parse): nested objects and arrays, names with escapes or non-ASCII bytes,
 * names starting with a digit (an array index name is visited first by for…in, not in text
 * order), a repeated name (the last value wins at the first one's place), more than MAX_MEMBERS
 * members, whitespace other than JSON's, and any text that is not valid JSON.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_MEMBERS = 64;
/** Member names remembered across documents (a bulk's sources share a handful). */
const MAX_NAMES = 256;

function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** One source's members after a successful `read`: `names[i]` is `values[i]`, for i < count. */
export class FlatSourceReader {
  readonly names: string[] = [];
  readonly values: (string | number | boolean | null)[] = [];
  count = 0;
  /** Names seen so far, with their bytes (ASCII: one byte per character). */
  private readonly known: string[] = [];

  /**
   * Reads the JSON text in bytes start..end (no whitespace at either end). True when it is a flat
   * object read completely into `names`/`values`; false when the general way must read it.
   */
  read(buf: Buffer, start: number, end: number): boolean {
    this.count = 0;
    let at = start;
    if (end - at < 2 || buf[at] !== 0x7b || buf[end - 1] !== 0x7d) return false;
    at = this.skipSpace(buf, at + 1, end);
    if (buf[at] === 0x7d) return at === end - 1;
    for (;;) {
      if (buf[at] !== QUOTE || this.count >= MAX_MEMBERS) return false;
      // The name: ASCII, no escapes, not starting with a digit.
      const nameStart = at + 1;
      let p = nameStart;
      for (; p < end; p++) {
        const b = buf[p] as number;
        if (b === QUOTE) break;
        if (b === BACKSLASH || b < 0x20 || b >= 0x80) return false;
      }
      if (p >= end) return false;
      const first = buf[nameStart] as number;
      if (first >= 0x30 && first <= 0x39) return false;
      const name = this.nameOf(buf, nameStart, p);
      for (let k = 0; k < this.count; k++) if (this.names[k] === name) return false;
      at = this.skipSpace(buf, p + 1, end);
      if (buf[at] !== 0x3a) return false;
      at = this.skipSpace(buf, at + 1, end);
      const valueEnd = this.readValue(buf, at, end);
      if (valueEnd < 0) return false;
      this.names[this.count] = name;
      this.count++;
      at = this.skipSpace(buf, valueEnd, end);
      const b = buf[at];
      if (b === 0x2c) {
        at = this.skipSpace(buf, at + 1, end);
        continue;
      }
      return b === 0x7d && at === end - 1;
    }
  }

  private skipSpace(buf: Buffer, at: number, end: number): number {
    while (at < end && isJsonSpace(buf[at] as number)) at++;
    return at;
  }

  /** The name in bytes start..end (ASCII), the same string object as an earlier equal name. */
  private nameOf(buf: Buffer, start: number, end: number): string {
    const known = this.known;
    const len = end - start;
    // Documents of one bulk list their members in the same order: try the same position first.
    const guess = known[this.count];
    if (guess !== undefined && sameAscii(guess, buf, start, len)) return guess;
    for (let k = 0; k < known.length; k++) {
      const s = known[k] as string;
      if (sameAscii(s, buf, start, len)) return s;
    }
    const name = latin1(buf, start, end);
    if (known.length < MAX_NAMES) known.push(name);
    return name;
  }

  /** Reads a scalar value at `at` into values[count]; the offset after it, or -1 to decline. */
  private readValue(buf: Buffer, at: number, end: number): number {
    const b = buf[at];
    if (b === QUOTE) {
      let p = at + 1;
      let plain = true;
      for (; p < end; p++) {
        const c = buf[p] as number;
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          plain = false;
          p++; // the escaped character, even a quote
        } else if (c < 0x20) return -1;
        else if (c >= 0x80) plain = false;
      }
      if (p >= end) return -1;
      if (plain) this.values[this.count] = latin1(buf, at + 1, p);
      else {
        // Escapes or UTF-8: JSON.parse of the quoted text is exactly what the whole text's parse
        // gives this value (a quote is ASCII, so decoding a part cannot split a character).
        let v: unknown;
        try {
          v = JSON.parse(utf8(buf, at, p + 1));
        } catch {
          return -1;
        }
        this.values[this.count] = v as string;
      }
      return p + 1;
    }
    if (b === 0x74) return this.literal(buf, at, end, TRUE, true);
    if (b === 0x66) return this.literal(buf, at, end, FALSE, false);
    if (b === 0x6e) return this.literal(buf, at, end, NULL, null);
    return this.number(buf, at, end);
  }

  private literal(buf: Buffer, at: number, end: number, text: Uint8Array, value: boolean | null): number {
    if (end - at < text.length) return -1;
    for (let k = 0; k < text.length; k++) if (buf[at + k] !== text[k]) return -1;
    this.values[this.count] = value;
    return at + text.length;
  }

  /** A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, valued as JSON.parse does. */
  private number(buf: Buffer, at: number, end: number): number {
    const start = at;
    if (buf[at] === 0x2d) at++;
    const intStart = at;
    while (at < end && isDigit(buf[at] as number)) at++;
    const intDigits = at - intStart;
    if (intDigits === 0 || (intDigits > 1 && buf[intStart] === 0x30)) return -1;
    let simple = true;
    if (buf[at] === 0x2e) {
      simple = false;
      const f = ++at;
      while (at < end && isDigit(buf[at] as number)) at++;
      if (at === f) return -1;
    }
    if (buf[at] === 0x65 || buf[at] === 0x45) {
      simple = false;
      at++;
      if (buf[at] === 0x2b || buf[at] === 0x2d) at++;
      const e = at;
      while (at < end && isDigit(buf[at] as number)) at++;
      if (at === e) return -1;
    }
    if (simple && intDigits <= 15) {
      // Exact in a double: digit by digit, as the parse would round it (not at all).
      let n = 0;
      for (let k = intStart; k < at; k++) n = n * 10 + ((buf[k] as number) - 0x30);
      this.values[this.count] = start === intStart ? n : -n;
    } else this.values[this.count] = Number(latin1(buf, start, at));
    return at;
  }
}

const TRUE = Uint8Array.from([0x74, 0x72, 0x75, 0x65]);
const FALSE = Uint8Array.from([0x66, 0x61, 0x6c, 0x73, 0x65]);
const NULL = Uint8Array.from([0x6e, 0x75, 0x6c, 0x6c]);

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function sameAscii(s: string, buf: Buffer, start: number, len: number): boolean {
  if (s.length !== len) return false;
  for (let k = 0; k < len; k++) if (s.charCodeAt(k) !== buf[start + k]) return false;
  return true;
}

/**
 * Buffer's own decoders, without toString's argument handling (their offsets are known good
 * here). Not in Node's type declarations, but on Buffer.prototype in every Node version.
 */
interface Slices {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

function latin1(buf: Buffer, start: number, end: number): string {
  return (buf as unknown as Slices).latin1Slice(start, end);
}

function utf8(buf: Buffer, start: number, end: number): string {
  return (buf as unknown as Slices).utf8Slice(start, end);
}
