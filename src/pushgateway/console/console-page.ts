import { formatRfc3339Nano, lastPushSuccessful } from '../http/api-json.js';
import { formatGoFloat } from '../exposition/go-float.js';
import { pushTimeFamilies, type Group } from '../store/group.js';
import { encodeGroupingPath } from '../store/grouping-key.js';
import { upperType, type Label, type Metric, type MetricFamily } from '../model.js';
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from './console-assets.js';

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

function labelBadges(labels: readonly Label[]): string {
  return labels.map(([n, v]) => `<span class="label">${escapeHtml(n)}="${escapeHtml(v)}"</span>`).join(' ');
}

function valueText(m: Metric): string {
  if (m.summary !== undefined) {
    const qs = m.summary.quantiles.map((q) => `${formatGoFloat(q.quantile)}: ${formatGoFloat(q.value)}`).join(', ');
    return `count ${formatGoFloat(m.summary.sampleCount)}, sum ${formatGoFloat(m.summary.sampleSum)}${qs ? `; quantiles ${qs}` : ''}`;
  }
  if (m.histogram !== undefined) {
    const bs = m.histogram.buckets.map((b) => `≤${formatGoFloat(b.upperBound)}: ${formatGoFloat(b.cumulativeCount)}`).join(', ');
    return `count ${formatGoFloat(m.histogram.sampleCount)}, sum ${formatGoFloat(m.histogram.sampleSum)}${bs ? `; buckets ${bs}` : ''}`;
  }
  return formatGoFloat(m.value ?? NaN);
}

function familyTable(f: MetricFamily): string {
  const rows = f.metrics.map((m) => `<tr><td>${labelBadges(m.labels)}</td><td class="value">${escapeHtml(valueText(m))}</td></tr>`).join('');
  return `<div class="family"><h4>${escapeHtml(f.name)} <span class="type">${upperType(f.type)}</span></h4>${
    f.help ? `<p class="help">${escapeHtml(f.help)}</p>` : ''
  }<table><thead><tr><th>Labels</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function groupSection(g: Group): string {
  const ok = lastPushSuccessful(g);
  const pushed = g.pushTimeSeconds > 0 ? formatRfc3339Nano(g.pushTimeSeconds * 1000) : 'never';
  const families = [...g.families.values()].map((s) => s.family).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const expires = g.expiresAtMs !== undefined ? ` · expires ${escapeHtml(formatRfc3339Nano(g.expiresAtMs))}` : '';
  return `<details class="group" data-group="${escapeHtml(encodeGroupingPath(g.labels))}">
<summary><span class="labels">${labelBadges(g.labels)}</span>
<span class="meta ${ok ? 'ok' : 'failed'}">last push ${escapeHtml(pushed)}${ok ? '' : ' · last push FAILED'}${expires}</span>
<button type="button" class="delete-group" data-path="${escapeHtml(encodeGroupingPath(g.labels))}">Delete group</button></summary>
${[...families, ...pushTimeFamilies(g)].map(familyTable).join('\n')}
</details>`;
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
<header><h1>Portico push gateway</h1><nav><a href="#metrics" class="tab" data-tab="metrics">Metrics</a><a href="#status" class="tab" data-tab="status">Status</a></nav></header>
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
</main>
<script>${CONSOLE_SCRIPT}</script>
</body></html>`;
}
