/**
 * Optional limits on what the gateway holds (Portico's; Pushgateway has none, see its issues
 * #394, #442, #449, #566): groups, metrics per group and metrics in all. A metric here is one
 * stored label set of a pushed family (a summary or histogram with its lines counts once; the
 * push time gauges do not count). A push that would pass a limit is refused whole before anything
 * changes: no family stored, no group created, no push_failure_time_seconds set.
 */
import { GatewayError } from '../errors.js';

export type LimitName = 'max-groups' | 'max-series-per-group' | 'max-series';

/** 0 means no limit, for each. */
export interface PushLimits {
  readonly maxGroups: number;
  readonly maxSeriesPerGroup: number;
  readonly maxSeries: number;
}

export const NO_LIMITS: PushLimits = { maxGroups: 0, maxSeriesPerGroup: 0, maxSeries: 0 };

/** A push refused by a limit; `limit` names it (for the gateway's refusal counter). */
export class LimitError extends GatewayError {
  override readonly name = 'LimitError';
  constructor(
    readonly limit: LimitName,
    statusCode: 413 | 429,
    message: string,
  ) {
    super('limit_exceeded', statusCode, message);
  }
}

/** What a push would change, as the store computes it before applying anything. */
export interface PushEffect {
  /** Whether the push creates its group. */
  readonly newGroup: boolean;
  readonly groupsBefore: number;
  /** Metrics of the group before and after the push. */
  readonly groupSeriesBefore: number;
  readonly groupSeriesAfter: number;
  /** Metrics of every group before the push. */
  readonly seriesBefore: number;
}

/**
 * The refusal for a push, or undefined when it fits. A push too large for any group is 413; a push
 * that only the gateway's current content makes too much (groups or metrics in all) is 429, and
 * fits again once groups are deleted or expire. A push that does not grow what it passes (a
 * re-push of the same metrics into a full gateway) is accepted.
 */
export function limitRefusal(limits: PushLimits, e: PushEffect): LimitError | undefined {
  if (limits.maxSeriesPerGroup > 0 && e.groupSeriesAfter > limits.maxSeriesPerGroup && e.groupSeriesAfter > e.groupSeriesBefore) {
    return new LimitError(
      'max-series-per-group',
      413,
      `push refused: the group would hold ${e.groupSeriesAfter} metrics, more than the limit of ${limits.maxSeriesPerGroup} per group; see --push.max-series-per-group`,
    );
  }
  if (limits.maxGroups > 0 && e.newGroup && e.groupsBefore >= limits.maxGroups) {
    return new LimitError('max-groups', 429, `push refused: the gateway holds ${e.groupsBefore} groups, the limit; delete groups or see --push.max-groups`);
  }
  const after = e.seriesBefore - e.groupSeriesBefore + e.groupSeriesAfter;
  if (limits.maxSeries > 0 && after > limits.maxSeries && after > e.seriesBefore) {
    return new LimitError(
      'max-series',
      429,
      `push refused: the gateway would hold ${after} metrics, more than the limit of ${limits.maxSeries}; delete groups or see --push.max-series`,
    );
  }
  return undefined;
}
