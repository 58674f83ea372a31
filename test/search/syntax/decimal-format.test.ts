import { describe, expect, it } from 'vitest';
import { decimalFormat } from '../../../src/search/syntax/decimal-format.js';

describe('DecimalFormat patterns for numeric doc values', () => {
  const f = (pattern: string, n: number) => (decimalFormat(pattern) as (n: number) => string)(n);

  it('writes digits as java.text.DecimalFormat does', () => {
    expect(f('0.00', 3.14159)).toBe('3.14');
    expect(f('#.0', 5)).toBe('5.0');
    expect(f('#,##0.0', 1234567.89)).toBe('1,234,567.9');
    expect(f('0000', 42)).toBe('0042');
    // A pattern of # with a point has one required integer digit (DecimalFormat.applyPattern).
    expect(f('#.##', 0.456)).toBe('0.46');
    expect(f('#.#', 0.1)).toBe('0.1');
    expect(f('#', 0)).toBe('0');
    expect(f('0.0', -2.25)).toBe('-2.2');
  });

  it('rounds half-even on the exact binary value of the double', () => {
    expect(f('0.00', 0.125)).toBe('0.12');
    expect(f('0.00', 0.375)).toBe('0.38');
    // 2.675 is 2.67499999999999982236431605997495353221893310546875 as a double.
    expect(f('0.00', 2.675)).toBe('2.67');
    expect(f('0', 2.5)).toBe('2');
    expect(f('0', 3.5)).toBe('4');
  });

  it('starts from the shortest decimal of the double, as Double.toString writes it', () => {
    expect(f('#.#', -3.4028234663852886e38)).toBe('-340282346638528860000000000000000000000');
    expect(f('0.0', 1e-7)).toBe('0.0');
  });

  it('reads no pattern it cannot write exactly', () => {
    for (const p of ['0.0%', '$#.00', '0.###E0', "'x'0", '#.#;(#.#)', '.##']) expect(decimalFormat(p)).toBeUndefined();
  });
});
