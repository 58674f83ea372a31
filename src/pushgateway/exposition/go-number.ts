/**
 * Number syntax as Go's exposition parser accepts it. `Number()` is far more lenient (hex,
 * `Infinity`, surrounding whitespace, empty string), so the syntax is checked here first and
 * `Number()` only does the (correctly rounded) conversion.
 */

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * expfmt's parseFloat: Go `strconv.ParseFloat(s, 64)` minus the characters `p`, `P` and `_` (so no
 * hex floats and no digit separators). Accepts `NaN`, `Inf`, `+Inf`, `-Infinity` (any case; a
 * sign is allowed for Inf only), decimals with optional sign, fraction and exponent. Values that
 * overflow float64 are errors (Go's ErrRange). Returns undefined when Go would fail.
 */
export function parseGoFloat(t: string): number | undefined {
  const n = t.length;
  if (n === 0) return undefined;
  const fast = parsePlainDecimal(t);
  if (fast === fast) return fast;
  let i = 0;
  const c0 = t.charCodeAt(0);
  if (c0 === 43 || c0 === 45) i = 1;
  const first = t.charCodeAt(i) | 0x20;
  if (first === 0x69 || first === 0x6e) {
    const rest = t.slice(i).toLowerCase();
    if (rest === 'inf' || rest === 'infinity') return c0 === 45 ? -Infinity : Infinity;
    if (rest === 'nan' && i === 0) return NaN;
    return undefined;
  }
  let digits = 0;
  while (i < n && isDigit(t.charCodeAt(i))) {
    i++;
    digits++;
  }
  if (i < n && t.charCodeAt(i) === 46) {
    i++;
    while (i < n && isDigit(t.charCodeAt(i))) {
      i++;
      digits++;
    }
  }
  if (digits === 0) return undefined;
  if (i < n && (t.charCodeAt(i) | 0x20) === 0x65) {
    i++;
    if (i < n && (t.charCodeAt(i) === 43 || t.charCodeAt(i) === 45)) i++;
    let expDigits = 0;
    while (i < n && isDigit(t.charCodeAt(i))) {
      i++;
      expDigits++;
    }
    if (expDigits === 0) return undefined;
  }
  if (i !== n) return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

/** Exactly representable powers of ten. */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The common case `[+-]digits[.digits]` with at most 15 digits: the digits form an exact integer
 * below 2^53 and the divisor an exact power of ten, so one IEEE division is correctly rounded (the
 * classic strtod fast path) and much cheaper than Number() on a string. NaN means "not this case".
 */
function parsePlainDecimal(t: string): number {
  const n = t.length;
  let i = 0;
  let c = t.charCodeAt(0);
  const neg = c === 45;
  if (neg || c === 43) i = 1;
  let m = 0;
  let digits = 0;
  let frac = -1;
  for (; i < n; i++) {
    c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && frac < 0) {
      frac = digits;
    } else {
      return NaN;
    }
  }
  if (digits === 0 || digits > 15) return NaN;
  const v = frac < 0 ? m : m / POW10[digits - frac]!;
  return neg ? -v : v;
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * Go `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, within int64. Returns the value
 * as a number (exact up to 2^53, rounded beyond), or undefined when Go would fail.
 */
export function parseGoInt64(t: string): number | undefined {
  const n = t.length;
  let i = 0;
  const c0 = t.charCodeAt(0);
  if (c0 === 43 || c0 === 45) i = 1;
  if (i === n) return undefined;
  for (let k = i; k < n; k++) if (!isDigit(t.charCodeAt(k))) return undefined;
  if (n - i <= 15) return Number(t);
  const big = BigInt(t);
  if (big > INT64_MAX || big < INT64_MIN) return undefined;
  return Number(big);
}

const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;

/**
 * Go's `uint64(f)` as compiled for amd64, which the text parser applies to `_count` and bucket
 * values: fractions are truncated; a negative value wraps around 2^64; NaN and values ≥ 2^64 give
 * 2^63 (the conversion instruction's "indefinite" result). Held as a float64, like every count here.
 */
export function goFloatToUint64(f: number): number {
  if (f >= 0 && f < TWO_63) return Math.trunc(f);
  if (f >= TWO_63 && f < TWO_64) return Math.trunc(f);
  if (f < 0 && f > -TWO_63) return TWO_64 + Math.trunc(f);
  return TWO_63;
}
