import { renderOpenMetricsHeader, renderOpenMetricsMetric } from './exposition/openmetrics-encoder.js';
import { renderFamilyHeader, renderMetricText } from './exposition/text-encoder.js';
import type { Label, Metric, MetricFamily, MetricType } from './model.js';
import { compareMetricLabels, compareStrings } from './sanitize.js';

interface Entry {
  readonly groupId: string;
  readonly labels: readonly Label[];
  metric: Metric;
  /** Text 0.0.4 lines of this metric, rendered once per change. */
  text: string;
  /** OpenMetrics lines, rendered on the first OpenMetrics scrape after a change. */
  omText: string | undefined;
}

/** The cached exposition formats. */
export type CachedFormat = 'text' | 'openmetrics';

interface Contribution {
  readonly entries: Entry[];
  readonly help: string | undefined;
  readonly type: MetricType;
}

function compareEntries(a: Entry, b: Entry): number {
  return compareMetricLabels(a.labels, b.labels) || compareStrings(a.groupId, b.groupId);
}

/**
 * The encoder builds a metric's text by concatenation, which V8 keeps as a tree of pieces (a cons
 * string) until it is read; reading one character flattens it in place. Cached texts are flattened
 * once here so that they take less memory and every later scrape joins flat strings.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

function sameLabels(a: readonly Label[], b: readonly Label[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Label;
    const y = b[i] as Label;
    if (x[0] !== y[0] || x[1] !== y[1]) return false;
  }
  return true;
}

/**
 * One exposed family merged across groups: metrics kept in Pushgateway's order (an array sorted
 * incrementally), each with its rendered text, and the family text cached until a push changes it.
 * A re-push of the same label sets (the common case) only swaps texts in place.
 */
class FamilyView {
  private readonly entries: Entry[] = [];
  private readonly byGroup = new Map<string, Contribution>();
  private text: string | undefined;
  private omText: string | undefined;
  private help: { value: string | undefined } | undefined;

  constructor(readonly name: string) {}

  get isEmpty(): boolean {
    return this.byGroup.size === 0;
  }

  set(groupId: string, family: MetricFamily | undefined): void {
    const old = this.byGroup.get(groupId);
    this.text = undefined;
    this.omText = undefined;
    if (family === undefined) {
      if (old === undefined) return;
      this.removeEntries(old.entries);
      this.byGroup.delete(groupId);
      this.help = undefined;
      return;
    }
    const metrics = [...family.metrics].sort((a, b) => compareMetricLabels(a.labels, b.labels));
    if (old !== undefined && old.type === family.type && old.entries.length === metrics.length && old.entries.every((e, i) => sameLabels(e.labels, (metrics[i] as Metric).labels))) {
      old.entries.forEach((e, i) => {
        const m = metrics[i] as Metric;
        e.metric = m;
        e.text = flat(renderMetricText(this.name, family.type, m));
        e.omText = undefined;
      });
      if (old.help !== family.help) {
        this.byGroup.set(groupId, { entries: old.entries, help: family.help, type: family.type });
        this.help = undefined;
      }
      return;
    }
    if (old !== undefined) this.removeEntries(old.entries);
    const entries = metrics.map((m): Entry => ({ groupId, labels: m.labels, metric: m, text: flat(renderMetricText(this.name, family.type, m)), omText: undefined }));
    for (const e of entries) this.entries.splice(this.lowerBound(e), 0, e);
    this.byGroup.set(groupId, { entries, help: family.help, type: family.type });
    this.help = undefined;
  }

  private lowerBound(e: Entry): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareEntries(this.entries[mid] as Entry, e) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private removeEntries(old: readonly Entry[]): void {
    for (const e of old) {
      let i = this.lowerBound(e);
      while (i < this.entries.length && this.entries[i] !== e) i++;
      if (i < this.entries.length) this.entries.splice(i, 1);
    }
  }

  /**
   * Help when groups disagree: the help of the group whose grouping key sorts first (byte order),
   * which is deterministic, unlike Pushgateway's map-iteration winner. `override` (the gateway's
   * own help for its own metric names) wins, as in Pushgateway.
   */
  resolvedHelp(override: string | undefined): string | undefined {
    if (override !== undefined) return override;
    if (this.help === undefined) {
      let firstId: string | undefined;
      let help: string | undefined;
      for (const [id, c] of this.byGroup) {
        if (firstId === undefined || compareStrings(id, firstId) < 0) {
          firstId = id;
          help = c.help;
        }
      }
      this.help = { value: help };
    }
    return this.help.value;
  }

  type(): MetricType {
    const first = this.entries[0];
    if (first !== undefined) return (this.byGroup.get(first.groupId) as Contribution).type;
    return 'untyped';
  }

  render(format: CachedFormat, helpOverride: string | undefined): string {
    const type = this.type();
    if (format === 'text') {
      if (this.text === undefined) {
        const parts: string[] = [renderFamilyHeader(this.name, this.resolvedHelp(helpOverride), type)];
        for (const e of this.entries) parts.push(e.text);
        this.text = parts.join('');
      }
      return this.text;
    }
    if (this.omText === undefined) {
      const parts: string[] = [renderOpenMetricsHeader(this.name, this.resolvedHelp(helpOverride), type)];
      for (const e of this.entries) {
        e.omText ??= flat(renderOpenMetricsMetric(this.name, type, e.metric));
        parts.push(e.omText);
      }
      this.omText = parts.join('');
    }
    return this.omText;
  }

  model(helpOverride: string | undefined): MetricFamily {
    return { name: this.name, help: this.resolvedHelp(helpOverride), type: this.type(), metrics: this.entries.map((e) => e.metric) };
  }
}

/** A rendered family: its name (for merging with the gateway's own metrics) and its text. */
export interface RenderedFamily {
  readonly name: string;
  readonly text: string;
}

/**
 * The exposition of every pushed family, kept up to date by the store on each write so that a
 * scrape is a concatenation of cached texts: only the families a push touched are re-rendered,
 * and only the metrics it changed.
 */
export class ExpositionCache {
  private readonly views = new Map<string, FamilyView>();
  private sortedNames: string[] | undefined;

  /** @param helpOverrides help of the gateway's own metrics, which replaces a pushed help for the same name. */
  constructor(private readonly helpOverrides: ReadonlyMap<string, string> = new Map()) {}

  /** Sets (or, with undefined, removes) the sanitized family `name` of group `groupId`. */
  set(groupId: string, name: string, family: MetricFamily | undefined): void {
    let view = this.views.get(name);
    if (view === undefined) {
      if (family === undefined) return;
      view = new FamilyView(name);
      this.views.set(name, view);
      this.sortedNames = undefined;
    }
    view.set(groupId, family);
    if (view.isEmpty) {
      this.views.delete(name);
      this.sortedNames = undefined;
    }
  }

  private names(): string[] {
    this.sortedNames ??= [...this.views.keys()].sort(compareStrings);
    return this.sortedNames;
  }

  /** Every family's text in `format` (text 0.0.4 or OpenMetrics, without `# EOF`), sorted by name. */
  rendered(format: CachedFormat = 'text'): RenderedFamily[] {
    return this.names().map((name) => ({ name, text: (this.views.get(name) as FamilyView).render(format, this.helpOverrides.get(name)) }));
  }

  /** Every family merged across groups, sorted, for the other formats and the API. */
  families(): MetricFamily[] {
    return this.names().map((name) => (this.views.get(name) as FamilyView).model(this.helpOverrides.get(name)));
  }

  clear(): void {
    this.views.clear();
    this.sortedNames = undefined;
  }
}
