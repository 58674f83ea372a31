import { renderOpenMetricsHeader, renderOpenMetricsMetric } from '../exposition/openmetrics-encoder.js';
import { renderFamilyHeader, renderMetricText } from '../exposition/text-encoder.js';
import { PUSH_FAILURE_TIME, PUSH_TIME, type Label, type Metric, type MetricFamily, type MetricType } from '../model.js';
import { compareMetricLabels, compareStrings, ownLabel, ownString, sameLabels } from './sanitize.js';
import { GroupFamily, StoredMetric, payloadOf, sortMetrics, type PushShare } from './stored-family.js';
import { SortedRuns, type Cursor } from './sorted-runs.js';
import { escapeFamily, isLegacyName, labelsNeedEscaping, type EscapingScheme } from '../exposition/name-escaping.js';
import { renderFamiliesOpenMetrics } from '../exposition/openmetrics-encoder.js';
import { renderFamiliesText } from '../exposition/text-encoder.js';

/** The cached exposition formats. */
export type CachedFormat = 'text' | 'openmetrics';

/**
 * The encoder builds a metric's text by concatenation, which V8 keeps as a tree of pieces (a cons
 * string) until it is read; reading one character flattens it in place. Stored texts are flattened
 * once here so that they take less memory and every later scrape joins flat strings.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * Whether the value at the end of a text 0.0.4 line (`… value\n`) needs OpenMetrics' `.0`: Go's
 * shortest form without a point, an exponent, NaN or Inf (text writes -0 as `0`, OpenMetrics as
 * `0.0`, which fits the same rule).
 */
function needsPoint(line: string): boolean {
  for (let i = line.length - 2; i >= 0; i--) {
    const c = line.charCodeAt(i);
    if (c === 32) return true;
    if (c === 46 || c === 101 || c === 78 || c === 73) return false; // . e N I
  }
  return true;
}

/**
 * Appends the OpenMetrics lines of a stored metric to `parts`. For a bare number (counter, gauge,
 * untyped without a timestamp) they are its stored text 0.0.4 line with a counter's `_total` name
 * and OpenMetrics' float form (the label set is escaped alike in both formats), so nothing is kept
 * for OpenMetrics and a scrape renders almost nothing.
 */
function pushOpenMetricsLines(parts: string[], name: string, omName: string, type: MetricType, e: StoredMetric): void {
  if (typeof e.payload !== 'number' || !isLegacyName(name)) {
    parts.push(renderOpenMetricsMetric(name, type, e.toMetric()));
    return;
  }
  const line = e.text;
  const point = needsPoint(line);
  if (omName !== name) parts.push(omName, line.slice(name.length, point ? -1 : undefined));
  else parts.push(point ? line.slice(0, -1) : line);
  if (point) parts.push('.0\n');
}

/** A counter's OpenMetrics sample name, else the family name. */
function openMetricsSampleName(name: string, type: MetricType): string {
  if (type !== 'counter') return name;
  return name.endsWith('_total') ? name : `${name}_total`;
}

/**
 * One family name across groups: every stored metric in Pushgateway's order (an array sorted
 * incrementally), for the exposition and for finding who holds a series; each metric knows its
 * group's record. A re-push of the same label sets (the common case) only swaps values and texts
 * in place; a new group's metrics are inserted in short sorted runs (sorted-runs.ts), so that a
 * push costs the same with 2,000 groups as with 200,000.
 */
export class FamilyView {
  private readonly entries = new SortedRuns<StoredMetric>();
  private readonly counts = new Map<MetricType, number>();
  private holders = 0;
  private help: { value: string | undefined } | undefined;
  /** The family's text 0.0.4 until a change; the metrics' texts are slices of it (no second copy). */
  private text: string | undefined;
  /** The family's OpenMetrics text until a change, rendered on the first OpenMetrics scrape. */
  private omText: string | undefined;
  /** Whether a name of the family is not legacy, so that a scrape's escaping changes its text; known until a change. */
  private escapable: boolean | undefined;
  /** The last help stored: an equal help pushed later shares this string instead of keeping its own. */
  private lastHelp: string | undefined;
  readonly name: string;

