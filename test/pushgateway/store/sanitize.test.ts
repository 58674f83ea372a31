import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRfc3339Nano, metricJson } from '../../../src/pushgateway/http/api-json.js';
import type { Label } from '../../../src/pushgateway/model.js';
import { compareMetricLabels, ownLabel, ownString, sanitizeLabels, seriesHash, seriesKey } from '../../../src/pushgateway/store/sanitize.js';
import { joinPath, normalizePrefix } from '../../../src/pushgateway/http/gateway.js';

describe('sanitizeLabels', () => {
  it('overwrites and appends grouping labels, adds instance="" and sorts', () => {
    expect(sanitizeLabels([['job', 'xx'], ['z', '1'], ['inst', 'yy']], [['inst', 'real'], ['job', 'conf']])).toEqual([
      ['inst', 'real'],
      ['instance', ''],
      ['job', 'conf'],
      ['z', '1'],
    ]);
    expect(sanitizeLabels([['instance', 'body']], [['job', 'j']])).toEqual([['instance', 'body'], ['job', 'j']]);
    expect(sanitizeLabels([['instance', 'body']], [['instance', 'url'], ['job', 'j']])).toEqual([['instance', 'url'], ['job', 'j']]);
  });
});

describe('ordering and identities', () => {
  it('sorts metrics by label count, then values by position (names ignored)', () => {
    expect(compareMetricLabels([['instance', ''], ['job', 'b']], [['a', '2'], ['instance', ''], ['job', 'a']])).toBeLessThan(0);
    expect(compareMetricLabels([['a', '1'], ['job', 'z']], [['b', '2'], ['job', 'a']])).toBeLessThan(0);
    expect(compareMetricLabels([['a', '1']], [['b', '1']])).toBe(0);
    // Go compares UTF-8 bytes: U+F172 sorts before U+1F600, unlike JavaScript's UTF-16 `<`.
    expect(compareMetricLabels([['a', '\uF172']], [['a', '\u{1F600}']])).toBeLessThan(0);
  });

  it('never gives two label sets the same series key', () => {
    expect(seriesKey('m', [['a', 'b'], ['c', 'd']])).not.toBe(seriesKey('m', [['a', 'b\xffc\xffd']]));
    expect(seriesHash('m', [['a', 'b'], ['c', 'd']])).toBe(seriesHash('m', [['a', 'b'], ['c', 'd']]));
    expect(seriesHash('m', [['a', 'b'], ['c', 'd']])).not.toBe(seriesHash('m', [['a', 'bc'], ['', 'd']]));
    expect(seriesHash('m', [['a', 'b']])).not.toBe(seriesHash('ma', [['', 'b']]));
    expect(Number.isSafeInteger(seriesHash('m', []))).toBe(true);
  });
});

describe('API formatting', () => {
  it('prints times as Go RFC3339Nano in UTC, trimming zeros', () => {
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678Z');
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 500))).toBe('2026-01-02T03:04:05.5Z');
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 0))).toBe('2026-01-02T03:04:05Z');
  });

  it('prints values as Go strings and counts as integers', () => {
    expect(metricJson({ labels: [['job', 'j']], value: 1e6 })).toEqual({ labels: { job: 'j' }, value: '1e+06' });
    expect(metricJson({ labels: [], summary: { sampleCount: 2e6, sampleSum: NaN, quantiles: [{ quantile: 0.99, value: Infinity }] } })).toEqual({
      labels: {},
      quantiles: { '0.99': '+Inf' },
      count: '2000000',
      sum: 'NaN',
    });
  });
});

describe('route prefix', () => {
  it('normalizes like Pushgateway and joins the telemetry path', () => {
    expect(normalizePrefix('/')).toBe('');
    expect(normalizePrefix('pg/')).toBe('/pg');
    expect(joinPath('', '/metrics')).toBe('/metrics');
    expect(joinPath('/pg', 'metrics/')).toBe('/pg/metrics');
  });
});

describe('ownString and ownLabel', () => {
  it('give back an equal string for any string, lone surrogates included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), (a, b) => {
      const body = `${a}${b}${a}`;
      const slice = body.slice(a.length, a.length + b.length + a.length);
      expect(ownString(slice)).toBe(slice);
      expect(ownString(body)).toBe(body);
    }));
  });

  it('keep a label with short strings as the same tuple and copy one with a long string', () => {
    const short: Label = ['job', 'batch'];
    expect(ownLabel(short)).toBe(short);
    const long: Label = ['path', '/var/lib/some/long/path'];
    const owned = ownLabel(long);
    expect(owned).not.toBe(long);
    expect(owned).toEqual(long);
  });
});
