import { compareByName, findByName } from '../../collections/sorted-array.js';
import { ConsistencyIndex, findDuplicateLabel } from './consistency-index.js';
import { ExpositionCache, type CachedFormat, type RenderedFamily } from './exposition-cache.js';
import type { EscapingScheme } from '../exposition/name-escaping.js';
import { ConsistencyError, timestampsRefused } from '../errors.js';
import { groupingKeyId } from './grouping-key.js';
import { PUSH_FAILURE_TIME, PUSH_TIME, type Label, type MetricFamily, type MetricType } from '../model.js';
import { compareStrings, ownLabel, ownString, sanitizeFamily } from './sanitize.js';
import { ExpiryQueue } from './expiry-queue.js';
import { NO_LIMITS, limitRefusal, type PushEffect, type PushLimits } from './limits.js';
import { pushTimeFamilies, type Group, type GroupStore, type PushOutcome, type PushRequest } from './group.js';
import { PushShare, type GroupFamily } from './stored-family.js';

export interface InMemoryGroupStoreOptions {
  /** Types of the gateway's own metrics: pushed families of these names must have the same type. */
  readonly ownTypes?: ReadonlyMap<string, MetricType>;
  /** Help of the gateway's own metrics, which replaces pushed help for these names on exposition. */
  readonly ownHelp?: ReadonlyMap<string, string>;
  /** Check pushes for consistency (Pushgateway's default); false is --push.disable-consistency-check. */
  readonly checkConsistency?: boolean;
  /** Called after every change (push, failure, delete, wipe, expiry). */
  readonly onChange?: () => void;
  /** Limits on groups and metrics (limits.ts); none by default. */
  readonly limits?: PushLimits;
  /** --push.enable-utf8-names: pushed label names may be any UTF-8 text (legacy names only by default). */
  readonly utf8Names?: boolean;
}

/** One group as the store keeps it (and hands it out as a Group). */
class MutableGroup implements Group {
  /** The group's family records, sorted by name (an array costs far less than a Map per group). */
  records: GroupFamily[] = [];
  pushTimeSeconds = 0;
  pushFailureTimeSeconds = 0;
  expiresAtMs: number | undefined = undefined;
  /** Expiry time of this group's live entry in the expiry queue (one per group at most). */
  queuedAtMs: number | undefined = undefined;
  /** The records of the group's push_time_seconds and push_failure_time_seconds gauges. */
  pushTime: GroupFamily | undefined = undefined;
  pushFailureTime: GroupFamily | undefined = undefined;

  constructor(
    readonly id: string,
    readonly labels: readonly Label[],
  ) {}

  /** The families by name, as a new Map (for the API, the console and persistence). */
  get families(): ReadonlyMap<string, GroupFamily> {
    return new Map(this.records.map((r) => [r.name, r]));
  }

  /** The record of family `name`, if the group holds one. */
  record(name: string): GroupFamily | undefined {
    return findByName(this.records, name);
  }
}

/** Grouping labels as a group keeps them: sorted by name, with strings of their own (see ownString). */
function groupLabelsOf(grouping: readonly Label[]): Label[] {
  return grouping.map(ownLabel).sort((a, b) => compareStrings(a[0], b[0]));
}

function hasTimestamps(families: readonly MetricFamily[]): boolean {
  return families.some((f) => f.metrics.some((m) => m.timestampMs !== undefined));
}

/** The in-memory GroupStore, with its incremental consistency index and exposition cache. */
export class InMemoryGroupStore implements GroupStore {
  private readonly byId = new Map<string, MutableGroup>();
  private sorted: MutableGroup[] | undefined;
  private readonly index: ConsistencyIndex;
  private readonly cache: ExpositionCache;
  private readonly expiries = new ExpiryQueue();
  private readonly checkConsistency: boolean;
  private readonly ownTypes: ReadonlyMap<string, MetricType>;
  private readonly limits: PushLimits;
  private problem: string | undefined;
  /**
   * Set by a write while the store is inconsistent: `problem` may be out of date (the write may
   * have fixed it) until recheck() runs, on the next read of inconsistency(), so that what is read
   * is always what the stored groups hold, as Pushgateway's scrape-time check sees it. A recheck
   * walks the whole store (seconds at 20,000 groups), so it runs once per read (a scrape), not
   * once per write.
   */
  private stale = false;
  private changes = 0;

  constructor(private readonly opts: InMemoryGroupStoreOptions = {}) {
    this.ownTypes = opts.ownTypes ?? new Map();
    this.cache = new ExpositionCache(opts.ownHelp);
    this.index = new ConsistencyIndex(this.ownTypes, {
      view: (name) => this.cache.view(name),
      groupLabels: (id) => this.byId.get(id)?.labels,
      isConsistent: () => this.problem === undefined,
    }, opts.utf8Names ?? false);
    this.checkConsistency = opts.checkConsistency ?? true;
    this.limits = opts.limits ?? NO_LIMITS;
  }

  get changeCount(): number {
    return this.changes;
  }

