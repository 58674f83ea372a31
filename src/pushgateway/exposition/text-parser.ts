/**
 * Prometheus text format 0.0.4, read exactly as Go's `expfmt.TextParser` reads it (the parser of
 * Pushgateway 1.5.1): same acceptance, same assembly of summaries and histograms, same error texts
 * (`text format parsing error in line N: ...`).
 *
 * It runs on every push, so it is one pass of charCode scanning over the body with slices for
 * tokens: no regular expressions and no per-character string building on the common path.
 */
import { isUtf8 } from 'node:buffer';
import { ExpositionError } from '../errors.js';
import type { Label, Metric, MetricFamily, MetricType, Quantile, Bucket } from '../model.js';
import { binaryBytes, utf8OfBinary } from './binary-text.js';
import { goBytes, goQuote, goQuoteByte, goQuoteBytes, isWellFormedString } from './go-quote.js';
import { parseGoFloat, parseGoInt64, goFloatToUint64 } from './go-number.js';

// Typed as number so that TypeScript does not narrow `this.c` across the state changes.
const NL: number = 10;
const SPACE: number = 32;
const TAB: number = 9;
const HASH: number = 35;
const QUOTE: number = 34;
const BACKSLASH: number = 92;
const LBRACE: number = 123;
const RBRACE: number = 125;
const COMMA: number = 44;
const EQUALS: number = 61;

/** Thrown internally when the input ends where Go's parser would hit io.EOF mid-line. */
const EOF_SIGNAL = Symbol('eof');

/** The type names Go's parser knows (client_model MetricType), upper-cased as it compares them. */
const TYPE_BY_UPPER: ReadonlyMap<string, MetricType | 'gauge_histogram'> = new Map([
  ['COUNTER', 'counter'],
  ['GAUGE', 'gauge'],
  ['SUMMARY', 'summary'],
  ['UNTYPED', 'untyped'],
  ['HISTOGRAM', 'histogram'],
  ['GAUGE_HISTOGRAM', 'gauge_histogram'],
]);

interface SummaryBuilder {
  sampleCount: number;
  sampleSum: number;
  quantiles: Quantile[];
}

interface HistogramBuilder {
  sampleCount: number;
  sampleSum: number;
  buckets: Bucket[];
}

interface MetricBuilder {
  labels: Label[];
  value?: number;
  summary?: SummaryBuilder;
  histogram?: HistogramBuilder;
  timestampMs?: number;
}

interface FamilyBuilder {
  name: string;
  help: string | undefined;
  /** `gauge_histogram` is accepted in TYPE lines (Go knows it) but fails at the first sample. */
  type: MetricType | 'gauge_histogram' | undefined;
  metrics: MetricBuilder[];
  /** Summaries and histograms: metric per label signature, as Go groups quantile/bucket lines. */
  bySignature: Map<string, MetricBuilder> | undefined;
}

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/** Character classes of ASCII bytes, as bit flags (a table lookup beats chained comparisons). */
const LABEL_START = 1;
const LABEL_CONT = 2;
const METRIC_START = 4;
const METRIC_CONT = 8;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
  const digit = c >= 48 && c <= 57;
  CHAR_CLASS[c] =
    (letter ? LABEL_START | METRIC_START : 0) |
    (letter || digit ? LABEL_CONT | METRIC_CONT : 0) |
    (c === 58 ? METRIC_START | METRIC_CONT : 0);
}

function hasClass(c: number, cls: number): boolean {
  return c < 128 && (CHAR_CLASS[c]! & cls) !== 0;
}

/**
 * Go's LabelsToSignature as a string key. Go separates with the byte 0xFF, which UTF-8 text cannot
 * contain; a JavaScript string can contain U+00FF, so the separator here is a lone surrogate, which
 * a label value cannot contain (values are checked to be well-formed before they get here).
 */
const SIGNATURE_SEPARATOR = '\ud800';

function signatureOf(name: string, labels: readonly Label[]): string {
  if (labels.length === 0) return name;
  const sorted = labels.length === 1 ? labels : [...labels].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let sig = name;
  for (const [n, v] of sorted) sig += `${SIGNATURE_SEPARATOR}${n}${SIGNATURE_SEPARATOR}${v}`;
  return sig;
}