  constructor(name: string) {
    this.name = ownString(name);
  }

  get isEmpty(): boolean {
    return this.holders === 0;
  }

  /** How many groups hold this family with each type (types held by none left out). */
  get typeCounts(): ReadonlyMap<MetricType, number> {
    return this.counts;
  }

  /**
   * Stores `family` (sanitized), pushed at `pushedAtMs`, as group `groupId`'s, in place of `old`
   * (its current record, if any); returns the record. `share` is what the push's records share:
   * its time stamp, its label sets, and the grouping tuples, which may be kept as they are; other
   * new tuples are copied when they hold slices of the push body.
   */
  set(groupId: string, old: GroupFamily | undefined, family: MetricFamily, pushedAtMs: number, share: PushShare): GroupFamily {
    this.changed();
    let help = family.help;
    if (help !== undefined) help = help === this.lastHelp ? this.lastHelp : help === old?.help ? old.help : ownString(help);
    this.lastHelp = help;
    const { sorted: metrics, order } = sortMetrics(family.metrics);
    const type = family.type;
    if (old !== undefined && old.type === type && old.size === metrics.length) {
      const held = old.list();
      if (held.every((e, i) => sameLabels(e.labels, (metrics[i] as Metric).labels))) {
        held.forEach((e, i) => {
          const m = metrics[i] as Metric;
          e.payload = payloadOf(m);
          e.text = flat(renderMetricText(this.name, type, m));
          // Kept in place, its labels are still the push's to share: a family this push adds
          // next with the same labels takes this array rather than a copy of its own.
          if (share.equalSet(e.labels) === undefined) share.keep(e.labels);
        });
        if (old.help !== help) this.help = undefined;
        old.help = help;
        old.pushedAt = share.stampAt(pushedAtMs);
        old.order = order;
        return old;
      }
    }
    if (old !== undefined) this.remove(old);
    const record = new GroupFamily(groupId, this.name, help, type, share.stampAt(pushedAtMs));
    const stored = metrics.map((m) => {
      const labels = share.equalSet(m.labels) ?? share.keep(this.shareTuples(m.labels, this.lowerBound(m.labels, groupId), share.grouping));
      return new StoredMetric(record, labels, payloadOf(m), flat(renderMetricText(this.name, type, m)));
    });
    record.metrics = stored.length === 1 ? (stored[0] as StoredMetric) : stored;
    record.order = order;
    this.attach(record);
    return record;
  }

  /** Adds a record made earlier (when the store rebuilds its views). */
  attach(record: GroupFamily): void {
    this.changed();
    for (const e of record.list()) this.entries.insert(this.lowerBound(e.labels, record.groupId), e);
    this.holders++;
    this.count(record.type, 1);
    this.help = undefined;
  }

  /** Removes a record of this family. */
  remove(record: GroupFamily): void {
    this.changed();
    for (const e of record.list()) this.entries.remove(this.lowerBound(e.labels, record.groupId), e);
    this.holders--;
    this.count(record.type, -1);
    this.help = undefined;
  }

  private changed(): void {
    this.text = undefined;
    this.omText = undefined;
    this.escapable = undefined;
  }

  /** True when the family's name or a label name is not legacy (only then does an escaping scheme change its text). */
  needsEscaping(): boolean {
    this.escapable ??= !isLegacyName(this.name) || this.entries.some((e) => labelsNeedEscaping(e.labels));
    return this.escapable;
  }

  private count(type: MetricType, delta: number): void {
    const n = (this.counts.get(type) ?? 0) + delta;
    if (n > 0) this.counts.set(type, n);
    else this.counts.delete(type);
  }

