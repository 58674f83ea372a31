/**
 * The sample lines of one metric, shared by the text 0.0.4 and OpenMetrics encoders: both write
 * the same lines (a summary's quantiles, `_sum`, `_count`; a histogram's `_bucket`s with a `+Inf`
 * bucket added when missing, `_sum`, `_count`) and differ only in how they print numbers.
 */
import type { Label, Metric, MetricType } from '../model.js';
import { isLegacyName, textName } from './name-escaping.js';

/** How a format prints numbers. */
export interface NumberFormat {
  /** Sample values, sums and the `quantile`/`le` label values. */
  readonly float: (v: number) => string;
  /** Sample counts and cumulative bucket counts. */
  readonly count: (v: number) => string;
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

/**
 * A sample's name and label set as Go's writeNameAndLabelPairs writes them: `name{a="x",b="y"}`
 * plus the optional extra label (`quantile`/`le`) last; a name that is not legacy goes quoted
 * inside the braces (`{"my.metric",a="x"}`), and so does a label name that is not.
 */
function series(name: string, labels: readonly Label[], fmt: NumberFormat, extraName?: string, extraValue?: number): string {
  const inside = !isLegacyName(name);
  if (labels.length === 0 && extraName === undefined) return inside ? `{${textName(name)}}` : name;
  let out = inside ? `{${textName(name)}` : `${name}{`;
  let sep = inside ? ',' : '';
  for (const [n, v] of labels) {
    out += `${sep}${isLegacyName(n) ? n : textName(n)}="${escapeLabelValue(v)}"`;
    sep = ',';
  }
  if (extraName !== undefined) out += `${sep}${extraName}="${fmt.float(extraValue ?? 0)}"`;
  return `${out}}`;
}

/**
 * Every sample line of one metric. `name` is the family's name as the format writes it; counters,
 * gauges and untyped metrics write one line named `valueName` (OpenMetrics counters add `_total`).
 */
export function sampleLines(name: string, type: MetricType, metric: Metric, ts: string, fmt: NumberFormat, valueName = name): string {
  switch (type) {
    case 'counter':
    case 'gauge':
    case 'untyped':
      return `${series(valueName, metric.labels, fmt)} ${fmt.float(metric.value ?? 0)}${ts}\n`;
    case 'summary': {
      const s = metric.summary ?? { sampleCount: 0, sampleSum: 0, quantiles: [] };
      let out = '';
      for (const q of s.quantiles) out += `${series(name, metric.labels, fmt, 'quantile', q.quantile)} ${fmt.float(q.value)}${ts}\n`;
      out += `${series(`${name}_sum`, metric.labels, fmt)} ${fmt.float(s.sampleSum)}${ts}\n`;
      out += `${series(`${name}_count`, metric.labels, fmt)} ${fmt.count(s.sampleCount)}${ts}\n`;
      return out;
    }
    case 'histogram': {
      const h = metric.histogram ?? { sampleCount: 0, sampleSum: 0, buckets: [] };
      let out = '';
      let infSeen = false;
      for (const b of h.buckets) {
        out += `${series(`${name}_bucket`, metric.labels, fmt, 'le', b.upperBound)} ${fmt.count(b.cumulativeCount)}${ts}\n`;
        if (b.upperBound === Infinity) infSeen = true;
      }
      if (!infSeen) out += `${series(`${name}_bucket`, metric.labels, fmt, 'le', Infinity)} ${fmt.count(h.sampleCount)}${ts}\n`;
      out += `${series(`${name}_sum`, metric.labels, fmt)} ${fmt.float(h.sampleSum)}${ts}\n`;
      out += `${series(`${name}_count`, metric.labels, fmt)} ${fmt.count(h.sampleCount)}${ts}\n`;
      return out;
    }
  }
}