class TextParser {
  private readonly s: string;
  private readonly n: number;
  /** The body was not valid UTF-8 and is held one byte per char (latin1); tokens need decoding. */
  private readonly byteMode: boolean;
  /** Index of the current character (Go's `currentByte`); -1 before the first read. */
  private p = -1;
  /** Char code at `p`. */
  private c = 0;
  private line = 0;
  private readonly families = new Map<string, FamilyBuilder>();
  private mf!: FamilyBuilder;
  private isCount = false;
  private isSum = false;
  /** The last name resolved by setOrCreateCurrentMF; bodies repeat one name over many lines. */
  private lastName = '';
  /** Where lastName was last read in the body (-1 when it came from a comment line). */
  private lastNameAt = -1;
  private lastMf: FamilyBuilder | undefined;
  private lastIsCount = false;
  private lastIsSum = false;

  constructor(s: string, byteMode: boolean) {
    this.s = s;
    this.n = s.length;
    this.byteMode = byteMode;
  }

  parse(): MetricFamily[] {
    try {
      while (this.startOfLine()) {
        /* one line per iteration */
      }
    } catch (e) {
      if (e === EOF_SIGNAL) throw this.error('unexpected end of input stream');
      throw e;
    }
    const out: MetricFamily[] = [];
    for (const f of this.families.values()) {
      if (f.metrics.length === 0) continue;
      out.push({ name: f.name, help: f.help, type: f.type as MetricType, metrics: f.metrics as Metric[] });
    }
    return out;
  }

  private error(msg: string): ExpositionError {
    return new ExpositionError(`text format parsing error in line ${this.line}: ${msg}`);
  }

  /** Go's `%q` of a token taken from the body. */
  private quote(token: string): string {
    return this.byteMode ? goQuoteBytes(binaryBytes(token)) : goQuote(token);
  }

  /** Go's `%q` of the current byte (for a non-ASCII char: the first byte of its UTF-8 form). */
  private quoteCurrentByte(): string {
    const c = this.c;
    if (c < 0x80 || this.byteMode) return goQuoteByte(c);
    return goQuoteByte(goBytes(this.s.slice(this.p, this.p + 2))[0] ?? c);
  }

  private next(): void {
    if (++this.p >= this.n) throw EOF_SIGNAL;
    this.c = this.s.charCodeAt(this.p);
  }

  private skipBlankTab(): void {
    do this.next();
    while (this.c === SPACE || this.c === TAB);
  }

  private skipBlankTabIfCurrentBlankTab(): void {
    if (isBlank(this.c)) this.skipBlankTab();
  }

  /** Returns false at the clean end of input. */
  private startOfLine(): boolean {
    this.line++;
    try {
      this.skipBlankTab();
    } catch (e) {
      if (e === EOF_SIGNAL) return false;
      throw e;
    }
    const c = this.c;
    if (c === HASH) this.comment();
    else if (c !== NL) this.sample();
    return true;
  }

