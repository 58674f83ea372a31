/**
 * Prometheus text format 0.0.4, read as Go's `expfmt.TextParser` reads it (the parser of
 * Pushgateway 1.11.1, checked side by side): same acceptance, same assembly of summaries and
 * histograms, same error texts (`text format parsing error in line N: ...`), quoted (UTF-8) metric
 * and label names included (`"my.metric" 1`, `{"my.metric",a="b"} 1`, `x{"a.b"="c"} 1`). This is
 * its grammar: lines, comments and samples assembled into families; the tokens are read by
 * text-lexer.ts.
 *
 * It runs on every push, so it is one pass of charCode scanning over the body with slices for
 * tokens: no regular expressions and no per-character string building on the common path.
 */
import { isUtf8 } from 'node:buffer';
import { ExpositionError } from '../errors.js';
import type { Label, Metric, MetricFamily, MetricType, Quantile, Bucket } from '../model.js';
import { goQuote } from './go-quote.js';
import { parseGoFloat, parseGoInt64, goFloatToUint64 } from './go-number.js';
import { COMMA, EOF_SIGNAL, EQUALS, HASH, LABEL_CONT, LABEL_START, LBRACE, METRIC_CONT, METRIC_START, NL, QUOTE, RBRACE, TextLexer, hasClass, isBlank } from './text-lexer.js';

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

class TextParser extends TextLexer {
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
  /**
   * Go's currentMetric, which outlives its line: a label set with no metric name (`{a="b"} 1`)
   * after a sample adds to the previous sample's metric and appends it to its family again.
   */
  private currentMetric: MetricBuilder | undefined;
  /** Go's currentLabels (a summary's or histogram's labels with `__name__`), also outliving its line. */
  private currentLabels: Map<string, string> | undefined;
  /** currentLabels as the last summary or histogram line left it, kept unbuilt (see currentLabelsMap). */
  private staleLabels: { name: string; labels: readonly Label[] } | undefined;

  constructor(s: string, byteMode: boolean) {
    super(s, byteMode);
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
    else if (c === LBRACE) this.bracedSample();
    else if (c !== NL) this.sample();
    return true;
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
    // repeatedName compares the body: only a name written as it is (not quoted) can be found there.
    if (this.p - at === name.length && this.s.charCodeAt(at) !== QUOTE) this.lastNameAt = at;
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
    // Labels that identify a summary/histogram metric (without quantile/le).
    const labels: Label[] = [];
    this.skipBlankTabIfCurrentBlankTab();
    const at = this.c === LBRACE ? this.labelSet(mf, labels) : NaN;

    let metric: MetricBuilder;
    if (type !== 'summary' && type !== 'histogram') {
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
      metric = this.groupedSample(mf, type, labels, at);
    }
    this.currentMetric = metric;
    this.timestampOf(metric);
  }

  /** The rest of a sample line after its value: nothing, or a timestamp. */
  private timestampOf(metric: MetricBuilder): void {
    if (this.c === NL) return;

    this.skipBlankTab();
    const tsToken = this.readTokenUntilWhitespace();
    const ts = parseGoInt64(tsToken);
    if (ts === undefined) throw this.error(`expected integer as timestamp, got ${this.quote(tsToken)}`);
    metric.timestampMs = ts;
    const rest = this.readTokenUntilNewline(false);
    if (rest.length > 0) throw this.error(`spurious string after timestamp: ${this.quote(rest)}`);
  }

