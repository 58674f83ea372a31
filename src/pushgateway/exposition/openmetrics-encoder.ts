/**
 * OpenMetrics 1.0.0 text for the gateway's families, as client_golang's
 * expfmt.MetricFamilyToOpenMetrics writes it: counters as `# TYPE x counter` with `x_total`
 * samples (a `_total` suffix is taken off the family name), untyped as `unknown`, floats with a
 * `.0` when Go's shortest form has neither `.` nor `e`, counts as integers, timestamps in seconds,
 * and `# EOF` at the end.
 */
import type { Metric, MetricFamily, MetricType } from '../model.js';
import { formatGoFloat } from './go-float.js';
import { escapeLabelValue, sampleLines, type NumberFormat } from './sample-lines.js';
import { textName } from './name-escaping.js';

export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** Float as OpenMetrics wants it: Go 'g' form, made to look like a float (`1.0`, `1e+06`). */
export function formatOpenMetricsFloat(v: number): string {
  if (v === 0) return '0.0';
  const s = formatGoFloat(v);
  if (v !== v || v === Infinity || v === -Infinity) return s;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 || c === 101) return s;
  }
  return `${s}.0`;
}

/** Counts are uint64 in Go and printed as integers; a fractional (float-histogram) count as a float. */
function formatCount(v: number): string {
  if (Number.isInteger(v) && v >= 0) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
  return formatOpenMetricsFloat(v);
}

const OM_TYPE: Readonly<Record<MetricType, string>> = {
  counter: 'counter',
  gauge: 'gauge',
  summary: 'summary',
  untyped: 'unknown',
  histogram: 'histogram',
};

function timestamp(metric: Metric): string {
  return metric.timestampMs === undefined ? '' : ` ${formatOpenMetricsFloat(metric.timestampMs / 1000)}`;
}

/** The OpenMetrics family name: a counter's `_total` suffix belongs to its samples, not to the family. */
function familyName(name: string, type: MetricType): string {
  return type === 'counter' && name.endsWith('_total') ? name.slice(0, -6) : name;
}

/** `# HELP` (OpenMetrics escaping: backslash, newline and double quote) and `# TYPE` lines. */
export function renderOpenMetricsHeader(name: string, help: string | undefined, type: MetricType): string {
  const n = textName(familyName(name, type));
  const typeLine = `# TYPE ${n} ${OM_TYPE[type]}\n`;
  return help === undefined ? typeLine : `# HELP ${n} ${escapeLabelValue(help)}\n${typeLine}`;
}

const OM_NUMBERS: NumberFormat = { float: formatOpenMetricsFloat, count: formatCount };

/** Every sample line of one metric in OpenMetrics form. */
export function renderOpenMetricsMetric(name: string, type: MetricType, metric: Metric): string {
  const n = familyName(name, type);
  return sampleLines(n, type, metric, timestamp(metric), OM_NUMBERS, type === 'counter' ? `${n}_total` : n);
}

/** A whole OpenMetrics exposition ending in `# EOF`; families without metrics are left out. */
export function renderFamiliesOpenMetrics(families: readonly MetricFamily[]): string {
  let out = '';
  for (const f of families) {
    if (f.metrics.length === 0) continue;
    out += renderOpenMetricsHeader(f.name, f.help, f.type);
    for (const m of f.metrics) out += renderOpenMetricsMetric(f.name, f.type, m);
  }
  return `${out}# EOF\n`;
}