  private readTokenUntilWhitespace(): string {
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

  /** A metric or label name: a `start`-class char, then `cont`-class chars (empty if none). */
  private readNameToken(startClass: number, contClass: number): string {
    if (!hasClass(this.c, startClass)) return '';
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
    this.p = i;
    this.c = c;
    return s.slice(start, i);
  }

  /** The rest of the line from the current char; HELP also knows the escapes `\\` and `\n`. */
  private readTokenUntilNewline(escapes: boolean): string {
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
  private escapedByte(): string {
    const c = this.c;
    if (c < 0x80 || this.byteMode) return String.fromCharCode(c);
    return String.fromCharCode(goBytes(this.s.slice(this.p, this.p + 2))[0] ?? c);
  }

  private readTokenAsLabelValue(): string {
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
  private checkedLabelValue(raw: string): string {
    if (this.byteMode) {
      const text = utf8OfBinary(raw);
      if (text === undefined) throw this.error(`invalid label value ${goQuoteBytes(binaryBytes(raw))}`);
      return text;
    }
    if (!isWellFormedString(raw)) throw this.error(`invalid label value ${goQuote(raw)}`);
    return raw;
  }

  private decodeText(raw: string): string {
    return this.byteMode ? Buffer.from(raw, 'latin1').toString('utf8') : raw;
  }

  /** Go's setOrCreateCurrentMF: `x_sum`/`x_count`(/`x_bucket`) attach to a declared summary (histogram) `x`. */
  private setOrCreateCurrentMF(name: string): FamilyBuilder {
    // Safe to memoize: once a name resolves (to itself, or to a summary/histogram base whose type
    // can no longer change), later lookups of the same name resolve the same way.
    if (name === this.lastName && this.lastMf !== undefined) {
      this.isCount = this.lastIsCount;
      this.isSum = this.lastIsSum;
      return (this.mf = this.lastMf);
    }
    const mf = this.resolveFamily(name);
    this.lastName = name;
    this.lastNameAt = -1;
    this.lastMf = mf;
    this.lastIsCount = this.isCount;
    this.lastIsSum = this.isSum;
    return mf;
  }

  private resolveFamily(name: string): FamilyBuilder {
    this.isCount = false;
    this.isSum = false;
    const families = this.families;
    const existing = families.get(name);
    if (existing !== undefined) return (this.mf = existing);
    const isCount = name.endsWith('_count');
    const isSum = !isCount && name.endsWith('_sum');
    if (isCount || isSum) {
      const base = families.get(name.slice(0, name.length - (isCount ? 6 : 4)));
      if (base !== undefined && (base.type === 'summary' || base.type === 'histogram')) {
        this.isCount = isCount;
        this.isSum = isSum;
        return (this.mf = base);
      }
    } else if (name.endsWith('_bucket')) {
      const base = families.get(name.slice(0, name.length - 7));
      if (base !== undefined && base.type === 'histogram') return (this.mf = base);
    }
    const created: FamilyBuilder = { name, help: undefined, type: undefined, metrics: [], bySignature: undefined };
    families.set(name, created);
    return (this.mf = created);
  }

  /**
   * Bodies repeat one metric name over many lines: when the line starts with the name resolved last,
   * step over it without slicing and hashing it again.
   */
  private repeatedName(): FamilyBuilder | undefined {
    const at = this.lastNameAt;
    const len = this.lastName.length;
    const p = this.p;
    const end = p + len;
    if (at < 0 || this.lastMf === undefined || end >= this.n) return undefined;
    const s = this.s;
    // Compare within the flat body: String.prototype.startsWith(x, position) is far slower in V8.
    for (let k = 0; k < len; k++) if (s.charCodeAt(p + k) !== s.charCodeAt(at + k)) return undefined;
    const c = s.charCodeAt(end);
    if (hasClass(c, METRIC_CONT)) return undefined;
    this.p = end;
    this.c = c;
    this.isCount = this.lastIsCount;
    this.isSum = this.lastIsSum;
    return (this.mf = this.lastMf);
  }

  private newName(): FamilyBuilder {
    const at = this.p;
    const name = this.readNameToken(METRIC_START, METRIC_CONT);
    if (name.length === 0) throw this.error('invalid metric name');
    const mf = this.setOrCreateCurrentMF(name);
    this.lastNameAt = at;
    return mf;
  }

  private comment(): void {
    this.skipBlankTab();
    if (this.c === NL) return;
    const keyword = this.readTokenUntilWhitespace();
    if (this.c === NL) return;
    if (keyword !== 'HELP' && keyword !== 'TYPE') {
      // A generic comment: skip to the end of the line (which must exist).
      const nl = this.s.indexOf('\n', this.p);
      if (nl < 0) {
        this.p = this.n;
        throw EOF_SIGNAL;
      }
      this.p = nl;
      this.c = NL;
      return;
    }
    this.skipBlankTab();
    const name = this.readNameToken(METRIC_START, METRIC_CONT);
    if (this.c === NL) return;
    if (!isBlank(this.c)) throw this.error('invalid metric name in comment');
    const mf = this.setOrCreateCurrentMF(name);
    this.skipBlankTab();
    if (this.c === NL) return;
    if (keyword === 'HELP') {
      if (mf.help !== undefined) throw this.error(`second HELP line for metric name ${goQuote(mf.name)}`);
      mf.help = this.decodeText(this.readTokenUntilNewline(true));
      return;
    }
    if (mf.type !== undefined) {
      throw this.error(`second TYPE line for metric name ${goQuote(mf.name)}, or TYPE reported after samples`);
    }
    const token = this.readTokenUntilNewline(false);
    const type = TYPE_BY_UPPER.get(token.toUpperCase());
    if (type === undefined) throw this.error(`unknown metric type ${this.quote(token)}`);
    mf.type = type;
  }

  private sample(): void {
    const mf = this.repeatedName() ?? this.newName();
    if (mf.type === undefined) mf.type = 'untyped';
    const type = mf.type;
    const grouped = type === 'summary' || type === 'histogram';
    let quantile = NaN;
    let bucket = NaN;
    // Labels that identify a summary/histogram metric (without quantile/le).
    const labels: Label[] = [];
    this.skipBlankTabIfCurrentBlankTab();
    if (this.c === LBRACE) {
      for (;;) {
        this.skipBlankTab();
        if (this.c === RBRACE) {
          this.skipBlankTab();
          break;
        }
        const labelName = this.readNameToken(LABEL_START, LABEL_CONT);
        if (labelName.length === 0) throw this.error(`invalid label name for metric ${goQuote(mf.name)}`);
        if (labelName === '__name__') throw this.error('label name "__name__" is reserved');
        const special = (type === 'summary' && labelName === 'quantile') || (type === 'histogram' && labelName === 'le');
        this.skipBlankTabIfCurrentBlankTab();
        if (this.c !== EQUALS) throw this.error(`expected '=' after label name, found ${this.quoteCurrentByte()}`);
        if (!special) {
          for (let k = 0; k < labels.length; k++) {
            if (labels[k]![0] === labelName) throw this.error(`duplicate label names for metric ${goQuote(mf.name)}`);
          }
        }
        this.skipBlankTab();
        if (this.c !== QUOTE) {
          throw this.error(`expected '"' at start of label value, found ${this.quoteCurrentByte()}`);
        }
        const value = this.checkedLabelValue(this.readTokenAsLabelValue());
        if (special) {
          const f = parseGoFloat(value);
          if (f === undefined) {
            throw this.error(`expected float as value for '${labelName}' label, got ${goQuote(value)}`);
          }
          if (type === 'summary') quantile = f;
          else bucket = f;
        } else {
          labels.push([labelName, value]);
        }
        this.skipBlankTab();
        if (this.c === COMMA) continue;
        if (this.c === RBRACE) {
          this.skipBlankTab();
          break;
        }
        throw this.error(`unexpected end of label value ${goQuote(value)}`);
      }
    }

    let metric: MetricBuilder;
    if (!grouped) {
      const token = this.readTokenUntilWhitespace();
      const value = parseGoFloat(token);
      if (value === undefined) throw this.error(`expected float as value, got ${this.quote(token)}`);
      if (type === 'gauge_histogram') {
        // Not a ParseError in Go, hence no line prefix.
        throw new ExpositionError(`unexpected type for metric name ${goQuote(mf.name)}`);
      }
      metric = { labels, value };
      mf.metrics.push(metric);
    } else {
      const bySig = (mf.bySignature ??= new Map());
      const sig = signatureOf(mf.name, labels);
      const found = bySig.get(sig);
      if (found !== undefined) metric = found;
      else {
        metric = { labels };
        bySig.set(sig, metric);
        mf.metrics.push(metric);
      }
      const token = this.readTokenUntilWhitespace();
      const value = parseGoFloat(token);
      if (value === undefined) throw this.error(`expected float as value, got ${this.quote(token)}`);
      if (type === 'summary') {
        const summary = (metric.summary ??= { sampleCount: 0, sampleSum: 0, quantiles: [] });
        if (this.isCount) summary.sampleCount = goFloatToUint64(value);
        else if (this.isSum) summary.sampleSum = value;
        else if (!Number.isNaN(quantile)) summary.quantiles.push({ quantile, value });
      } else {
        const histogram = (metric.histogram ??= { sampleCount: 0, sampleSum: 0, buckets: [] });
        if (this.isCount) histogram.sampleCount = goFloatToUint64(value);
        else if (this.isSum) histogram.sampleSum = value;
        else if (!Number.isNaN(bucket)) {
          histogram.buckets.push({ upperBound: bucket, cumulativeCount: goFloatToUint64(value) });
        }
      }
    }
    if (this.c === NL) return;

    this.skipBlankTab();
    const tsToken = this.readTokenUntilWhitespace();
    const ts = parseGoInt64(tsToken);
    if (ts === undefined) throw this.error(`expected integer as timestamp, got ${this.quote(tsToken)}`);
    metric.timestampMs = ts;
    const rest = this.readTokenUntilNewline(false);
    if (rest.length > 0) throw this.error(`spurious string after timestamp: ${this.quote(rest)}`);
  }
}

/**
 * Parses a text 0.0.4 body. Pass the raw bytes when you have them: only then can a label value that
 * is not valid UTF-8 be refused with Go's text (`invalid label value "\xff"`); a string has already
 * lost that information. Families come in order of first appearance; families without samples
 * (HELP/TYPE only) are dropped, as Go drops them.
 *
 * @throws ExpositionError with Go's message, e.g. `text format parsing error in line 1: expected float as value, got "abc"`.
 */
export function parseText(body: string | Uint8Array): MetricFamily[] {
  if (typeof body === 'string') return new TextParser(body, false).parse();
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (isUtf8(buf)) return new TextParser(buf.toString('utf8'), false).parse();
  return new TextParser(buf.toString('latin1'), true).parse();
}
