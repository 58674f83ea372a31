import { createRequire } from 'node:module';
import type * as Joda from '@js-joda/core';

/**
 * Elasticsearch date formats: the `format` of a `date` field's mapping and of a `range` query,
 * written as ES writes them: built-in names (`strict_date_optional_time`, `epoch_millis`,
 * `epoch_second`, `date`, `basic_date`, …), Java `DateTimeFormatter` patterns (`dd/MM/yyyy`,
 * `yyyy-MM-dd HH:mm:ss`) parsed by js-joda, the port of java.time ES itself uses, and
 * alternatives joined by `||`, tried in order. Fields a pattern leaves out default as in ES
 * (January, the 1st, midnight, UTC).
 */

let jodaModule: typeof Joda | undefined;

/**
 * js-joda (java.time), loaded the first time a date pattern or date math needs it: importing it at
 * start cost about 100 ms and 10 MiB of RSS, while ES's default formats (ISO dates, epoch) and
 * plain `range` bounds without math never use it. Synchronous, as parsing is. The package has no
 * `exports` map, so `import` and `require` give the same CommonJS instance (the one
 * `@js-joda/timezone` adds its zone rules to).
 */
export function joda(): typeof Joda {
  jodaModule ??= createRequire(import.meta.url)('@js-joda/core') as typeof Joda;
  return jodaModule;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const YEAR_OR_MONTH = /^(\d{4})(?:-(\d{2}))?$/;
const SLASH_DATE = /^\d{4}\/\d{2}\/\d{2}(?: \d{2}:\d{2}:\d{2})?(?: ?(?:Z|[+-]\d{2}:?\d{2}))?$/;


/**
 * Parses a date the way `strict_date_optional_time||epoch_millis` does: ISO 8601 with an optional
 * time and zone (no zone means UTC, unlike JS's Date.parse), or epoch milliseconds. Returns epoch
 * milliseconds, or undefined when the value is not a date.
 */
export function parseDate(value: unknown, lenient = false): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value !== 'string') return undefined;
  // strict_date_optional_time reads a year alone and a year-month (its month and day are
  // optional) before epoch_millis gets a chance: "2020" is the year 2020, not 2020 ms.
  const partial = YEAR_OR_MONTH.exec(value);
  if (partial !== null) {
    const month = partial[2] === undefined ? 1 : Number(partial[2]);
    return month >= 1 && month <= 12 ? Date.UTC(Number(partial[1]), month - 1, 1) : undefined;
  }
  if (/^-?\d+$/.test(value) && !ISO_DATE.test(value)) return Number(value);
  let s = value.trim();
  if (SLASH_DATE.test(s)) s = s.replace(/\//g, '-').replace(' ', 'T');
  if (!ISO_DATE.test(s)) return undefined;
  // java.time resolves STRICTly (no 2023-02-29, no 31st of a 30-day month, no hour 24) where
  // Date.parse rolls over; `lenient` keeps the roll-over for documents stored before this check.
  if (!lenient && !isRealDateTime(s)) return undefined;
  s = s.replace(' ', 'T').replace(',', '.');
  const hasTime = s.includes('T');
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2}|[+-]\d{2})$/.test(s.slice(10));
  if (hasTime && !hasZone) s += 'Z';
  if (hasTime && /T\d{2}$/.test(s.replace(/Z$/, ''))) s = s.replace(/T(\d{2})(Z?)$/, 'T$1:00$2');
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

function isRealDateTime(iso: string): boolean {
  const year = Number(iso.slice(0, 4));
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  const hour = /^.{10}[T ](\d{2})/.exec(iso)?.[1];
  return hour === undefined || Number(hour) <= 23;
}

/** Whether dynamic mapping's date detection takes a string for a date (ES's dynamic_date_formats). */
export function isDetectedDate(value: string): boolean {
  return (ISO_DATE.test(value) || SLASH_DATE.test(value)) && parseDate(value) !== undefined;
}

/** A compiled format: epoch milliseconds for a value, or undefined when no alternative parses it. */
export interface DateFormat {
  /** The format as written (`dd/MM/yyyy||epoch_millis`), for error messages. */
  readonly text: string;
  /**
   * With `roundUp` (range bounds `gt` and `lte`), missing time fields take their largest value
   * (23:59:59.999) as ES's DateMathParser does; missing month and day stay 01.
   */
  parse(value: unknown, roundUp?: boolean): number | undefined;
  /**
   * Epoch milliseconds written with the format's first alternative, as ES's DateFormatter prints
   * (a stored field's value, DateFieldType.valueForDisplay): UTC, `epoch_millis` as digits,
   * `epoch_second` as seconds with the fraction it has. Undefined when the pattern cannot write the
   * date (js-joda's years stop at ±999,999; ES's do not).
   */
  print(ms: number): string | undefined;
}

/** A `date` field's format when its mapping names none. */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const DAY_MS = 86_400_000;

type Parser = (value: unknown, roundUp: boolean) => number | undefined;

