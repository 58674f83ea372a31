import { createRequire } from 'node:module';
import type { ChronoUnit, ZoneId, ZonedDateTime } from '@js-joda/core';
import { compileDateFormat, joda, namedPattern, type DateFormat } from './date-format.js';

/**
 * Elasticsearch date math in `range` bounds: an anchor (`now`, or a date in the bound's format
 * followed by `||`) and operations applied left to right: `+1M`, `-2d`, `/d` (round to the unit).
 * Units: y, M, w, d, h/H, m, s. Calendar arithmetic and rounding happen in the query's
 * `time_zone` (UTC when absent), which also places dates that name no zone; epoch formats and
 * dates with their own offset ignore it.
 *
 * Rounding follows the bound (ES's roundUp): `gt` and `lte` round up (`/d` is the last
 * millisecond of the day, and a date without time of day is 23:59:59.999 of that day), `gte` and
 * `lt` round down (start of the unit, missing time fields are zero).
 */

/** Why a bound could not be read: the anchor did not parse, or the math is malformed. */
export class DateMathError extends Error {
  constructor(
    message: string,
    /**
     * 'format': the date did not parse with the format; 'math': the operations are malformed;
     * 'invalid': the format itself does not compile.
     */
    readonly kind: 'format' | 'math' | 'invalid',
  ) {
    super(message);
  }
}

/** Options for reading one bound. */
export interface DateMathOptions {
  /** The format of the bound's date (`dd/MM/yyyy||epoch_millis`). */
  readonly format: string;
  /** Epoch milliseconds that `now` stands for. */
  readonly now: number;
  /** Round up (`gt`, `lte`) rather than down (`gte`, `lt`). */
  readonly roundUp: boolean;
  /** `time_zone` of the query (`+01:00`, `Europe/Paris`, `UTC`); UTC when undefined. */
  readonly timeZone?: string;
}

/** One `||` alternative of a format, with what ES needs to know of the dates it reads. */
interface Alternative {
  readonly format: DateFormat;
  /** epoch_millis / epoch_second: an instant, never placed in a time zone. */
  readonly epoch: boolean;
  /** ISO names read an optional offset: whether a value has one is read from the value. */
  readonly iso: boolean;
  /** For patterns: whether the pattern reads an offset (X, x, Z, O, V, z outside quotes). */
  readonly zoned: boolean;
}

const ISO_NAMES = new Set([
  'strict_date_optional_time', 'date_optional_time', 'strict_date_optional_time_nanos', 'iso8601', 'date_time', 'strict_date_time',
  'date_time_no_millis', 'strict_date_time_no_millis',
]);


function compileAlternative(text: string): Alternative {
  const name = text.trim();
  const format = compileDateFormat(name);
  const epoch = name === 'epoch_millis' || name === 'epoch_second';
  const iso = ISO_NAMES.has(name);
  // Quoted text ('T', 'o''clock') is literal; built-in names are not patterns.
  // Built-in names are read through their pattern (date-format.ts); other names are not patterns.
  const pattern = namedPattern(name) ?? (/^[a-z_]+$/.test(name) ? '' : name);
  const zoned = !epoch && !iso && /[XxZOVz]/.test(pattern.replace(/'[^']*'/g, ''));
  return { format, epoch, iso, zoned };
}

/** Whether an ISO value carries its own offset (ISO puts one only after a time). */
function isoHasZone(value: string): boolean {
  return /[T ]\d{2}.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/.test(value.trim());
}

/** Compiles formats once per text (a query's bounds and every search reuse them). */
export class DateMathParser {
  private readonly cache = new Map<string, readonly Alternative[]>();

  private alternatives(format: string): readonly Alternative[] {
    let alts = this.cache.get(format);
    if (alts === undefined) {
      try {
        alts = format.split('||').map(compileAlternative);
      } catch (e) {
        throw new DateMathError((e as Error).message, 'invalid');
      }
      this.cache.set(format, alts);
    }
    return alts;
  }

  /** Epoch milliseconds of a bound; throws DateMathError. */
  parse(value: unknown, opts: DateMathOptions): number {
    const zone = zoneOf(opts.timeZone);
    if (typeof value === 'string' && value.startsWith('now')) return applyMath(value.slice(3), opts.now, opts.roundUp, zone, value);
    const text = typeof value === 'string' ? value : undefined;
    const at = text?.indexOf('||') ?? -1;
    if (text === undefined || at < 0) return this.anchor(value, opts.format, opts.roundUp, zone);
    return applyMath(text.slice(at + 2), this.anchor(text.slice(0, at), opts.format, false, zone), opts.roundUp, zone, text);
  }

  /**
   * A date in `format`, placed in `zone` when it names none; rounding up fills the time fields it
   * leaves out with their largest values (the format's own roundUp, as ES's round-up parser).
   */
  private anchor(value: unknown, format: string, roundUp: boolean, zone: ZoneId): number {
    for (const alt of this.alternatives(format)) {
      const ms = alt.format.parse(value, roundUp);
      // Past what an Instant (and a JS Date) holds: as unparseable as ES's 19-digit epoch limit makes it.
      if (ms === undefined || !(Math.abs(ms) <= MAX_EPOCH_MS)) continue;
      if (alt.epoch) return ms;
      const zoned = alt.iso ? isoHasZone(String(value)) : alt.zoned;
      return zoned ? ms : inZone(ms, zone);
    }
    throw new DateMathError(`failed to parse date field [${String(value)}] with format [${format}]`, 'format');
  }
}

/** The zone of a `time_zone` (an offset, `UTC` or an IANA region); throws DateMathError for an unknown one. */
export function zoneOf(timeZone: string | undefined): ZoneId {
  const { ZoneId, ZoneOffset } = joda();
  if (timeZone === undefined) return ZoneOffset.UTC;
  try {
    if (!/^(?:Z|UTC|GMT|UT)?[+-]|^(?:Z|UTC|GMT|UT)$/.test(timeZone)) loadZoneRules();
    return ZoneId.of(timeZone);
  } catch {
    throw new DateMathError(`Unknown time-zone ID: ${timeZone}`, 'math');
  }
}

/** Epoch milliseconds of a wall-clock time (given as if it were UTC) in `zone`. */
function inZone(localAsUtc: number, zone: ZoneId): number {
  const { Instant, LocalDateTime, ZonedDateTime, ZoneOffset } = joda();
  if (zone.equals(ZoneOffset.UTC)) return localAsUtc;
  const local = LocalDateTime.ofInstant(Instant.ofEpochMilli(localAsUtc), ZoneOffset.UTC);
  return ZonedDateTime.of(local, zone).toInstant().toEpochMilli();
}

/** The java.time unit of a date-math unit letter, or undefined. */
function unitOf(unit: string): ChronoUnit | undefined {
  const { ChronoUnit } = joda();
  switch (unit) {
    case 'y': return ChronoUnit.YEARS;
    case 'M': return ChronoUnit.MONTHS;
    case 'w': return ChronoUnit.WEEKS;
    case 'd': return ChronoUnit.DAYS;
    case 'h':
    case 'H': return ChronoUnit.HOURS;
    case 'm': return ChronoUnit.MINUTES;
    case 's': return ChronoUnit.SECONDS;
    default: return undefined;
  }
}

function roundDown(t: ZonedDateTime, unit: string): ZonedDateTime {
  const { ChronoUnit, DayOfWeek, TemporalAdjusters } = joda();
  switch (unit) {
    case 'y':
      return t.withDayOfYear(1).truncatedTo(ChronoUnit.DAYS);
    case 'M':
      return t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS);
    case 'w':
      return t.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)).truncatedTo(ChronoUnit.DAYS);
    default:
      return t.truncatedTo(unitOf(unit) as ChronoUnit);
  }
}

