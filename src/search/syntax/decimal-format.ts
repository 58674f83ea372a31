/**
 * The plain patterns of Java's DecimalFormat, as ES applies them to numeric doc values
 * (`docvalue_fields` with `format: "0.00"`): digits `0` (always written) and `#` (written when
 * needed), a decimal point, and `,` grouping in the integer part; rounded HALF_EVEN on the double's
 * exact binary value, as DecimalFormat rounds. Patterns with anything else (prefixes, suffixes,
 * `%`, exponents, quotes, a negative subpattern) are not read here: undefined.
 */
export function decimalFormat(pattern: string): ((n: number) => string) | undefined {
  const m = /^([#,]*)([0,]*)(?:\.(0*)(#*))?$/.exec(pattern);
  if (m === null || pattern === '' || pattern.endsWith(',') || pattern.includes(',.')) return undefined;
  const intPart = `${m[1] ?? ''}${m[2] ?? ''}`;
  let minInt = (m[2] ?? '').replaceAll(',', '').length;
  // DecimalFormat.applyPattern: a pattern of `#` alone with a decimal point ("#.##") gets one
  // required integer digit ("0.46"); one with no integer digit at all (".##") shifts its digits,
  // which is not read here.
  if (!pattern.includes('0') && pattern.includes('.')) {
    if (intPart.replaceAll(',', '') === '') return undefined;
    minInt = 1;
  }
  const lastComma = intPart.lastIndexOf(',');
  const grouping = lastComma === -1 ? 0 : intPart.length - lastComma - 1;
  const minFrac = (m[3] ?? '').length;
  const maxFrac = minFrac + (m[4] ?? '').length;
  const decimalPoint = pattern.includes('.');
  return (n) => format(n, { minInt, grouping, minFrac, maxFrac, decimalPoint });
}

interface Shape {
  readonly minInt: number;
  readonly grouping: number;
  readonly minFrac: number;
  readonly maxFrac: number;
  readonly decimalPoint: boolean;
}

/** The exact decimal digits of a finite double: [integer digits, fraction digits]. */
function exactDecimal(abs: number): [string, string] {
  if (Number.isInteger(abs)) return [BigInt(abs).toString(), ''];
  // abs = mantissa / 2^k exactly; times 5^k over 10^k gives its decimal expansion.
  let k = 0;
  let x = abs;
  while (!Number.isInteger(x)) {
    x *= 2;
    k++;
  }
  const digits = (BigInt(x) * 5n ** BigInt(k)).toString().padStart(k + 1, '0');
  return [digits.slice(0, digits.length - k), digits.slice(digits.length - k)];
}

/**
 * The digits DecimalFormat starts from (DigitList.set): the shortest decimal that reads back as
 * the double, as Double.toString writes it, not its exact binary expansion (3.4028235E38 is
 * 340282350000000000000000000000000000000).
 */
function shortestDecimal(abs: number): [string, string] {
  const [mantissa = '0', exponent = '0'] = abs.toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const pointAt = Number(exponent) + 1;
  if (pointAt <= 0) return ['0', '0'.repeat(-pointAt) + digits];
  if (pointAt >= digits.length) return [digits + '0'.repeat(pointAt - digits.length), ''];
  return [digits.slice(0, pointAt), digits.slice(pointAt)];
}

/**
 * HALF_EVEN rounding of the decimal `int.frac` to `places` fraction digits. A tie in those digits
 * is decided by the double's exact value (`exact`), as DecimalFormat does since JDK 8: 2.675 is
 * 2.67499999… and rounds down to 2.67.
 */
function roundHalfEven(int: string, frac: string, places: number, exact: () => [string, string]): [string, string] {
  if (frac.length <= places) return [int, frac];
  const kept = frac.slice(0, places);
  const rest = frac.slice(places);
  let first = rest.charCodeAt(0) - 48;
  let beyond = /[1-9]/.test(rest.slice(1));
  if (first === 5 && !beyond) {
    const exactRest = exact()[1].slice(places);
    first = exactRest.charCodeAt(0) - 48;
    beyond = /[1-9]/.test(exactRest.slice(1));
    if (Number.isNaN(first)) first = 0;
  }
  const lastDigit = (places > 0 ? kept : int).charCodeAt((places > 0 ? kept : int).length - 1) - 48;
  const up = first > 5 || (first === 5 && (beyond || lastDigit % 2 === 1));
  if (!up) return [int, kept];
  const joined = (BigInt(int + kept) + 1n).toString().padStart(int.length + places, '0');
  return [joined.slice(0, joined.length - places), joined.slice(joined.length - places)];
}

function format(n: number, s: Shape): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '∞' : '-∞';
  const abs = Math.abs(n);
  const [int0, frac0] = shortestDecimal(abs);
  const [intR, fracR] = roundHalfEven(int0, frac0, s.maxFrac, () => exactDecimal(abs));
  let frac = fracR.replace(/0+$/, '');
  if (frac.length < s.minFrac) frac = frac.padEnd(s.minFrac, '0');
  let int = intR.replace(/^0+/, '');
  if (int.length < s.minInt) int = int.padStart(s.minInt, '0');
  if (s.grouping > 0) int = int.replace(new RegExp(`\\B(?=(\\d{${s.grouping}})+$)`, 'g'), ',');
  const body = frac.length > 0 ? `${int}.${frac}` : s.decimalPoint && s.minFrac > 0 ? `${int}.` : int;
  const text = body === '' ? '0' : body;
  // Java keeps the sign of a negative number that rounds to zero ("-0.00"), and of -0.0.
  return n < 0 || Object.is(n, -0) ? `-${text}` : text;
}
