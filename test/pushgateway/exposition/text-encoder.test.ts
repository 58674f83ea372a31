import { describe, expect, it } from 'vitest';
import { TEXT_CONTENT_TYPE, renderFamiliesText, renderFamilyHeader, renderMetricText } from '../../../src/pushgateway/exposition/text-encoder.js';
import type { MetricFamily } from '../../../src/pushgateway/model.js';

describe('renderFamilyHeader', () => {
  it('writes HELP only when defined, escaping backslash and newline (not quotes)', () => {
    expect(renderFamilyHeader('x', 'a\\b\nc "d"', 'counter')).toBe('# HELP x a\\\\b\\nc "d"\n# TYPE x counter\n');
    expect(renderFamilyHeader('x', undefined, 'untyped')).toBe('# TYPE x untyped\n');
    expect(renderFamilyHeader('x', '', 'gauge')).toBe('# HELP x \n# TYPE x gauge\n');
  });
});

describe('renderMetricText', () => {
  it('writes a plain sample with escaped labels and a timestamp', () => {
    expect(renderMetricText('x', 'gauge', { labels: [['b', 'q"\\\n'], ['a', '1']], value: 1e6, timestampMs: 1234 })).toBe(
      'x{b="q\\"\\\\\\n",a="1"} 1e+06 1234\n',
    );
    expect(renderMetricText('x', 'counter', { labels: [], value: -0 })).toBe('x 0\n');
    expect(renderMetricText('x', 'untyped', { labels: [], value: NaN })).toBe('x NaN\n');
  });

  it('writes summaries with quantile last and counts in float form', () => {
    expect(
      renderMetricText('s', 'summary', {
        labels: [['job', 'j']],
        summary: { sampleCount: 1234567, sampleSum: 0.5, quantiles: [{ quantile: 0.99, value: 3 }] },
      }),
    ).toBe('s{job="j",quantile="0.99"} 3\ns_sum{job="j"} 0.5\ns_count{job="j"} 1.234567e+06\n');
  });

  it('writes histograms and adds the +Inf bucket when missing', () => {
    expect(
      renderMetricText('h', 'histogram', {
        labels: [],
        histogram: { sampleCount: 3, sampleSum: 2, buckets: [{ upperBound: 0.00001, cumulativeCount: 1 }] },
      }),
    ).toBe('h_bucket{le="1e-05"} 1\nh_bucket{le="+Inf"} 3\nh_sum 2\nh_count 3\n');
    expect(
      renderMetricText('h', 'histogram', {
        labels: [['a', 'b']],
        histogram: { sampleCount: 3, sampleSum: 2, buckets: [{ upperBound: Infinity, cumulativeCount: 3 }] },
      }),
    ).toBe('h_bucket{a="b",le="+Inf"} 3\nh_sum{a="b"} 2\nh_count{a="b"} 3\n');
  });
});

describe('renderFamiliesText', () => {
  it('renders families in order and skips empty ones', () => {
    const families: MetricFamily[] = [
      { name: 'a', help: 'A.', type: 'counter', metrics: [{ labels: [], value: 1 }] },
      { name: 'empty', help: undefined, type: 'gauge', metrics: [] },
      { name: 'b', help: undefined, type: 'gauge', metrics: [{ labels: [['x', 'y']], value: 2 }] },
    ];
    expect(renderFamiliesText(families)).toBe('# HELP a A.\n# TYPE a counter\na 1\n# TYPE b gauge\nb{x="y"} 2\n');
  });

  it('exports the 0.0.4 content type', () => {
    expect(TEXT_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