/** The largest epoch milliseconds a JS Date holds (year 275760). */
const MAX_EPOCH_MS = 8.64e15;

/** Applies `+1M-1d/d`-style operations to `start` (epoch ms) in `zone`. */
function applyMath(math: string, start: number, roundUp: boolean, zone: ZoneId, whole: string): number {
  if (math === '') return start;
  let out: number;
  try {
    out = applyOps(math, start, roundUp, zone, whole);
  } catch (e) {
    if (e instanceof DateMathError) throw e;
    // java.time's own range errors (a year past 999,999,999): ES fails the bound as a parse error.
    throw new DateMathError(`failed to parse date field [${whole}]: ${(e as Error).message}`, 'math');
  }
  if (!(Math.abs(out) <= MAX_EPOCH_MS)) throw new DateMathError(`failed to parse date field [${whole}]: date out of range`, 'math');
  return out;
}

function applyOps(math: string, start: number, roundUp: boolean, zone: ZoneId, whole: string): number {
  const { ChronoUnit, Instant, ZonedDateTime } = joda();
  let t = ZonedDateTime.ofInstant(Instant.ofEpochMilli(start), zone);
  let i = 0;
  while (i < math.length) {
    const op = math[i++] as string;
    if (op !== '/' && op !== '+' && op !== '-') throw new DateMathError(`operator not supported for date math [${whole}]`, 'math');
    if (i >= math.length) throw new DateMathError(`truncated date math [${whole}]`, 'math');
    let digits = '';
    while (i < math.length && /[0-9]/.test(math[i] as string)) digits += math[i++];
    if (op === '/' && digits !== '') throw new DateMathError(`rounding \`/\` can only be used on single unit types [${whole}]`, 'math');
    if (i >= math.length) throw new DateMathError(`truncated date math [${whole}]`, 'math');
    const unit = math[i++] as string;
    const chrono = unitOf(unit);
    if (chrono === undefined) throw new DateMathError(`unit [${unit}] not supported for date math [${whole}]`, 'math');
    if (op === '/') {
      t = roundDown(t, unit);
      if (roundUp) t = t.plus(1, chrono).minus(1, ChronoUnit.MILLIS);
    } else {
      const n = digits === '' ? 1 : Number(digits);
      t = op === '+' ? t.plus(n, chrono) : t.minus(n, chrono);
    }
  }
  return t.toInstant().toEpochMilli();
}

let zoneRulesLoaded = false;

/**
 * Loads the IANA time-zone rules (js-joda's tz database) the first time a query names a region
 * (`Europe/Paris`): loading them at start cost about 180 ms and 29 MiB of RSS, for a feature most
 * users never touch (offsets such as `+01:00` need no rules). Synchronous, as date math is.
 */
function loadZoneRules(): void {
  if (zoneRulesLoaded) return;
  createRequire(import.meta.url)('@js-joda/timezone');
  zoneRulesLoaded = true;
}