  /**
   * The labels as they will be stored: each tuple equal to the one at the same place in the
   * neighbouring metric is that tuple (sorted neighbours mostly share names and many values), in
   * an array of exactly the right size. Other tuples are `owned` ones or own copies.
   */
  private shareTuples(labels: readonly Label[], at: Cursor, owned: readonly Label[]): Label[] {
    const near = (this.entries.before(at) ?? this.entries.at(at))?.labels;
    return labels.map((l, j) => {
      const n = near?.[j];
      if (n !== undefined && n[0] === l[0] && n[1] === l[1]) return n;
      return owned.includes(l) ? l : ownLabel(l);
    });
  }

  /** Position of the first metric that sorts at or after (`labels`, `groupId`). */
  private lowerBound(labels: readonly Label[], groupId: string): Cursor {
    return this.entries.lowerBound((e) => (compareMetricLabels(e.labels, labels) || compareStrings(e.groupId, groupId)) < 0);
  }

  /** A group other than `groupId` holding a metric with exactly these (sanitized) labels. */
  holderOf(labels: readonly Label[], groupId: string): string | undefined {
    for (const e of this.entries.from(this.lowerBound(labels, ''))) {
      if (compareMetricLabels(e.labels, labels) !== 0) break;
      if (e.groupId !== groupId && sameLabels(e.labels, labels)) return e.groupId;
    }
    return undefined;
  }

  /** The first record (in exposition order) of a group other than `groupId`, optionally of type `type`. */
  otherHolder(groupId: string, type?: MetricType): GroupFamily | undefined {
    for (const e of this.entries) {
      if (e.record.groupId !== groupId && (type === undefined || e.record.type === type)) return e.record;
    }
    return undefined;
  }

  get metricCount(): number {
    return this.entries.length;
  }

  /**
   * Help when groups disagree: the help of the group whose grouping key sorts first (byte order),
   * which is deterministic, unlike Pushgateway's map-iteration winner. `override` (the gateway's
   * own help for its own metric names) wins, as in Pushgateway.
   */
  resolvedHelp(override: string | undefined): string | undefined {
    if (override !== undefined) return override;
    if (this.help === undefined) {
      let first: GroupFamily | undefined;
      for (const e of this.entries) {
        if (first === undefined || (e.record !== first && compareStrings(e.record.groupId, first.groupId) < 0)) first = e.record;
      }
      this.help = { value: first?.help };
    }
    return this.help.value;
  }

  type(): MetricType {
    return this.entries.first()?.record.type ?? 'untyped';
  }

  /** The family's text: header and every metric's lines, cached until a change. */
  render(format: CachedFormat, helpOverride: string | undefined): string {
    if (format === 'text') {
      this.text ??= this.join(renderFamilyHeader(this.name, this.resolvedHelp(helpOverride), this.type()));
      return this.text;
    }
    if (this.omText === undefined) {
      const type = this.type();
      const omName = openMetricsSampleName(this.name, type);
      const parts: string[] = [renderOpenMetricsHeader(this.name, this.resolvedHelp(helpOverride), type)];
      this.entries.forEach((e) => pushOpenMetricsLines(parts, this.name, omName, type, e));
      this.omText = parts.join('');
    }
    return this.omText;
  }

  /**
   * Joins the header and the metrics' texts into the family text, and makes each metric's text a
   * slice of it (V8 keeps a slice as a reference to the joined string), so that the bytes are held
   * once while a scrape still only joins the families.
   */
  private join(header: string): string {
    const parts: string[] = [header];
    this.entries.forEach((e) => parts.push(e.text));
    const text = parts.join('');
    let at = header.length;
    this.entries.forEach((e) => {
      const end = at + e.text.length;
      e.text = text.slice(at, end);
      at = end;
    });
    return text;
  }

  model(helpOverride: string | undefined): MetricFamily {
    return { name: this.name, help: this.resolvedHelp(helpOverride), type: this.type(), metrics: this.entries.map((e) => e.toMetric()) };
  }
}

