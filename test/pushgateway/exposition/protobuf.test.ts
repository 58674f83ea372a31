import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ExpositionError } from '../../../src/pushgateway/errors.js';
import {
  encodeProtobufDelimited,
  isProtobufContentType,
  parseProtobufDelimited,
} from '../../../src/pushgateway/exposition/protobuf.js';
import { loadMetricFamilyType } from '../../../src/pushgateway/exposition/metrics-proto.js';
import type { MetricFamily } from '../../../src/pushgateway/model.js';
import { familiesArb } from './arbitraries.js';

/** Encodes message objects; label values are given as strings here and sent as their UTF-8 bytes. */
function encodeRaw(messages: Record<string, unknown>[]): Uint8Array {
  const type = loadMetricFamilyType();
  const w = protobuf.Writer.create();
  const withBytes = (m: Record<string, unknown>): Record<string, unknown> => ({
    ...m,
    metric: ((m.metric ?? []) as Record<string, unknown>[]).map((x) => ({
      ...x,
      label: ((x.label ?? []) as { name: string; value: string }[]).map((l) => ({ name: l.name, value: Buffer.from(l.value) })),
    })),
  });
  for (const m of messages) type.encodeDelimited(type.fromObject(withBytes(m)), w);
  return w.finish();
}

describe('parseProtobufDelimited', () => {
  it('reads every metric type, labels and timestamps', () => {
    const body = encodeRaw([
      { name: 'c', help: 'C.', type: 0, metric: [{ label: [{ name: 'a', value: 'b' }], counter: { value: 3 }, timestampMs: 5 }] },
      { name: 'g', type: 1, metric: [{ gauge: { value: -1.5 } }] },
      { name: 'u', type: 3, metric: [{ untyped: { value: NaN } }] },
      { name: 's', type: 2, metric: [{ summary: { sampleCount: 4, sampleSum: 2, quantile: [{ quantile: 0.5, value: 1 }] } }] },
      {
        name: 'h',
        type: 4,
        metric: [
          {
            histogram: {
              sampleCount: 3,
              sampleSum: 1,
              bucket: [
                { upperBound: 1, cumulativeCount: 2 },
                { upperBound: Infinity, cumulativeCountFloat: 3.5 },
              ],
            },
          },
        ],
      },
    ]);
    expect(parseProtobufDelimited(body)).toEqual([
      { name: 'c', help: 'C.', type: 'counter', metrics: [{ labels: [['a', 'b']], value: 3, timestampMs: 5 }] },
      { name: 'g', help: undefined, type: 'gauge', metrics: [{ labels: [], value: -1.5 }] },
      { name: 'u', help: undefined, type: 'untyped', metrics: [{ labels: [], value: NaN }] },
      {
        name: 's',
        help: undefined,
        type: 'summary',
        metrics: [{ labels: [], summary: { sampleCount: 4, sampleSum: 2, quantiles: [{ quantile: 0.5, value: 1 }] } }],
      },
      {
        name: 'h',
        help: undefined,
        type: 'histogram',
        metrics: [{ labels: [], histogram: { sampleCount: 3, sampleSum: 1, buckets: [{ upperBound: 1, cumulativeCount: 2 }, { upperBound: Infinity, cumulativeCount: 0, cumulativeCountFloat: 3.5 }] } }],
      },
    ]);
  });

  it('keeps sample_count_float apart from sample_count, and the native part of a histogram field for field', () => {
    const body = encodeRaw([
      {
        name: 'h',
        type: 4,
        metric: [
          {
            histogram: {
              sampleCountFloat: 2.5,
              sampleSum: 1,
              schema: 3,
              zeroThreshold: 1e-128,
              zeroCountFloat: 0.5,
              negativeSpan: [{ offset: -2, length: 1 }],
              negativeCount: [0.25],
              positiveSpan: [{ offset: 0, length: 1 }],
              positiveDelta: [-2],
              createdTimestamp: { seconds: 12, nanos: 34 },
            },
          },
        ],
      },
    ]);
    const h = parseProtobufDelimited(body)[0]!.metrics[0]!.histogram;
    expect(h).toEqual({
      sampleCount: 0,
      sampleCountFloat: 2.5,
      sampleSum: 1,
      buckets: [],
      native: {
        schema: 3,
        zeroThreshold: 1e-128,
        zeroCountFloat: 0.5,
        negativeSpans: [{ offset: -2, length: 1 }],
        negativeDeltas: [],
        negativeCounts: [0.25],
        positiveSpans: [{ offset: 0, length: 1 }],
        positiveDeltas: [-2],
        positiveCounts: [],
      },
      createdTimestamp: { seconds: 12, nanos: 34 },
    });
    // Given back byte for byte (fields in number order, absent ones absent).
    expect(Buffer.from(encodeProtobufDelimited(parseProtobufDelimited(body))).toString('hex')).toBe(Buffer.from(body).toString('hex'));
  });

  it('an unset schema or zero bucket stays unset, a schema of 0 stays set', () => {
    for (const histogram of [{ sampleCount: 1, sampleSum: 0, positiveSpan: [{ offset: 0, length: 1 }], positiveDelta: [1] }, { sampleCount: 1, sampleSum: 2, schema: 0 }]) {
      const body = encodeRaw([{ name: 'h', type: 4, metric: [{ histogram }] }]);
      expect(Buffer.from(encodeProtobufDelimited(parseProtobufDelimited(body))).toString('hex')).toBe(Buffer.from(body).toString('hex'));
    }
  });

  it('lets a later family with the same name win', () => {
    const body = encodeRaw([
      { name: 'x', type: 1, metric: [{ gauge: { value: 1 } }] },
      { name: 'y', type: 1, metric: [{ gauge: { value: 2 } }] },
      { name: 'x', type: 1, metric: [{ gauge: { value: 3 } }] },
    ]);
    expect(parseProtobufDelimited(body).map((f) => [f.name, f.metrics[0]!.value])).toEqual([
      ['x', 3],
      ['y', 2],
    ]);
  });

  it('reads an empty body as no families', () => {
    expect(parseProtobufDelimited(new Uint8Array())).toEqual([]);
  });

  it('refuses a body cut anywhere, even right after a length prefix, with unexpected EOF', () => {
    const body = encodeRaw([{ name: 'x', type: 1, metric: [{ gauge: { value: 1 } }] }]);
    // Pushgateway 1.11.1's reader (protodelim) wants the whole message once it read a prefix.
    for (let cut = 1; cut < body.length; cut++) {
      expect(() => parseProtobufDelimited(body.subarray(0, cut))).toThrow(new ExpositionError('unexpected EOF'));
    }
  });

  // Verdicts observed on Pushgateway 1.11.1 (hex body → error text, or '' when accepted), except
  // 808080808001: a 32 GiB length prefix, which makes Pushgateway 1.11.1 allocate it and die
  // ("fatal error: runtime: out of memory"); Portico says the body is too short for it.
  it.each([
    ['80', 'unexpected EOF'],
    ['1d', 'unexpected EOF'],
    ['8080808080', 'unexpected EOF'],
    ['808080808001', 'unexpected EOF'],
    ['80808080808080808080', 'proto: variable length integer overflow'],
    ['80808080808080808002', 'proto: variable length integer overflow'],
    ['8080808080808080807f', 'proto: variable length integer overflow'],
    ['0000', ''],
    ['02ffff', 'proto: cannot parse invalid wire-format data'],
    ['030a0561', 'proto: cannot parse invalid wire-format data'],
    ['020f00', 'proto: cannot parse invalid wire-format data'],
    ['020a', 'unexpected EOF'],
    ['0208', 'unexpected EOF'],
    ['02080a', ''],
    ['0312017a', ''],
    ['050a036162', 'unexpected EOF'],
    ['0a2208120b0a01781201791a0000', 'proto: cannot parse invalid wire-format data'],
    ['021a05', 'proto: cannot parse invalid wire-format data'],
    ['03fa0100', ''],
    ['0322013a', 'proto: cannot parse invalid wire-format data'],
  ])('%s → %j', (hex, expected) => {
    let verdict = '';
    try {
      parseProtobufDelimited(Buffer.from(hex, 'hex'));
    } catch (e) {
      expect(e).toBeInstanceOf(ExpositionError);
      verdict = (e as Error).message;
    }
    expect(verdict).toBe(expected);
  });

  it('refuses a label value that is not UTF-8, as Pushgateway does', () => {
    const body = Buffer.from(encodeRaw([{ name: 'x', type: 1, metric: [{ label: [{ name: 'a', value: 'QQ' }], gauge: { value: 1 } }] }]));
    const at = body.indexOf(Buffer.from('QQ'));
    body[at] = 0xff;
    body[at + 1] = 0xc3;
    expect(() => parseProtobufDelimited(body)).toThrow(
      'pushed metrics are invalid or inconsistent with existing metrics: collected metric "x" { } has a label named "a" whose value is not utf8: "\\xff\\xc3"',
    );
  });

  it('refuses gauge histograms and a value that does not match the type', () => {
    expect(() => parseProtobufDelimited(encodeRaw([{ name: 'gh', type: 5, metric: [{ histogram: {} }] }]))).toThrow(
      'unsupported metric type GAUGE_HISTOGRAM for metric family "gh"',
    );
    expect(() =>
      parseProtobufDelimited(encodeRaw([{ name: 'c', type: 0, metric: [{ label: [{ name: 'a', value: 'b' }], gauge: { value: 1 } }] }])),
    ).toThrow(/^pushed metrics are invalid or inconsistent with existing metrics: collected metric "c" .* is not a COUNTER$/);
  });
});

