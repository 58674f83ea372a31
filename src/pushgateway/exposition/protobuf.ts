/**
 * Delimited protobuf bodies (`application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
 * encoding=delimited`): varint-length-prefixed MetricFamily messages until EOF, as the Go and Java
 * clients push them and as Prometheus can scrape them. protobufjs does the wire format; this file
 * maps messages to and from the gateway's model.
 *
 * What is kept: name, help, type, labels, counter/gauge/untyped values, summary quantiles, classic
 * histogram buckets (integer and float counts apart), a histogram's native part (schema, zero
 * bucket, spans, deltas and counts, see native-histogram.ts) and created timestamp, timestamp_ms.
 * What is dropped: exemplars, the created timestamps of counters and summaries, unit.
 */
import protobuf from 'protobufjs';
import { ExpositionError } from '../errors.js';
import type { HistogramValue, Label, Metric, MetricFamily, MetricType, Quantile } from '../model.js';
import { goQuote, goQuoteBytes } from './go-quote.js';
import { loadMetricFamilyType } from './metrics-proto.js';
import { histogramFromProto, histogramToProto, isUint64, type PbHistogram } from './protobuf-histogram.js';

// The schema is a constant; building it once per process is like a constant table, not a registry.
let familyType: protobuf.Type | undefined;
function metricFamilyType(): protobuf.Type {
  return (familyType ??= loadMetricFamilyType());
}

const TYPE_BY_ENUM: readonly (MetricType | undefined)[] = ['counter', 'gauge', 'summary', 'untyped', 'histogram'];
const ENUM_BY_TYPE: Readonly<Record<MetricType, number>> = { counter: 0, gauge: 1, summary: 2, untyped: 3, histogram: 4 };
const ENUM_NAMES = ['COUNTER', 'GAUGE', 'SUMMARY', 'UNTYPED', 'HISTOGRAM', 'GAUGE_HISTOGRAM'];

type Long = protobuf.Long;

/* The decoded message shapes (protobufjs reflection: unset scalars read their default, unset messages null). */
interface PbLabelPair {
  name: string;
  value: Uint8Array;
}
interface PbValue {
  value: number;
}
interface PbSummary {
  sampleCount: number | Long;
  sampleSum: number;
  quantile: { quantile: number; value: number }[];
}
interface PbMetric {
  label: PbLabelPair[];
  gauge: PbValue | null;
  counter: PbValue | null;
  untyped: PbValue | null;
  summary: PbSummary | null;
  histogram: PbHistogram | null;
  timestampMs: number | Long;
}
interface PbFamily {
  name: string;
  help: string;
  type: number;
  metric: PbMetric[];
}

function num(v: number | Long, unsigned: boolean): number {
  return typeof v === 'number' ? v : protobuf.util.LongBits.from(v).toNumber(unsigned);
}

function hasField(msg: object, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(msg, field);
}

function labelText(labels: readonly Label[]): string {
  return labels.map(([n, v]) => `label:<name:${JSON.stringify(n)} value:${JSON.stringify(v)} > `).join('');
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A label value's bytes as text. Pushgateway refuses a value that is not UTF-8 (in its consistency
 * check); so do we, with its prefix and wording.
 */