  get groupCount(): number {
    return this.byId.size;
  }

  get seriesCount(): number {
    return this.cache.seriesCount;
  }

  inconsistency(): string | undefined {
    if (this.stale) this.recheck();
    return this.problem;
  }

  private changed(): void {
    this.changes++;
    this.opts.onChange?.();
  }

  push(req: PushRequest): PushOutcome {
    this.expire(req.nowMs);
    const id = groupingKeyId(req.grouping);
    const refusal = limitRefusal(this.limits, this.effectOf(this.byId.get(id), req));
    if (refusal !== undefined) throw refusal;
    if (hasTimestamps(req.families)) {
      this.recordFailure(req.grouping, req.nowMs, req.ttlMs);
      throw timestampsRefused();
    }
    // Pushed push_time_seconds / push_failure_time_seconds gauges are replaced by the gateway's own.
    let problem: string | undefined;
    for (const f of req.families) {
      problem = findDuplicateLabel(f);
      if (problem !== undefined) break;
    }
    const existing = this.byId.get(id);
    // The group's own label tuples: every stored metric of the group shares them.
    const groupLabels = existing?.labels ?? groupLabelsOf(req.grouping);
    const sanitized = req.families.map((f) => sanitizeFamily(f, groupLabels));
    const replaced = new Set<string>(req.replace && existing ? existing.records.map((r) => r.name) : []);
    for (const f of sanitized) replaced.add(f.name);
    problem ??= this.index.check(id, sanitized, replaced, (name) => existing?.record(name));
    if (problem !== undefined && this.checkConsistency) {
      this.recordFailure(req.grouping, req.nowMs, req.ttlMs);
      throw new ConsistencyError(problem);
    }
    const stored = sanitized.filter((f) => f.name !== PUSH_TIME && f.name !== PUSH_FAILURE_TIME);
    this.apply(id, groupLabels, existing, stored, req);
    // A problem of the push alone (an empty family, a pushed push_time_seconds) is not in the store:
    // the recheck on the next read keeps only what the stored groups still hold.
    if (problem !== undefined) this.problem ??= problem;
    if (this.problem !== undefined) this.stale = true;
    this.changed();
    return problem === undefined ? {} : { inconsistency: problem };
  }

  /** How many groups and metrics the store would hold after `req` (for the limits). */
  private effectOf(existing: MutableGroup | undefined, req: PushRequest): PushEffect {
    const pushed = new Map<string, number>();
    for (const f of req.families) if (f.name !== PUSH_TIME && f.name !== PUSH_FAILURE_TIME) pushed.set(f.name, f.metrics.length);
    let before = 0;
    let kept = 0;
    for (const r of existing?.records ?? []) {
      before += r.size;
      if (!req.replace && !pushed.has(r.name)) kept += r.size;
    }
    let added = 0;
    for (const n of pushed.values()) added += n;
    return { newGroup: existing === undefined, groupsBefore: this.byId.size, groupSeriesBefore: before, groupSeriesAfter: kept + added, seriesBefore: this.cache.seriesCount };
  }

  /** Stores `families` (checked and sanitized) as the push `req` asks: PUT replaces the group, POST the pushed families. */
  private apply(id: string, groupLabels: readonly Label[], existing: MutableGroup | undefined, families: readonly MetricFamily[], req: PushRequest): void {
    const { replace, nowMs, ttlMs } = req;
    const group = existing ?? this.create(id, groupLabels);
    // The group's id, not this push's equal one: every stored metric keeps a reference to it.
    const gid = group.id;
    const pushed = new Map<string, MetricFamily>();
    const emptied = new Set<string>();
    for (const f of families) {
      if (f.metrics.length === 0) {
        emptied.add(f.name);
        pushed.delete(f.name);
      } else {
        pushed.set(f.name, f);
        emptied.delete(f.name);
      }
    }
    const next: GroupFamily[] = [];
    for (const r of group.records) {
      if (pushed.has(r.name)) continue;
      if (replace || emptied.has(r.name)) this.cache.remove(r);
      else next.push(r);
    }
    const share = new PushShare(group.labels);
    for (const f of pushed.values()) next.push(this.cache.set(gid, group.record(f.name), f, nowMs, share));
    group.records = next.sort(compareByName);
    group.pushTimeSeconds = nowMs / 1000;
    this.renderPushTimes(group, share);
    group.expiresAtMs = ttlMs !== undefined && ttlMs > 0 ? nowMs + ttlMs : undefined;
    this.schedule(group);
  }

  // A later expiry keeps the queued entry (it is re-queued when it comes due), so steady pushes
  // with a TTL do not grow the queue; an earlier one needs a new entry.
  private schedule(group: MutableGroup): void {
    const at = group.expiresAtMs;
    if (at === undefined || (group.queuedAtMs !== undefined && group.queuedAtMs <= at)) return;
    group.queuedAtMs = at;
    this.expiries.add(at, group.id);
  }