describe('encodeProtobufDelimited', () => {
  it('round-trips any families', () => {
    fc.assert(
      fc.property(familiesArb(true), (families) => {
        const positive = families.map(nonNegativeCounts);
        expect(parseProtobufDelimited(encodeProtobufDelimited(positive))).toEqual(positive);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps large and fractional counts', () => {
    const f: MetricFamily = {
      name: 'h',
      help: '',
      type: 'histogram',
      metrics: [{ labels: [], histogram: { sampleCount: 2 ** 60, sampleSum: 0, buckets: [{ upperBound: 1, cumulativeCount: 0, cumulativeCountFloat: 0.5 }] } }],
    };
    expect(parseProtobufDelimited(encodeProtobufDelimited([f]))).toEqual([f]);
  });
});

/** Counts in the model are non-negative; the generator's counts already are. */
function nonNegativeCounts(f: MetricFamily): MetricFamily {
  return f;
}

describe('isProtobufContentType', () => {
  it.each([
    ['application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited', true],
    ['application/vnd.google.protobuf;encoding=delimited;proto=io.prometheus.client.MetricFamily', true],
    ['Application/Vnd.Google.Protobuf; Encoding=delimited; PROTO="io.prometheus.client.MetricFamily"', true],
    ['application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=text', false],
    ['application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily', false],
    ['application/vnd.google.protobuf; encoding=Delimited; proto=io.prometheus.client.MetricFamily', false],
    ['text/plain; version=0.0.4', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (ct, expected) => {
    expect(isProtobufContentType(ct)).toBe(expected);
  });
});

describe('parseProtobufDelimited on arbitrary input', () => {
  it('either returns families or throws an ExpositionError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), (body) => {
        try {
          parseProtobufDelimited(body);
        } catch (e) {
          expect(e).toBeInstanceOf(ExpositionError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
