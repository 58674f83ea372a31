import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileDateFormat, DEFAULT_DATE_FORMAT, parseDate } from '../../../src/search/syntax/date-format.js';
import { Mappings, dateFormatText, parseDateFor } from '../../../src/search/mapping/mapping.js';

/**
 * Date formats (syntax/date-format.ts): ES's patterns and built-in names, strict ISO parsing, and
 * printing.
 */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

describe('ES date formats', () => {
  it('parses Java patterns with ES defaults for the fields a pattern leaves out', () => {
    expect(compileDateFormat('dd/MM/yyyy').parse('15/06/2021')).toBe(Date.UTC(2021, 5, 15));
    expect(compileDateFormat('yyyy-MM-dd HH:mm:ss').parse('2021-06-15 10:11:12')).toBe(Date.UTC(2021, 5, 15, 10, 11, 12));
    expect(compileDateFormat("yyyy-MM-dd'T'HH:mmXXX").parse('2021-06-15T10:00+02:00')).toBe(Date.UTC(2021, 5, 15, 8));
    expect(compileDateFormat('yyyy').parse('2021')).toBe(Date.UTC(2021, 0, 1));
    expect(compileDateFormat('yyyy-MM').parse('2021-06')).toBe(Date.UTC(2021, 5, 1));
  });

  it('refuses what java.time refuses: wrong shape, impossible days', () => {
    const f = compileDateFormat('dd/MM/yyyy');
    expect(f.parse('2021-06-15')).toBeUndefined();
    expect(f.parse('31/02/2021')).toBeUndefined();
    expect(f.parse('1/06/2021')).toBeUndefined();
    expect(f.parse({})).toBeUndefined();
  });

  it('knows ES built-in names and tries || alternatives in order', () => {
    expect(compileDateFormat('epoch_second').parse(1_600_000_000)).toBe(1_600_000_000_000);
    expect(compileDateFormat('epoch_millis').parse('1600000000000')).toBe(1_600_000_000_000);
    expect(compileDateFormat('basic_date').parse('20210615')).toBe(Date.UTC(2021, 5, 15));
    expect(compileDateFormat('date').parse('2021-06-15')).toBe(Date.UTC(2021, 5, 15));
    expect(compileDateFormat('strict_date_optional_time').parse('2021-06-15T10:00:00Z')).toBe(Date.UTC(2021, 5, 15, 10));
    const either = compileDateFormat('dd/MM/yyyy||epoch_millis');
    expect(either.parse('15/06/2021')).toBe(Date.UTC(2021, 5, 15));
    expect(either.parse(86_400_000)).toBe(86_400_000);
    expect(compileDateFormat(DEFAULT_DATE_FORMAT).parse('2021-06-15')).toBe(parseDate('2021-06-15'));
  });

  it('refuses a pattern java.time would not compile', () => {
    expect(() => compileDateFormat('yyyy-bb')).toThrow(/^Invalid format: \[yyyy-bb\]/);
  });

  it('round-trips any day written as dd/MM/yyyy HH:mm (property)', () => {
    const f = compileDateFormat('dd/MM/yyyy HH:mm');
    fc.assert(
      fc.property(fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), (d) => {
        const ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());
        const text = `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCFullYear(), 4)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
        expect(f.parse(text)).toBe(ms);
      }),
    );
  });

  it('gives a date field its mapping format; a bad format is a mapper_parsing_exception', () => {
    const m = Mappings.parse({ properties: { day: { type: 'date', format: 'dd/MM/yyyy' }, at: { type: 'date' } } });
    const day = m.field('day');
    const at = m.field('at');
    if (day === undefined || at === undefined) throw new Error('fields missing');
    expect(parseDateFor(day, '15/06/2021')).toBe(Date.UTC(2021, 5, 15));
    expect(parseDateFor(day, '2021-06-15')).toBeUndefined();
    expect(dateFormatText(day)).toBe('dd/MM/yyyy');
    expect(parseDateFor(at, '2021-06-15')).toBe(Date.UTC(2021, 5, 15));
    expect(dateFormatText(at)).toBe('strict_date_optional_time||epoch_millis');
    expect(() => Mappings.parse({ properties: { d: { type: 'date', format: 'yyyy-bb' } } })).toThrow(/Error parsing \[format\] on field \[d\]/);
  });
});

describe('missing date components of gt/lte bounds', () => {
  it('take their largest time values, as ES fills them', () => {
    const iso = compileDateFormat(DEFAULT_DATE_FORMAT);
    const end = Date.UTC(2021, 5, 1, 23, 59, 59, 999);
    expect(iso.parse('2021-06-01', true)).toBe(end);
    expect(iso.parse('2021-06-01', false)).toBe(Date.UTC(2021, 5, 1));
    expect(iso.parse('2021-06-01T10:15', true)).toBe(Date.UTC(2021, 5, 1, 10, 15, 59, 999));
    expect(iso.parse('2021-06-01T10:15:00.000Z', true)).toBe(Date.UTC(2021, 5, 1, 10, 15));
    expect(compileDateFormat('dd/MM/yyyy').parse('01/06/2021', true)).toBe(end);
    expect(iso.parse(1000, true)).toBe(1000);
  });
});

// ES's ISO parsers resolve STRICTly: no 29 February outside leap years, no 31st of
// a 30-day month, no hour 24. Date.parse rolls such dates over into the next month or day.
describe('ISO dates java.time refuses', () => {
  it('refuses impossible days and hour 24 with the default format, and keeps real leap days', () => {
    expect(parseDate('2023-02-29')).toBeUndefined();
    expect(parseDate('2021-04-31T10:00:00Z')).toBeUndefined();
    expect(parseDate('2021-06-15T24:00:00Z')).toBeUndefined();
    expect(parseDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDate('2000-02-29T23:59:59.999+01:00')).toBe(Date.UTC(2000, 1, 29, 22, 59, 59, 999));
    expect(compileDateFormat('strict_date_optional_time').parse('2023-02-29')).toBeUndefined();
  });
});

// ES 8 knows these built-in names (and their strict_ forms); they were refused as
// "Unknown pattern letter" at index creation, and a stored mapping naming one stopped the server.
describe('ES built-in format names', () => {
  const cases: [string, string, number][] = [
    ['basic_date_time', '20200102T030405.678Z', Date.UTC(2020, 0, 2, 3, 4, 5, 678)],
    ['basic_date_time', '20200102T030405.678+0100', Date.UTC(2020, 0, 2, 2, 4, 5, 678)],
    ['basic_ordinal_date', '2020032', Date.UTC(2020, 1, 1)],
    ['basic_ordinal_date_time', '2020032T030405.678Z', Date.UTC(2020, 1, 1, 3, 4, 5, 678)],
    ['basic_ordinal_date_time_no_millis', '2020032T030405Z', Date.UTC(2020, 1, 1, 3, 4, 5)],
    ['basic_time', '030405.678Z', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['basic_time_no_millis', '030405Z', Date.UTC(1970, 0, 1, 3, 4, 5)],
    ['basic_t_time', 'T030405.678Z', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['basic_t_time_no_millis', 'T030405Z', Date.UTC(1970, 0, 1, 3, 4, 5)],
    ['date_hour', '2020-01-02T03', Date.UTC(2020, 0, 2, 3)],
    ['date_hour_minute_second_fraction', '2020-01-02T03:04:05.678', Date.UTC(2020, 0, 2, 3, 4, 5, 678)],
    ['hour', '03', Date.UTC(1970, 0, 1, 3)],
    ['hour_minute_second_fraction', '03:04:05.678', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['hour_minute_second_millis', '03:04:05.678', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['ordinal_date', '2020-032', Date.UTC(2020, 1, 1)],
    ['ordinal_date_time', '2020-032T03:04:05.678+01:00', Date.UTC(2020, 1, 1, 2, 4, 5, 678)],
    ['ordinal_date_time_no_millis', '2020-032T03:04:05Z', Date.UTC(2020, 1, 1, 3, 4, 5)],
    ['time', '03:04:05.678Z', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['time_no_millis', '03:04:05+01:00', Date.UTC(1970, 0, 1, 2, 4, 5)],
    ['t_time', 'T03:04:05.678Z', Date.UTC(1970, 0, 1, 3, 4, 5, 678)],
    ['t_time_no_millis', 'T03:04:05Z', Date.UTC(1970, 0, 1, 3, 4, 5)],
    ['basic_date', '20200102', Date.UTC(2020, 0, 2)],
  ];
  it.each(cases)('%s reads %s', (name, value, ms) => {
    expect(compileDateFormat(name).parse(value)).toBe(ms);
    expect(compileDateFormat(`strict_${name}`).parse(value)).toBe(ms);
  });
});

// strict_date_optional_time's month and day are optional, and ES tries it before
// epoch_millis: the string "2020" is the year 2020 (elastic/elasticsearch#63680), "2020-02" is
// February. Rounding up (lte, gt) fills the time of day only, as ES's round-up parser does.
describe('strict_date_optional_time: a year, a year and month', () => {
  it('reads "2020" and "2020-02" as their first day', () => {
    expect(parseDate('2020')).toBe(Date.UTC(2020, 0, 1));
    expect(parseDate('2020-02')).toBe(Date.UTC(2020, 1, 1));
    expect(parseDate('2020-13')).toBeUndefined();
    expect(parseDate('1600000000000')).toBe(1_600_000_000_000);
    expect(compileDateFormat(DEFAULT_DATE_FORMAT).parse('2020')).toBe(Date.UTC(2020, 0, 1));
    expect(compileDateFormat(DEFAULT_DATE_FORMAT).parse('2020-02', true)).toBe(Date.UTC(2020, 1, 1, 23, 59, 59, 999));
    expect(compileDateFormat('epoch_millis').parse('2020')).toBe(2020);
  });
});

describe('DateFormat.print', () => {
  const ms = Date.UTC(2015, 0, 2, 3, 4, 5, 60);
  it('prints with the first alternative, in UTC', () => {
    expect(compileDateFormat('epoch_millis||yyyy-MM-dd').print(ms)).toBe(String(ms));
    expect(compileDateFormat('yyyy-MM-dd||epoch_millis').print(ms)).toBe('2015-01-02');
    expect(compileDateFormat('epoch_second').print(ms)).toBe('1420167845.06');
    expect(compileDateFormat('epoch_second').print(Date.UTC(2015, 0, 1))).toBe('1420070400');
    expect(compileDateFormat('strict_date_optional_time||epoch_millis').print(ms)).toBe('2015-01-02T03:04:05.060Z');
    expect(compileDateFormat('date_time_no_millis').print(ms)).toBe('2015-01-02T03:04:05Z');
    expect(compileDateFormat('basic_date').print(ms)).toBe('20150102');
    expect(compileDateFormat("dd/MM/yyyy HH:mm:ss.SSSXXX").print(ms)).toBe('02/01/2015 03:04:05.060Z');
  });

  it('cannot print a year past js-joda\'s ±999,999 with a pattern: undefined (the stored field then shows ISO 8601, where ES would use the pattern)', () => {
    expect(compileDateFormat('yyyy-MM-dd||epoch_millis').print(1e17)).toBeUndefined();
  });
});
