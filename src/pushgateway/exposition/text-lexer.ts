/**
 * The token layer of the text 0.0.4 parser: a cursor over the body with the token readers of Go's
 * `expfmt.TextParser` (names, label values, HELP text, values), its character classes and its
 * error texts (`text format parsing error in line N: ...`). text-parser.ts builds families on it.
 *
 * It runs on every push, so it is one pass of charCode scanning over the body with slices for
 * tokens: no regular expressions and no per-character string building on the common path.
 */
import { ExpositionError } from '../errors.js';
import { binaryBytes, utf8OfBinary } from './binary-text.js';
import { goBytes, goQuote, goQuoteByte, goQuoteBytes, isWellFormedString } from './go-quote.js';

// Typed as number so that TypeScript does not narrow `this.c` across the state changes.
export const NL: number = 10;
export const SPACE: number = 32;
export const TAB: number = 9;
export const HASH: number = 35;
export const QUOTE: number = 34;
export const BACKSLASH: number = 92;
export const LBRACE: number = 123;
export const RBRACE: number = 125;
export const COMMA: number = 44;
export const EQUALS: number = 61;

/** Thrown internally when the input ends where Go's parser would hit io.EOF mid-line. */
export const EOF_SIGNAL = Symbol('eof');

export function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** Character classes of ASCII bytes, as bit flags (a table lookup beats chained comparisons). */
export const LABEL_START = 1;
export const LABEL_CONT = 2;
export const METRIC_START = 4;
export const METRIC_CONT = 8;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  const digit = c >= 48 && c <= 57;
  CHAR_CLASS[c] =
    (letter ? LABEL_START | METRIC_START : 0) |
    (letter || digit ? LABEL_CONT | METRIC_CONT : 0) |
    (c === 58 ? METRIC_START | METRIC_CONT : 0);
}

export function hasClass(c: number, cls: number): boolean {
  return c < 128 && (CHAR_CLASS[c]! & cls) !== 0;
}

/** A cursor over the body (one char per UTF-8 char, or per byte in byte mode) and its token readers. */
export abstract class TextLexer {
  protected readonly s: string;
  protected readonly n: number;
  /** The body was not valid UTF-8 and is held one byte per char (latin1); tokens need decoding. */
  protected readonly byteMode: boolean;
  /** Index of the current character (Go's `currentByte`); -1 before the first read. */
  protected p = -1;
  /** Char code at `p`. */
  protected c = 0;
  protected line = 0;

  constructor(s: string, byteMode: boolean) {
    this.s = s;
    this.n = s.length;
    this.byteMode = byteMode;
  }

  protected error(msg: string): ExpositionError {
    return new ExpositionError(`text format parsing error in line ${this.line}: ${msg}`);
  }

  /** Go's `%q` of a token taken from the body. */
  protected quote(token: string): string {
    return this.byteMode ? goQuoteBytes(binaryBytes(token)) : goQuote(token);
  }

  /** Go's `%q` of the current byte (for a non-ASCII char: the first byte of its UTF-8 form). */
  protected quoteCurrentByte(): string {
    const c = this.c;
    if (c < 0x80 || this.byteMode) return goQuoteByte(c);
    return goQuoteByte(goBytes(this.s.slice(this.p, this.p + 2))[0] ?? c);
  }

  protected next(): void {
    if (++this.p >= this.n) throw EOF_SIGNAL;
    this.c = this.s.charCodeAt(this.p);
  }

  protected skipBlankTab(): void {
    do this.next();
    while (this.c === SPACE || this.c === TAB);
  }

  protected skipBlankTabIfCurrentBlankTab(): void {
    if (isBlank(this.c)) this.skipBlankTab();
  }

  protected readTokenUntilWhitespace(): string {
    const s = this.s;
    const start = this.p;
    let i = start;
    let c = this.c;
    while (c !== SPACE && c !== TAB && c !== NL) {
      if (++i >= this.n) {
        this.p = i;
        throw EOF_SIGNAL;
      }
      c = s.charCodeAt(i);
    }
    this.p = i;
    this.c = c;
    return s.slice(start, i);
  }

  /**
   * A metric or label name: a `start`-class char or `"`, then `cont`-class chars (empty if none).
   * A `"` anywhere in it toggles quoting, as in Pushgateway 1.11.1's parser: a quoted part takes any
   * character but a new-line, with the escapes `\\`, `\n` and `\"`, and the name ends right after
   * its closing quote (`"my.metric"`, `{"my.metric",a="b"}`, `x{"a.b"="c"}`).
   */
  protected readNameToken(startClass: number, contClass: number, what: 'metric' | 'label' = 'metric'): string {
    if (!hasClass(this.c, startClass)) return this.c === QUOTE ? this.readQuotedName(contClass, what) : '';
    const s = this.s;
    const start = this.p;
    let i = start;
    let c: number;
    do {
      if (++i >= this.n) {
        this.p = i;
        throw EOF_SIGNAL;
      }
      c = s.charCodeAt(i);
    } while (hasClass(c, contClass));
    if (c === QUOTE) {
      this.p = start;
      this.c = s.charCodeAt(start);
      return this.readQuotedName(contClass, what);
    }
    this.p = i;
    this.c = c;
    return s.slice(start, i);
  }

