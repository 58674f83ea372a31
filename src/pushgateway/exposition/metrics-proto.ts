/**
 * The `io.prometheus.client` message schema (prometheus/client_model metrics.proto), written out as
 * a protobufjs JSON descriptor from its field numbers. Only what the gateway needs to read and write
 * is declared in full, native histograms included; exemplars are declared so that they decode
 * cleanly, though the gateway does not keep them.
 */
import protobuf from 'protobufjs';

const descriptor = {
  nested: {
    io: {
      nested: {
        prometheus: {
          nested: {
            client: {
              nested: {
                // The value is read as bytes (wire-compatible with string) so that a value that is
                // not UTF-8 can be refused as Pushgateway does, instead of decoded into U+FFFD.
                LabelPair: {
                  fields: { name: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } },
                },
                MetricType: {
                  values: { COUNTER: 0, GAUGE: 1, SUMMARY: 2, UNTYPED: 3, HISTOGRAM: 4, GAUGE_HISTOGRAM: 5 },
                },
                Timestamp: {
                  fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } },
                },
                Gauge: { fields: { value: { type: 'double', id: 1 } } },
                Counter: {
                  fields: {
                    value: { type: 'double', id: 1 },
                    exemplar: { type: 'Exemplar', id: 2 },
                    createdTimestamp: { type: 'Timestamp', id: 3 },
                  },
                },
                Quantile: {
                  fields: { quantile: { type: 'double', id: 1 }, value: { type: 'double', id: 2 } },
                },
                Summary: {
                  fields: {
                    sampleCount: { type: 'uint64', id: 1 },
                    sampleSum: { type: 'double', id: 2 },
                    quantile: { rule: 'repeated', type: 'Quantile', id: 3 },
                    createdTimestamp: { type: 'Timestamp', id: 4 },
                  },
                },
                Untyped: { fields: { value: { type: 'double', id: 1 } } },
                // Fields in field-number order: protobufjs writes them in declaration order and
                // protobuf-go (Pushgateway) in number order, so a scrape gives the same bytes.
                Histogram: {
                  fields: {
                    sampleCount: { type: 'uint64', id: 1 },
                    sampleSum: { type: 'double', id: 2 },
                    bucket: { rule: 'repeated', type: 'Bucket', id: 3 },
                    sampleCountFloat: { type: 'double', id: 4 },
                    schema: { type: 'sint32', id: 5 },
                    zeroThreshold: { type: 'double', id: 6 },
                    zeroCount: { type: 'uint64', id: 7 },
                    zeroCountFloat: { type: 'double', id: 8 },
                    negativeSpan: { rule: 'repeated', type: 'BucketSpan', id: 9 },
                    negativeDelta: { rule: 'repeated', type: 'sint64', id: 10 },
                    negativeCount: { rule: 'repeated', type: 'double', id: 11 },
                    positiveSpan: { rule: 'repeated', type: 'BucketSpan', id: 12 },
                    positiveDelta: { rule: 'repeated', type: 'sint64', id: 13 },
                    positiveCount: { rule: 'repeated', type: 'double', id: 14 },
                    createdTimestamp: { type: 'Timestamp', id: 15 },
                    exemplars: { rule: 'repeated', type: 'Exemplar', id: 16 },
                  },
                },
                Bucket: {
                  fields: {
                    cumulativeCount: { type: 'uint64', id: 1 },
                    upperBound: { type: 'double', id: 2 },
                    exemplar: { type: 'Exemplar', id: 3 },
                    cumulativeCountFloat: { type: 'double', id: 4 },
                  },
                },
                BucketSpan: {
                  fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } },
                },
                Exemplar: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    value: { type: 'double', id: 2 },
                    timestamp: { type: 'Timestamp', id: 3 },
                  },
                },
                Metric: {
                  fields: {
                    label: { rule: 'repeated', type: 'LabelPair', id: 1 },
                    gauge: { type: 'Gauge', id: 2 },
                    counter: { type: 'Counter', id: 3 },
                    summary: { type: 'Summary', id: 4 },
                    untyped: { type: 'Untyped', id: 5 },
                    timestampMs: { type: 'int64', id: 6 },
                    histogram: { type: 'Histogram', id: 7 },
                  },
                },
                MetricFamily: {
                  fields: {
                    name: { type: 'string', id: 1 },
                    help: { type: 'string', id: 2 },
                    type: { type: 'MetricType', id: 3 },
                    metric: { rule: 'repeated', type: 'Metric', id: 4 },
                    unit: { type: 'string', id: 5 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/**
 * metrics.proto is proto2: every optional field has explicit presence, so an empty HELP string is
 * still sent and `help` set to "" differs from no help. protobufjs reads a JSON descriptor as proto3
 * unless a message says otherwise, hence the edition stamped on each message type.
 */
function withProto2Messages(nested: Record<string, object>): Record<string, object> {
  const out: Record<string, object> = {};
  for (const [name, def] of Object.entries(nested)) out[name] = 'fields' in def ? { ...def, edition: 'proto2' } : def;
  return out;
}

/** Builds the MetricFamily message type (one protobufjs Root per call: no module-level registry). */
export function loadMetricFamilyType(): protobuf.Type {
  const client = descriptor.nested.io.nested.prometheus.nested.client;
  const json = { nested: { io: { nested: { prometheus: { nested: { client: { nested: withProto2Messages(client.nested) } } } } } } };
  return protobuf.Root.fromJSON(json).lookupType('io.prometheus.client.MetricFamily');
}
