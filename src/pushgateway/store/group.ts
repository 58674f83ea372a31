/**
 * What a group is and what every group store promises: the routes, the console, the JSON API and
 * persistence see the store only through these (and the group's push time gauges, which the
 * store exposes and the API and console show).
 */
import { PUSH_FAILURE_TIME, PUSH_FAILURE_TIME_HELP, PUSH_TIME, PUSH_TIME_HELP, type Label, type MetricFamily } from '../model.js';
import type { CachedFormat, RenderedFamily } from './exposition-cache.js';
import type { EscapingScheme } from '../exposition/name-escaping.js';
import { sanitizeLabels } from './sanitize.js';
import type { StoredFamily } from './stored-family.js';

export type { StoredFamily };

/** One group: everything pushed under one grouping key. */
export interface Group {
  /** groupingKeyId of the grouping labels. */
  readonly id: string;
  /** Grouping labels (job and the URL labels), sorted by name. */
  readonly labels: readonly Label[];
  readonly families: ReadonlyMap<string, StoredFamily>;
  /** Unix seconds of the last successful push (0 if none succeeded yet). */
  readonly pushTimeSeconds: number;
  /** Unix seconds of the last refused push (0 if none failed). */
  readonly pushFailureTimeSeconds: number;
  /** When the group expires (ms since the epoch), undefined when it never does. */
  readonly expiresAtMs: number | undefined;
}

export interface PushRequest {
  /** Grouping labels, job included, as parseGroupingKey returns them. */
  readonly grouping: readonly Label[];
  readonly families: readonly MetricFamily[];
  /** PUT: replace the whole group; POST: replace only the pushed families. */
  readonly replace: boolean;
  readonly nowMs: number;
  /** Time to live of the group from now, in ms; 0 or undefined: never expires. */
  readonly ttlMs?: number;
}

export interface PushOutcome {
  /**
   * With the consistency check disabled, the problem the push brought into the store (stored
   * anyway); scrapes fail until it is gone, as in Pushgateway.
   */
  readonly inconsistency?: string;
}

/**
 * Where pushed groups live. Every method applies one write atomically: validate everything,
 * then mutate. The in-memory store answers writes at once; the replicated one (Redis) answers
 * them once the shared log has taken them, hence the promises.
 */
export interface GroupStore {
  /** Validates and stores a push; throws ConsistencyError (after recording the failure time) when refused. */
  push(req: PushRequest): PushOutcome | Promise<PushOutcome>;
  /**
   * Records a refused push on the group (creating it if missing), as Pushgateway's
   * setPushFailedTimestamp. A group created this way gets `ttlMs` (so that a TTL also reaps groups
   * whose pushes never succeeded); an existing group keeps its expiry.
   */
  recordFailure(grouping: readonly Label[], nowMs: number, ttlMs?: number): void | Promise<void>;
  /** Deletes the group with exactly this grouping key; false if there was none. */
  delete(grouping: readonly Label[], nowMs: number): boolean | Promise<boolean>;
  /** Deletes every group at once. */
  wipe(): void | Promise<void>;
  /** Drops groups whose TTL has run out; returns how many. */
  expire(nowMs: number): number;
  /** Groups sorted by grouping key. */
  groups(nowMs: number): readonly Group[];
  get(grouping: readonly Label[], nowMs: number): Group | undefined;
  /**
   * Text 0.0.4 (or OpenMetrics) of every pushed family (push_time families included), sorted by
   * name, names that are not legacy written in `escaping` (default `allow-utf-8`: quoted).
   */
  rendered(nowMs: number, format?: CachedFormat, escaping?: EscapingScheme): RenderedFamily[];
  /** The same families as models, for OpenMetrics, protobuf and merging. */
  families(nowMs: number): MetricFamily[];
  /** Set while the store holds an inconsistency (only possible with the check disabled). */
  inconsistency(): string | undefined;
  /** Replaces the whole content (loading the persistence file); no check, no change event. */
  load(groups: readonly Group[]): void;
  /** Counts writes; persistence compares it to know whether there is something to write. */
  readonly changeCount: number;
  readonly groupCount: number;
  readonly seriesCount: number;
  /** False while a shared store has not been read once yet (/-/ready answers 503); absent: always ready. */
  readonly ready?: boolean;
  /** A shared store's name for this replica (host, process, a random part), shown by the console. */
  readonly replica?: string;
}

/** The push time gauges of a group, as families (labels: grouping labels plus instance=""). */
export function pushTimeFamilies(g: Group): [MetricFamily, MetricFamily] {
  const labels = sanitizeLabels([], g.labels);
  return [
    { name: PUSH_TIME, help: PUSH_TIME_HELP, type: 'gauge', metrics: [{ labels, value: g.pushTimeSeconds }] },
    { name: PUSH_FAILURE_TIME, help: PUSH_FAILURE_TIME_HELP, type: 'gauge', metrics: [{ labels, value: g.pushFailureTimeSeconds }] },
  ];
}
