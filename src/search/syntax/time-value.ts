import { errors } from '../errors.js';

/**
 * Elasticsearch's time values (`1m`, `30s`, `500ms`): how ES reads a keep-alive (TimeValue
 * parseTimeValue) and how it prints one in its messages (TimeValue toString). Pure; the errors are
 * ES's: an unknown or missing unit is a parse_exception, a negative duration other than -1 an
 * illegal_argument_exception, both 400.
 */

const UNITS: readonly (readonly [suffix: string, ms: number])[] = [
  ['nanos', 1e-6],
  ['micros', 1e-3],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
];

/**
 * The milliseconds of `text` read as the setting or parameter `name` (named in the errors). ES
 * takes `-1` and `0` without a unit; every other value needs one, and fractions are refused.
 */
export function parseTimeValue(text: string, name: string): number {
  const normalized = text.toLowerCase().trim();
  for (const [suffix, ms] of UNITS) {
    if (!normalized.endsWith(suffix)) continue;
    const digits = normalized.slice(0, normalized.length - suffix.length).trim();
    if (!/^[+-]?\d+$/.test(digits)) {
      if (digits !== '' && Number.isFinite(Number(digits))) throw errors.parse(`failed to parse [${text}], fractional time values are not supported`);
      throw errors.parse(`failed to parse [${text}]`);
    }
    const value = Number(digits);
    if (value < -1) {
      throw errors.illegalArgument(`failed to parse setting [${name}] with value [${text}] as a time value: negative durations are not supported`);
    }
    return value * ms;
  }
  if (normalized === '-1') return -1;
  if (normalized === '0') return 0;
  throw errors.parse(`failed to parse setting [${name}] with value [${text}] as a time value: unit is missing or unrecognized`);
}

/**
 * A duration as ES prints it: in the largest unit it reaches, with at most one decimal (cut, not
 * rounded) and no trailing ".0" (25 hours is "1d", 90 seconds "1.5m").
 */
export function formatTimeValue(ms: number): string {
  const steps: readonly (readonly [string, number])[] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  for (const [suffix, unit] of steps) {
    if (Math.abs(ms) >= unit) return `${oneDecimal(ms / unit)}${suffix}`;
  }
  return `${oneDecimal(ms * 1000)}micros`;
}

/** Truncated (not rounded) to one decimal, as ES's format1Decimals cuts the printed double. */
function oneDecimal(v: number): string {
  const t = Math.trunc(v * 10) / 10;
  return Number.isInteger(t) ? String(t) : t.toFixed(1);
}
