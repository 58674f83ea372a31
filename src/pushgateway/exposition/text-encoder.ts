/**
 * Text format 0.0.4 as client_golang writes it (expfmt.MetricFamilyToText), i.e. what
 * `GET /metrics` on Pushgateway shows: numbers in Go's shortest 'g' form, counts printed as floats,
 * a `+Inf` bucket added when a histogram lacks one, `quantile`/`le` as the last label.
 */
import type { Metric, MetricFamily, MetricType } from '../model.js';
import { formatGoInt, formatSampleValue } from './go-float.js';
import { escapeLabelValue, sampleLines, type NumberFormat } from './sample-lines.js';
import { textName } from './name-escaping.js';

export { escapeLabelValue };

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

/** `# HELP` (only when help is defined) and `# TYPE` lines of one family. */
export function renderFamilyHeader(name: string, help: string | undefined, type: MetricType): string {
  const written = textName(name);
  const typeLine = `# TYPE ${written} ${type}\n`;
  return help === undefined ? typeLine : `# HELP ${written} ${escapeHelp(help)}\n${typeLine}`;
}

const TEXT_NUMBERS: NumberFormat = { float: formatSampleValue, count: formatSampleValue };

/** Every sample line of one metric of a family called `name` of type `type`. */
export function renderMetricText(name: string, type: MetricType, metric: Metric): string {
  const ts = metric.timestampMs === undefined ? '' : ` ${formatGoInt(metric.timestampMs)}`;
  return sampleLines(name, type, metric, ts, TEXT_NUMBERS);
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