const isoParser: Parser = (v, roundUp) => {
  if (typeof v !== 'string' || (/^-?\d+$/.test(v.trim()) && !YEAR_OR_MONTH.test(v))) return undefined;
  const ms = parseDate(v);
  if (ms === undefined || !roundUp) return ms;
  // What the text leaves out of hh:mm:ss.SSS, filled with its maximum.
  const time = /[T ](\d{2})(?::(\d{2})(?::(\d{2})([.,]\d+)?)?)?/.exec(v.trim().slice(10));
  if (time === null) return ms + DAY_MS - 1;
  if (time[2] === undefined) return ms + 3_599_999;
  if (time[3] === undefined) return ms + 59_999;
  return time[4] === undefined ? ms + 999 : ms;
};

function epochParser(unitMs: number): Parser {
  return (v, roundUp) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(?:\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isFinite(n)) return undefined;
    // ES's epoch_second round-up parser (lte, gt) fills a missing fraction with 999,999,999 ns.
    const fill = roundUp && unitMs === 1000 && Number.isInteger(n) ? 999 : 0;
    return Math.trunc(n * unitMs) + fill;
  };
}

// Built-in names whose text the ISO 8601 parser of mapping.ts reads (dates with optional time and zone).
const ISO_NAMES = [
  'strict_date_optional_time', 'date_optional_time', 'strict_date_optional_time_nanos', 'iso8601', 'date_time', 'strict_date_time',
  'date_time_no_millis', 'strict_date_time_no_millis',
];

// Built-in names that are fixed patterns.
const NAMED_PATTERNS: Readonly<Record<string, string>> = {
  date: 'uuuu-MM-dd',
  strict_date: 'uuuu-MM-dd',
  year_month_day: 'uuuu-MM-dd',
  strict_year_month_day: 'uuuu-MM-dd',
  basic_date: 'uuuuMMdd',
  year: 'uuuu',
  strict_year: 'uuuu',
  year_month: 'uuuu-MM',
  strict_year_month: 'uuuu-MM',
  date_hour_minute: "uuuu-MM-dd'T'HH:mm",
  strict_date_hour_minute: "uuuu-MM-dd'T'HH:mm",
  date_hour_minute_second: "uuuu-MM-dd'T'HH:mm:ss",
  strict_date_hour_minute_second: "uuuu-MM-dd'T'HH:mm:ss",
  date_hour_minute_second_millis: "uuuu-MM-dd'T'HH:mm:ss.SSS",
  strict_date_hour_minute_second_millis: "uuuu-MM-dd'T'HH:mm:ss.SSS",
  basic_date_time_no_millis: "uuuuMMdd'T'HHmmssXX",
  hour_minute: 'HH:mm',
  strict_hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  strict_hour_minute_second: 'HH:mm:ss',
  // The rest of ES 8's built-in names (the week-based ones excepted). ES's `Z` in these reads `Z`
  // or an offset: XXX (+01:00) in the extended formats, XX (+0100) in the basic ones.
  basic_date_time: "uuuuMMdd'T'HHmmss.SSSXX",
  basic_ordinal_date: 'uuuuDDD',
  basic_ordinal_date_time: "uuuuDDD'T'HHmmss.SSSXX",
  basic_ordinal_date_time_no_millis: "uuuuDDD'T'HHmmssXX",
  basic_time: 'HHmmss.SSSXX',
  basic_time_no_millis: 'HHmmssXX',
  basic_t_time: "'T'HHmmss.SSSXX",
  basic_t_time_no_millis: "'T'HHmmssXX",
  date_hour: "uuuu-MM-dd'T'HH",
  date_hour_minute_second_fraction: "uuuu-MM-dd'T'HH:mm:ss.SSS",
  hour: 'HH',
  hour_minute_second_fraction: 'HH:mm:ss.SSS',
  hour_minute_second_millis: 'HH:mm:ss.SSS',
  ordinal_date: 'uuuu-DDD',
  ordinal_date_time: "uuuu-DDD'T'HH:mm:ss.SSSXXX",
  ordinal_date_time_no_millis: "uuuu-DDD'T'HH:mm:ssXXX",
  time: 'HH:mm:ss.SSSXXX',
  time_no_millis: 'HH:mm:ssXXX',
  t_time: "'T'HH:mm:ss.SSSXXX",
  t_time_no_millis: "'T'HH:mm:ssXXX",
};

/** The Java pattern a built-in name stands for (`strict_` and plain names alike), if it is one. */
export function namedPattern(name: string): string | undefined {
  return NAMED_PATTERNS[name] ?? (name.startsWith('strict_') ? NAMED_PATTERNS[name.slice(7)] : undefined);
}

function field(t: Joda.TemporalAccessor, f: Joda.ChronoField, dflt: number): number {
  return t.isSupported(f) ? t.getLong(f) : dflt;
}

