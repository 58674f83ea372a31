import { isValidLabelName } from './grouping-key.js';
import type { FamilyView } from './exposition-cache.js';
import type { GroupFamily } from './stored-family.js';
import { PUSH_FAILURE_TIME, PUSH_TIME, upperType, type Label, type Metric, type MetricFamily, type MetricType } from '../model.js';
import { formatLabelSet, sameLabels, seriesHash } from './sanitize.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The checked group's record of a family name, as the views hold it. */
export type MineLookup = (name: string) => GroupFamily | undefined;

/** What the check reads about the store: the per-name views and the grouping labels of a group. */
export interface HeldFamilies {
  /** The view of family `name` (every group's metrics of it), undefined when no group holds it. */
  view(name: string): FamilyView | undefined;
  /** Grouping labels of group `groupId`, for messages. */
  groupLabels(groupId: string): readonly Label[] | undefined;
  /** True while no two groups hold the same series (nor a type conflict): what an accepted push keeps. */
  isConsistent(): boolean;
}

/**
 * Incremental version of the check Pushgateway runs with `Gatherers.Gather()` over a copy of the
 * whole store on every push. It reads the store's per-name views, which know the type each group
 * holds a family with (and how many groups hold each type) and every stored metric in label
 * order, so that a push is checked in O(size of the push × log(metrics of a name)) with the same
 * accept/reject outcome. It keeps no state of its own.
 */
export class ConsistencyIndex {
  /**
   * @param ownTypes types of the gateway's own metrics (a pushed family of such a name must match).
   * @param held the store as it is before the push.
   */
  constructor(
    private readonly ownTypes: ReadonlyMap<string, MetricType>,
    private readonly held: HeldFamilies,
    /** --push.enable-utf8-names: label names may be any UTF-8 text. */
    private readonly utf8Names = false,
  ) {}

  /** The view of a pushed name; the push time gauges are the gateway's, and a pushed one replaces them. */
  private view(name: string): FamilyView | undefined {
    return name === PUSH_TIME || name === PUSH_FAILURE_TIME ? undefined : this.held.view(name);
  }

