import { describe, expect, it } from 'vitest';
import { compileDateFormat } from '../../src/search/date-format.js';

// FAILING (second reader): formats ES 8 accepts in a mapping that index creation still refuses
// with mapper_parsing_exception. (A stored mapping naming one loads since bd2af30, reading dates
// with the default format.)
describe('date formats ES 8 accepts and Portico refuses', () => {
  // Week-based built-ins: ES builds them on week fields (weekBasedYear, weekOfWeekBasedYear,
  // day of week); js-joda's ofPattern has no locale-free week letters. Values are left to the fix:
  // ES 8 takes its week definition from WEEK_FIELDS_ROOT, check which before asserting days.
  it.each(['week_date', 'week_date_time', 'week_date_time_no_millis', 'basic_week_date', 'basic_week_date_time', 'basic_week_date_time_no_millis', 'weekyear', 'weekyear_week', 'weekyear_week_day'])(
    '%s and its strict_ form compile',
    (name) => {
      expect(() => compileDateFormat(name)).not.toThrow();
      expect(() => compileDateFormat(`strict_${name}`)).not.toThrow();
    },
  );

  // Month and day names (Locale.ROOT texts in ES): js-joda needs its locale plugin for MMM/EEE/a.
  it('reads month and day names and am/pm', () => {
    expect(compileDateFormat('dd MMM yyyy').parse('01 Feb 2020')).toBe(Date.UTC(2020, 1, 1));
    expect(compileDateFormat('EEE, dd MMM yyyy HH:mm:ss Z').parse('Sat, 01 Feb 2020 10:00:00 +0100')).toBe(Date.UTC(2020, 1, 1, 9));
    expect(compileDateFormat('yyyy-MM-dd hh:mm:ss a').parse('2020-02-01 10:00:00 PM')).toBe(Date.UTC(2020, 1, 1, 22));
  });
});
