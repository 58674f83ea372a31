import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGoFloat, formatSampleValue } from '../../../src/pushgateway/exposition/go-float.js';

type Rational = [num: bigint, den: bigint];

/** The exact value of a positive double. */
function exactDouble(v: number): Rational {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = expBits === 0 ? frac : frac | (1n << 52n);
  const exp = expBits === 0 ? -1074 : expBits - 1075;
  return exp >= 0 ? [mant << BigInt(exp), 1n] : [mant, 1n << BigInt(-exp)];
}

/** The exact value of "d.ddde±x". */
function exactDecimal(s: string): Rational {
  const [mant, e] = s.split('e') as [string, string];
  const fracDigits = mant.includes('.') ? mant.length - mant.indexOf('.') - 1 : 0;
  const digits = BigInt(mant.replace('.', ''));
  const k = Number(e) - fracDigits;
  return k >= 0 ? [digits * 10n ** BigInt(k), 1n] : [digits, 10n ** BigInt(-k)];
}

/** Compares |a - x| with |b - x|. */
function closer(a: Rational, b: Rational, x: Rational): number {
  const abs = (n: bigint): bigint => (n < 0n ? -n : n);
  const da = abs(a[0] * x[1] - x[0] * a[1]) * b[1];
  const db = abs(b[0] * x[1] - x[0] * b[1]) * a[1];
  return da < db ? -1 : da > db ? 1 : 0;
}

/**
 * An independent model of Go's FormatFloat(v, 'g', -1, 64): the fewest significant digits that
 * round-trip, the closest such digits to the exact value (ties to even), then Go's %e/%f choice
 * (exponent < -4 or >= 6 gives %e, with at least two exponent digits).
 */
function referenceGoFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const sign = v < 0 ? '-' : '';
  const abs = Math.abs(v);
  let s = '';
  let p = 0;
  for (; p <= 16; p++) {
    s = abs.toExponential(p);
    if (Number(s) === abs) break;
  }
  // toExponential rounds ties up; the digit string one below may round-trip and win the tie.
  const [m, e] = s.split('e') as [string, string];
  const lastDigit = Number(m[m.length - 1]);
  if (lastDigit > 0) {
    const lower = `${m.slice(0, -1)}${lastDigit - 1}e${e}`;
    if (Number(lower) === abs) {
      const c = closer(exactDecimal(lower), exactDecimal(s), exactDouble(abs));
      if (c < 0 || (c === 0 && (lastDigit - 1) % 2 === 0)) s = lower;
    }
  }
  const [mant, expText] = s.split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const mm = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    return `${sign}${mm}e${exp < 0 ? '-' : '+'}${ae < 10 ? `0${ae}` : ae}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${'0'.repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

describe('formatGoFloat', () => {
  // Vectors observed on Pushgateway 1.5.1 (reference section "Exposition on GET /metrics") and Go docs.
  it.each([
    [100000, '100000'],
    [1000000, '1e+06'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e20, '1e+20'],
    [1795330895.6732006, '1.7953308956732006e+09'],
    [12345678, '1.2345678e+07'],
    [0.1, '0.1'],
    [-2.5, '-2.5'],
    [1.5e-7, '1.5e-07'],
    [1e100, '1e+100'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [999999, '999999'],
    [999999.5, '999999.5'],
    [0.000123, '0.000123'],
    // The exact value ends in ...469.25: a tie between two 17-digit strings, resolved to even.
    [Number('-1128819997049469.2'), '-1.1288199970494692e+15'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
    [0, '0'],
    [-0, '-0'],
  ])('formats %s as %s', (v, expected) => {
    expect(formatGoFloat(v)).toBe(expected);
  });

  it('agrees with an independent model of Go for any double', () => {
    fc.assert(
      fc.property(fc.double(), (v) => {
        expect(formatGoFloat(v)).toBe(referenceGoFloat(v));
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips through Number() for every finite double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        expect(Object.is(Number(formatGoFloat(v)), v)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips integers around the exponent switch', () => {
    for (let e = 0; e < 22; e++) {
      for (const v of [10 ** e, 10 ** e - 1, 10 ** e + 1, 1.5 * 10 ** e]) {
        expect(Number(formatGoFloat(v))).toBe(v);
        expect(formatGoFloat(v)).toBe(referenceGoFloat(v));
      }
    }
  });
});

describe('formatSampleValue', () => {
  it('prints negative zero as 0, as client_golang does', () => {
    expect(formatSampleValue(-0)).toBe('0');
    expect(formatSampleValue(1e6)).toBe('1e+06');
  });
});
