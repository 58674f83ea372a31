import { describe, expect, it } from 'vitest';
import { OPENMETRICS_CONTENT_TYPE, formatOpenMetricsFloat, renderFamiliesOpenMetrics } from '../../../src/pushgateway/exposition/openmetrics-encoder.js';
import type { MetricFamily } from '../../../src/pushgateway/model.js';

describe('OpenMetrics encoder', () => {
  it('formats floats so that they read as floats', () => {
    expect([1, 0, -1, 1.5, 1e6, 100, NaN, Infinity, -Infinity, 1e-5].map(formatOpenMetricsFloat)).toEqual([
      '1.0',
      '0.0',
      '-1.0',
      '1.5',
      '1e+06',
      '100.0',
      'NaN',
      '+Inf',
      '-Inf',
      '1e-05',
    ]);
  });

  it('renders every type, _total for counters, unknown for untyped, and # EOF', () => {
    const families: MetricFamily[] = [
      { name: 'requests_total', help: 'Requests "served".\n', type: 'counter', metrics: [{ labels: [['a', 'b']], value: 3 }] },
      { name: 'jobs', help: undefined, type: 'counter', metrics: [{ labels: [], value: 1, timestampMs: 1500 }] },
      { name: 'temp', help: undefined, type: 'gauge', metrics: [{ labels: [], value: 21.5 }] },
      { name: 'raw', help: undefined, type: 'untyped', metrics: [{ labels: [], value: 7 }] },
      {
        name: 'lat',
        help: undefined,
        type: 'summary',
        metrics: [{ labels: [], summary: { sampleCount: 2, sampleSum: 3, quantiles: [{ quantile: 0.5, value: 1 }] } }],
      },
      {
        name: 'dur',
        help: undefined,
        type: 'histogram',
        metrics: [{ labels: [], histogram: { sampleCount: 2, sampleSum: 3, buckets: [{ upperBound: 1, cumulativeCount: 1 }] } }],
      },
    ];
    expect(renderFamiliesOpenMetrics(families)).toBe(
      [
        '# HELP requests Requests \\"served\\".\\n',
        '# TYPE requests counter',
        'requests_total{a="b"} 3.0',
        '# TYPE jobs counter',
        'jobs_total 1.0 1.5',
        '# TYPE temp gauge',
        'temp 21.5',
        '# TYPE raw unknown',
        'raw 7.0',
        '# TYPE lat summary',
        'lat{quantile="0.5"} 1.0',
        'lat_sum 3.0',
        'lat_count 2',
        '# TYPE dur histogram',
        'dur_bucket{le="1.0"} 1',
        'dur_bucket{le="+Inf"} 2',
        'dur_sum 3.0',
        'dur_count 2',
        '# EOF',
        '',
      ].join('\n'),
    );
    expect(OPENMETRICS_CONTENT_TYPE).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
  });
});
