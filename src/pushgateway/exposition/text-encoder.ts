/**
 * Text format 0.0.4 as client_golang writes it (expfmt.MetricFamilyToText), i.e. what
 * `GET /metrics` on Pushgateway shows: numbers in Go's shortest 'g' form, counts printed as floats,
 * a `+Inf` bucket added when a histogram lacks one, `quantile`/`le` as the last label.
 */
import type { Label, Metric, MetricFamily, MetricType } from '../model.js';
import { formatGoInt, formatSampleValue } from './go-float.js';

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** HELP text escaping: backslash and newline. */
export function escapeHelp(help: string): string {
  let needs = false;
  for (let i = 0; i < help.length; i++) {
    const c = help.charCodeAt(i);
    if (c === 92 || c === 10) {
      needs = true;
      break;
    }
  }
  return needs ? help.replace(/[\\\n]/g, (m) => (m === '\n' ? '\\n' : '\\\\')) : help;
}

/** Label value escaping: backslash, double quote and newline. */
export function escapeLabelValue(value: string): string {
  let needs = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 92 || c === 10 || c === 34) {
      needs = true;
      break;
    }
  }
  return needs ? value.replace(/[\\\n"]/g, (m) => (m === '\n' ? '\\n' : `\\${m}`)) : value;
}

/** `# HELP` (only when help is defined) and `# TYPE` lines of one family. */
export function renderFamilyHeader(name: string, help: string | undefined, type: MetricType): string {
  const typeLine = `# TYPE ${name} ${type}\n`;
  return help === undefined ? typeLine : `# HELP ${name} ${escapeHelp(help)}\n${typeLine}`;
}

/** `{a="x",b="y"}` plus the optional extra label (`quantile`/`le`) last; empty when there are none. */
function labelSet(labels: readonly Label[], extraName?: string, extraValue?: number): string {
  if (labels.length === 0 && extraName === undefined) return '';
  let out = '{';
  let sep = '';
  for (const [n, v] of labels) {
    out += `${sep}${n}="${escapeLabelValue(v)}"`;
    sep = ',';
  }
  if (extraName !== undefined) out += `${sep}${extraName}="${formatSampleValue(extraValue ?? 0)}"`;
  return `${out}}`;
}

function line(name: string, labels: string, value: number, ts: string): string {
  return `${name}${labels} ${formatSampleValue(value)}${ts}\n`;
}

/** Every sample line of one metric of a family called `name` of type `type`. */
export function renderMetricText(name: string, type: MetricType, metric: Metric): string {
  const ts = metric.timestampMs === undefined ? '' : ` ${formatGoInt(metric.timestampMs)}`;
  switch (type) {
    case 'counter':
    case 'gauge':
    case 'untyped':
      return line(name, labelSet(metric.labels), metric.value ?? 0, ts);
    case 'summary': {
      const s = metric.summary ?? { sampleCount: 0, sampleSum: 0, quantiles: [] };
      let out = '';
      for (const q of s.quantiles) out += line(name, labelSet(metric.labels, 'quantile', q.quantile), q.value, ts);
      const plain = labelSet(metric.labels);
      out += line(`${name}_sum`, plain, s.sampleSum, ts);
      out += line(`${name}_count`, plain, s.sampleCount, ts);
      return out;
    }
    case 'histogram': {
      const h = metric.histogram ?? { sampleCount: 0, sampleSum: 0, buckets: [] };
      let out = '';
      let infSeen = false;
      const bucketName = `${name}_bucket`;
      for (const b of h.buckets) {
        out += line(bucketName, labelSet(metric.labels, 'le', b.upperBound), b.cumulativeCount, ts);
        if (b.upperBound === Infinity) infSeen = true;
      }
      if (!infSeen) out += line(bucketName, labelSet(metric.labels, 'le', Infinity), h.sampleCount, ts);
      const plain = labelSet(metric.labels);
      out += line(`${name}_sum`, plain, h.sampleSum, ts);
      out += line(`${name}_count`, plain, h.sampleCount, ts);
      return out;
    }
  }
}

/** A whole exposition, families in the order given; families without metrics are left out. */
export function renderFamiliesText(families: readonly MetricFamily[]): string {
  let out = '';
  for (const f of families) {
    if (f.metrics.length === 0) continue;
    out += renderFamilyHeader(f.name, f.help, f.type);
    for (const m of f.metrics) out += renderMetricText(f.name, f.type, m);
  }
  return out;
}
