/**
 * A histogram between its protobuf message (io.prometheus.client.Histogram) and the model, field
 * for field: classic buckets with integer and float counts apart, the native part (schema, zero
 * bucket, spans, deltas, counts) and the created timestamp, each optional field present exactly
 * when it was pushed, so that a protobuf scrape gives back what Pushgateway 1.11.1 gives back (it
 * keeps the pushed message as it is).
 */
import protobuf from 'protobufjs';
import type { Bucket, BucketSpan, HistogramValue, NativeBuckets, ProtoTimestamp } from '../model.js';

type Long = protobuf.Long;

interface PbBucket {
  cumulativeCount: number | Long;
  cumulativeCountFloat: number;
  upperBound: number;
}
interface PbSpan {
  offset: number;
  length: number;
}
/** The decoded Histogram message (protobufjs reflection: unset fields read their default). */
export interface PbHistogram {
  sampleCount: number | Long;
  sampleCountFloat: number;
  sampleSum: number;
  bucket: PbBucket[];
  schema: number;
  zeroThreshold: number;
  zeroCount: number | Long;
  zeroCountFloat: number;
  negativeSpan: PbSpan[];
  negativeDelta: (number | Long)[];
  negativeCount: number[];
  positiveSpan: PbSpan[];
  positiveDelta: (number | Long)[];
  positiveCount: number[];
  createdTimestamp: { seconds: number | Long; nanos: number } | null;
}

const TWO_64 = 18446744073709551616;

export function isUint64(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v < TWO_64;
}

function num(v: number | Long, unsigned: boolean): number {
  return typeof v === 'number' ? v : protobuf.util.LongBits.from(v).toNumber(unsigned);
}

function has(msg: object, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(msg, field);
}

function spans(list: readonly PbSpan[]): BucketSpan[] {
  return list.map((s) => ({ offset: s.offset, length: s.length }));
}

function nativeFromProto(h: PbHistogram): NativeBuckets | undefined {
  const scalars = ['schema', 'zeroThreshold', 'zeroCount', 'zeroCountFloat'].some((f) => has(h, f));
  const lists = [h.negativeSpan, h.negativeDelta, h.negativeCount, h.positiveSpan, h.positiveDelta, h.positiveCount].some((l) => l.length > 0);
  if (!scalars && !lists) return undefined;
  return {
    ...(has(h, 'schema') && { schema: h.schema }),
    ...(has(h, 'zeroThreshold') && { zeroThreshold: h.zeroThreshold }),
    ...(has(h, 'zeroCount') && { zeroCount: num(h.zeroCount, true) }),
    ...(has(h, 'zeroCountFloat') && { zeroCountFloat: h.zeroCountFloat }),
    negativeSpans: spans(h.negativeSpan),
    negativeDeltas: h.negativeDelta.map((d) => num(d, false)),
    negativeCounts: [...h.negativeCount],
    positiveSpans: spans(h.positiveSpan),
    positiveDeltas: h.positiveDelta.map((d) => num(d, false)),
    positiveCounts: [...h.positiveCount],
  };
}

/** The model of a decoded Histogram message. */
export function histogramFromProto(h: PbHistogram): HistogramValue {
  const buckets: Bucket[] = new Array<Bucket>(h.bucket.length);
  for (let i = 0; i < buckets.length; i++) {
    const b = h.bucket[i]!;
    const cumulativeCount = num(b.cumulativeCount, true);
    buckets[i] = has(b, 'cumulativeCountFloat')
      ? { upperBound: b.upperBound, cumulativeCount, cumulativeCountFloat: b.cumulativeCountFloat }
      : { upperBound: b.upperBound, cumulativeCount };
  }
  const native = nativeFromProto(h);
  const created: ProtoTimestamp | undefined =
    h.createdTimestamp === null ? undefined : { seconds: num(h.createdTimestamp.seconds, false), nanos: h.createdTimestamp.nanos };
  return {
    sampleCount: num(h.sampleCount, true),
    sampleSum: h.sampleSum,
    buckets,
    ...(has(h, 'sampleCountFloat') && { sampleCountFloat: h.sampleCountFloat }),
    ...(native !== undefined && { native }),
    ...(created !== undefined && { createdTimestamp: created }),
  };
}

/**
 * An integer count and its float twin as message fields: the integer one is left out when a
 * float one is set and the integer one is 0 (how a client sends a float histogram); a count that
 * is not a uint64 (models made before the two were kept apart) goes into the float field.
 */
function counts(intName: string, floatName: string, n: number, f: number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (f === undefined && !isUint64(n)) out[floatName] = n;
  else {
    if (!(f !== undefined && n === 0)) out[intName] = n;
    if (f !== undefined) out[floatName] = f;
  }
  return out;
}

function nativeToProto(n: NativeBuckets): Record<string, unknown> {
  return {
    ...(n.schema !== undefined && { schema: n.schema }),
    ...(n.zeroThreshold !== undefined && { zeroThreshold: n.zeroThreshold }),
    ...(n.zeroCount !== undefined && { zeroCount: n.zeroCount }),
    ...(n.zeroCountFloat !== undefined && { zeroCountFloat: n.zeroCountFloat }),
    negativeSpan: n.negativeSpans.map((s) => ({ offset: s.offset, length: s.length })),
    negativeDelta: n.negativeDeltas,
    negativeCount: n.negativeCounts,
    positiveSpan: n.positiveSpans.map((s) => ({ offset: s.offset, length: s.length })),
    positiveDelta: n.positiveDeltas,
    positiveCount: n.positiveCounts,
  };
}

/** The Histogram message (as a protobufjs plain object) of a model. */
export function histogramToProto(h: HistogramValue): Record<string, unknown> {
  const created = h.createdTimestamp;
  return {
    ...counts('sampleCount', 'sampleCountFloat', h.sampleCount, h.sampleCountFloat),
    sampleSum: h.sampleSum,
    bucket: h.buckets.map((b) => ({ upperBound: b.upperBound, ...counts('cumulativeCount', 'cumulativeCountFloat', b.cumulativeCount, b.cumulativeCountFloat) })),
    ...(h.native !== undefined && nativeToProto(h.native)),
    // google.protobuf.Timestamp is proto3: zero fields are not sent.
    ...(created !== undefined && { createdTimestamp: { ...(created.seconds !== 0 && { seconds: created.seconds }), ...(created.nanos !== 0 && { nanos: created.nanos }) } }),
  };
}
