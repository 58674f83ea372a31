/**
 * Go's `strconv.FormatFloat(v, 'g', -1, 64)`: the shortest digits that round-trip, printed in
 * fixed notation when the decimal exponent is in [-4, 6) and in exponent notation otherwise, with
 * an exponent of at least two digits (`1e+06`, `1.5e-05`). Pushgateway prints every sample value
 * and every `le`/`quantile` label this way, and JavaScript's `String(x)` does not (it switches to
 * exponent form only at 1e21 and 1e-7, and never pads the exponent).
 */
export function formatGoFloat(v: number): string {
  // Fixed notation in this range is exactly what JavaScript prints: both use the shortest
  // round-trip digits, and a double inside the range never has shortest digits outside it.
  const abs = Math.abs(v);
  if (abs >= 1e-4 && abs < 1e6) return String(v);
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  // toExponential() without an argument yields the shortest round-trip digits, e.g. "1.5e-5".
  const s = abs.toExponential();
  const e = s.indexOf('e');
  const exp = Number(s.slice(e + 1));
  const mantissa = s.slice(0, e);
  const absExp = exp < 0 ? -exp : exp;
  return `${v < 0 ? '-' : ''}${mantissa}e${exp < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
}

/**
 * Sample values as client_golang's text writer prints them: like {@link formatGoFloat} except that
 * negative zero is written as `0` (it special-cases 0, 1 and -1 before formatting).
 */
export function formatSampleValue(v: number): string {
  return v === 0 ? '0' : formatGoFloat(v);
}

/** Integers as Go prints an int64 (no exponent form), for timestamps. */
export function formatGoInt(v: number): string {
  return Number.isSafeInteger(v) ? String(v) : BigInt(Math.trunc(v)).toString();
}
