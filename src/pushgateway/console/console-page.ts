import { formatRfc3339Nano, lastPushSuccessful } from '../http/api-json.js';
import { formatGoFloat } from '../exposition/go-float.js';
import { pushTimeFamilies, type Group } from '../store/group.js';
import { encodeGroupingPath } from '../store/grouping-key.js';
import { GroupingKeyError } from '../errors.js';
import { upperType, type HistogramValue, type Label, type Metric, type MetricFamily } from '../model.js';
import { UnlistableHistogram, nativeApiView } from '../exposition/native-histogram.js';
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from './console-assets.js';
import { compareStrings } from '../store/sanitize.js';
import { escapeName, isLegacyLabelName } from '../exposition/name-escaping.js';
import { goQuote } from '../exposition/go-quote.js';

export interface ConsoleModel {
  readonly prefix: string;
  readonly groups: readonly Group[];
  readonly enableAdminApi: boolean;
  readonly version: string;
  readonly startTimeMs: number;
  readonly flags: Readonly<Record<string, string>>;
  /** With a shared store (Redis): the replica that rendered this page. */
  readonly replica?: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** A UTF-8 name that is not a legacy label name shows quoted, as Pushgateway's console shows it. */
function labelNameText(n: string): string {
  return isLegacyLabelName(n) ? n : goQuote(n);
}

function labelBadges(labels: readonly Label[]): string {
  return labels.map(([n, v]) => `<span class="label">${escapeHtml(labelNameText(n))}="${escapeHtml(v)}"</span>`).join(' ');
}

/** A series' labels in byte order of their names, as Pushgateway stores and lists them. */
export function seriesLabelOrder(labels: readonly Label[]): Label[] {
  return [...labels].sort((a, b) => compareStrings(a[0], b[0]));
}

/**
 * A group's grouping labels as Pushgateway 1.11's console lists them: `job` first, then the
 * others in byte order of their names (not plain name order, where `app` would precede `job`).
 */
export function groupLabelOrder(labels: readonly Label[]): Label[] {
  const job = labels.filter((l) => l[0] === 'job');
  return [...job, ...labels.filter((l) => l[0] !== 'job').sort((a, b) => compareStrings(a[0], b[0]))];
}

function valueText(m: Metric): string {
  if (m.summary !== undefined) {
    const qs = m.summary.quantiles.map((q) => `${formatGoFloat(q.quantile)}: ${formatGoFloat(q.value)}`).join(', ');
    return `count ${formatGoFloat(m.summary.sampleCount)}, sum ${formatGoFloat(m.summary.sampleSum)}${qs ? `; quantiles ${qs}` : ''}`;
  }
  if (m.histogram !== undefined) {
    const h = m.histogram;
    // Float counts where a float histogram has them (the JSON API shows the same).
    const float = (n: number, f: number | undefined): number => ((f ?? 0) > 0 ? (f as number) : n);
    const bs = h.buckets.map((b) => `≤${formatGoFloat(b.upperBound)}: ${formatGoFloat(float(b.cumulativeCount, b.cumulativeCountFloat))}`).join(', ');
    return `count ${formatGoFloat(float(h.sampleCount, h.sampleCountFloat))}, sum ${formatGoFloat(h.sampleSum)}${bs ? `; buckets ${bs}` : ''}${nativeText(m)}`;
  }
  return formatGoFloat(m.value ?? NaN);
}

/** A native histogram's schema, zero bucket and sparse buckets in a few words. */
function nativeText(m: Metric): string {
  const n = m.histogram?.native;
  if (n === undefined) return '';
  let view: string;
  try {
    const listed = nativeApiView(m.histogram as HistogramValue);
    view = listed === undefined ? 'no sparse buckets' : `${listed.buckets.length} bucket${listed.buckets.length === 1 ? '' : 's'}: ${listed.buckets.map((b) => `${b[0] === 3 || b[0] === 1 ? '[' : '('}${b[1]}, ${b[2]}${b[0] === 3 || b[0] === 0 ? ']' : ')'}: ${b[3]}`).join(', ')}`;
  } catch (err) {
    if (!(err instanceof UnlistableHistogram)) throw err;
    view = 'buckets that cannot be listed';
  }
  return `; native, schema ${n.schema ?? 0}, zero threshold ${formatGoFloat(n.zeroThreshold ?? 0)}, ${view}`;
}

function familyTable(f: MetricFamily, pushedAtMs?: number): string {
  const rows = f.metrics.map((m) => `<tr><td>${labelBadges(seriesLabelOrder(m.labels))}</td><td class="value">${escapeHtml(valueText(m))}</td></tr>`).join('');
  const pushed = pushedAtMs === undefined ? '' : ` <span class="pushed">last pushed ${escapeHtml(formatRfc3339Nano(pushedAtMs))}</span>`;
  return `<div class="family"><h4>${escapeHtml(f.name)} <span class="type">${upperType(f.type)}</span>${pushed}</h4>${
    f.help ? `<p class="help">${escapeHtml(f.help)}</p>` : ''
  }<table><thead><tr><th>Labels</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/**
 * The push path of a group for its Delete button: UTF-8 label names (a group pushed with
 * --push.enable-utf8-names) go `U__`-escaped, as a client would send them. Undefined for a name
 * no path can carry, so that one odd group costs its Delete button, not the whole page.
 */
function groupPath(labels: readonly Label[]): string | undefined {
  try {
    return encodeGroupingPath(labels.map(([n, v]): Label => [isLegacyLabelName(n) || n === 'job' ? n : escapeName(n, 'values'), v]));
  } catch (err) {
    if (err instanceof GroupingKeyError) return undefined;
    throw err;
  }
}

function groupSection(g: Group): string {
  const ok = lastPushSuccessful(g);
  const path = groupPath(g.labels);
  const pushed = g.pushTimeSeconds > 0 ? formatRfc3339Nano(g.pushTimeSeconds * 1000) : 'never';
  const families = [...g.families.values()].sort((a, b) => (a.family.name < b.family.name ? -1 : a.family.name > b.family.name ? 1 : 0));
  const expires = g.expiresAtMs !== undefined ? ` · expires ${escapeHtml(formatRfc3339Nano(g.expiresAtMs))}` : '';
  return `<details class="group"${path === undefined ? '' : ` data-group="${escapeHtml(path)}"`}>
<summary><span class="labels">${labelBadges(groupLabelOrder(g.labels))}</span>
<span class="meta ${ok ? 'ok' : 'failed'}">last push ${escapeHtml(pushed)}${ok ? '' : ' · last push FAILED'}${expires}</span>
${path === undefined ? '' : `<button type="button" class="delete-group" data-path="${escapeHtml(path)}">Delete group</button>`}</summary>
${families.map((s) => familyTable(s.family, s.pushedAtMs)).join('\n')}
${pushTimeFamilies(g).map((f) => familyTable(f)).join('\n')}
</details>`;
}

/** The Help tab: how to push, scrape and delete, with this gateway's paths. */
function helpPanel(prefix: string): string {
  const p = escapeHtml(prefix);
  return `<h2>Pushing</h2>
<p>Each group is named by its grouping key: <code>job</code> and any other labels in the path. PUT replaces the group, POST replaces only the families in the body, DELETE removes the group.</p>
<pre>echo 'backup_last_success_seconds 1.7e9' | curl --data-binary @- http://GATEWAY:9091${p}/metrics/job/backup/instance/db-1
curl -X DELETE http://GATEWAY:9091${p}/metrics/job/backup/instance/db-1</pre>
<p>A label value that contains <code>/</code> or is empty goes base64url-encoded after <code>label@base64/</code>. Bodies are text format 0.0.4 or delimited protobuf (native histograms included), optionally gzip or snappy encoded.</p>
<h2>Scraping</h2>
<p>Prometheus scrapes <code>${p}/metrics</code> with <code>honor_labels: true</code>, so that pushed <code>job</code> and <code>instance</code> labels are kept. <code>${p}/api/v1/metrics</code> gives every group as JSON.</p>
<h2>More</h2>
<p>Every flag, limit and difference from Prometheus Pushgateway is described in Portico's documentation (docs/pushgateway.md).</p>`;
}

/** The web console: a server-rendered page with no external assets (no CDN). */
export function renderConsolePage(model: ConsoleModel): string {
  const groups = model.groups.length === 0 ? '<p class="empty">No groups pushed yet.</p>' : model.groups.map(groupSection).join('\n');
  const flags = Object.entries(model.flags)
    .map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico push gateway</title><style>${CONSOLE_STYLE}</style></head>
<body data-prefix="${escapeHtml(model.prefix)}">
<header><h1>Portico push gateway</h1><nav><a href="#metrics" class="tab" data-tab="metrics">Metrics</a><a href="#status" class="tab" data-tab="status">Status</a><a href="#help" class="tab" data-tab="help">Help</a></nav></header>
<main>
<section id="metrics" class="panel">
<div class="toolbar"><span id="group-count">${model.groups.length} group${model.groups.length === 1 ? '' : 's'}</span>
${model.enableAdminApi ? '<button type="button" id="delete-all">Delete all groups</button>' : ''}
<button type="button" id="expand-all">Expand all</button></div>
<div id="message" role="status"></div>
${groups}
</section>
<section id="status" class="panel">
<h2>Build information</h2><table><tbody><tr><td>Version</td><td>${escapeHtml(model.version)}</td></tr>
<tr><td>Runtime</td><td>${escapeHtml(process.version)}</td></tr>
<tr><td>Start time</td><td>${escapeHtml(formatRfc3339Nano(model.startTimeMs))}</td></tr>${model.replica === undefined ? '' : `
<tr><td>Answered by replica</td><td>${escapeHtml(model.replica)}</td></tr>`}</tbody></table>
<h2>Flags</h2><table><tbody>${flags}</tbody></table>
</section>
<section id="help" class="panel">${helpPanel(model.prefix)}</section>
</main>
<script>${CONSOLE_SCRIPT}</script>
</body></html>`;
}
