import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupingKeyError } from '../../../src/pushgateway/errors.js';
import {
  encodeGroupingPath,
  groupingKeyId,
  isValidLabelName,
  isValidMetricName,
  parseGroupingKey,
} from '../../../src/pushgateway/store/grouping-key.js';
import type { Label } from '../../../src/pushgateway/model.js';
import { labelNameArb, textArb } from '../exposition/arbitraries.js';

function errorOf(path: string): [number, string] {
  try {
    parseGroupingKey(path);
  } catch (e) {
    expect(e).toBeInstanceOf(GroupingKeyError);
    return [(e as GroupingKeyError).statusCode, (e as Error).message];
  }
  throw new Error(`expected ${path} to be refused`);
}

describe('parseGroupingKey', () => {
  it.each<[string, Label[]]>([
    ['job/batch', [['job', 'batch']]],
    ['job/batch/instance/a', [['instance', 'a'], ['job', 'batch']]],
    ['job@base64/YmF0Y2g/path@base64/L3Zhci90bXA=', [['job', 'batch'], ['path', '/var/tmp']]],
    ['job@base64/YmF0Y2g==/p@base64/L3Zhci90bXA', [['job', 'batch'], ['p', '/var/tmp']]],
    ['job/x/e@base64/=', [['e', ''], ['job', 'x']]],
    ['job/x/e@base64/', [['e', ''], ['job', 'x']]],
    ['job/x/inst/', [['inst', ''], ['job', 'x']]],
    ['job/x/', [['job', 'x']]],
    ['job/x/a/1/a/2', [['a', '2'], ['job', 'x']]],
    ['job/jl/job/other', [['job', 'jl']]],
    ['job/a%20b+c', [['job', 'a b+c']]],
    ['job%2Fbatch', [['job', 'batch']]],
    ['job/x/z/1/b/2/m/3', [['b', '2'], ['job', 'x'], ['m', '3'], ['z', '1']]],
    ['job/%C3%A9t%C3%A9', [['job', 'été']]],
    // req.url holds raw UTF-8 bytes as latin1 chars; a string with chars above U+00FF is taken as text.
    ['job/Ã©tÃ©', [['job', 'été']]],
    ['job/€/a/x€', [['a', 'x€'], ['job', '€']]],
    ['job/x/a@base64/w6l0w6k', [['a', 'été'], ['job', 'x']]],
  ])('%s', (path, expected) => {
    expect(parseGroupingKey(path)).toEqual(expected);
  });

  it.each<[string, number, string]>([
    ['job/x/a/b/c', 400, 'odd number of components in label string "/a/b/c"'],
    ['job/x/a/b%2Fc', 400, 'odd number of components in label string "/a/b/c"'],
    ['job/x/a%2Fb/c', 400, 'odd number of components in label string "/a/b/c"'],
    ['job/x/a-b/1', 400, 'improper label name "a-b"'],
    ['job/x/__a/1', 400, 'improper label name "__a"'],
    ['job/x/__a@base64/YQ', 400, 'improper label name "__a"'],
    ['job/x/1a/1', 400, 'improper label name "1a"'],
    ['job/x//1', 400, 'improper label name ""'],
    ['job@base64/=', 400, 'job name is required'],
    ['job@base64/===', 400, 'job name is required'],
    ['job@base64/=/job/a@base64%2FYQ', 400, 'odd number of components in label string "/job/a@base64/YQ"'],
    ['job@base64/=/a-b/1', 400, 'improper label name "a-b"'],
    ['job/x/a@base64/foo.bar', 400, 'invalid base64 encoding for label a="foo.bar": illegal base64 data at input byte 3'],
    ['job/x/a@base64/YQ+', 400, 'invalid base64 encoding for label a="YQ+": illegal base64 data at input byte 2'],
    ['job/x/a@base64/Y', 400, 'invalid base64 encoding for label a="Y": illegal base64 data at input byte 0'],
    ['job/x/a@base64/YWJjZ', 400, 'invalid base64 encoding for label a="YWJjZ": illegal base64 data at input byte 4'],
    ['job@base64/foo.bar', 400, 'invalid base64 encoding in job name "": illegal base64 data at input byte 3'],
    ['job@base64/YmF0Y.2g', 400, 'invalid base64 encoding in job name "bat": illegal base64 data at input byte 5'],
    ['job/x/a/%zz', 400, 'invalid URL escape "%zz"'],
    ['job/x/%FF/1', 400, 'improper label name "\\xff"'],
    ['job/x/%C3%A9/1', 400, 'improper label name "é"'],
    [
      'job/été',
      400,
      'pushed metrics are invalid or inconsistent with existing metrics: grouping key label named "job" has a value that is not utf8: "\\xe9t\\xe9"',
    ],
    ['job/x/a@base64/w6%FF', 400, 'invalid base64 encoding for label a="w6\\xff": illegal base64 data at input byte 2'],
    [
      'job@base64/_w',
      400,
      'pushed metrics are invalid or inconsistent with existing metrics: grouping key label named "job" has a value that is not utf8: "\\xff"',
    ],
    [
      'job/x/a/%FF%C3',
      400,
      'pushed metrics are invalid or inconsistent with existing metrics: grouping key label named "a" has a value that is not utf8: "\\xff\\xc3"',
    ],
    ['foo/bar', 404, '404 page not found'],
    ['job', 404, '404 page not found'],
    ['job/', 404, '404 page not found'],
    ['', 404, '404 page not found'],
  ])('%s → %d %s', (path, status, message) => {
    expect(errorOf(path)).toEqual([status, message]);
  });
});

