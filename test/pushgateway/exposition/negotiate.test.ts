import { describe, expect, it } from 'vitest';
import { negotiateFormat } from '../../../src/pushgateway/exposition/negotiate.js';

describe('negotiateFormat with --web.enable-openmetrics', () => {
  it.each([
    [undefined, 'text'],
    ['', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    ['text/plain;version=0.0.4', 'text'],
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
    ['application/openmetrics-text; version=0.0.1', 'openmetrics'],
    ['application/openmetrics-text; version=2.0.0', 'text'],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited', 'protobuf'],
    ['application/vnd.google.protobuf;encoding=delimited;proto=io.prometheus.client.MetricFamily', 'protobuf'],
    ['application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text', 'text'],
    // Prometheus 2.42's scrape Accept header.
    [
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      'openmetrics',
    ],
    ['text/plain;version=0.0.4;q=0.5,application/openmetrics-text;version=1.0.0;q=0.9', 'openmetrics'],
    ['application/openmetrics-text;q=0.2, text/plain;q=0.3', 'text'],
    [
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.1',
      'protobuf',
    ],
    ['text/html, application/openmetrics-text;q=0.1', 'openmetrics'],
  ])('%s → %s', (accept, expected) => {
    expect(negotiateFormat(accept, true)).toBe(expected);
  });
});

// Prometheus 3.16's scrape Accept header with its default scrape_protocols.
const PROMETHEUS_3_DEFAULT =
  'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

describe('negotiateFormat by default, as Pushgateway 1.11.1 (expfmt.Negotiate)', () => {
  it.each([
    [undefined, 'text'],
    ['application/openmetrics-text', 'text'],
    ['application/openmetrics-text; version=1.0.0; charset=utf-8', 'text'],
    [PROMETHEUS_3_DEFAULT, 'text'],
    ['application/openmetrics-text;version=1.0.0,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5', 'protobuf'],
  ])('%s → %s', (accept, expected) => {
    expect(negotiateFormat(accept)).toBe(expected);
  });

  it('turns to OpenMetrics for Prometheus 3 only with the flag', () => {
    expect(negotiateFormat(PROMETHEUS_3_DEFAULT, true)).toBe('openmetrics');
  });
});
