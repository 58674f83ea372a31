import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SearchError } from '../../../src/search/errors.js';
import { formatTimeValue, parseTimeValue } from '../../../src/search/syntax/time-value.js';

const UNITS: [string, number][] = [['ms', 1], ['s', 1000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000]];

function failure(text: string): { type: string; reason: string } {
  try {
    parseTimeValue(text, 'scroll');
  } catch (e) {
    expect(e).toBeInstanceOf(SearchError);
    return { type: (e as SearchError).type, reason: (e as SearchError).message };
  }
  throw new Error(`${text} parsed`);
}

describe('time values (ES TimeValue)', () => {
  it('reads every unit, in any case and with spaces around', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(...UNITS), fc.boolean(), (n, [unit, ms], upper) => {
        const text = ` ${n}${upper ? unit.toUpperCase() : unit} `;
        expect(parseTimeValue(text, 'scroll')).toBe(n * ms);
      }),
    );
    expect(parseTimeValue('-1', 'scroll')).toBe(-1);
    expect(parseTimeValue('0', 'scroll')).toBe(0);
    expect(parseTimeValue('1500micros', 'scroll')).toBe(1.5);
  });

  it('refuses what ES refuses, with its texts', () => {
    expect(failure('5')).toEqual({ type: 'parse_exception', reason: 'failed to parse setting [scroll] with value [5] as a time value: unit is missing or unrecognized' });
    expect(failure('1x')).toEqual({ type: 'parse_exception', reason: 'failed to parse setting [scroll] with value [1x] as a time value: unit is missing or unrecognized' });
    expect(failure('1.5m')).toEqual({ type: 'parse_exception', reason: 'failed to parse [1.5m], fractional time values are not supported' });
    expect(failure('am')).toEqual({ type: 'parse_exception', reason: 'failed to parse [am]' });
    expect(failure('-2s')).toEqual({ type: 'illegal_argument_exception', reason: 'failed to parse setting [scroll] with value [-2s] as a time value: negative durations are not supported' });
  });

  it('prints durations as ES does: largest unit, one decimal cut, no ".0"', () => {
    expect(formatTimeValue(86_400_000)).toBe('1d');
    expect(formatTimeValue(2 * 86_400_000)).toBe('2d');
    expect(formatTimeValue(25 * 3_600_000)).toBe('1d');
    expect(formatTimeValue(36 * 3_600_000)).toBe('1.5d');
    expect(formatTimeValue(90_000)).toBe('1.5m');
    expect(formatTimeValue(59_999)).toBe('59.9s');
    expect(formatTimeValue(250)).toBe('250ms');
  });
});