  /** The slow path of readNameToken, for a name with a `"` in it. */
  private readQuotedName(contClass: number, what: 'metric' | 'label'): string {
    let out = '';
    let quoted = false;
    let escaped = false;
    for (;;) {
      const c = this.c;
      if (escaped) {
        if (c === BACKSLASH) out += '\\';
        else if (c === 110) out += '\n';
        else if (c === QUOTE) out += '"';
        else throw this.error(`invalid escape sequence '\\${this.escapedByte()}'`);
        escaped = false;
      } else if (c === QUOTE) {
        quoted = !quoted;
        if (!quoted) {
          this.next();
          return this.decodeName(out);
        }
      } else if (c === NL) {
        throw this.error(`${what} name ${this.quote(out)} contains unescaped new-line`);
      } else if (c === BACKSLASH) {
        escaped = true;
      } else {
        out += this.s[this.p];
      }
      this.next();
      if (!quoted && !hasClass(this.c, contClass) && this.c !== QUOTE) return this.decodeName(out);
    }
  }

  /**
   * A name read in byte mode is decoded from UTF-8; one that is not UTF-8 keeps a lone surrogate
   * in its place, so that the checks after parsing refuse it as not valid.
   */
  private decodeName(raw: string): string {
    if (!this.byteMode) return raw;
    return utf8OfBinary(raw) ?? `${raw}\ud800`;
  }

  /**
   * The rest of the line from the current char; HELP also knows the escapes `\\`, `\n` and (since
   * Pushgateway 1.11.1's text parser; 1.5.1 refused it) `\"`.
   */
  protected readTokenUntilNewline(escapes: boolean): string {
    const s = this.s;
    let start = this.p;
    let i = start;
    let c = this.c;
    let out = '';
    for (;;) {
      if (c === NL) break;
      if (c === BACKSLASH) {
        out += s.slice(start, i);
        // Go drops a backslash even where it does not recognise escapes (TYPE lines, the rest
        // of a sample line): `# TYPE x \gauge` declares a gauge.
        if (escapes) {
          if (++i >= this.n) {
            this.p = i;
            throw EOF_SIGNAL;
          }
          c = s.charCodeAt(i);
          if (c === BACKSLASH) out += '\\';
          else if (c === 110) out += '\n';
          else if (c === 34) out += '"';
          else {
            this.p = i;
            this.c = c;
            throw this.error(`invalid escape sequence '\\${this.escapedByte()}'`);
          }
        }
        start = i + 1;
      }
      if (++i >= this.n) {
        this.p = i;
        throw EOF_SIGNAL;
      }
      c = s.charCodeAt(i);
    }
    this.p = i;
    this.c = c;
    return out + s.slice(start, i);
  }

  /** The current byte as Go's `%c` prints a byte (a Latin-1 rune). */
  protected escapedByte(): string {
    const c = this.c;
    if (c < 0x80 || this.byteMode) return String.fromCharCode(c);
    return String.fromCharCode(goBytes(this.s.slice(this.p, this.p + 2))[0] ?? c);
  }

  protected readTokenAsLabelValue(): string {
    const s = this.s;
    let start = this.p + 1;
    let i = start;
    let out = '';
    for (;;) {
      if (i >= this.n) {
        this.p = i;
        throw EOF_SIGNAL;
      }
      const c = s.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === NL) {
        this.p = i;
        this.c = c;
        throw this.error(`label value ${this.quote(out + s.slice(start, i))} contains unescaped new-line`);
      }
      if (c === BACKSLASH) {
        out += s.slice(start, i);
        if (++i >= this.n) {
          this.p = i;
          throw EOF_SIGNAL;
        }
        const e = s.charCodeAt(i);
        if (e === QUOTE || e === BACKSLASH) out += String.fromCharCode(e);
        else if (e === 110) out += '\n';
        else {
          this.p = i;
          this.c = e;
          throw this.error(`invalid escape sequence '\\${this.escapedByte()}'`);
        }
        start = i + 1;
      }
      i++;
    }
    this.p = i;
    this.c = QUOTE;
    return out + s.slice(start, i);
  }

  /** Label values must be UTF-8; in byte mode this is also where they are decoded. */
  protected checkedLabelValue(raw: string): string {
    if (this.byteMode) {
      const text = utf8OfBinary(raw);
      if (text === undefined) throw this.error(`invalid label value ${goQuoteBytes(binaryBytes(raw))}`);
      return text;
    }
    if (!isWellFormedString(raw)) throw this.error(`invalid label value ${goQuote(raw)}`);
    return raw;
  }

  protected decodeText(raw: string): string {
    return this.byteMode ? Buffer.from(raw, 'latin1').toString('utf8') : raw;
  }
}