  /** @param labels the grouping labels as groupLabelsOf gives them. */
  private create(key: string, labels: readonly Label[]): MutableGroup {
    const id = ownString(key);
    const group = new MutableGroup(id, labels);
    this.byId.set(id, group);
    this.sorted = undefined;
    return group;
  }

  /** @param share what the records of the push that changed them share (a new one if none). */
  private renderPushTimes(group: MutableGroup, share = new PushShare(group.labels)): void {
    const [push, failure] = pushTimeFamilies(group);
    const at = group.pushTimeSeconds * 1000;
    group.pushTime = this.cache.set(group.id, group.pushTime, push, at, share);
    group.pushFailureTime = this.cache.set(group.id, group.pushFailureTime, failure, at, share);
  }

  recordFailure(grouping: readonly Label[], nowMs: number, ttlMs?: number): void {
    const id = groupingKeyId(grouping);
    let group = this.byId.get(id);
    if (group === undefined) {
      // With --push.max-groups reached, a refused push does not create its group either.
      if (this.limits.maxGroups > 0 && this.byId.size >= this.limits.maxGroups) return;
      group = this.create(id, groupLabelsOf(grouping));
      if (ttlMs !== undefined && ttlMs > 0) {
        group.expiresAtMs = nowMs + ttlMs;
        this.schedule(group);
      }
    }
    group.pushFailureTimeSeconds = nowMs / 1000;
    this.renderPushTimes(group);
    this.changed();
  }

  delete(grouping: readonly Label[], nowMs: number): boolean {
    this.expire(nowMs);
    const id = groupingKeyId(grouping);
    if (!this.remove(id)) return false;
    if (this.problem !== undefined) this.stale = true;
    this.changed();
    return true;
  }

  private remove(id: string): boolean {
    const group = this.byId.get(id);
    if (group === undefined) return false;
    for (const r of group.records) this.cache.remove(r);
    if (group.pushTime !== undefined) this.cache.remove(group.pushTime);
    if (group.pushFailureTime !== undefined) this.cache.remove(group.pushFailureTime);
    this.byId.delete(id);
    this.sorted = undefined;
    return true;
  }

  wipe(): void {
    this.clear();
    this.changed();
  }

  private clear(): void {
    this.byId.clear();
    this.cache.clear();
    this.expiries.clear();
    this.sorted = undefined;
    this.problem = undefined;
    this.stale = false;
  }

  expire(nowMs: number): number {
    let n = 0;
    for (const { at, id } of this.expiries.due(nowMs)) {
      const group = this.byId.get(id);
      if (group === undefined || group.queuedAtMs !== at) continue;
      group.queuedAtMs = undefined;
      if (group.expiresAtMs === undefined) continue;
      if (group.expiresAtMs <= nowMs) {
        this.remove(id);
        n++;
      } else {
        this.schedule(group);
      }
    }
    if (n > 0) {
      if (this.problem !== undefined) this.stale = true;
      this.changed();
    }
    return n;
  }

  /**
   * Only while the store is inconsistent: rebuild the views group by group, checking each against
   * the ones before it, to find what is still wrong. Records are put back as they are.
   */
  private recheck(): void {
    this.stale = false;
    this.cache.clear();
    this.problem = undefined;
    for (const g of this.byId.values()) {
      this.problem ??= this.index.check(
        g.id,
        g.records.map((r) => r.family),
        new Set(),
      );
      for (const r of g.records) this.cache.attach(r);
      if (g.pushTime !== undefined) this.cache.attach(g.pushTime);
      if (g.pushFailureTime !== undefined) this.cache.attach(g.pushFailureTime);
    }
  }

  groups(nowMs: number): readonly Group[] {
    this.expire(nowMs);
    this.sorted ??= [...this.byId.values()].sort((a, b) => compareStrings(a.id, b.id));
    return this.sorted;
  }

  get(grouping: readonly Label[], nowMs: number): Group | undefined {
    this.expire(nowMs);
    return this.byId.get(groupingKeyId(grouping));
  }

  rendered(nowMs: number, format: CachedFormat = 'text', escaping: EscapingScheme = 'allow-utf-8'): RenderedFamily[] {
    this.expire(nowMs);
    return this.cache.rendered(format, escaping);
  }

  families(nowMs: number): MetricFamily[] {
    this.expire(nowMs);
    return this.cache.families();
  }

  load(groups: readonly Group[]): void {
    this.clear();
    for (const g of groups) {
      const group = this.create(g.id, groupLabelsOf(g.labels));
      group.pushTimeSeconds = g.pushTimeSeconds;
      group.pushFailureTimeSeconds = g.pushFailureTimeSeconds;
      group.expiresAtMs = g.expiresAtMs;
      const stored = [...g.families.values()];
      this.problem ??= this.index.check(
        g.id,
        stored.map((s) => s.family),
        new Set(),
      );
      const share = new PushShare(group.labels);
      group.records = stored.map((s) => this.cache.set(group.id, undefined, s.family, s.pushedAtMs, share)).sort(compareByName);
      this.renderPushTimes(group, share);
      this.schedule(group);
    }
  }
}