describe('groupingKeyId', () => {
  it('is the sorted name\\xffvalue pairs joined by \\xff, independent of order', () => {
    expect(groupingKeyId([['job', 'j'], ['a', '1']])).toBe('a\xff1\xffjob\xffj');
    expect(groupingKeyId([['a', '1'], ['job', 'j']])).toBe(groupingKeyId([['job', 'j'], ['a', '1']]));
    expect(groupingKeyId([])).toBe('');
  });

  it('cannot confuse a value containing ÿ or \\ with a separator', () => {
    expect(groupingKeyId([['a', 'x\xffb\xffy']])).not.toBe(groupingKeyId([['a', 'x'], ['b', 'y']]));
    expect(groupingKeyId([['a', 'x\xffb\xffy']])).toBe('a\xffx\\xffb\\xffy');
    expect(groupingKeyId([['a', '\\xff']])).not.toBe(groupingKeyId([['a', '\xff']]));
    const value = fc.string({ unit: fc.constantFrom('\xff', '\\', 'x', 'b', 'a'), maxLength: 6 });
    const labelSet = fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'job'), value), { selector: (l) => l[0] });
    fc.assert(
      fc.property(labelSet, labelSet, (a, b) => {
        const sort = (ls: [string, string][]): [string, string][] => [...ls].sort((x, y) => (x[0] < y[0] ? -1 : 1));
        const same = JSON.stringify(sort(a)) === JSON.stringify(sort(b));
        expect(groupingKeyId(a) === groupingKeyId(b)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('encodeGroupingPath', () => {
  it('puts job first, sorts the rest, and base64-encodes empty values and slashes', () => {
    expect(encodeGroupingPath([['z', ''], ['job', 'a/b'], ['a', 'x y+%']])).toBe('job@base64/YS9i/a/x%20y%2B%25/z@base64/=');
    expect(encodeGroupingPath([['job', '..']])).toBe('job@base64/Li4');
  });

  it('refuses a missing or empty job and improper names', () => {
    expect(() => encodeGroupingPath([['a', 'b']])).toThrow('job name is required');
    expect(() => encodeGroupingPath([['job', '']])).toThrow('job name is required');
    expect(() => encodeGroupingPath([['job', 'x'], ['a-b', '1']])).toThrow('improper label name "a-b"');
  });

  it('round-trips through parseGroupingKey for any values', () => {
    const labels = fc.uniqueArray(
      fc.tuple(
        labelNameArb.filter((n) => n !== 'job'),
        textArb,
      ),
      { selector: (l) => l[0], maxLength: 5 },
    );
    const job = textArb.filter((v) => v.length > 0);
    fc.assert(
      fc.property(job, labels, (j, ls) => {
        const all: Label[] = [['job', j], ...ls.map(([n, v]): Label => [n, v])];
        const sorted = [...all].sort((a, b) => (a[0] < b[0] ? -1 : 1));
        expect(parseGroupingKey(encodeGroupingPath(all))).toEqual(sorted);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('name validity', () => {
  it('follows the legacy Prometheus character sets', () => {
    expect(['a', '_', 'A_9', '__x'].every(isValidLabelName)).toBe(true);
    expect(['', '9a', 'a-b', 'a:b', 'é'].some(isValidLabelName)).toBe(false);
    expect(['a', ':a', 'a:b_9'].every(isValidMetricName)).toBe(true);
    expect(['', '9a', 'a-b', 'a b'].some(isValidMetricName)).toBe(false);
  });
});