  /**
   * Checks sanitized families about to be stored in group `groupId`. `replacedNames` are the names
   * of the group's families the push removes (all of them for PUT, the pushed ones for POST).
   * `mine` gives the group's records as the views hold them (none while the views are rebuilt).
   * Returns the problem (without Pushgateway's prefix) or undefined.
   */
  check(groupId: string, families: readonly MetricFamily[], replacedNames: ReadonlySet<string>, mine: MineLookup = () => undefined): string | undefined {
    const pushed = new Map<string, MetricType>();
    for (const f of families) pushed.set(f.name, f.type);
    const seen = new Map<number, { name: string; labels: readonly Label[] }[]>();
    for (const f of families) {
      const problem =
        this.checkFamilyName(f) ??
        this.checkTypes(groupId, f, mine) ??
        this.checkSuffixes(groupId, f, pushed, replacedNames, mine) ??
        this.checkMetrics(groupId, f, seen, mine);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  private checkFamilyName(f: MetricFamily): string | undefined {
    // Pushgateway 1.11.1 takes any metric name, with or without --push.enable-utf8-names (a scrape
    // escapes it); an empty one, or one that is not UTF-8, is refused here (Pushgateway's scrape breaks).
    if (f.name.length === 0 || LONE_SURROGATE.test(f.name)) return `metric name ${JSON.stringify(f.name)} is not valid`;
    if ((f.name === PUSH_TIME || f.name === PUSH_FAILURE_TIME) && f.type !== 'gauge') {
      return `collected metric "${f.name}" is not a GAUGE: the gateway keeps ${f.name} as a gauge per group (pushed as ${upperType(f.type)})`;
    }
    return undefined;
  }

  private checkTypes(groupId: string, f: MetricFamily, mineOf: MineLookup): string | undefined {
    const own = this.ownTypes.get(f.name);
    if (own !== undefined && own !== f.type) {
      return `gathered metric family ${f.name} has type ${upperType(f.type)} but should have ${upperType(own)}`;
    }
    const view = this.view(f.name);
    if (view === undefined) return undefined;
    // O(1) in the number of groups: compare per-type holder counts, leaving out this group's own.
    const mine = mineOf(f.name)?.type;
    let conflicting: MetricType | undefined;
    for (const [type, n] of view.typeCounts) {
      if (type !== f.type && n - (mine === type ? 1 : 0) > 0) conflicting = type;
    }
    if (conflicting === undefined) return undefined;
    const other = view.otherHolder(groupId, conflicting)?.groupId ?? '';
    const sample = f.metrics[0];
    const labels = sample ? ` ${formatLabelSet(sample.labels)}` : '';
    return `collected metric "${f.name}"${labels} is not a ${upperType(conflicting)}: it was pushed as ${upperType(f.type)}, but the group ${this.describe(other)} holds "${f.name}" as ${upperType(conflicting)}`;
  }

  /** Type of `name` as it would be after the push, or undefined when no family has that name. */
  private typeAfter(groupId: string, name: string, pushed: ReadonlyMap<string, MetricType>, replaced: ReadonlySet<string>, mineOf: MineLookup): MetricType | undefined {
    const p = pushed.get(name);
    if (p !== undefined) return p;
    const own = this.ownTypes.get(name);
    if (own !== undefined) return own;
    if (name === PUSH_TIME || name === PUSH_FAILURE_TIME) return 'gauge';
    if (this.view(name) === undefined) return undefined;
    if (!replaced.has(name)) {
      const mine = mineOf(name);
      if (mine !== undefined) return mine.type;
    }
    return this.view(name)?.otherHolder(groupId)?.type;
  }

  // client_golang's registry checkSuffixCollisions, applied to the store as it would be after the push.
  private checkSuffixes(
    groupId: string,
    f: MetricFamily,
    pushed: ReadonlyMap<string, MetricType>,
    replaced: ReadonlySet<string>,
    mine: MineLookup,
  ): string | undefined {
    const name = f.name;
    for (const suffix of ['_count', '_sum', '_bucket']) {
      if (!name.endsWith(suffix)) continue;
      const base = name.slice(0, -suffix.length);
      const baseType = this.typeAfter(groupId, base, pushed, replaced, mine);
      if (baseType === 'histogram' || (baseType === 'summary' && suffix !== '_bucket')) {
        return `collected metric named "${name}" collides with previously collected ${baseType} named "${base}"`;
      }
    }
    if (f.type === 'summary' || f.type === 'histogram') {
      const suffixes = f.type === 'histogram' ? ['_count', '_sum', '_bucket'] : ['_count', '_sum'];
      for (const suffix of suffixes) {
        if (this.typeAfter(groupId, name + suffix, pushed, replaced, mine) !== undefined) {
          return `collected ${f.type} named "${name}" collides with previously collected metric named "${name + suffix}"`;
        }
      }
    }
    return undefined;
  }

  private checkMetrics(groupId: string, f: MetricFamily, seen: Map<number, { name: string; labels: readonly Label[] }[]>, mineOf: MineLookup): string | undefined {
    const view = this.view(f.name);
    // A series this group holds now is held by no other group while the store is consistent, so
    // the common re-push of the same series needs no search.
    const mine = view !== undefined && this.held.isConsistent() ? mineOf(f.name) : undefined;
    for (const m of f.metrics) {
      const problem = checkMetric(f, m, this.utf8Names);
      if (problem !== undefined) return problem;
      const h = seriesHash(f.name, m.labels);
      const twin = seen.get(h)?.some((o) => o.name === f.name && sameLabels(o.labels, m.labels)) ?? false;
      const owner = mine?.holds(m.labels) === true ? undefined : view?.holderOf(m.labels, groupId);
      if (twin || owner !== undefined) {
        const where = owner !== undefined ? ` (it is already held by group ${this.describe(owner)})` : ' (twice in this push)';
        return `collected metric "${f.name}" ${formatLabelSet(m.labels)} was collected before with the same name and label values${where}`;
      }
      const list = seen.get(h);
      if (list === undefined) seen.set(h, [{ name: f.name, labels: m.labels }]);
      else list.push({ name: f.name, labels: m.labels });
    }
    return undefined;
  }

  private describe(groupId: string): string {
    return formatLabelSet(this.held.groupLabels(groupId) ?? []);
  }
}

/**
 * Per-metric checks client_golang's checkMetricConsistency makes: the value matches the type,
 * label names are valid and unique, no `quantile` label on a summary or `le` on a histogram,
 * and every string is well-formed Unicode.
 */
export function checkMetric(f: MetricFamily, m: Metric, utf8Names = false): string | undefined {
  const kindOk =
    f.type === 'summary' ? m.summary !== undefined : f.type === 'histogram' ? m.histogram !== undefined : m.value !== undefined;
  if (!kindOk) return `collected metric "${f.name}" ${formatLabelSet(m.labels)} is not a ${upperType(f.type)}`;
  const names = new Set<string>();
  for (const [name, value] of m.labels) {
    if (!(utf8Names ? name.length > 0 && !LONE_SURROGATE.test(name) : isValidLabelName(name)) || name.startsWith('__')) {
      return `collected metric "${f.name}" ${formatLabelSet(m.labels)} has a label with an invalid name: ${name}`;
    }
    if (names.has(name)) return `collected metric "${f.name}" ${formatLabelSet(m.labels)} has two or more labels with the same name: ${name}`;
    names.add(name);
    if (LONE_SURROGATE.test(value)) return `collected metric "${f.name}" has a label named ${name} whose value is not utf8`;
    if (f.type === 'summary' && name === 'quantile') {
      return `collected metric "${f.name}" ${formatLabelSet(m.labels)} has a label named "quantile" which is reserved for summaries`;
    }
    if (f.type === 'histogram' && name === 'le') {
      return `collected metric "${f.name}" ${formatLabelSet(m.labels)} has a label named "le" which is reserved for histogram buckets`;
    }
  }
  return undefined;
}

/** Label-name duplicates must be caught before sanitizing merges them. */
export function findDuplicateLabel(f: MetricFamily): string | undefined {
  for (const m of f.metrics) {
    const names = new Set<string>();
    for (const [name] of m.labels) {
      if (names.has(name)) return `collected metric "${f.name}" ${formatLabelSet(m.labels)} has two or more labels with the same name: ${name}`;
      names.add(name);
    }
  }
  return undefined;
}
