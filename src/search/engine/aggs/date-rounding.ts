import type { ZoneId } from '@js-joda/core';
import type { CalendarUnit } from '../../requests/aggs/agg-options.js';
import { joda } from '../../syntax/date-format.js';

/**
 * How a histogram puts a value in its bucket: `round` gives the bucket's key, `next` the key of
 * the bucket after (for the empty buckets `min_doc_count: 0` fills in). Calendar intervals round
 * in the aggregation's time zone (a day in Europe/Paris starts at its local midnight, and a month
 * is a month long), as ES's Rounding does.
 */
export interface Rounding {
  round(v: number): number;
  next(key: number): number;
}

/** A numeric histogram's: floor((v - offset) / interval) * interval + offset. */
export function numericRounding(interval: number, offset: number): Rounding {
  const round = (v: number): number => Math.floor((v - offset) / interval) * interval + offset;
  // As ES steps from one key to the next (half an interval past, rounded), so float error never skips a bucket.
  return { round, next: (key) => round(key + interval + interval / 2) };
}

const DAY = 86_400_000;

/** UTC calendar rounding with Date arithmetic (no time-zone rules to consult). */
function utcCalendar(unit: CalendarUnit): Rounding {
  const fixed = unit === 'minute' ? 60_000 : unit === 'hour' ? 3_600_000 : unit === 'day' ? DAY : undefined;
  if (fixed !== undefined) return { round: (v) => Math.floor(v / fixed) * fixed, next: (k) => k + fixed };
  if (unit === 'week') {
    // 1970-01-01 was a Thursday: weeks start on Monday, 3 days earlier.
    const week = 7 * DAY;
    return { round: (v) => Math.floor((v + 3 * DAY) / week) * week - 3 * DAY, next: (k) => k + week };
  }
  const months = unit === 'month' ? 1 : unit === 'quarter' ? 3 : 12;
  const round = (v: number): number => {
    const d = new Date(v);
    const m = d.getUTCMonth();
    return Date.UTC(d.getUTCFullYear(), m - (m % months), 1);
  };
  return {
    round,
    next: (k) => {
      const d = new Date(k);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
    },
  };
}

/** Calendar rounding in a zone, with js-joda; each bucket found is remembered, so most values cost a binary search. */
function zonedCalendar(unit: CalendarUnit, zone: ZoneId): Rounding {
  const { ChronoUnit, DayOfWeek, Instant, ZonedDateTime, TemporalAdjusters } = joda();
  const starts: number[] = [];
  const ends: number[] = [];
  const floor = (v: number): { start: number; end: number } => {
    let z = ZonedDateTime.ofInstant(Instant.ofEpochMilli(v), zone);
    let step: (x: typeof z) => typeof z;
    switch (unit) {
      case 'minute':
        z = z.truncatedTo(ChronoUnit.MINUTES);
        step = (x) => x.plusMinutes(1);
        break;
      case 'hour':
        z = z.truncatedTo(ChronoUnit.HOURS);
        step = (x) => x.plusHours(1);
        break;
      case 'day':
        z = z.truncatedTo(ChronoUnit.DAYS);
        step = (x) => x.plusDays(1);
        break;
      case 'week':
        z = z.truncatedTo(ChronoUnit.DAYS).with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        step = (x) => x.plusWeeks(1);
        break;
      case 'month':
        z = z.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1);
        step = (x) => x.plusMonths(1);
        break;
      case 'quarter':
        z = z.truncatedTo(ChronoUnit.DAYS).withDayOfMonth(1).withMonth(z.monthValue() - ((z.monthValue() - 1) % 3));
        step = (x) => x.plusMonths(3);
        break;
      default:
        z = z.truncatedTo(ChronoUnit.DAYS).withDayOfYear(1);
        step = (x) => x.plusYears(1);
    }
    // A local midnight that a daylight-saving gap skips resolves to the instant after the gap.
    const start = ZonedDateTime.ofLocal(z.toLocalDateTime(), zone, null).toInstant().toEpochMilli();
    const end = ZonedDateTime.ofLocal(step(z).toLocalDateTime(), zone, null).toInstant().toEpochMilli();
    return { start, end };
  };
  const round = (v: number): number => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] as number) <= v) lo = mid + 1;
      else hi = mid;
    }
    const i = lo - 1;
    if (i >= 0 && v < (ends[i] as number)) return starts[i] as number;
    const b = floor(v);
    starts.splice(i + 1, 0, b.start);
    ends.splice(i + 1, 0, b.end);
    return b.start;
  };
  return { round, next: (k) => floor(k).end };
}

export function calendarRounding(unit: CalendarUnit, zone: ZoneId | undefined, offsetMs: number): Rounding {
  const utc = zone === undefined || zone.id() === 'Z' || zone.id() === 'UTC';
  const base = utc ? utcCalendar(unit) : zonedCalendar(unit, zone);
  if (offsetMs === 0) return base;
  return { round: (v) => base.round(v - offsetMs) + offsetMs, next: (k) => base.next(k - offsetMs) + offsetMs };
}

/** Fixed intervals: epoch-aligned in UTC; in a zone, aligned on its local time. */
export function fixedRounding(interval: number, zone: ZoneId | undefined, offsetMs: number): Rounding {
  const utc = zone === undefined || zone.id() === 'Z' || zone.id() === 'UTC';
  if (utc) return numericRounding(interval, offsetMs);
  const { Instant } = joda();
  const offsetAt = (ms: number): number => zone.rules().offset(Instant.ofEpochMilli(ms)).totalSeconds() * 1000;
  const round = (v: number): number => {
    const local = v + offsetAt(v);
    const key = Math.floor((local - offsetMs) / interval) * interval + offsetMs;
    return key - offsetAt(key - offsetAt(v));
  };
  return { round, next: (k) => round(k + interval + interval / 2) };
}