/** A rendered family: its name (for merging with the gateway's own metrics) and its text. */
export interface RenderedFamily {
  readonly name: string;
  readonly text: string;
}

/**
 * Every stored family by name, across groups: the store's records and the exposition built from
 * them. Only the metrics a push changed are re-rendered; a scrape joins the stored texts.
 */
export class ExpositionCache {
  private readonly views = new Map<string, FamilyView>();
  private sortedNames: string[] | undefined;
  private pushedSeries = 0;

  /** @param helpOverrides help of the gateway's own metrics, which replaces a pushed help for the same name. */
  constructor(private readonly helpOverrides: ReadonlyMap<string, string> = new Map()) {}

  /** The view of family `name`, undefined when no group holds it. */
  view(name: string): FamilyView | undefined {
    return this.views.get(name);
  }

  /**
   * Stores the sanitized family `family.name` (with metrics) of group `groupId` in place of `old`,
   * the group's current record of that name; returns the record. `share`: what the push's records
   * share (see FamilyView.set).
   */
  set(groupId: string, old: GroupFamily | undefined, family: MetricFamily, pushedAtMs: number, share: PushShare): GroupFamily {
    return this.update(family.name, (view) => view.set(groupId, old, family, pushedAtMs, share));
  }

  /** Puts back a record made earlier (when the store rebuilds its views). */
  attach(record: GroupFamily): void {
    this.update(record.name, (view) => view.attach(record));
  }

  /** Removes a stored record. */
  remove(record: GroupFamily): void {
    if (!this.views.has(record.name)) return;
    this.update(record.name, (v) => v.remove(record));
  }

  private update<T>(name: string, change: (view: FamilyView) => T): T {
    let view = this.views.get(name);
    if (view === undefined) {
      view = new FamilyView(name);
      // Keyed by the view's own copy of the name: the pushed one may be a slice of the push body.
      this.views.set(view.name, view);
      this.sortedNames = undefined;
    }
    const pushed = name !== PUSH_TIME && name !== PUSH_FAILURE_TIME;
    if (pushed) this.pushedSeries -= view.metricCount;
    const result = change(view);
    if (pushed) this.pushedSeries += view.metricCount;
    if (view.isEmpty) {
      this.views.delete(name);
      this.sortedNames = undefined;
    }
    return result;
  }

  /** Stored metrics of pushed families (the push time gauges left out). */
  get seriesCount(): number {
    return this.pushedSeries;
  }

  private names(): string[] {
    this.sortedNames ??= [...this.views.keys()].sort(compareStrings);
    return this.sortedNames;
  }

  /**
   * Every family's text in `format` (text 0.0.4 or OpenMetrics, without `# EOF`), sorted by name
   * (the names as pushed), with the names that are not legacy written in `escaping`: quoted as
   * they are for `allow-utf-8` (the cached text), rewritten for the other schemes (rendered anew;
   * a legacy family's text is the same in every scheme).
   */
  rendered(format: CachedFormat = 'text', escaping: EscapingScheme = 'allow-utf-8'): RenderedFamily[] {
    return this.names().map((name) => {
      const view = this.views.get(name) as FamilyView;
      const help = this.helpOverrides.get(name);
      if (escaping === 'allow-utf-8' || !view.needsEscaping()) return { name, text: view.render(format, help) };
      const escaped = escapeFamily(view.model(help), escaping);
      const text = format === 'text' ? renderFamiliesText([escaped]) : renderFamiliesOpenMetrics([escaped]).slice(0, -'# EOF\n'.length);
      return { name, text };
    });
  }

  /** Every family merged across groups, sorted, for the other formats and the API. */
  families(): MetricFamily[] {
    return this.names().map((name) => (this.views.get(name) as FamilyView).model(this.helpOverrides.get(name)));
  }

  clear(): void {
    this.views.clear();
    this.sortedNames = undefined;
    this.pushedSeries = 0;
  }
}