  /**
   * The `{...}` of a sample, from its `{`: pushes the labels to `labels` and returns the value of a
   * summary's `quantile` or a histogram's `le` label (NaN when there is none).
   */
  private labelSet(mf: FamilyBuilder, labels: Label[]): number {
    const type = mf.type;
    let at = NaN;
    for (;;) {
      this.skipBlankTab();
      if (this.c === RBRACE) {
        this.skipBlankTab();
        return at;
      }
      const labelName = this.readNameToken(LABEL_START, LABEL_CONT, 'label');
      if (labelName.length === 0) throw this.error(`invalid label name for metric ${goQuote(mf.name)}`);
      const special = (type === 'summary' && labelName === 'quantile') || (type === 'histogram' && labelName === 'le');
      this.skipBlankTabIfCurrentBlankTab();
      if (this.c !== EQUALS) throw this.error(`expected '=' after label name, found ${this.quoteCurrentByte()}`);
      if (labelName === '__name__') throw this.error('label name "__name__" is reserved');
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
        at = f;
      } else {
        labels.push([labelName, value]);
      }
      this.skipBlankTab();
      if (this.c === COMMA) continue;
      if (this.c === RBRACE) {
        this.skipBlankTab();
        return at;
      }
      throw this.error(`unexpected end of label value ${goQuote(value)}`);
    }
  }

  /** Go's currentLabels as a map: built from the last summary or histogram line when needed. */
  private currentLabelsMap(): Map<string, string> | undefined {
    if (this.currentLabels === undefined && this.staleLabels !== undefined) {
      this.currentLabels = new Map([['__name__', this.staleLabels.name], ...this.staleLabels.labels]);
      this.staleLabels = undefined;
    }
    return this.currentLabels;
  }

  /** Where Go's parser panics (a nil metric or map); Pushgateway then closes the connection unanswered. */
  private noMetric(): ExpositionError {
    return this.error('label set without a metric name');
  }

  /**
   * A line that starts with `{`: the metric name may come inside the braces, quoted or not
   * (`{"my.metric",a="b"} 1`, after labels too). Go's parser reads it with the state of the line
   * before (the family and metric it was at), and so does this.
   */
  private bracedSample(): void {
    let mf: FamilyBuilder | undefined = this.families.size === 0 ? undefined : this.mf;
    if (mf?.type === 'summary' || mf?.type === 'histogram') {
      this.currentLabels = new Map([['__name__', mf.name]]);
      this.staleLabels = undefined;
    }
    let at = NaN;
    let named = false;
    const pending: [string, string][] = [];
    let metric = this.currentMetric;
    for (;;) {
      this.skipBlankTab();
      if (this.c === RBRACE) break;
      const name = this.readNameToken(LABEL_START, LABEL_CONT, 'label');
      if (name.length === 0) throw this.error(`invalid label name for metric ${goQuote(mf?.name ?? '')}`);
      this.skipBlankTabIfCurrentBlankTab();
      if (this.c !== EQUALS) {
        if (named) throw this.error(`multiple metric names for metric ${goQuote(mf?.name ?? '')}`);
        if (this.c !== COMMA && this.c !== RBRACE) throw this.error(`unexpected end of metric name ${this.quoteCurrentByte()}`);
        mf = this.setOrCreateCurrentMF(name);
        mf.type ??= 'untyped';
        metric = { labels: [] };
        named = true;
        if (this.c === RBRACE) break;
        continue;
      }
      const value = this.bracedLabel(mf, name, pending);
      if (value.at !== undefined) at = value.at;
      this.skipBlankTab();
      if (this.c === COMMA) continue;
      if (this.c !== RBRACE) throw this.error(`unexpected end of label value ${goQuote(value.value)}`);
      if (mf === undefined) throw this.error('invalid metric name');
      break;
    }
    if (metric === undefined || mf === undefined) throw this.noMetric();
    (metric.labels as Label[]).push(...pending);
    this.skipBlankTab();
    this.bracedValue(mf, metric, at);
  }

  /**
   * A `name="value"` pair of a braced line, from its `=`: Go's checks with the family known so far
   * (the line before's, until the name comes); returns the value and, for a summary's `quantile` or
   * a histogram's `le`, its number.
   */
  private bracedLabel(mf: FamilyBuilder | undefined, name: string, pending: [string, string][]): { value: string; at?: number } {
    if (name === '__name__') throw this.error('label name "__name__" is reserved');
    const special = (mf?.type === 'summary' && name === 'quantile') || (mf?.type === 'histogram' && name === 'le');
    const pair: [string, string] = [name, ''];
    if (!special) {
      pending.push(pair);
      for (let k = 0; k < pending.length - 1; k++) {
        if (pending[k]![0] === name) throw this.error(`duplicate label names for metric ${goQuote(mf?.name ?? '')}`);
      }
    }
    this.skipBlankTab();
    if (this.c !== QUOTE) throw this.error(`expected '"' at start of label value, found ${this.quoteCurrentByte()}`);
    const value = this.checkedLabelValue(this.readTokenAsLabelValue());
    pair[1] = value;
    if (mf?.type !== 'summary' && mf?.type !== 'histogram') return { value };
    if (special) {
      const f = parseGoFloat(value);
      if (f === undefined) throw this.error(`expected float as value for '${name}' label, got ${goQuote(value)}`);
      return { value, at: f };
    }
    const labels = this.currentLabelsMap();
    if (labels === undefined) throw this.noMetric();
    labels.set(name, value);
    return { value };
  }

  /** Go's readingValue for a braced line: the metric as its family's type takes it. */
  private bracedValue(mf: FamilyBuilder, fresh: MetricBuilder, at: number): void {
    const type = mf.type ?? 'untyped';
    let metric: MetricBuilder;
    if (type === 'summary' || type === 'histogram') {
      const labels = this.currentLabelsMap();
      const sig = labels === undefined ? '' : signatureOf(labels.get('__name__') ?? '', [...labels].filter((l) => l[0] !== '__name__'));
      metric = this.groupedSample(mf, type, fresh.labels, at, fresh, sig);
    } else {
      mf.metrics.push(fresh);
      const token = this.readTokenUntilWhitespace();
      const value = parseGoFloat(token);
      if (value === undefined) throw this.error(`expected float as value, got ${this.quote(token)}`);
      if (type === 'gauge_histogram') throw new ExpositionError(`unexpected type for metric name ${goQuote(mf.name)}`);
      fresh.value = value;
      metric = fresh;
    }
    this.currentMetric = metric;
    this.timestampOf(metric);
  }

  /**
   * A summary or histogram line: the metric of its label signature (created on its first line)
   * takes the value as its count, sum, or the quantile / bucket `at`.
   */
  private groupedSample(mf: FamilyBuilder, type: 'summary' | 'histogram', labels: Label[], at: number, fresh: MetricBuilder = { labels }, signature?: string): MetricBuilder {
    const bySig = (mf.bySignature ??= new Map());
    const sig = signature ?? signatureOf(mf.name, labels);
    this.currentLabels = undefined;
    this.staleLabels = { name: mf.name, labels };
    let metric = bySig.get(sig);
    if (metric === undefined) {
      metric = fresh;
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
      else if (!Number.isNaN(at)) summary.quantiles.push({ quantile: at, value });
    } else {
      const histogram = (metric.histogram ??= { sampleCount: 0, sampleSum: 0, buckets: [] });
      if (this.isCount) histogram.sampleCount = goFloatToUint64(value);
      else if (this.isSum) histogram.sampleSum = value;
      else if (!Number.isNaN(at)) {
        histogram.buckets.push({ upperBound: at, cumulativeCount: goFloatToUint64(value) });
      }
    }
    return metric;
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