/** Epoch milliseconds of what a pattern parsed; undefined for impossible dates (31/02). */
function toEpochMs(t: Joda.TemporalAccessor, roundUp: boolean): number | undefined {
  const { ChronoField } = joda();
  const year = t.isSupported(ChronoField.YEAR) ? t.getLong(ChronoField.YEAR) : field(t, ChronoField.YEAR_OF_ERA, 1970);
  const month = field(t, ChronoField.MONTH_OF_YEAR, 1);
  const day = field(t, ChronoField.DAY_OF_MONTH, 1);
  const hour = field(t, ChronoField.HOUR_OF_DAY, roundUp ? 23 : 0);
  const minute = field(t, ChronoField.MINUTE_OF_HOUR, roundUp ? 59 : 0);
  const second = field(t, ChronoField.SECOND_OF_MINUTE, roundUp ? 59 : 0);
  const ms = Math.trunc(field(t, ChronoField.NANO_OF_SECOND, roundUp ? 999_999_999 : 0) / 1e6);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, ms);
  // Date rolls 31/02 over into March; java.time refuses it, and so does ES.
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return d.getTime() - field(t, ChronoField.OFFSET_SECONDS, 0) * 1000;
}

function patternParser(pattern: string): Parser {
  // STRICT as in ES: `yyyy` stays a year-of-era and day 31 of February is not moved to March.
  const { DateTimeFormatter, ResolverStyle } = joda();
  const formatter = DateTimeFormatter.ofPattern(pattern).withResolverStyle(ResolverStyle.STRICT);
  return (v, roundUp) => {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    try {
      return toEpochMs(formatter.parse(String(v)), roundUp);
    } catch {
      return undefined;
    }
  };
}

type Printer = (ms: number) => string | undefined;

/** ES's epoch_second printer: whole seconds, then the fraction without trailing zeros when there is one. */
function epochSecondText(ms: number): string {
  const abs = Math.abs(ms);
  const frac = abs % 1000;
  const secs = `${ms < 0 ? '-' : ''}${Math.trunc(abs / 1000)}`;
  return frac === 0 ? secs : `${secs}.${String(frac).padStart(3, '0').replace(/0+$/, '')}`;
}

function patternPrinter(pattern: string): Printer {
  const { DateTimeFormatter, Instant, ZonedDateTime, ZoneOffset } = joda();
  const formatter = DateTimeFormatter.ofPattern(pattern);
  return (ms) => {
    try {
      return formatter.format(ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneOffset.UTC));
    } catch {
      return undefined;
    }
  };
}

/** The printer of one alternative of a format (ES prints with the first). */
function printerOf(name: string): Printer {
  if (name === 'epoch_millis') return (ms) => String(ms);
  if (name === 'epoch_second') return epochSecondText;
  // Their printers write what the strict ISO one writes; the no-millis ones leave the fraction out.
  if (name === 'date_time_no_millis' || name === 'strict_date_time_no_millis') return (ms) => isoInstant(ms).replace(/\.\d{3}Z$/, 'Z');
  if (ISO_NAMES.includes(name)) return isoInstant;
  return patternPrinter(namedPattern(name) ?? name);
}

/** Compiles a format; throws Error("Invalid format: [x]: why") for a pattern java.time would refuse. */
export function compileDateFormat(text: string): DateFormat {
  const parsers = text.split('||').map((raw): Parser => {
    const name = raw.trim();
    if (name === 'epoch_millis') return epochParser(1);
    if (name === 'epoch_second') return epochParser(1000);
    if (ISO_NAMES.includes(name)) return isoParser;
    const pattern = namedPattern(name) ?? name;
    try {
      return patternParser(pattern);
    } catch (e) {
      throw new Error(`Invalid format: [${text}]: ${(e as Error).message}`, { cause: e });
    }
  });
  let printer: Printer | undefined;
  return {
    text,
    print(ms) {
      // Compiled on first use: most formats only ever parse.
      printer ??= printerOf((text.split('||')[0] ?? '').trim());
      return printer(ms);
    },
    parse(value, roundUp = false) {
      for (const p of parsers) {
        const ms = p(value, roundUp);
        if (ms !== undefined) return ms;
      }
      return undefined;
    },
  };
}

/** 400 Gregorian years in milliseconds: the calendar repeats after exactly this many days (146097). */
const CYCLE_MS = 146_097 * 86_400_000;

/**
 * Epoch milliseconds as ES's strict_date_optional_time printer writes them (UTC, millisecond
 * precision, the year at least 4 digits, signed when past 9999 or negative). Why not
 * Date#toISOString: it throws past ±8.64e15 ms (a date field accepts later ones) and writes
 * years past 9999 and negative ones with 6 digits.
 */
export function isoInstant(ms: number): string {
  // Shift by whole 400-year cycles into Date's range; the calendar fields stay the same.
  const cycles = Math.trunc(ms / CYCLE_MS);
  const d = new Date(ms - cycles * CYCLE_MS);
  const year = d.getUTCFullYear() + 400 * cycles;
  const pad = (n: number, w: number): string => String(n).padStart(w, '0');
  const y = year > 9999 ? `+${year}` : year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${y}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}