function labelValue(family: string, name: string, bytes: Uint8Array, labels: readonly Label[]): string {
  const n = bytes.length;
  let ascii = true;
  for (let i = 0; i < n; i++) {
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    if (n <= 64) {
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(bytes[i]!);
      return s;
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('latin1');
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new ExpositionError(
      `pushed metrics are invalid or inconsistent with existing metrics: collected metric ${JSON.stringify(family)} { ${labelText(labels)}} has a label named ${goQuote(name)} whose value is not utf8: ${goQuoteBytes(bytes)}`,
    );
  }
}

function wrongKind(family: string, type: MetricType, labels: readonly Label[]): ExpositionError {
  return new ExpositionError(
    `pushed metrics are invalid or inconsistent with existing metrics: collected metric ${JSON.stringify(family)} { ${labelText(labels)}} is not a ${ENUM_NAMES[ENUM_BY_TYPE[type]]}`,
  );
}

/** Metric objects are built in one literal each (no spreads): this runs for every pushed series. */
function toMetric(family: string, type: MetricType, m: PbMetric): Metric {
  const pbLabels = m.label;
  const labels: Label[] = new Array<Label>(pbLabels.length);
  for (let i = 0; i < pbLabels.length; i++) {
    const l = pbLabels[i]!;
    labels[i] = [l.name, labelValue(family, l.name, l.value, labels.slice(0, i))];
  }
  const ts = hasField(m, 'timestampMs') ? num(m.timestampMs, false) : undefined;
  switch (type) {
    case 'counter':
    case 'gauge':
    case 'untyped': {
      const holder = type === 'counter' ? m.counter : type === 'gauge' ? m.gauge : m.untyped;
      if (holder === null) throw wrongKind(family, type, labels);
      return ts === undefined ? { labels, value: holder.value } : { labels, value: holder.value, timestampMs: ts };
    }
    case 'summary': {
      const s = m.summary;
      if (s === null) throw wrongKind(family, type, labels);
      const quantiles: Quantile[] = new Array<Quantile>(s.quantile.length);
      for (let i = 0; i < quantiles.length; i++) {
        const q = s.quantile[i]!;
        quantiles[i] = { quantile: q.quantile, value: q.value };
      }
      const summary = { sampleCount: num(s.sampleCount, true), sampleSum: s.sampleSum, quantiles };
      return ts === undefined ? { labels, summary } : { labels, summary, timestampMs: ts };
    }
    case 'histogram': {
      const h = m.histogram;
      if (h === null) throw wrongKind(family, type, labels);
      const histogram: HistogramValue = histogramFromProto(h);
      return ts === undefined ? { labels, histogram } : { labels, histogram, timestampMs: ts };
    }
  }
}

function toFamily(f: PbFamily): MetricFamily {
  const type = TYPE_BY_ENUM[f.type];
  if (type === undefined) {
    throw new ExpositionError(
      `unsupported metric type ${ENUM_NAMES[f.type] ?? String(f.type)} for metric family ${JSON.stringify(f.name)}`,
    );
  }
  return {
    name: f.name,
    help: hasField(f, 'help') ? f.help : undefined,
    type,
    metrics: f.metric.map((m) => toMetric(f.name, type, m)),
  };
}

/** The longest length prefix Go's reader (protodelim.UnmarshalFrom) reads: a varint64. */
const MAX_PREFIX_BYTES = 10;

/**
 * Reads the length prefix at `pos` as Pushgateway 1.11.1's reader (protodelim.UnmarshalFrom)
 * does: a body that ends inside the prefix is `unexpected EOF`, and a prefix that does not end
 * within ten bytes, or whose tenth byte is above 1, is `proto: variable length integer overflow`.
 * Returns the length (exact up to 2^53; larger lengths exceed any body anyway) and where the
 * message starts.
 */
function readPrefix(bytes: Uint8Array, pos: number): { length: number; start: number } {
  let length = 0;
  for (let k = 0; k < MAX_PREFIX_BYTES; k++) {
    const b = bytes[pos + k];
    if (b === undefined) throw new ExpositionError('unexpected EOF');
    if (k === MAX_PREFIX_BYTES - 1 && b >= 2) break;
    length += (b & 0x7f) * 2 ** (7 * k);
    if (b < 0x80) return { length, start: pos + k + 1 };
  }
  throw new ExpositionError('proto: variable length integer overflow');
}

/**
 * What Pushgateway 1.11.1 (protobuf-go) answers for a message that does not decode: one generic
 * text for every wire-format error (Pushgateway 1.5.1's golang/protobuf 1.x named the error).
 */
function wireError(e: unknown): ExpositionError {
  return new ExpositionError('proto: cannot parse invalid wire-format data', { cause: e });
}

/**
 * Decodes varint-length-delimited MetricFamily messages until the end of `body`, framed as
 * Pushgateway 1.11.1 reads them (protodelim): a body that ends inside a length prefix or inside a
 * message is `unexpected EOF` (Pushgateway 1.5.1 took a body ending inside a prefix, or right
 * after one, as complete). A later family with the same name replaces an earlier one (Pushgateway
 * keys them by name), keeping the earlier position. Families without metrics are kept (a POST of
 * one empties that family).
 *
 * @throws ExpositionError `unexpected EOF` for a truncated prefix or message, `proto: variable
 * length integer overflow`, or `proto: cannot parse invalid wire-format data` for a message that
 * does not decode.
 */
export function parseProtobufDelimited(body: Uint8Array): MetricFamily[] {
  const type = metricFamilyType();
  // A plain Uint8Array view, not a Buffer: protobufjs then decodes strings in JavaScript, which
  // beats Buffer#utf8Slice for the short label strings that make up most of a push.
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const reader = protobuf.Reader.create(bytes);
  const byName = new Map<string, MetricFamily>();
  while (reader.pos < reader.len) {
    const { length, start } = readPrefix(bytes, reader.pos);
    reader.pos = start;
    if (reader.len - start < length) throw new ExpositionError('unexpected EOF');
    let message: PbFamily;
    try {
      // Its own reader, so that a field running past the message end is a truncation, as in Go.
      message = type.decode(protobuf.Reader.create(bytes.subarray(start, start + length))) as unknown as PbFamily;
    } catch (e) {
      throw wireError(e);
    }
    reader.skip(length);
    const family = toFamily(message);
    byName.set(family.name, family);
  }
  return [...byName.values()];
}


function fromMetric(type: MetricType, m: Metric): Record<string, unknown> {
  const out: Record<string, unknown> = {
    label: m.labels.map(([name, value]) => ({ name, value: Buffer.from(value, 'utf8') })),
  };
  if (m.timestampMs !== undefined) out.timestampMs = m.timestampMs;
  switch (type) {
    case 'counter':
    case 'gauge':
    case 'untyped':
      out[type] = { value: m.value ?? 0 };
      break;
    case 'summary': {
      const s = m.summary ?? { sampleCount: 0, sampleSum: 0, quantiles: [] };
      out.summary = {
        sampleCount: isUint64(s.sampleCount) ? s.sampleCount : 0,
        sampleSum: s.sampleSum,
        quantile: s.quantiles.map((q) => ({ quantile: q.quantile, value: q.value })),
      };
      break;
    }
    case 'histogram':
      out.histogram = histogramToProto(m.histogram ?? { sampleCount: 0, sampleSum: 0, buckets: [] });
      break;
  }
  return out;
}

/** Encodes families as varint-length-delimited MetricFamily messages (what a Go client pushes). */
export function encodeProtobufDelimited(families: readonly MetricFamily[]): Uint8Array {
  const type = metricFamilyType();
  const writer = protobuf.Writer.create();
  for (const f of families) {
    const msg: Record<string, unknown> = {
      name: f.name,
      type: ENUM_BY_TYPE[f.type],
      metric: f.metrics.map((m) => fromMetric(f.type, m)),
    };
    if (f.help !== undefined) msg.help = f.help;
    type.encodeDelimited(type.fromObject(msg), writer);
  }
  return writer.finish();
}

export const PROTOBUF_CONTENT_TYPE =
  'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

/**
 * Parses a media type the way Go's mime.ParseMediaType does for our purpose: type and parameter
 * names case-insensitive, values case-sensitive and optionally quoted. Undefined when malformed.
 */
export function parseMediaType(value: string): { type: string; params: Map<string, string> } | undefined {
  const parts = value.split(';');
  const type = (parts[0] ?? '').trim().toLowerCase();
  const slash = type.indexOf('/');
  if (slash <= 0 || slash === type.length - 1) return undefined;
  const params = new Map<string, string>();
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!.trim();
    if (part.length === 0) continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim().toLowerCase();
    let v = part.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    // Go's mime package (1.22 and later) allows a repeated parameter when its value is the same.
    if (params.has(key) && params.get(key) !== v) return undefined;
    params.set(key, v);
  }
  return { type, params };
}

/**
 * True when a push body is delimited protobuf: media type `application/vnd.google.protobuf` with
 * `proto=io.prometheus.client.MetricFamily` and `encoding=delimited`, in any order. Everything else
 * (including a missing Content-Type) is read as text 0.0.4, as Pushgateway does.
 */
export function isProtobufContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const parsed = parseMediaType(contentType);
  return (
    parsed !== undefined &&
    parsed.type === 'application/vnd.google.protobuf' &&
    parsed.params.get('proto') === 'io.prometheus.client.MetricFamily' &&
    parsed.params.get('encoding') === 'delimited'
  );
}
