import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DateMathError, DateMathParser } from '../../../src/search/syntax/date-math.js';

const ISO = 'strict_date_optional_time||epoch_millis';
const NOW = Date.UTC(2021, 5, 15, 13, 14, 15, 678); // a Tuesday
const at = (value: unknown, roundUp = false, extra: { format?: string; timeZone?: string } = {}) =>
  new DateMathParser().parse(value, { format: extra.format ?? ISO, now: NOW, roundUp, ...(extra.timeZone === undefined ? {} : { timeZone: extra.timeZone }) });

describe('date math for range bounds', () => {
  it('reads now, anchors and operations left to right', () => {
    expect(at('now')).toBe(NOW);
    expect(at('now-1d')).toBe(NOW - 86_400_000);
    expect(at('now+2h')).toBe(NOW + 7_200_000);
    expect(at('now/d')).toBe(Date.UTC(2021, 5, 15));
    expect(at('now/d', true)).toBe(Date.UTC(2021, 5, 16) - 1);
    expect(at('now/w')).toBe(Date.UTC(2021, 5, 14));
    expect(at('now/M+1M-1d')).toBe(Date.UTC(2021, 5, 30));
    expect(at('2020-01-01||+1M/M')).toBe(Date.UTC(2020, 1, 1));
    expect(at('2020-01-31||+1M')).toBe(Date.UTC(2020, 1, 29)); // the day is clamped as java.time does
    expect(at('2020-03-01||-1y')).toBe(Date.UTC(2019, 2, 1));
  });

  it('rounds a date without time up to the last millisecond of its day, but not an anchor with math', () => {
    expect(at('2020-01-31', true)).toBe(Date.UTC(2020, 0, 31, 23, 59, 59, 999));
    expect(at('2020-01-31T10', true)).toBe(Date.UTC(2020, 0, 31, 10, 59, 59, 999));
    expect(at('2020-01-31T10:00:00', true)).toBe(Date.UTC(2020, 0, 31, 10, 0, 0, 999));
    expect(at('2020-01-31', false)).toBe(Date.UTC(2020, 0, 31));
    // ES parses the anchor before || without round-up.
    expect(at('2020-01-31||+1d', true)).toBe(Date.UTC(2020, 1, 1));
    expect(at('31/01/2020', true, { format: 'dd/MM/yyyy' })).toBe(Date.UTC(2020, 0, 31, 23, 59, 59, 999));
    expect(at(1_600_000_000_000, true)).toBe(1_600_000_000_000);
  });

  it('places dates without an offset, and rounds, in time_zone; epoch values and explicit offsets ignore it', () => {
    expect(at('2020-01-31T11:00:00', false, { timeZone: '+01:00' })).toBe(Date.UTC(2020, 0, 31, 10));
    expect(at('2020-01-31T11:00:00Z', false, { timeZone: '+01:00' })).toBe(Date.UTC(2020, 0, 31, 11));
    expect(at('2020-07-01', false, { timeZone: 'Europe/Paris' })).toBe(Date.UTC(2020, 5, 30, 22));
    expect(at('1600000000000', false, { timeZone: 'Europe/Paris' })).toBe(1_600_000_000_000);
    expect(at('now/d', false, { timeZone: '-05:00' })).toBe(Date.UTC(2021, 5, 15, 5));
    expect(at('15/06/2021 10:00 +0200', false, { format: 'dd/MM/yyyy HH:mm xx', timeZone: '-05:00' })).toBe(Date.UTC(2021, 5, 15, 8));
  });

  it('refuses malformed math and dates the format does not read', () => {
    const kind = (v: string) => {
      try {
        at(v);
        return 'ok';
      } catch (e) {
        return e instanceof DateMathError ? e.kind : 'other';
      }
    };
    expect(kind('now*1d')).toBe('math');
    expect(kind('now+1')).toBe('math');
    expect(kind('now/2d')).toBe('math');
    expect(kind('now+1q')).toBe('math');
    expect(kind('nope')).toBe('format');
    expect(kind('nope||+1d')).toBe('format');
    expect(() => at('now', false, { timeZone: 'Mars/Olympus' })).toThrow(DateMathError);
  });

  it('brackets every instant between its unit rounded down and up, which are one unit apart less 1 ms', () => {
    const units = fc.constantFrom('y', 'M', 'w', 'd', 'h', 'm', 's');
    const instant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) });
    const zone = fc.constantFrom(undefined, '+05:30', '-08:00', 'Europe/Paris', 'America/New_York');
    fc.assert(
      fc.property(instant, units, zone, (t, unit, timeZone) => {
        const opts = { format: ISO, now: t, ...(timeZone === undefined ? {} : { timeZone }) };
        const parser = new DateMathParser();
        const down = parser.parse(`now/${unit}`, { ...opts, roundUp: false });
        const up = parser.parse(`now/${unit}`, { ...opts, roundUp: true });
        expect(down).toBeLessThanOrEqual(t);
        expect(up).toBeGreaterThanOrEqual(t);
        // The next unit starts right after the round-up.
        expect(parser.parse(`now/${unit}`, { ...opts, now: up + 1, roundUp: false })).toBe(up + 1);
      }),
      { numRuns: 300 },
    );
  });
});

// ES's epoch_second round-up parser defaults the nanoseconds to 999,999,999 when
// the value has no fraction (EpochTime.SECONDS_FORMATTER), so lte/gt cover the whole second.
describe('date math: epoch_second round-up, bad formats and dates out of range', () => {
  it('rounds an epoch_second bound without a fraction up to the last millisecond of that second', () => {
    expect(at(1600000000, true, { format: 'epoch_second' })).toBe(1600000000999);
    expect(at('1600000000', true, { format: 'epoch_second' })).toBe(1600000000999);
    expect(at(1600000000, false, { format: 'epoch_second' })).toBe(1600000000000);
    expect(at('1600000000.5', true, { format: 'epoch_second' })).toBe(1600000000500);
    expect(at(1600000000000, true)).toBe(1600000000000);
  });

  it('refuses a format that does not compile and an anchor or result out of range with a DateMathError', () => {
    expect(() => at('2020-01-01', false, { format: 'bogus_format' })).toThrow(DateMathError);
    expect(() => at('100000000000000000000||+1d')).toThrow(DateMathError);
    expect(() => at('2020-01-01||+300000000y')).toThrow(DateMathError);
  });
});

describe('date math: built-in names with an offset', () => {
  it('leaves dates read with an offset out of time_zone', () => {
    expect(at('2020-032T03:04:05+01:00', false, { format: 'ordinal_date_time_no_millis', timeZone: '+05:00' })).toBe(Date.UTC(2020, 1, 1, 2, 4, 5));
    expect(at('20200102T030405.678Z', false, { format: 'strict_basic_date_time', timeZone: 'Europe/Paris' })).toBe(Date.UTC(2020, 0, 2, 3, 4, 5, 678));
    expect(at('2020-01-02T03', false, { format: 'date_hour', timeZone: '+01:00' })).toBe(Date.UTC(2020, 0, 2, 2));
  });
});
